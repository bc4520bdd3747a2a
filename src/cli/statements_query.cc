#include "cli/statements_query.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>

#include "cli/exit_codes.h"
#include "common/log.h"
#include "graph/graph_json.h"
#include "graph/statement_query.h"
#include "query/query_json.h"
#include "query/query_service.h"

namespace webindex::cli {
namespace {

//! The options by parameter name (docs/graph.md uses the same names for the API).
std::map<std::string, const std::string*, std::less<>> Params(const QueryOptions& o) {
  return {{"s", &o.subject},   {"p", &o.predicate}, {"o", &o.object}, {"graph", &o.graph},
          {"before", &o.before}, {"after", &o.after}, {"equals", &o.equals}, {"within", &o.within},
          {"q", &o.text}};
}

Status CheckOptions(const QueryOptions& o) {
  const std::string takes = o.what == "triples"    ? "--s, --p, --o, --graph"
                            : o.what == "temporal" ? "--before, --after, --equals, --within, --p, --graph"
                                                   : "--q, --p, --graph";
  auto refuse = [&](const std::string& flag) {
    return Status::InvalidArgument(flag + " does not apply to `query " + o.what + "`; it takes " + takes +
                                   ", --format, --limit and --next");
  };
  for (const auto& [value, flag] : {std::pair{&o.url, "--url"}, {&o.domain, "--domain"}, {&o.link_type, "--link-type"}}) {
    if (!value->empty()) return refuse(flag);
  }
  const auto& accepted = graph::StatementQueryParams(o.what);
  for (const auto& [name, value] : Params(o)) {
    if (!value->empty() && std::find(accepted.begin(), accepted.end(), name) == accepted.end()) {
      return refuse("--" + name);
    }
  }
  if (!o.format.empty() && o.format != "ntriples") {
    return Status::InvalidArgument("--format is ntriples (every match, one line each) or absent (JSON pages)");
  }
  if (o.format == "ntriples" && !o.next.empty()) {
    return Status::InvalidArgument("--next pages JSON answers; --format ntriples prints every match at once");
  }
  if (o.format.empty()) RETURN_IF_ERROR(query::CheckLimit(o.limit));
  return Status::Ok();
}

int Error(const Status& st, int code) {
  std::cout << query::ErrorJson(st.message()) << std::endl;
  LOG_ERROR("{}", st.message());
  return code;
}

int ExitCodeOf(const Status& st) {
  switch (st.code()) {
    case Status::Code::kInvalidArgument:
      return kExitUsage;
    case Status::Code::kAborted:
      return kExitNoIndex;
    default:
      return kExitFailure;
  }
}

}  // namespace

bool IsStatementsQuery(const std::string& what) { return !graph::StatementQueryParams(what).empty(); }

int RunStatementsQuery(const Settings& settings, const QueryOptions& options) {
  if (Status st = CheckOptions(options); !st.ok()) return Error(st, kExitUsage);
  const auto params = Params(options);
  auto statements = graph::ParseStatementQuery(options.what, [&](std::string_view name) {
    auto it = params.find(name);
    return it == params.end() ? std::string() : *it->second;
  });
  if (!statements.ok()) return Error(statements.status(), kExitUsage);
  bool no_table = false;
  auto store = OpenQueryTable(settings, &no_table);
  if (!store.ok()) {
    if (no_table) return Error(store.status(), kExitNotFound);
    LOG_ERROR("{}", store.status().ToString());
    return kExitFailure;
  }
  if (Status st = graph::CheckIndexFor(**store, *statements); !st.ok()) return Error(st, ExitCodeOf(st));
  // A read-only store is one point in time: no snapshot needed.
  if (options.format == "ntriples") {
    const bool quads = statements->all_graphs();
    std::string line;
    Status st = graph::ScanStatements(**store, nullptr, *statements, [&](const graph::Statement& s) {
      line = quads ? graph::ToNQuads(s) : graph::ToNTriples(s);
      line.push_back('\n');
      return std::fwrite(line.data(), 1, line.size(), stdout) == line.size();
    });
    std::fflush(stdout);
    if (!st.ok()) {
      LOG_ERROR("{}", st.ToString());
      return ExitCodeOf(st);
    }
    return kExitOk;
  }
  auto page = graph::QueryStatements(**store, nullptr, *statements, options.limit, options.next);
  if (!page.ok()) return Error(page.status(), ExitCodeOf(page.status()));
  std::cout << graph::ToJson(*page) << std::endl;
  return kExitOk;
}

}  // namespace webindex::cli
