// `webindex query`: one question to the query table, answered as the HTTP API's JSON; and the
// HTTP server of `webindex run`. Called from main's thread.
#pragma once

#include <memory>
#include <string>

#include "app/processor.h"
#include "cli/config.h"
#include "http/server.h"

namespace webindex::cli {

struct QueryOptions {
  std::string what;  //!< top, pages, page, links, or triples, temporal, search (statements_query.h)
  size_t limit = 25;
  std::string next, domain, url;
  std::string link_type;  //!< links: "in" (the default) or "out"
  //! triples: the pattern's terms in N-Triples syntax ("" unbound) and graph (docs/graph.md).
  std::string subject, predicate, object, graph;
  //! temporal: exactly one of them, RFC 3339 (within: T1/T2).
  std::string before, after, equals, within;
  std::string text;    //!< search: the query (--q)
  std::string format;  //!< statements: "" (JSON pages) or "ntriples"; sparql: json, xml, csv, tsv, ntriples
  //! sparql: the query text, or the file holding it ("-": standard input); print the plan only;
  //! the time budget and the result cap.
  std::string sparql, file;
  bool explain = false;
  int64_t timeout_ms = 60000;
  uint64_t max_rows = UINT64_MAX;
};
//! Prints the JSON answer; exit code 0, or 2 for a bad argument, 3 for not found (a page the
//! table does not know, with {"error": ...} printed as the API would; a domain of no page, with
//! the API's answer, total 0), 1 otherwise.
int RunQuery(const Settings& settings, const QueryOptions& options);

//! Serves the query API on the processor's store (started) when settings.http.listen is set;
//! nullptr when it is not. Stop the server before the processor.
Result<std::unique_ptr<http::Server>> StartHttp(const Settings& settings, app::Processor& processor);
//! Moves a running server over to another processor's table and metrics; with `table`, the
//! table's questions are answered from it (a partitioned table's shards).
void SwitchHttp(http::Server& server, app::Processor& processor, std::shared_ptr<query::TableSource> table = nullptr);

}  // namespace webindex::cli
