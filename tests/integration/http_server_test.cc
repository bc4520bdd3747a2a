// The HTTP server's connection handling: keep-alive and pipelining, requests that end the
// connection, read and idle timeouts, concurrent clients, Start/Stop; and `webindex run --http`
// serving the live table.
#include <signal.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "child_process.h"
#include "graph/graph_update.h"
#include "http/server.h"
#include "http_test_client.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

using HttpServerTest = HttpFixture;

TEST_F(HttpServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  Conn c(port_);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    auto r = Parse(c.ReadResponse());
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, R"({"status":"ok"})");
  }
  // Pipelined: two requests in one write, two responses in order.
  ASSERT_TRUE(c.Send("GET /api/top?limit=1 HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(Parse(c.ReadResponse()).body, query::ToJson(service().Top(1, "").value()));
  EXPECT_EQ(Parse(c.ReadResponse()).body, R"({"status":"ok"})");
}

// A request the API never takes (another method, a body) or that does not parse is answered with
// Connection: close, and the request after it on the same connection is not served; an error in
// a well-formed GET's parameters keeps the connection.
TEST_F(HttpServerTest, ARequestTheApiDoesNotTakeEndsTheConnection) {
  const std::string next = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::vector<std::pair<std::string, int>> cases = {
      {"POST /api/top HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", 405},
      {"DELETE /api/top HTTP/1.1\r\nHost: x\r\n\r\n", 405},
      {"GET /api/top HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", 400},
      {"GET /api/top HTTP/1.1\r\nHost: x\r\nNo colon in this line\r\n\r\n", 400},
  };
  for (const auto& [request, status] : cases) {
    Conn c(port_);
    ASSERT_TRUE(c.Send(request + next));  // pipelined: a server that reads on would answer it
    const auto start = Clock::now();
    const std::string raw = c.ReadToEnd();
    const Reply r = Parse(raw);
    EXPECT_EQ(r.status, status) << request;
    EXPECT_NE(r.head.find("\r\nConnection: close"), std::string::npos) << request << " -> " << r.head;
    EXPECT_EQ(raw.find("HTTP/1.1 200"), std::string::npos) << request << " -> " << raw;
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 1.0) << request << ": not closed";
  }
  Conn c(port_);
  ASSERT_TRUE(c.Send("GET /api/top?limit=0 HTTP/1.1\r\nHost: x\r\n\r\n" + next));
  const Reply bad = Parse(c.ReadResponse());
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.head.find("Connection: close"), std::string::npos) << bad.head;
  EXPECT_EQ(Parse(c.ReadResponse()).status, 200);
}

TEST_F(HttpServerTest, SlowClientIsDisconnectedAfterTheReadTimeout) {
  Conn c(port_);
  ASSERT_TRUE(c.Send("GET /api/top HTTP/1.1\r\nHost: x\r\n"));  // never finishes the header
  const auto start = Clock::now();
  const std::string got = c.ReadToEnd();
  const auto waited = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_TRUE(got.empty()) << got;
  EXPECT_GT(waited, 0.5);
  EXPECT_LT(waited, 5.0) << "the server kept a half request open";
}

TEST_F(HttpServerTest, TricklingClientIsDisconnectedAfterTheReadTimeout) {
  // The read timeout bounds the whole request, not the gap between two bytes.
  Conn c(port_);
  const std::string request = "GET /api/top HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(50, 'a') + "\r\n\r\n";
  const auto start = Clock::now();
  bool cut = false;
  for (char byte : request) {
    if (!c.Send(std::string_view(&byte, 1))) {
      cut = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const std::string got = c.ReadToEnd();
  EXPECT_TRUE(cut || got.empty()) << got;
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 4.0);
}

TEST_F(HttpServerTest, IdleConnectionIsClosedAfterTheIdleTimeout) {
  Conn c(port_);
  const auto start = Clock::now();
  EXPECT_TRUE(c.ReadToEnd().empty());
  const auto waited = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_GT(waited, 1.5);
  EXPECT_LT(waited, 6.0);
}

TEST_F(HttpServerTest, ConcurrentRequestsAllSucceed) {
  const std::string expected_top = query::ToJson(service().Top(5, "").value());
  const std::string expected_pages = query::ToJson(service().Pages("stackoverflow.com", 25, "").value());
  std::atomic<int> ok{0}, bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const bool top = (i + t) % 2 == 0;
        auto r = Get(port_, top ? "/api/top?limit=5" : "/api/pages?domain=stackoverflow.com");
        (r.status == 200 && r.body == (top ? expected_top : expected_pages) ? ok : bad)++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok, 160);
  EXPECT_EQ(bad, 0);
}

