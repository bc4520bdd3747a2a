// `webindex query triples|temporal|search`: one query over the graph store of a data dir
// (docs/graph.md), as the HTTP API's JSON pages or, with --format ntriples, every match as
// N-Triples lines (N-Quads with --graph all).
#pragma once

#include "cli/config.h"
#include "cli/query_command.h"

namespace webindex::cli {

//! True for the queries RunStatementsQuery answers.
bool IsStatementsQuery(const std::string& what);

//! Exit code 0; 2 for a bad option or term, 6 when the table lacks the index the query reads
//! (with {"error": ...} printed); 1 otherwise.
int RunStatementsQuery(const Settings& settings, const QueryOptions& options);

}  // namespace webindex::cli
