// A Dataset over statements held in memory: the W3C tests' data, the randomized test's reference.
// Indexed by subject, predicate and object within each graph, enough for some thousands of
// statements. Owned by its user; one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "graph/term.h"
#include "sparql/dataset.h"

namespace webindex::sparql {

class MemoryDataset : public Dataset {
 public:
  //! Adds `statement` to its graph (unset: the default graph); a duplicate is ignored.
  void Add(graph::Statement statement);
  size_t size() const { return statements_.size(); }

  Status Scan(const graph::Pattern& pattern, const Visitor& fn) override;
  uint64_t Estimate(const graph::Pattern& pattern) override;
  Status NamedGraphs(const std::function<bool(const graph::Term& name)>& fn) override;
  //! Every statement checked as the store's indexes would hold it (by default both kept, every
  //! predicate temporal): the reference the store's index scans are compared with.
  Status ScanTemporal(const graph::TemporalQuery& query, const Visitor& fn) override;
  Status ScanText(const graph::TextSearch& search, const Visitor& fn) override;
  graph::IndexSet Indexes() override { return indexes_; }
  //! Exact counts (`up_to` is not needed in memory).
  uint64_t EstimateTemporal(const graph::TemporalQuery& query, uint64_t up_to) override;
  uint64_t EstimateText(const graph::TextSearch& search, uint64_t up_to) override;
  //! The indexes the scans act as if kept (tests of plans under `temporal_predicates`).
  void SetIndexes(graph::IndexSet indexes) { indexes_ = std::move(indexes); }

 private:
  struct TermHash {
    size_t operator()(const graph::Term& t) const;
  };
  //! Positions into statements_ of one graph, by subject, predicate and object.
  struct GraphIndex {
    std::vector<uint32_t> all;
    std::unordered_map<graph::Term, std::vector<uint32_t>, TermHash> by_s, by_p, by_o;
  };
  //! The smallest candidate list of `pattern` within `index`.
  const std::vector<uint32_t>& Candidates(const GraphIndex& index, const graph::Pattern& pattern) const;
  Status ScanGraph(const GraphIndex& index, const graph::Pattern& pattern, const Visitor& fn, bool* more);

  std::vector<graph::Statement> statements_;
  std::map<graph::Statement, uint32_t> seen_;
  GraphIndex default_;
  std::map<graph::Term, GraphIndex> named_;
  graph::IndexSet indexes_{.temporal = true, .temporal_predicates = {}, .freetext = true};
};

}  // namespace webindex::sparql
