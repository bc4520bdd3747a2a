// The statements a SPARQL query reads: an interface the evaluator scans through, so the same
// evaluator runs over the graph store (its four orders, store_dataset.h) and over statements in
// memory (memory_dataset.h: the W3C tests, the randomized test's reference data). One query
// uses a dataset from one thread.
#pragma once

#include <cstdint>
#include <functional>

#include "common/status.h"
#include "graph/graph_query.h"
#include "graph/index_set.h"
#include "graph/temporal_index.h"
#include "graph/term.h"
#include "graph/text_query.h"

namespace webindex::sparql {

class Dataset {
 public:
  virtual ~Dataset() = default;

  using Visitor = std::function<bool(const graph::Statement& statement)>;
  //! Calls `fn` with each statement matching `pattern` until it returns false. The pattern's
  //! graph: kDefault (statements without a graph), kNamed (one named graph) or kAll (every
  //! statement, the default graph's included). Order unspecified.
  virtual Status Scan(const graph::Pattern& pattern, const Visitor& fn) = 0;

  //! How many statements `pattern` matches, exactly or as an estimate within a small factor;
  //! cheap (no scan of the matches). Plans order their scans by it.
  virtual uint64_t Estimate(const graph::Pattern& pattern) = 0;

  //! Calls `fn` with the name of each named graph once, until it returns false.
  virtual Status NamedGraphs(const std::function<bool(const graph::Term& name)>& fn) = 0;

  //! Rya's indexes, for tempo:* and fts:text: the statements whose object is an indexed
  //! xsd:dateTime satisfying `query` (docs/graph.md, "Temporal index"), and those whose object
  //! is an indexed literal satisfying `search` ("Free-text index"), as `webindex query temporal`
  //! and `query search` answer them. Aborted, naming how to build the index, when the dataset
  //! keeps none.
  virtual Status ScanTemporal(const graph::TemporalQuery& query, const Visitor& fn) = 0;
  virtual Status ScanText(const graph::TextSearch& search, const Visitor& fn) = 0;

  //! The indexes the dataset keeps: a plan reads an index only for the statements it holds
  //! (with `temporal_predicates` set, only those predicates' date-times).
  virtual graph::IndexSet Indexes() = 0;
  //! How many statements ScanTemporal / ScanText give, counted no further than `up_to`: at
  //! least `up_to` means "that many or more" (a plan asks up to the cost of the alternative, so
  //! a large index's matches are never counted in vain). Exact below a few thousand; above, a
  //! number larger than that.
  virtual uint64_t EstimateTemporal(const graph::TemporalQuery& query, uint64_t up_to) = 0;
  virtual uint64_t EstimateText(const graph::TextSearch& search, uint64_t up_to) = 0;
};

}  // namespace webindex::sparql
