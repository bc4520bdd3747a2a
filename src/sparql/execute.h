// Runs a parsed query over a dataset: SELECT solutions, an ASK boolean, CONSTRUCT / DESCRIBE
// statements. Each call is independent; one thread per call.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "graph/term.h"
#include "sparql/ast.h"
#include "sparql/dataset.h"

namespace webindex::sparql {

struct QueryResult {
  Query::Form form = Query::Form::kSelect;
  //! SELECT: the projected variables in order, and one row per solution (nullopt: unbound).
  std::vector<std::string> vars;
  std::vector<std::vector<std::optional<graph::Term>>> rows;
  //! The query had ORDER BY: the rows' order is part of the answer.
  bool ordered = false;
  //! ASK.
  bool boolean = false;
  //! CONSTRUCT, DESCRIBE: the statements (graph unset), each once.
  std::vector<graph::Statement> statements;
};

struct ExecuteOptions {
  //! Stops with Aborted "the query ran longer than its timeout" after this instant.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  //! Stops with Aborted naming the cap when a result would hold more rows / statements.
  uint64_t max_rows = UINT64_MAX;
  //! Set by another thread (the client went away): stops with Aborted "cancelled".
  const std::atomic<bool>* cancelled = nullptr;
  //! NOW() for the whole query; unset: the clock when the query starts.
  std::optional<std::chrono::system_clock::time_point> now;
};

//! The dataset is the query's FROM / FROM NAMED when it has them (FROM <g>: the default graph
//! is the merge of named graph g of `dataset`; FROM NAMED <g>: only those named graphs), else
//! `dataset`'s default graph and named graphs. InvalidArgument for what the evaluator refuses
//! (SERVICE), with the position.
Result<QueryResult> Execute(const Query& query, Dataset& dataset, const ExecuteOptions& options = {});

}  // namespace webindex::sparql
