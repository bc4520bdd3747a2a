// The JSON form of triple pattern answers, shared by the HTTP API and `webindex query triples`.
// Stateless; any thread.
#pragma once

#include <string>

#include "graph/graph_query.h"

namespace webindex::graph {

//! {"results":[{"s","p","o","graph"}...],"next":cursor|null}: each term in N-Triples syntax
//! (`<iri>`, `_:b`, `"x"@en`), graph "default" or the named graph's term.
std::string ToJson(const Page& page);

}  // namespace webindex::graph
