#include "cli/triples_query.h"

#include <cstdio>
#include <iostream>

#include "cli/exit_codes.h"
#include "common/log.h"
#include "graph/graph_json.h"
#include "graph/graph_query.h"
#include "query/query_json.h"
#include "query/table_reader.h"

namespace webindex::cli {
namespace {

Status CheckOptions(const QueryOptions& o) {
  for (const auto& [value, flag] : {std::pair{&o.url, "--url"}, {&o.domain, "--domain"}, {&o.link_type, "--link-type"}}) {
    if (!value->empty()) {
      return Status::InvalidArgument(std::string(flag) + " does not apply to `query triples`; it takes --s, --p, "
                                     "--o, --graph, --format, --limit and --next");
    }
  }
  if (!o.format.empty() && o.format != "ntriples") {
    return Status::InvalidArgument("--format is ntriples (every match, one line each) or absent (JSON pages)");
  }
  if (o.format == "ntriples" && !o.next.empty()) {
    return Status::InvalidArgument("--next pages JSON answers; --format ntriples prints every match at once");
  }
  return Status::Ok();
}

int UsageError(const Status& st) {
  std::cout << query::ErrorJson(st.message()) << std::endl;
  LOG_ERROR("{}", st.message());
  return kExitUsage;
}

}  // namespace

int RunTriplesQuery(const Settings& settings, const QueryOptions& options) {
  if (Status st = CheckOptions(options); !st.ok()) return UsageError(st);
  auto pattern = graph::ParsePattern(options.subject, options.predicate, options.object, options.graph);
  if (!pattern.ok()) return UsageError(pattern.status());
  auto store = OpenTableReadOnly(settings);
  if (!store.ok()) {
    LOG_ERROR("{}", store.status().ToString());
    return kExitFailure;
  }
  // A read-only store is one point in time: no snapshot needed.
  graph::GraphReader reader(**store, nullptr);
  if (options.format == "ntriples") {
    const bool quads = pattern->graph.kind == graph::GraphSelector::Kind::kAll;
    std::string line;
    Status st = reader.Scan(*pattern, "", [&](const graph::Statement& s) {
      line = quads ? graph::ToNQuads(s) : graph::ToNTriples(s);
      line.push_back('\n');
      return std::fwrite(line.data(), 1, line.size(), stdout) == line.size();
    });
    std::fflush(stdout);
    if (!st.ok()) {
      LOG_ERROR("{}", st.ToString());
      return st.code() == Status::Code::kInvalidArgument ? kExitUsage : kExitFailure;
    }
    return kExitOk;
  }
  if (options.limit < 1 || options.limit > 1000) return UsageError(Status::InvalidArgument("--limit must be 1..1000"));
  auto page = reader.Query(*pattern, options.limit, options.next);
  if (!page.ok()) {
    if (page.status().code() == Status::Code::kInvalidArgument) return UsageError(page.status());
    std::cout << query::ErrorJson(page.status().message()) << std::endl;
    LOG_ERROR("{}", page.status().ToString());
    return kExitFailure;
  }
  std::cout << graph::ToJson(*page) << std::endl;
  return kExitOk;
}

}  // namespace webindex::cli
