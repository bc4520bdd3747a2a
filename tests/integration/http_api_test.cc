// The HTTP query API on 127.0.0.1:0 over a table the real pipeline built: every route answers
// like the QueryService, cursors page, bad requests get JSON errors, /metrics; `webindex query`.
#include <gtest/gtest.h>

#include "child_process.h"
#include "http_test_client.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

using HttpApiTest = HttpFixture;

TEST_F(HttpApiTest, EveryRouteAnswersLikeTheQueryService) {
  auto health = Get(port_, "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, R"({"status":"ok"})");
  EXPECT_NE(health.head.find("Content-Type: application/json"), std::string::npos) << health.head;

  auto top = Get(port_, "/api/top?limit=3");
  EXPECT_EQ(top.status, 200);
  EXPECT_EQ(top.body, query::ToJson(service().Top(3, "").value()));
  EXPECT_NE(top.body.find(std::string("{\"url\":\"") + kBlog + "\""), std::string::npos) << top.body;

  auto pages = Get(port_, "/api/pages?domain=www.stackoverflow.com");
  EXPECT_EQ(pages.status, 200);
  EXPECT_TRUE(
      pages.body.starts_with(std::string(R"({"domain":"stackoverflow.com","total":4,"results":[{"url":")") + kBlog +
                             R"(","uri":"com.stackoverflow>.blog>o>/2009/06/attribution-required/","count":4})"))
      << pages.body;

  const std::string badge = "http://apple.stackexchange.com/help/badges/9/autobiographer?userid=796";
  auto page = Get(port_, "/api/page?url=" + Encode(badge));
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.body, query::ToJson(service().Page(badge).value()));
  EXPECT_NE(page.body.find(R"("title":"Autobiographer - Badge - Ask Different")"), std::string::npos);

  auto in = Get(port_, "/api/links?url=" + Encode("http://c.com/1") + "&linkType=in");
  EXPECT_EQ(in.status, 200);
  EXPECT_NE(
      in.body.find(R"("total":1,"results":[{"url":"http://a.com/1","uri":"com.a>>o>/1","anchorText":"c1 \"x\""}])"),
      std::string::npos)
      << in.body;
  auto out = Get(port_, "/api/links?url=http://a.com/1&linkType=out&limit=2");
  EXPECT_EQ(out.status, 200);
  EXPECT_EQ(out.body, query::ToJson(service().Links("http://a.com/1", query::LinkType::kOut, 2, "").value()));
  EXPECT_NE(out.body.find(R"("total":3)"), std::string::npos);
  EXPECT_TRUE(NextCursor(out.body));

  auto suggest = Get(port_, "/api/suggest?q=stack&limit=3");
  EXPECT_EQ(suggest.status, 200);
  EXPECT_EQ(suggest.body, query::ToJson(service().Suggest("stack", 3).value()));
  EXPECT_NE(suggest.body.find(R"({"name":"stackoverflow.com","kind":"domain","domain":"stackoverflow.com","pages":4})"),
            std::string::npos)
      << suggest.body;
  auto totals = Get(port_, "/api/totals");
  EXPECT_EQ(totals.status, 200);
  EXPECT_EQ(totals.body, query::ToJson(service().Totals().value()));

  auto missing = Get(port_, "/api/page?url=" + Encode("http://nowhere.example.org/"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_TRUE(missing.body.starts_with(R"({"error":")")) << missing.body;
}

TEST_F(HttpApiTest, CursorsPageThroughTop) {
  const auto whole = service().Top(query::kMaxLimit, "").value();
  for (int limit = 1; limit <= 3; ++limit) {
    std::string all, cursor;
    for (int calls = 0;; ++calls) {
      ASSERT_LT(calls, 500);
      auto r = Get(port_, "/api/top?limit=" + std::to_string(limit) + (cursor.empty() ? "" : "&next=" + cursor));
      ASSERT_EQ(r.status, 200) << r.body;
      const size_t open = r.body.find('[') + 1, close = r.body.rfind(']');
      if (!all.empty()) all += ',';
      all += r.body.substr(open, close - open);
      auto next = NextCursor(r.body);
      if (!next) break;
      cursor = *next;
    }
    EXPECT_EQ("{\"results\":[" + all + "],\"next\":null}", query::ToJson(whole)) << "limit " << limit;
  }
}

TEST_F(HttpApiTest, BadRequestsGetJsonErrors) {
  struct Case {
    std::string request;
    int status;
  };
  const std::string close = "Host: x\r\nConnection: close\r\n\r\n";
  const std::vector<Case> cases = {
      {"GET /nope HTTP/1.1\r\n" + close, 404},
      {"GET /api/top?limit=0 HTTP/1.1\r\n" + close, 400},
      {"GET /api/top?limit=5000 HTTP/1.1\r\n" + close, 400},
      {"GET /api/page HTTP/1.1\r\n" + close, 400},
      {"GET /api/links?linkType=in HTTP/1.1\r\n" + close, 400},
      {"GET /api/page?url=http%3A%2F%2Fa.com%2 HTTP/1.1\r\n" + close, 400},
      {"GET /api/top?next=not-a-cursor HTTP/1.1\r\n" + close, 400},
      {"POST /api/top HTTP/1.1\r\nContent-Length: 2\r\n" + close + "{}", 405},
      {"GET /api/top HTTP/1.1\r\nContent-Length: 5\r\n" + close + "hello", 400},
      {"GET /api/top HTTP/1.1\r\nContent-Length: 2000000\r\n" + close, 413},
      {"GET /api/top HTTP/1.1\r\nX-Big: " + std::string(9000, 'a') + "\r\n" + close, 431},
      {"GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n" + close, 431},
      {"GARBAGE\r\n\r\n", 400},
      {"GET /api/top HTTP/1.1\r\nNo colon in this line\r\n" + close, 400},
      {"GET /api/top HTTP/2.0\r\n" + close, 505},
      {"GET /api/top HTTP/1.2\r\n" + close, 505},
  };
  for (const auto& c : cases) {
    auto r = Raw(port_, c.request);
    EXPECT_EQ(r.status, c.status) << c.request.substr(0, 80);
    EXPECT_TRUE(r.body.starts_with(R"({"error":")")) << c.request.substr(0, 80) << " -> " << r.body;
    EXPECT_NE(r.head.find("Content-Type: application/json"), std::string::npos);
  }
  EXPECT_NE(Raw(port_, cases[7].request).head.find("Allow: GET, HEAD"), std::string::npos);
  // The server still serves after all that.
  EXPECT_EQ(Get(port_, "/healthz").status, 200);
}

// A parameter a route does not take is a mistake (a typo leaves the real one at its default), so
// it is refused by name, as the CLI refuses an unknown option; the ones each route takes pass.
TEST_F(HttpApiTest, UnknownParametersAreRefusedNamingThem) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"/api/top?bogus=1", "unknown parameter 'bogus': /api/top takes limit, next"},
      {"/api/pages?domain=stackoverflow.com&domian=x",
       "unknown parameter 'domian': /api/pages takes domain, limit, next"},
      {"/api/links?url=http%3A%2F%2Fa.com%2F1&linktype=out",
       "unknown parameter 'linktype': /api/links takes url, linkType"},
      {"/api/page?url=http%3A%2F%2Fa.com%2F1&limit=3", "unknown parameter 'limit': /api/page takes url"},
      {"/api/triples?q=x", "unknown parameter 'q': /api/triples takes s, p, o, graph, limit, next"},
      {"/api/search?q=x&s=y", "unknown parameter 's': /api/search takes q, p, graph, limit, next"},
      {"/api/temporal?after=2020-01-01T00:00:00Z&o=x", "unknown parameter 'o': /api/temporal takes before, after"},
      {"/api/suggest?q=stack&next=x", "unknown parameter 'next': /api/suggest takes q, limit"},
      {"/api/totals?limit=1", "unknown parameter 'limit': /api/totals takes none"},
      {"/api/status?x", "unknown parameter 'x': /api/status takes none"},
      {"/healthz?verbose=1", "unknown parameter 'verbose': /healthz takes none"},
      {"/metrics?name=x", "unknown parameter 'name': /metrics takes none"},
  };
  for (const auto& [target, message] : refused) {
    auto r = Get(port_, target);
    EXPECT_EQ(r.status, 400) << target;
    EXPECT_NE(r.body.find(message), std::string::npos) << target << " -> " << r.body;
  }
  // Every parameter the routes take (docs/api.md), all at once where a route allows it.
  for (const std::string target :
       {"/api/top?limit=2&next=", "/api/pages?domain=stackoverflow.com&limit=2&next=",
        "/api/page?url=http%3A%2F%2Fa.com%2F1", "/api/links?url=http%3A%2F%2Fa.com%2F1&linkType=out&limit=2&next=",
        "/api/triples?s=%3Chttp%3A%2F%2Fa%2Fb%3E&p=&o=&graph=all&limit=2&next=",
        "/api/suggest?q=stack&limit=3", "/api/totals", "/api/status", "/healthz", "/metrics",
        "/ui/app.js?v=whatever", "/?from=bookmark"}) {
    EXPECT_EQ(Get(port_, target).status, 200) << target;
  }
  EXPECT_EQ(Get(port_, "/api/search?q=x&p=&graph=&limit=2&next=").status, 200);
}

// RFC 9110 9.3.2: HEAD wherever GET works, with the GET's headers (Content-Length included) and
// no body; the connection stays usable for the next request.
TEST_F(HttpApiTest, HeadAnswersLikeGetWithoutTheBody) {
  for (const std::string target : {"/api/top?limit=2", "/", "/healthz", "/nope", "/api/suggest?q=stack", "/api/totals",
                                   "/api/status", "/api/suggest?q=a+b"}) {
    const Reply get = Get(port_, target);
    Conn c(port_);
    ASSERT_TRUE(c.connected());
    c.Send("HEAD " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n" + "GET /healthz HTTP/1.1\r\nHost: localhost\r\n" +
           "Connection: close\r\n\r\n");
    const std::string raw = c.ReadToEnd();
    const size_t head_end = raw.find("\r\n\r\n");
    ASSERT_NE(head_end, std::string::npos) << target << ": " << raw;
    const Reply head = Parse(raw.substr(0, head_end + 4));
    EXPECT_EQ(head.status, get.status) << target;
    EXPECT_NE(head.head.find("Content-Length: " + std::to_string(get.body.size())), std::string::npos)
        << target << ": " << head.head;
    // No body: the next response starts right after the head's blank line.
    EXPECT_TRUE(raw.substr(head_end + 4).starts_with("HTTP/1.1 200")) << target << ": " << raw;
  }
}

TEST_F(HttpApiTest, MetricsHavePipelineCountersAndRouteLatency) {
  ASSERT_EQ(Get(port_, "/api/top").status, 200);
  ASSERT_EQ(Get(port_, "/nope").status, 404);
  auto m = Get(port_, "/metrics");
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.head.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << m.head;
  for (const char* expected :
       {"webindex_events_total 42\n", "webindex_invalid_events_total 0\n", "webindex_stale_events_total 0\n",
        "webindex_dead_lettered_total 0\n", "webindex_dropped_links_total 0\n", "webindex_duplicates_total 0\n",
        "webindex_lost_records_total 0\n", "# TYPE webindex_http_request_duration_seconds histogram\n",
        "webindex_http_request_duration_seconds_bucket{route=\"/api/top\",le=\"+Inf\"} 1\n",
        "webindex_http_request_duration_seconds_count{route=\"/api/top\"} 1\n",
        "webindex_http_request_duration_seconds_sum{route=\"/api/top\"} ",
        "webindex_http_request_duration_seconds_count{route=\"other\"} 1\n",
        "webindex_http_responses_total{route=\"/api/top\",code=\"200\"} 1\n",
        "webindex_http_responses_total{route=\"other\",code=\"404\"} 1\n"}) {
    EXPECT_NE(m.body.find(expected), std::string::npos) << expected << "\n" << m.body;
  }
}

TEST_F(HttpApiTest, QueryCommandPrintsTheApiJson) {
  const std::string log = harness_->data_dir() + "/query.log";
  const std::string dir = harness_->config().data_dir;
  std::string out;
  ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "query", "top", "--data-dir", dir, "--limit", "2"}, &out, log), 0);
  EXPECT_EQ(out, query::ToJson(service().Top(2, "").value()) + "\n");
  const std::string cursor = NextCursor(out).value_or("");
  ASSERT_EQ(
      RunCommand({WEBINDEX_BINARY, "query", "top", "--data-dir", dir, "--limit", "2", "--next", cursor}, &out, log), 0);
  EXPECT_EQ(out, query::ToJson(service().Top(2, cursor).value()) + "\n");
  ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "query", "pages", "--data-dir", dir, "--domain", "www.stackoverflow.com"},
                       &out, log),
            0);
  EXPECT_NE(out.find(R"("total":4)"), std::string::npos) << out;
  // A domain of no page: the API's answer (total 0), and the exit code of "not found".
  EXPECT_EQ(RunCommand({WEBINDEX_BINARY, "query", "pages", "--data-dir", dir, "--domain", "nope.com"}, &out, log), 3);
  EXPECT_EQ(out, query::ToJson(service().Pages("nope.com", 25, "").value()) + "\n");
  EXPECT_NE(out.find(R"("total":0,"results":[])"), std::string::npos) << out;
  ASSERT_EQ(RunCommand(
                {WEBINDEX_BINARY, "query", "links", "--data-dir", dir, "--url", "http://a.com/1", "--link-type", "out"},
                &out, log),
            0);
  EXPECT_EQ(out, query::ToJson(service().Links("http://a.com/1", query::LinkType::kOut, 25, "").value()) + "\n");
  EXPECT_EQ(RunCommand({WEBINDEX_BINARY, "query", "page", "--data-dir", dir, "--url", "http://nowhere.example.org/"},
                       &out, log),
            3);
  EXPECT_TRUE(out.starts_with(R"({"error":")")) << out;
  EXPECT_EQ(RunCommand({WEBINDEX_BINARY, "query", "top", "--data-dir", dir, "--limit", "0"}, &out, log), 2);
}

}  // namespace
}  // namespace webindex::testing
