// Triple patterns over the graph store: each of the eight patterns of one graph is one range
// scan of one index; all graphs are read graph by graph. Results come sorted in the order of the
// index scanned, paged by opaque cursors. GraphReader reads one snapshot; one thread.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "graph/key_codec.h"
#include "graph/ntriples.h"
#include "graph/term.h"
#include "state/store.h"

namespace webindex::graph {

//! The graphs a pattern reads: the default graph, one named graph, or all of them.
struct GraphSelector {
  enum class Kind { kDefault, kNamed, kAll };
  Kind kind = Kind::kDefault;
  Term name;  //!< kNamed: an IRI or a blank node

  static GraphSelector Default() { return {}; }
  static GraphSelector Named(Term name) { return {Kind::kNamed, std::move(name)}; }
  static GraphSelector All() { return {Kind::kAll, {}}; }
};

//! A triple pattern: the bound positions must be equal (RDF term equality), the others match
//! anything.
struct Pattern {
  std::optional<Term> subject, predicate, object;
  GraphSelector graph;
};

//! A pattern from query options in N-Triples syntax (empty: unbound), as the CLI's --s --p --o
//! --graph and the HTTP API's s= p= o= graph= give them; the predicate may also be a bare IRI. `graph`: "default" (also when empty),
//! "all", an IRI bare or in angle brackets, or a blank node `_:label`. InvalidArgument naming
//! the option for a bad term and for terms no statement can have there (a literal subject, a
//! predicate that is not an IRI).
Result<Pattern> ParsePattern(std::string_view subject, std::string_view predicate, std::string_view object,
                             std::string_view graph);

//! The index a pattern scans, and so the order of its results: SPO for s p o, s p ?, s ? ?,
//! ? ? ?; SOP for s ? o; POS for ? p o, ? p ?; OSP for ? ? o. With all graphs, the graph orders
//! first (default graph, then named graphs in term order).
Index IndexFor(const Pattern& pattern);

bool Matches(const Pattern& pattern, const Statement& statement);

struct Page {
  std::vector<Statement> statements;
  std::optional<std::string> next;  //!< absent on the last page
};

//! Reads patterns from a store; `snapshot` (not owned, may be null: the latest state) outlives
//! the reader.
class GraphReader {
 public:
  GraphReader(state::Store& store, const state::Snapshot* snapshot, KeySpace space = {})
      : store_(store), snapshot_(snapshot), space_(std::move(space)) {}

  //! Up to `limit` (>= 1) matches after `cursor` ("" for the first page); `next` resumes after
  //! the last one when more follow. InvalidArgument for a cursor of another pattern.
  Result<Page> Query(const Pattern& pattern, size_t limit, std::string_view cursor = {});

  //! Calls `fn` with each match after `cursor` ("" from the start), in order, until it returns
  //! false: every match without pages, for streaming.
  using Visitor = std::function<bool(const Statement& statement)>;
  Status Scan(const Pattern& pattern, std::string_view cursor, const Visitor& fn);

 private:
  state::Store& store_;
  const state::Snapshot* snapshot_;
  KeySpace space_;
};

//! The paging every reader's Query shares: puts the first `limit` (>= 1) statements `scan`
//! visits into `page` and returns whether more followed (then the caller sets `next` from the
//! last one). `scan` runs the reader's Scan with the visitor it is given.
Result<bool> FillPage(size_t limit, Page* page, const std::function<Status(const GraphReader::Visitor&)>& scan);

}  // namespace webindex::graph
