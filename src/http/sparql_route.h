// The SPARQL 1.1 Protocol's query operation at /sparql (docs/api.md, "SPARQL"): GET with
// ?query=, POST form-encoded (query=) or with the query as an application/sparql-query body;
// default-graph-uri / named-graph-uri set the dataset; the answer's format by Accept; a time
// budget (timeout=, in ms, up to the server's most) and a result cap. Called by Api::Handle
// from any server thread.
#pragma once

#include <chrono>
#include <cstdint>

#include "http/api.h"
#include "state/store.h"

namespace webindex::http {

//! The answer to a request of /sparql (any method; the route checks it). Errors are JSON
//! {"error": ...} with 400 (syntax, with line and column), 405, 406, 415 or 503 (over budget).
ApiResponse AnswerSparql(state::Store& store, const ApiRequest& request, const SparqlOptions& options);

}  // namespace webindex::http
