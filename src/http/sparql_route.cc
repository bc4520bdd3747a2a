#include "http/sparql_route.h"

#include <charconv>
#include <map>

#include "http/query_string.h"
#include "query/query_json.h"
#include "sparql/endpoint.h"
#include "sparql/parser.h"

namespace webindex::http {
namespace {

ApiResponse Fail(int status, std::string_view message) {
  ApiResponse r;
  r.status = status;
  r.body = query::ErrorJson(message);
  return r;
}

//! The media type of a Content-Type header, lower case, without parameters.
std::string MediaTypeOf(std::string_view content_type) {
  std::string type(content_type.substr(0, content_type.find(';')));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return type;
}

//! The protocol's parameters, from the target and (form-encoded POST) the body.
Result<std::map<std::string, std::string>> Params(const ApiRequest& request) {
  ASSIGN_OR_RETURN(Target target, ParseTarget(request.target));
  std::map<std::string, std::string> params = std::move(target.params);
  if (request.method == "POST") {
    const std::string type = MediaTypeOf(request.content_type);
    if (type == "application/x-www-form-urlencoded") {
      ASSIGN_OR_RETURN(Target form, ParseTarget("/?" + std::string(request.body)));
      for (auto& [name, value] : form.params) {
        if (!params.emplace(name, std::move(value)).second) {
          return Status::InvalidArgument("parameter '" + name + "' given twice");
        }
      }
    } else if (type == "application/sparql-query") {
      if (params.count("query")) return Status::InvalidArgument("the query is in the body; give no query= with it");
      params["query"] = std::string(request.body);
    } else {
      return Status::InvalidArgument("");  // 415, below
    }
  }
  for (const auto& [name, value] : params) {
    if (name != "query" && name != "default-graph-uri" && name != "named-graph-uri" && name != "timeout") {
      return Status::InvalidArgument("unknown parameter '" + name +
                                     "': /sparql takes query, default-graph-uri, named-graph-uri and timeout");
    }
  }
  return params;
}

Result<std::chrono::milliseconds> TimeoutOf(const std::map<std::string, std::string>& params,
                                            const SparqlOptions& options) {
  auto it = params.find("timeout");
  if (it == params.end()) return options.timeout;
  int64_t ms = 0;
  const std::string& v = it->second;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), ms);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || ms < 1 || ms > options.max_timeout.count()) {
    return Status::InvalidArgument("timeout is in milliseconds, from 1 to " + std::to_string(options.max_timeout.count()));
  }
  return std::chrono::milliseconds(ms);
}

}  // namespace

ApiResponse AnswerSparql(state::Store& store, const ApiRequest& request, const SparqlOptions& options) {
  if (request.method != "GET" && request.method != "HEAD" && request.method != "POST") {
    ApiResponse r = Fail(405, "method " + std::string(request.method) + " not allowed; use GET or POST");
    r.allow = "GET, HEAD, POST";
    return r;
  }
  if (request.method != "POST" && request.has_body) {
    return Fail(400, std::string(request.method) + " requests take no body; POST the query");
  }
  auto params = Params(request);
  if (!params.ok()) {
    if (params.status().message().empty()) {
      return Fail(415, "POST the query as application/sparql-query, or form-encoded "
                       "(application/x-www-form-urlencoded) as query=");
    }
    return Fail(400, params.status().message());
  }
  auto text = params->find("query");
  if (text == params->end() || text->second.empty()) {
    return Fail(400, "no query: give it as query= (GET, or POST form-encoded) or as the body of a POST with "
                     "Content-Type: application/sparql-query");
  }
  auto timeout = TimeoutOf(*params, options);
  if (!timeout.ok()) return Fail(400, timeout.status().message());
  auto query = sparql::ParseQuery(text->second);
  if (!query.ok()) return Fail(400, "SPARQL syntax: " + query.status().message());
  // The protocol's dataset overrides the query's FROM and FROM NAMED.
  if (auto it = params->find("default-graph-uri"); it != params->end()) query->from = {it->second};
  if (auto it = params->find("named-graph-uri"); it != params->end()) query->from_named = {it->second};
  const auto format = sparql::ResultFormatAccepted(request.accept, query->form);
  if (!format) {
    return Fail(406, std::string("cannot answer as ") + std::string(request.accept) + ": " +
                         (query->form == sparql::Query::Form::kConstruct || query->form == sparql::Query::Form::kDescribe
                              ? "this query answers application/n-triples"
                              : "this query answers application/sparql-results+json, +xml, text/csv or "
                                "text/tab-separated-values"));
  }
  sparql::QueryLimits limits;
  limits.timeout = *timeout;
  limits.max_rows = options.max_rows;
  limits.cancelled = request.cancelled;
  auto answer = sparql::AnswerQuery(store, *query, *format, limits);
  if (!answer.ok()) return Fail(HttpStatus(answer.status()), answer.status().message());
  ApiResponse r;
  r.content_type = std::move(answer->media_type);
  r.body = std::move(answer->body);
  return r;
}

}  // namespace webindex::http
