// What the /sparql route and `webindex query sparql` share: a query text in, an answer (media
// type and body) out, read from one snapshot of a store with a time budget and a result cap;
// and the query's plan for --explain. Stateless functions; any thread, one call per query.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "sparql/ast.h"
#include "sparql/results_format.h"
#include "state/store.h"

namespace webindex::sparql {

//! --format's names: json, xml, csv, tsv, ntriples; InvalidArgument listing them otherwise.
Result<ResultFormat> ResultFormatNamed(std::string_view name);
//! The format an Accept header asks for, by the protocol's media types (q-values are not
//! weighed: the first type named that fits the query form wins); the form's default (JSON, or
//! N-Triples for graphs) when it names none that fits. nullopt when it names types and accepts
//! none of those the form has (no */*, application/*, text/*): 406.
std::optional<ResultFormat> ResultFormatAccepted(std::string_view accept, Query::Form form);

struct QueryLimits {
  //! Past this the query stops: Unavailable "the query ran longer than its time budget ...".
  std::chrono::milliseconds timeout{30000};
  //! A result of more rows (statements for CONSTRUCT, DESCRIBE) is refused, not cut short:
  //! InvalidArgument naming the cap and LIMIT.
  uint64_t max_rows = 100000;
  //! Set from another thread: the query stops (the client went away).
  const std::atomic<bool>* cancelled = nullptr;
};

struct Answer {
  std::string media_type;
  std::string body;
};

//! JSON for SELECT and ASK, N-Triples for CONSTRUCT and DESCRIBE.
ResultFormat DefaultFormat(Query::Form form);
//! InvalidArgument unless `format` writes what `form` answers (SELECT: JSON, XML, CSV, TSV;
//! ASK: JSON, XML; graphs: N-Triples), naming those it has.
Status CheckFormat(ResultFormat format, Query::Form form);

//! Answers `query` (parser.h) from one snapshot of `store`, written as `format`. InvalidArgument
//! for a result over the cap and for what the evaluator refuses (SERVICE); Unavailable past the
//! time budget.
Result<Answer> AnswerQuery(state::Store& store, const Query& query, ResultFormat format, const QueryLimits& limits);

//! The plan the evaluator would run for `query` over `store`: each pattern's order and
//! estimate, the join order, where the filters sit.
Result<std::string> ExplainQuery(state::Store& store, const Query& query);

}  // namespace webindex::sparql
