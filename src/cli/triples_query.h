// `webindex query triples`: one triple pattern over the graph store of a data dir (docs/graph.md),
// as the HTTP API's JSON pages or, with --format ntriples, every match as N-Triples lines.
#pragma once

#include "cli/config.h"
#include "cli/query_command.h"

namespace webindex::cli {

//! Exit code 0, 2 for a bad option or term (with {"error": ...} printed), 1 otherwise.
int RunTriplesQuery(const Settings& settings, const QueryOptions& options);

}  // namespace webindex::cli
