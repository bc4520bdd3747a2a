#include "cli/sparql_query.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/exit_codes.h"
#include "common/log.h"
#include "query/query_json.h"
#include "sparql/endpoint.h"
#include "sparql/parser.h"

namespace webindex::cli {
namespace {

int Fail(const Status& st) {
  std::cout << query::ErrorJson(st.message()) << std::endl;
  LOG_ERROR("{}", st.message());
  switch (st.code()) {
    case Status::Code::kInvalidArgument: return kExitUsage;
    case Status::Code::kAborted: return kExitNoIndex;
    default: return kExitFailure;
  }
}

//! The query: the QUERY argument, or the file --file names ("-": standard input).
Result<std::string> QueryText(const QueryOptions& o) {
  if (o.sparql.empty() == o.file.empty()) {
    return Status::InvalidArgument("`query sparql` takes the query as its argument or in a file (--file F, - for "
                                   "standard input), one of the two");
  }
  if (o.file.empty()) return o.sparql;
  std::ostringstream text;
  if (o.file == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(o.file, std::ios::binary);
    if (!in) return Status::InvalidArgument("cannot read --file " + o.file);
    text << in.rdbuf();
  }
  return text.str();
}

}  // namespace

int RunSparqlQuery(const Settings& settings, const QueryOptions& options) {
  for (const auto& [value, flag] : {std::pair{&options.url, "--url"}, {&options.domain, "--domain"},
                                    {&options.subject, "--s"}, {&options.predicate, "--p"}, {&options.object, "--o"},
                                    {&options.graph, "--graph"}, {&options.next, "--next"}, {&options.text, "--q"}}) {
    if (!value->empty()) {
      return Fail(Status::InvalidArgument(std::string(flag) + " does not apply to `query sparql`; it takes the query "
                                          "(or --file), --format, --explain and --timeout-ms"));
    }
  }
  auto text = QueryText(options);
  if (!text.ok()) return Fail(text.status());
  auto query = sparql::ParseQuery(*text);
  if (!query.ok()) return Fail(Status::InvalidArgument("SPARQL syntax: " + query.status().message()));
  sparql::ResultFormat format = sparql::DefaultFormat(query->form);
  if (!options.format.empty()) {
    auto named = sparql::ResultFormatNamed(options.format);
    if (!named.ok()) return Fail(named.status());
    if (Status st = sparql::CheckFormat(*named, query->form); !st.ok()) return Fail(st);
    format = *named;
  }
  bool no_table = false;
  auto store = OpenQueryTable(settings, &no_table);
  if (!store.ok()) {
    if (no_table) return Fail(store.status());
    LOG_ERROR("{}", store.status().ToString());
    return kExitFailure;
  }
  if (options.explain) {
    auto plan = sparql::ExplainQuery(**store, *query);
    if (!plan.ok()) return Fail(plan.status());
    std::cout << *plan;
    if (!plan->empty() && plan->back() != '\n') std::cout << '\n';
    return kExitOk;
  }
  sparql::QueryLimits limits;
  limits.timeout = std::chrono::milliseconds(options.timeout_ms);
  limits.max_rows = options.max_rows;
  auto answer = sparql::AnswerQuery(**store, *query, format, limits);
  if (!answer.ok()) return Fail(answer.status());
  std::fwrite(answer->body.data(), 1, answer->body.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace webindex::cli
