// The indexes derived from statements (docs/graph.md §4-5): which ones a generation keeps, and
// their rows, written by GraphUpdate in the same batch as the statements' four rows, so that a
// statement and its index entries come and go together. Stateless; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "graph/key_codec.h"
#include "state/store.h"
#include "graph/term.h"

namespace webindex::graph {

//! Row kinds after the key space prefix, beside the four statement orders (01-04).
inline constexpr char kTemporalRows = 0x05;             //!< graph | instant | s p o
inline constexpr char kTemporalByPredicateRows = 0x06;  //!< graph | p | instant | s p o
inline constexpr char kTextRows = 0x07;                 //!< graph | token | s p o
inline constexpr char kTextReversedRows = 0x08;         //!< graph | token reversed | s p o

//! The derived indexes a generation maintains.
struct IndexSet {
  bool temporal = false;
  //! Temporal: only statements with these predicates (IRIs); empty: every predicate.
  std::vector<std::string> temporal_predicates;
  bool freetext = false;

  bool operator==(const IndexSet&) const = default;
};

//! Rows to write (a key, and put or delete), their keys appended one after the other to one
//! buffer: a batch of statements writes 4 to 20 rows each, and a string per row would cost an
//! allocation and a free per row. One thread.
class RowBuffer {
 public:
  //! Starts a row: its key is what is appended to the returned buffer until End.
  std::string& Begin() { return bytes_; }
  void End(bool put) {
    rows_.push_back({begun_, bytes_.size() - begun_, put});
    begun_ = bytes_.size();
  }
  void Add(std::string_view key, bool put) {
    Begin().append(key);
    End(put);
  }
  size_t size() const { return rows_.size(); }
  //! The bytes of all keys.
  size_t bytes() const { return bytes_.size(); }
  std::string_view key(size_t i) const { return std::string_view(bytes_).substr(rows_[i].offset, rows_[i].size); }
  bool put(size_t i) const { return rows_[i].put; }
  //! Orders the rows by key, a delete before a put of the same key (which then wins).
  void Sort();

 private:
  struct Row {
    size_t offset, size;
    bool put;
  };
  std::string bytes_;
  std::vector<Row> rows_;
  size_t begun_ = 0;
};

//! What writing a statement's index rows noticed.
struct IndexNotes {
  //! Objects typed xsd:dateTime that do not parse: stored as statements, not indexed.
  uint64_t unparsed_dates = 0;
  std::string last_unparsed;  //!< the last such lexical form, for a warning
};

//! Appends the derived rows of `statement` (puts when `add`, deletes otherwise) to `rows`.
void AppendIndexRows(const IndexSet& indexes, const KeySpace& space, const Statement& statement, bool add,
                     RowBuffer* rows, IndexNotes* notes);

//! kMeta keys of a generation's derived indexes, written when it is set up: "1" or "0" (absent:
//! "0", a generation set up before they existed), and the temporal predicates, one IRI per line.
inline constexpr char kTemporalKey[] = "indexes/temporal";
inline constexpr char kFreeTextKey[] = "indexes/freetext";
inline constexpr char kTemporalPredicatesKey[] = "indexes/temporal_predicates";

//! The derived indexes recorded in a generation's store.
Result<IndexSet> RecordedIndexes(state::Store& store);
//! Records `indexes` in `batch` (with the generation's set-up).
void RecordIndexes(const IndexSet& indexes, state::WriteBatch* batch);

}  // namespace webindex::graph
