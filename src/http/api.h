// Api: the HTTP routes of webindex without the transport — a request (method, target) in, a
// status and body out — so it is tested without sockets. Keeps per-route latency histograms
// and response counters. Borrows the store; Handle is called from any server thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>

#include "http/histogram.h"
#include "http/pagerank_route.h"
#include "http/prometheus.h"
#include "http/query_string.h"
#include "http/shard_routes.h"
#include "http/status.h"
#include "query/query_service.h"
#include "state/store.h"

namespace webindex::http {

//! The HTTP status of an error: 400 InvalidArgument, 404 NotFound, 409 Aborted (an index the
//! table does not keep, a stale cursor), 503 Unavailable, 500 otherwise.
int HttpStatus(const Status& st);

//! /sparql's limits (sparql_route.h).
struct SparqlOptions {
  std::chrono::milliseconds timeout{30000};      //!< a query's time budget unless it asks for another
  std::chrono::milliseconds max_timeout{600000};  //!< the most `timeout=` may ask for
  uint64_t max_rows = 100000;                     //!< rows (statements) of one answer at most
};

struct ApiRequest {
  std::string_view method;  //!< "GET", "HEAD" (answered as GET, without the body), ...
  std::string_view target;  //!< "/api/top?limit=10"
  bool has_body = false;
  std::string_view accept;  //!< the Accept header ("" when absent)
  std::string_view content_type;  //!< the Content-Type header ("" when absent)
  std::string_view body;          //!< POST /sparql's (others refuse a body)
  //! Set by the server, while the request runs, once its client has hung up (null: never):
  //! the answer is for nobody, and work that checks it stops.
  const std::atomic<bool>* cancelled = nullptr;
};

//! The status counted (webindex_http_responses_total) for a request whose client hung up while
//! it ran: nothing is sent (nginx's 499, "client closed request").
inline constexpr int kClientClosedRequest = 499;

//! True for requests whose answer may take long enough for a client to give up on it (SPARQL
//! queries): the server watches their connections while they run and sets `cancelled`.
bool MayRunLong(const ApiRequest& request);

struct ApiResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::string allow;  //!< a 405's Allow header, e.g. "GET, HEAD"
  //! The request is none this API takes (another method, a body): its client does not speak
  //! the API, whose answer ends the connection (as after a request that does not parse).
  bool close = false;
  std::string cache_control = "no-store";
};

//! What the server counts about its connections, for /metrics; written from any thread.
struct ConnectionStats {
  std::atomic<int64_t> open{0};
  std::atomic<int64_t> idle{0};  //!< of them, waiting for a request
  //! Idle connections closed to admit a new one, by the limit reached.
  std::atomic<uint64_t> shed_server{0}, shed_client{0};
  //! New connections turned away (nothing idle to close), by the limit reached.
  std::atomic<uint64_t> refused_server{0}, refused_client{0};
};

class Api {
 public:
  //! Appends process metrics (pipeline counters, lag) to a /metrics scrape; may be empty.
  using MetricsSource = std::function<void(PrometheusWriter&)>;
  //! The running processor's figures for /api/status; empty when none runs in this process.
  using StatusSource = std::function<ProcessorStatus()>;

  Api(state::Store& store, MetricsSource metrics, StatusSource status = {}, SparqlOptions sparql = {});

  ApiResponse Handle(const ApiRequest& request);
  //! A JSON error, counted under `route` ("other" for requests that never reached a route).
  ApiResponse Error(int status, std::string_view message, std::string_view route = "other");
  //! The /metrics body.
  std::string Metrics();
  //! Serves another store from now on (a replay made another generation current). Waits
  //! for the requests reading the old one; the old store may close when it returns.
  //! With `table`, the table's questions are answered from it, as SetTable says, in the same
  //! switch.
  void SetSource(state::Store& store, MetricsSource metrics, StatusSource status = {},
                 std::shared_ptr<query::TableSource> table = nullptr);
  //! Answers the table's questions (top, a domain's pages, a page, its links, totals) from
  //! `table`, a partitioned table's shards (query/sharded_table.h), from now on; /api/pagerank
  //! as SetPageRank says; the routes that need the whole table in this process's store
  //! (statements, SPARQL, suggestions) answer 503 saying so. The store still answers /healthz.
  void SetTable(std::shared_ptr<query::TableSource> table);
  //! Answers the internal shard routes (shard_routes.h) from now on, for the shards `lookup`
  //! serves; without one they are unknown routes. Waits for the requests using the old lookup.
  void SetShardLookup(ShardLookup lookup);

  //! On a partitioned table, /api/pagerank (and /internal/pagerank) from now on: from the results
  //! `locate` names, else forwarded to the member it names, asked within `timeout`
  //! (pagerank_route.h); empty: 503. Waits for the requests using the old locator.
  void SetPageRank(PageRankLocator locate, std::chrono::milliseconds timeout = std::chrono::seconds(5));

  ConnectionStats& connection_stats() { return connections_; }

  //! The routes, in the order /metrics lists them.
  static const std::vector<std::string>& Routes();

 private:
  ApiResponse Dispatch(const ApiRequest& request, const std::string& route);
  void Count(std::string_view route, int status);
  //! A request under /internal/shards/ while a shard lookup is set (shard_mu_ held shared).
  ApiResponse AnswerShards(const ApiRequest& request);
  //! /api/pagerank of a partitioned table, or /internal/pagerank (source_mu_ held shared).
  Result<std::string> PartitionedPageRank(const std::string& route, const Target& t, std::string_view target);

  std::shared_mutex source_mu_;  //!< shared by requests, exclusive while switching stores
  std::unique_ptr<query::QueryService> query_;
  state::Store* store_;  //!< what query_ reads, for the PageRank results
  bool partitioned_ = false;  //!< query_ reads table shards (SetTable); store_ holds no table
  MetricsSource metrics_;
  StatusSource status_;
  const SparqlOptions sparql_;
  std::map<std::string, LatencyHistogram, std::less<>> latency_;  //!< fixed after construction
  std::mutex counts_mu_;
  std::map<std::pair<std::string, int>, uint64_t> counts_;  //!< (route, status) -> responses
  ConnectionStats connections_;
  std::shared_mutex shard_mu_;  //!< shared by shard requests, exclusive while switching lookups
  ShardLookup shard_lookup_;
  std::shared_mutex rank_mu_;  //!< shared by PageRank requests, exclusive while switching locators
  PageRankLocator rank_locator_;
  std::chrono::milliseconds rank_timeout_{5000};
};

}  // namespace webindex::http
