#include "http/api.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <exception>

#include "codec/json_writer.h"
#include "graph/graph_json.h"
#include "graph/graph_query.h"
#include "graph/statement_query.h"
#include "common/log.h"
#include "http/pagerank_route.h"
#include "http/query_string.h"
#include "http/sparql_route.h"
#include "http/ui_assets.h"
#include "query/query_json.h"
#include "rank/pagerank.h"
#include "rank/rank_store.h"

namespace webindex::http {
namespace {

constexpr std::string_view kOther = "other";
constexpr std::string_view kUi = "ui";  //!< the web UI's files (ui_assets.h)
constexpr std::string_view kShards = "/internal/shards";  //!< shard_routes.h, every shard and operation

}  // namespace

int HttpStatus(const Status& st) {
  switch (st.code()) {
    case Status::Code::kInvalidArgument:
      return 400;
    case Status::Code::kNotFound:
      return 404;
    case Status::Code::kAborted:
      return 409;
    case Status::Code::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

namespace {

Result<size_t> LimitParam(const Target& t) {
  auto it = t.params.find("limit");
  if (it == t.params.end()) return query::kDefaultLimit;
  size_t n = 0;
  const std::string& v = it->second;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size()) {
    return Status::InvalidArgument("limit must be a number between 1 and " + std::to_string(query::kMaxLimit));
  }
  RETURN_IF_ERROR(query::CheckLimit(n));
  return n;
}

//! `limit` of /api/suggest: 1..kMaxSuggestLimit, default kDefaultSuggestLimit.
Result<size_t> SuggestLimitParam(const Target& t) {
  auto it = t.params.find("limit");
  if (it == t.params.end()) return query::kDefaultSuggestLimit;
  size_t n = 0;
  const std::string& v = it->second;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < 1 || n > query::kMaxSuggestLimit) {
    return Status::InvalidArgument("limit must be a number between 1 and " + std::to_string(query::kMaxSuggestLimit));
  }
  return n;
}

Result<std::string> RequiredParam(const Target& t, const std::string& name) {
  auto it = t.params.find(name);
  if (it == t.params.end() || it->second.empty()) return Status::InvalidArgument("missing parameter '" + name + "'");
  return it->second;
}

std::string OptionalParam(const Target& t, const std::string& name, const std::string& fallback = "") {
  auto it = t.params.find(name);
  return it == t.params.end() ? fallback : it->second;
}

//! Matches of a statement route as N-Triples (N-Quads for graph=all) that fit in one response.
constexpr size_t kMaxNTriplesBody = 64 << 20;

//! "triples", "temporal" or "search" for the statement routes (/api/triples, ...); "" otherwise.
std::string_view StatementKind(std::string_view route) {
  if (!route.starts_with("/api/")) return {};
  const std::string_view kind = route.substr(5);
  return graph::StatementQueryParams(kind).empty() ? std::string_view() : kind;
}

//! The route's query, checked against the indexes of the table it reads.
Result<graph::StatementQuery> StatementQueryOf(state::Store& store, std::string_view kind, const Target& t) {
  ASSIGN_OR_RETURN(auto q, graph::ParseStatementQuery(kind, [&](std::string_view name) {
                     return OptionalParam(t, std::string(name));
                   }));
  RETURN_IF_ERROR(graph::CheckIndexFor(store, q));
  return q;
}

//! Every match of a statement route, one statement per line, from one snapshot.
Result<std::string> StatementsText(state::Store& store, std::string_view kind, const Target& t) {
  ASSIGN_OR_RETURN(auto query, StatementQueryOf(store, kind, t));
  auto snapshot = store.GetSnapshot();
  const bool quads = query.all_graphs();
  std::string body;
  bool too_large = false;
  RETURN_IF_ERROR(graph::ScanStatements(store, snapshot.get(), query, [&](const graph::Statement& s) {
    body += quads ? graph::ToNQuads(s) : graph::ToNTriples(s);
    body.push_back('\n');
    too_large = body.size() > kMaxNTriplesBody;
    return !too_large;
  }));
  if (too_large) {
    return Status::InvalidArgument("the matches take more than " + std::to_string(kMaxNTriplesBody >> 20) +
                                   " MiB as N-Triples: narrow the query, or page through them as JSON (without "
                                   "Accept: application/n-triples)");
  }
  return body;
}

//! True when the client asks for N-Triples or N-Quads rather than JSON.
bool WantsNTriples(std::string_view accept) {
  return accept.find("application/n-triples") != std::string_view::npos ||
         accept.find("application/n-quads") != std::string_view::npos;
}

//! The query parameters `route` takes (docs/api.md); any other is refused, not ignored, so that a
//! misspelled one (`linktype`, `domian`) is not silently left at its default.
std::vector<std::string> ParamsOf(std::string_view route) {
  static const std::map<std::string, std::vector<std::string>, std::less<>> kParams = {
      {"/api/top", {"limit", "next"}},
      {"/api/pages", {"domain", "limit", "next"}},
      {"/api/page", {"url"}},
      {"/api/links", {"url", "linkType", "limit", "next"}},
      {"/api/pagerank", {"limit", "next"}},
      {std::string(kInternalPageRank), {"limit", "next"}},
      {"/api/suggest", {"q", "limit"}},
  };
  if (auto it = kParams.find(route); it != kParams.end()) return it->second;
  if (const std::string_view kind = StatementKind(route); !kind.empty()) {
    std::vector<std::string> names = graph::StatementQueryParams(kind);
    names.insert(names.end(), {"limit", "next"});
    return names;
  }
  return {};  // /api/totals, /api/status, /healthz, /metrics
}

//! InvalidArgument naming the first parameter `route` does not take, and those it takes.
Status CheckParams(std::string_view route, const Target& t) {
  const std::vector<std::string> names = ParamsOf(route);
  for (const auto& [name, value] : t.params) {
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    std::string takes;
    for (const auto& n : names) takes += (takes.empty() ? "" : ", ") + n;
    return Status::InvalidArgument("unknown parameter '" + name + "': " + std::string(route) +
                                   (takes.empty() ? " takes none" : " takes " + takes));
  }
  return Status::Ok();
}

//! The JSON body of a route, or the status that becomes its error.
Result<std::string> RouteJson(query::QueryService& q, state::Store& store, const Api::StatusSource& status,
                              const std::string& route, const Target& t) {
  if (route == "/healthz") {
    if (Status health = store.Health(); !health.ok()) return Status::Unavailable(health.message());
    return std::string(R"({"status":"ok"})");
  }
  if (route == "/api/suggest") {
    ASSIGN_OR_RETURN(std::string text, RequiredParam(t, "q"));
    ASSIGN_OR_RETURN(size_t limit, SuggestLimitParam(t));
    ASSIGN_OR_RETURN(auto suggestions, q.Suggest(text, limit));
    return query::ToJson(suggestions);
  }
  if (route == "/api/totals") {
    ASSIGN_OR_RETURN(auto totals, q.Totals());
    return query::ToJson(totals);
  }
  if (route == "/api/status") {
    return StatusJson(status ? std::optional<ProcessorStatus>(status()) : std::nullopt, rank::CurrentRankResult(store),
                      q.Totals(), store.Health());
  }
  if (route == "/api/page") {
    ASSIGN_OR_RETURN(std::string url, RequiredParam(t, "url"));
    ASSIGN_OR_RETURN(auto page, q.Page(url));
    ASSIGN_OR_RETURN(auto score, rank::ScoreOf(store, page.url));
    if (score) {
      page.pagerank = score->first;
      page.pagerank_result = score->second.id;
    }
    return query::ToJson(page);
  }
  ASSIGN_OR_RETURN(size_t limit, LimitParam(t));
  const std::string next = OptionalParam(t, "next");
  if (route == "/api/pagerank") return PageRankJson(store, limit, next);
  if (route == "/api/top") {
    ASSIGN_OR_RETURN(auto top, q.Top(limit, next));
    return query::ToJson(top);
  }
  if (const std::string_view kind = StatementKind(route); !kind.empty()) {
    ASSIGN_OR_RETURN(auto query, StatementQueryOf(store, kind, t));
    auto snapshot = store.GetSnapshot();
    ASSIGN_OR_RETURN(auto page, graph::QueryStatements(store, snapshot.get(), query, limit, next));
    return graph::ToJson(page);
  }
  if (route == "/api/pages") {
    ASSIGN_OR_RETURN(std::string domain, RequiredParam(t, "domain"));
    ASSIGN_OR_RETURN(auto pages, q.Pages(domain, limit, next));
    return query::ToJson(pages);
  }
  ASSIGN_OR_RETURN(std::string url, RequiredParam(t, "url"));
  ASSIGN_OR_RETURN(auto type, query::ParseLinkType(OptionalParam(t, "linkType", "in")));
  ASSIGN_OR_RETURN(auto links, q.Links(url, type, limit, next));
  return query::ToJson(links);
}

//! Unavailable for a route that reads the whole table from this process's store when the
//! table is partitioned (Api::SetTable).
Status WholeTableRoute(const std::string& route, bool partitioned) {
  if (!partitioned) return Status::Ok();
  if (route == "/sparql" || !StatementKind(route).empty()) {
    return Status::Unavailable(route +
                               " is not answered by a partitioned table yet (members started with --table-shard "
                               "answer /api/top, /api/pages, /api/page, /api/links, /api/suggest, /api/totals and "
                               "/api/pagerank; docs/scale-out.md §6)");
  }
  return Status::Ok();
}

void WriteConnectionStats(const ConnectionStats& c, PrometheusWriter& w) {
  w.Family("webindex_http_connections_open", "gauge", "Open HTTP connections.");
  w.Sample("webindex_http_connections_open", {}, c.open.load());
  w.Family("webindex_http_connections_idle", "gauge", "Open HTTP connections waiting for a request.");
  w.Sample("webindex_http_connections_idle", {}, c.idle.load());
  w.Family("webindex_http_connections_shed_total", "counter",
           "Idle HTTP connections closed to admit a new one, by the limit reached "
           "(server: max_connections, client: max_connections_per_client).");
  w.Sample("webindex_http_connections_shed_total", {{"limit", "server"}}, c.shed_server.load());
  w.Sample("webindex_http_connections_shed_total", {{"limit", "client"}}, c.shed_client.load());
  w.Family("webindex_http_connections_refused_total", "counter",
           "New HTTP connections answered 503 (server) or 429 (client) and closed: at the limit with no "
           "idle connection to close.");
  w.Sample("webindex_http_connections_refused_total", {{"limit", "server"}}, c.refused_server.load());
  w.Sample("webindex_http_connections_refused_total", {{"limit", "client"}}, c.refused_client.load());
}

}  // namespace

const std::vector<std::string>& Api::Routes() {
  static const std::vector<std::string> kRoutes = {
      "/api/top",       "/api/pages",       "/api/page",          "/api/links",
      "/api/pagerank",  "/api/triples",     "/api/temporal",      "/api/search",
      "/api/suggest",   "/api/totals",      "/api/status",        "/healthz",
      "/metrics",       "/sparql",          std::string(kShards), std::string(kInternalPageRank),
      std::string(kUi), std::string(kOther)};
  return kRoutes;
}

Api::Api(state::Store& store, MetricsSource metrics, StatusSource status, SparqlOptions sparql)
    : query_(std::make_unique<query::QueryService>(store)),
      store_(&store),
      metrics_(std::move(metrics)),
      status_(std::move(status)),
      sparql_(sparql) {
  for (const auto& r : Routes()) latency_[r];
}

void Api::Count(std::string_view route, int status) {
  std::lock_guard lock(counts_mu_);
  ++counts_[{std::string(route), status}];
}

ApiResponse Api::Error(int status, std::string_view message, std::string_view route) {
  Count(route, status);
  ApiResponse r;
  r.status = status;
  r.body = query::ErrorJson(message);
  return r;
}

bool MayRunLong(const ApiRequest& request) {
  const std::string_view target = request.target;
  return target.starts_with("/sparql") && (target.size() == 7 || target[7] == '?');
}

ApiResponse Api::Handle(const ApiRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  ApiResponse response;
  std::string route(kOther);
  try {
    auto target = ParseTarget(request.target);
    if (target.ok() && latency_.count(target->path) && target->path != kOther && target->path != kShards) route = target->path;
    const auto asset = target.ok() ? FindUiAsset(target->path) : std::nullopt;
    if (asset) route = kUi;
    std::shared_lock shard_lock(shard_mu_, std::defer_lock);
    if (IsShardRoute(request.target)) shard_lock.lock();
    if (shard_lock.owns_lock() && shard_lookup_) {  // before parsing: its `key` parameters repeat
      route = kShards;
      response = AnswerShards(request);
    } else if (!target.ok()) {
      response = Error(400, target.status().message());
    } else if (route == kOther) {
      response = Error(404, "no such route: " + target->path);
    } else if (Status whole = [&] {
                 std::shared_lock lock(source_mu_);
                 return WholeTableRoute(route, partitioned_);
               }();
               !whole.ok()) {
      response = Error(503, whole.message(), route);
    } else if (route == "/sparql") {  // the protocol's own methods and bodies
      response = [&] {
        std::shared_lock lock(source_mu_);
        return AnswerSparql(*store_, request, sparql_);
      }();
      if (request.cancelled != nullptr && request.cancelled->load()) {
        response.status = kClientClosedRequest;  // the server sends nothing: counted only
      } else if (response.status >= 500) {
        LOG_WARN("{} {}: {}", request.method, route, response.body);
      }
      Count(route, response.status);
    } else if (request.method != "GET" && request.method != "HEAD") {
      response = Error(405, "method " + std::string(request.method) + " not allowed; use GET or HEAD", route);
      response.allow = "GET, HEAD";
    } else if (request.has_body) {
      response = Error(400, std::string(request.method) + " requests take no body", route);
    } else if (Status params = asset ? Status::Ok() : CheckParams(route, *target); !params.ok()) {
      response = Error(400, params.message(), route);  // the UI's files ignore theirs (?v=, a bookmark's)
    } else if (asset) {
      Count(route, 200);
      response.content_type = asset->content_type;
      response.cache_control = asset->cache_control;
      response.body = asset->body;
    } else if (route == "/metrics") {
      Count(route, 200);
      response.content_type = std::string(kPrometheusContentType);
      response.body = Metrics();
    } else if (!StatementKind(route).empty() && WantsNTriples(request.accept)) {
      auto text = [&] {
        std::shared_lock lock(source_mu_);
        return StatementsText(*store_, StatementKind(route), *target);
      }();
      if (text.ok()) {
        Count(route, 200);
        const bool quads = OptionalParam(*target, "graph") == "all";
        response.content_type = quads ? "application/n-quads; charset=utf-8" : "application/n-triples; charset=utf-8";
        response.body = std::move(text).value();
      } else {
        response = Error(HttpStatus(text.status()), text.status().message(), route);
      }
    } else if (auto body = [&] {
                 std::shared_lock lock(source_mu_);
                 if (route == kInternalPageRank || (route == "/api/pagerank" && partitioned_)) {
                   return PartitionedPageRank(route, *target, request.target);
                 }
                 return RouteJson(*query_, *store_, status_, route, *target);
               }();
               body.ok()) {
      Count(route, 200);
      response.body = std::move(body).value();
    } else {
      const int status = HttpStatus(body.status());
      if (status >= 500) LOG_WARN("{} {}: {}", request.method, route, body.status().ToString());
      response = Error(status, body.status().message(), route);
    }
  } catch (const std::exception& e) {
    LOG_ERROR("{} {}: {}", request.method, route, e.what());
    response = Error(500, std::string("internal error: ") + e.what(), route);
  }
  latency_.find(route)->second.Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  const bool sparql_post = route == "/sparql" && request.method == "POST";
  response.close = !sparql_post && ((request.method != "GET" && request.method != "HEAD") || request.has_body);
  return response;
}

ApiResponse Api::AnswerShards(const ApiRequest& request) {
  std::string target(request.target);
  if (request.method == "POST") {  // the parameters in a form body (shard_client.h): keys may be long
    if (target.find('?') != std::string::npos) {
      return Error(400, "a POST to the shard routes takes its parameters in the body, not the target", kShards);
    }
    if (!request.content_type.starts_with("application/x-www-form-urlencoded")) {
      return Error(415, "a POST to the shard routes takes an application/x-www-form-urlencoded body", kShards);
    }
    if (!request.body.empty()) target += "?" + std::string(request.body);
  } else if (request.method == "GET") {
    if (request.has_body) return Error(400, "GET requests take no body", kShards);
  } else {
    ApiResponse r = Error(405, "method " + std::string(request.method) + " not allowed; use GET or POST", kShards);
    r.allow = "GET, POST";
    return r;
  }
  auto body = AnswerShardRoute(shard_lookup_, target);
  if (!body.ok()) {
    const int status = HttpStatus(body.status());
    if (status >= 500 && status != 503) LOG_WARN("{} {}: {}", request.method, request.target, body.status().ToString());
    return Error(status, body.status().message(), kShards);
  }
  Count(kShards, 200);
  ApiResponse r;
  r.body = std::move(body).value();
  return r;
}

Result<std::string> Api::PartitionedPageRank(const std::string& route, const Target& t, std::string_view target) {
  ASSIGN_OR_RETURN(size_t limit, LimitParam(t));
  const size_t q = target.find('?');
  const std::string_view query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  std::shared_lock lock(rank_mu_);
  const PageRankHome home = rank_locator_ ? rank_locator_() : PageRankHome{};
  return PartitionedPageRankJson(home, route == kInternalPageRank, limit, OptionalParam(t, "next"), query,
                                 rank_timeout_);
}

void Api::SetPageRank(PageRankLocator locate, std::chrono::milliseconds timeout) {
  std::unique_lock lock(rank_mu_);
  rank_locator_ = std::move(locate);
  rank_timeout_ = timeout;
}

void Api::SetShardLookup(ShardLookup lookup) {
  std::unique_lock lock(shard_mu_);
  shard_lookup_ = std::move(lookup);
}

void Api::SetSource(state::Store& store, MetricsSource metrics, StatusSource status,
                    std::shared_ptr<query::TableSource> table) {
  const bool partitioned = table != nullptr;
  auto next = partitioned ? std::make_unique<query::QueryService>(std::move(table))
                          : std::make_unique<query::QueryService>(store);
  std::unique_lock lock(source_mu_);
  query_ = std::move(next);
  store_ = &store;
  partitioned_ = partitioned;
  metrics_ = std::move(metrics);
  status_ = std::move(status);
}

void Api::SetTable(std::shared_ptr<query::TableSource> table) {
  auto next = std::make_unique<query::QueryService>(std::move(table));
  std::unique_lock lock(source_mu_);
  query_ = std::move(next);
  partitioned_ = true;
}

std::string Api::Metrics() {
  PrometheusWriter w;
  {
    std::shared_lock lock(source_mu_);
    if (metrics_) metrics_(w);
  }
  w.Family("webindex_http_request_duration_seconds", "histogram",
           "Time to answer an HTTP request, by route (other: unknown routes and malformed requests).");
  for (const auto& route : Routes()) {
    latency_.find(route)->second.Write(w, "webindex_http_request_duration_seconds", {{"route", route}});
  }
  WriteConnectionStats(connections_, w);
  w.Family("webindex_http_responses_total", "counter", "HTTP responses by route and status code.");
  std::lock_guard lock(counts_mu_);
  for (const auto& [key, n] : counts_) {
    w.Sample("webindex_http_responses_total", {{"route", key.first}, {"code", std::to_string(key.second)}}, n);
  }
  return w.Take();
}

}  // namespace webindex::http
