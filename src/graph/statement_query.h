// The three ways to ask the graph store for statements (docs/graph.md): a triple pattern, a
// temporal query and a free-text search, parsed from named parameters (the CLI's options and
// the HTTP API's query string use the same names) and read as cursor-paged pages or as every
// match. The CLI's `query triples|temporal|search` and GET /api/triples|temporal|search share it.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <variant>

#include "common/status.h"
#include "graph/graph_query.h"
#include "graph/temporal_index.h"
#include "graph/text_query.h"

namespace webindex::graph {

struct StatementQuery {
  std::variant<Pattern, TemporalQuery, TextSearch> query;

  //! "triples", "temporal" or "search".
  std::string_view name() const;
  //! True when it reads every graph (results are printed as N-Quads then).
  bool all_graphs() const;
};

//! The parameter names each kind takes, e.g. {"s", "p", "o", "graph"} for "triples".
const std::vector<std::string>& StatementQueryParams(std::string_view kind);

//! Parses a query of `kind` ("triples", "temporal", "search") from its parameters (`param`
//! returns "" for an absent one). InvalidArgument naming the parameter when one is wrong.
Result<StatementQuery> ParseStatementQuery(std::string_view kind,
                                           const std::function<std::string(std::string_view)>& param);

//! Aborted, naming the index and how to build it, when the store's generation was set up
//! without the index the query reads; Ok otherwise.
Status CheckIndexFor(state::Store& store, const StatementQuery& query);

//! Reads `store` as of `snapshot` (may be null: the latest state).
Result<Page> QueryStatements(state::Store& store, const state::Snapshot* snapshot, const StatementQuery& query,
                             size_t limit, std::string_view cursor);
Status ScanStatements(state::Store& store, const state::Snapshot* snapshot, const StatementQuery& query,
                      const GraphReader::Visitor& fn);

}  // namespace webindex::graph
