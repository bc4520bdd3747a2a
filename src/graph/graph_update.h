// Adds and removes statements with set semantics, as rows of a caller's WriteBatch, so that a
// stage commits them atomically with its own state, positions and outgoing records.
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "graph/index_set.h"
#include "graph/key_codec.h"
#include "graph/term.h"
#include "state/store.h"

namespace webindex::graph {

//! What one Apply changed: the statements actually added and removed (in statement order), for
//! counters and for indexes derived from statements; `unchanged` counts the other final ops.
struct ApplyResult {
  std::vector<Statement> added;
  std::vector<Statement> removed;
  uint64_t unchanged = 0;
  IndexNotes notes;  //!< from the derived indexes' rows
};

//! The statements a batch changes or confirms, each with whether it is present after the batch:
//! what a stage that processes a batch while the previous one is being written reads instead of
//! the store for those statements (pipeline::Stage::OverlapsCommits).
class BatchStatements {
 public:
  //! Notes a statement after those noted since Clear: keys in increasing order.
  void NoteNext(std::string&& spo_key, bool present) {
    assert(present_.empty() || present_.back().first < spo_key);
    present_.emplace_back(std::move(spo_key), present);
  }
  void Clear() { present_.clear(); }
  size_t size() const { return present_.size(); }

  //! Finds keys in increasing order, each search going on from where the last one ended.
  class Cursor {
   public:
    explicit Cursor(const BatchStatements& batch) : batch_(batch) {}
    //! Present after the batch: nullopt when the batch did not touch the statement of `spo_key`.
    std::optional<bool> Find(std::string_view spo_key) {
      const auto& v = batch_.present_;
      while (next_ < v.size() && v[next_].first < spo_key) ++next_;
      if (next_ == v.size() || v[next_].first != spo_key) return std::nullopt;
      return v[next_].second;
    }

   private:
    const BatchStatements& batch_;
    size_t next_ = 0;
  };

 private:
  std::vector<std::pair<std::string, bool>> present_;  //!< by key
};

//! The graph changes of one batch: the last Add or Remove of a statement wins. Owned by the
//! stage for one batch and used on its thread; Apply reads the committed state (and Collect, the
//! statements of a batch not written yet it is given, before it), so every change of a batch goes
//! through one GraphUpdate, applied once, before the batch is written.
class GraphUpdate {
 public:
  //! `indexes`: the derived indexes whose rows change with the statements.
  explicit GraphUpdate(KeySpace space = {}, IndexSet indexes = {})
      : space_(std::move(space)), indexes_(std::move(indexes)) {}

  //! InvalidArgument (and nothing recorded) for a statement the store cannot hold.
  Status Add(Statement statement) { return Record(std::move(statement), true); }
  Status Remove(Statement statement) { return Record(std::move(statement), false); }
  //! The same for a statement the caller has checked with ValidateStatement (StatementParser
  //! checks each statement it parses, and names the line of a bad one).
  void AddValid(Statement statement) { Put(std::move(statement), true); }
  void RemoveValid(Statement statement) { Put(std::move(statement), false); }
  //! Ops recorded and not applied yet (a statement recorded twice counts twice).
  size_t size() const { return ops_.size(); }

  //! Reads which of the touched statements are present in `store` (committed state), and adds
  //! to `batch` the rows of those that change: 4 puts per statement added, 4 deletes per
  //! statement removed, and the same for their derived index rows. Adding a present statement or removing an absent one writes nothing.
  //! Clears the update.
  Result<ApplyResult> Apply(state::Store& store, state::WriteBatch& batch);
  //! Apply's first part, safe on any thread (updates of distinct subjects in parallel): reads
  //! `store` and leaves the rows, sorted, in `rows`, for rows->AddTo(space().family, batch).
  //! `before` (optional): the statements of an earlier batch not written yet, read instead of
  //! the store. `after` (optional, may be `before`) is then cleared and notes every statement of
  //! this update.
  Result<ApplyResult> Collect(state::Store& store, state::SortedWrites* rows, const BatchStatements* before = nullptr,
                              BatchStatements* after = nullptr);
  const KeySpace& space() const { return space_; }

 private:
  Status Record(Statement statement, bool add);
  void Put(Statement statement, bool add);
  struct Op {
    std::string key;  //!< the statement's SPO row key
    Statement statement;
    bool add = true;
  };
  KeySpace space_;
  IndexSet indexes_;
  std::vector<Op> ops_;  //!< in the order recorded
  std::vector<uint32_t> order_;  //!< Collect's: the final op of each statement, by key
  std::vector<uint32_t> changed_;  //!< Collect's: of them, those that change the store
  std::vector<std::string> sop_;  //!< Collect's: the SOP keys of one subject's statements
  std::vector<uint32_t> sop_order_;
};

}  // namespace webindex::graph
