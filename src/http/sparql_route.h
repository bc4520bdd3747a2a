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

struct SparqlOptions {
  std::chrono::milliseconds timeout{30000};      //!< a query's time budget unless it asks for another
  std::chrono::milliseconds max_timeout{600000};  //!< the most `timeout=` may ask for
  uint64_t max_rows = 100000;                     //!< rows (statements) of one answer at most
};

//! The answer to a request of /sparql (any method; the route checks it). Errors are JSON
//! {"error": ...} with 400 (syntax, with line and column), 405, 406, 415 or 503 (over budget).
ApiResponse AnswerSparql(state::Store& store, const ApiRequest& request, const SparqlOptions& options);

}  // namespace webindex::http