// A SPARQL query holds its connection's thread while it runs; a client that gives up on it (closes
// the connection) stops it within moments instead of at its time budget, and it is counted as
// 499 (nothing is sent).
TEST(HttpSparqlTest, AQueryStopsWhenItsClientHangsUp) {
  const std::string dir = MakeTempDir("webindex-sparql-hangup");
  state::StoreOptions store_options;
  store_options.sync_commits = false;
  auto store = state::Store::Open(dir, store_options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  graph::GraphUpdate update({}, {});
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(update.Add({graph::Term::Iri("http://e/s" + std::to_string(i)), graph::Term::Iri("http://e/p"),
                            graph::Term::Iri("http://e/o" + std::to_string(i % 7)), std::nullopt})
                    .ok());
  }
  state::WriteBatch batch(**store);
  ASSERT_TRUE(update.Apply(**store, batch).ok());
  ASSERT_TRUE((*store)->Write(batch).ok());
  http::ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.threads = 2;
  http::Server server(**store, options);
  ASSERT_TRUE(server.Start().ok());
  const uint16_t port = server.port();

  // Four unconnected patterns: 300^4 rows to go through, none kept (the FILTER needs all four
  // and never holds): minutes of work in constant memory.
  const std::string query =
      "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l "
      "FILTER(CONCAT(STR(?a), STR(?d), STR(?g), STR(?j)) = \"\") }";
  const std::string cancelled = "webindex_http_responses_total{route=\"/sparql\",code=\"499\"} 1";
  const auto start = Clock::now();
  {
    Conn c(port);
    ASSERT_TRUE(c.Send("POST /sparql?timeout=120000 HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-query\r\n"
                       "Content-Length: " + std::to_string(query.size()) + "\r\n\r\n" + query));
    ASSERT_TRUE(c.SilentFor(std::chrono::milliseconds(500))) << "the query is not slow enough for this test: "
                                                             << c.ReadResponse();
  }  // the client hangs up
  std::string metrics;
  while (Clock::now() - start < std::chrono::seconds(20)) {
    metrics = Get(port, "/metrics").body;
    if (metrics.find(cancelled) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(metrics.find(cancelled), std::string::npos) << "the query ran on for its absent client";
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 5.0);
  // Both threads are free again: two queries at once are answered.
  std::thread other([&] { EXPECT_EQ(Get(port, "/sparql?query=ASK%20%7B%7D").status, 200); });
  EXPECT_EQ(Get(port, "/sparql?query=ASK%20%7B%7D").status, 200);
  other.join();
  server.Stop();
  store->reset();
  std::filesystem::remove_all(dir);
}

TEST_F(HttpServerTest, StartStopAreIdempotentAndStopClosesConnections) {
  Conn idle(port_);
  ASSERT_TRUE(idle.connected());
  ASSERT_TRUE(idle.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(Parse(idle.ReadResponse()).status, 200);
  EXPECT_TRUE(server_->Start().ok());  // already started
  const auto start = Clock::now();
  server_->Stop();
  server_->Stop();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 1.0);
  EXPECT_TRUE(idle.ReadToEnd().empty());  // closed by Stop, well before the idle timeout
  EXPECT_EQ(server_->Start().code(), Status::Code::kAborted);
  Conn refused(port_);
  EXPECT_FALSE(refused.connected());

  http::Server never_started(*store_, Options());
  never_started.Stop();
  http::ServerOptions taken = Options();
  http::Server other(*store_, Options());
  ASSERT_TRUE(other.Start().ok());
  taken.listen = "127.0.0.1:" + std::to_string(other.port());
  http::Server clash(*store_, taken);
  EXPECT_EQ(clash.Start().code(), Status::Code::kIoError);
}

TEST(HttpRunTest, RunServesTheLiveTable) {
  PipelineHarness h(2);
  const std::string log = h.data_dir() + "/run.log";
  ChildProcess run(
      {WEBINDEX_BINARY, "run", "--brokers", h.brokers(), "--data-dir", h.data_dir() + "/live", "--http", "127.0.0.1:0"},
      log);
  uint16_t port = 0;
  for (auto deadline = Clock::now() + std::chrono::seconds(60); port == 0 && Clock::now() < deadline;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    port = LoggedPort(log);
  }
  ASSERT_NE(port, 0) << "no port in " << log;
  EXPECT_EQ(Get(port, "/api/pages?domain=stackoverflow.com").body,
            R"({"domain":"stackoverflow.com","total":0,"results":[],"next":null})");
  ProduceSample(h);  // ingested while serving
  std::string body;
  for (auto deadline = Clock::now() + std::chrono::seconds(60); Clock::now() < deadline;) {
    body = Get(port, "/api/pages?domain=stackoverflow.com&limit=1").body;
    if (body.find(R"("total":4)") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_NE(body.find(std::string(R"("total":4,"results":[{"url":")") + kBlog), std::string::npos) << body;
  auto metrics = Get(port, "/metrics").body;
  EXPECT_TRUE(std::regex_search(metrics, std::regex("\nwebindex_events_total [1-9]"))) << metrics;
  EXPECT_NE(metrics.find("webindex_consumer_lag_up 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("webindex_consumer_lag{stage=\""), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("webindex_stage_batch_seconds_total{stage=\"sink\"}"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("webindex_stage_batches_total{stage=\"page\"}"), std::string::npos) << metrics;
  run.Signal(SIGTERM);
  EXPECT_EQ(run.Wait(), 0);
}

}  // namespace
}  // namespace webindex::testing
