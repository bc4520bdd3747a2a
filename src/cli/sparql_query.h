// `webindex query sparql`: one SPARQL 1.1 query over a data dir's graph store (docs/graph.md,
// "SPARQL"), answered as the /sparql route answers it (sparql/endpoint.h), or its plan.
#pragma once

#include "cli/config.h"
#include "cli/query_command.h"

namespace webindex::cli {

//! Exit code 0; 2 for a syntax error (line and column), a bad option or an answer over the cap;
//! 6 when the table lacks an index the query reads; 1 otherwise (over the time budget too).
//! Errors are printed as {"error": ...} and logged.
int RunSparqlQuery(const Settings& settings, const QueryOptions& options);

}  // namespace webindex::cli
