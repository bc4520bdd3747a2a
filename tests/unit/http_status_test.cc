// The routes of the web UI's search box, top view and status view through the Api: /api/suggest,
// /api/totals and /api/status answer GET and HEAD, validate their parameters with 400s that say
// what is wrong, and say why a figure is not available instead of inventing one.
#include <gtest/gtest.h>

#include <filesystem>

#include "http/api.h"
#include "pipeline/runner_keys.h"
#include "pipeline_harness.h"
#include "sink/summary.h"
#include "sink/table.h"

namespace webindex::http {
namespace {

class StatusRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("webindex-status");
    auto store = state::Store::Open(dir_, {});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    state::WriteBatch wb(*store_);
    sink::TableWriter table(*store_, wb);
    table.SetUriInfo("com.stackoverflow>>o>/", {3, 1}, std::nullopt);
    table.SetUriInfo("com.stackoverflow>.meta>o>/", {1, 0}, std::nullopt);
    table.SetUriInfo("com.stackexchange>>o>/", {1250, 0}, std::nullopt);
    table.SetDomainCount("com.stackoverflow", 2);
    table.SetDomainCount("com.stackexchange", 1);
    table.Flush();
    ASSERT_TRUE(store_->Write(wb).ok());
  }
  void TearDown() override {
    api_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Summarize() {
    const Status st = sink::OpenSummary(*store_, pipeline::OffsetPrefix("sink", "webindex.exports"));
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  ApiResponse Get(const std::string& target) { return api_->Handle({"GET", target, false}); }

  std::string dir_;
  std::unique_ptr<state::Store> store_;
  std::unique_ptr<Api> api_;
};

TEST_F(StatusRoutesTest, SuggestAnswersGetAndHeadAndValidatesItsParameters) {
  Summarize();
  api_ = std::make_unique<Api>(*store_, nullptr);
  const ApiResponse r = Get("/api/suggest?q=Stack&limit=2");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, R"({"q":"stack","results":[)"
                    R"({"name":"stackoverflow.com","kind":"domain","domain":"stackoverflow.com","pages":2},)"
                    R"({"name":"stackexchange.com","kind":"domain","domain":"stackexchange.com","pages":1}],)"
                    R"("truncated":false})");
  const ApiResponse head = api_->Handle({"HEAD", "/api/suggest?q=Stack&limit=2", false});
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, r.body);  // the server sends its length, not the body
  EXPECT_EQ(Get("/api/suggest?q=stackoverflow").body,
            R"({"q":"stackoverflow","results":[)"
            R"({"name":"stackoverflow.com","kind":"domain","domain":"stackoverflow.com","pages":2},)"
            R"({"name":"meta.stackoverflow.com","kind":"host","domain":"stackoverflow.com"}],"truncated":false})");
  // No match is an empty answer, not an error.
  EXPECT_EQ(Get("/api/suggest?q=nothing").body, R"({"q":"nothing","results":[],"truncated":false})");

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"/api/suggest", R"({"error":"missing parameter 'q'"})"},
      {"/api/suggest?q=", R"({"error":"missing parameter 'q'"})"},
      {"/api/suggest?q=a+b", R"({"error":"q 'a b' cannot start a host name: letters, digits, '-', '_' and '.' only"})"},
      {"/api/suggest?q=" + std::string(300, 'a'),
       R"({"error":"q is longer than 253 characters, the longest host name"})"},
      {"/api/suggest?q=a&limit=0", R"({"error":"limit must be a number between 1 and 50"})"},
      {"/api/suggest?q=a&limit=51", R"({"error":"limit must be a number between 1 and 50"})"},
      {"/api/suggest?q=a&limit=x", R"({"error":"limit must be a number between 1 and 50"})"},
      {"/api/suggest?q=a&q=b", R"({"error":"parameter 'q' given more than once"})"},
  };
  for (const auto& [target, error] : bad) {
    const ApiResponse e = Get(target);
    EXPECT_EQ(e.status, 400) << target;
    EXPECT_EQ(e.body, error) << target;
  }
  const ApiResponse post = api_->Handle({"POST", "/api/suggest?q=a", false});
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.allow, "GET, HEAD");
  const std::string metrics = api_->Metrics();
  EXPECT_NE(metrics.find("webindex_http_responses_total{route=\"/api/suggest\",code=\"400\"} 7\n"), std::string::npos)
      << metrics;
}

TEST_F(StatusRoutesTest, TotalsAreTheSinksAndNotFoundBeforeItKeptAny) {
  api_ = std::make_unique<Api>(*store_, nullptr);
  const ApiResponse none = Get("/api/totals");
  EXPECT_EQ(none.status, 404);
  EXPECT_NE(none.body.find("no totals yet"), std::string::npos) << none.body;
  EXPECT_EQ(Get("/api/suggest?q=stack").status, 404);
  Summarize();
  const ApiResponse r = Get("/api/totals");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"pages":3,"crawled":0,"linkedTo":3,"links":1254,"domains":2})");
  EXPECT_EQ(api_->Handle({"HEAD", "/api/totals", false}).body, r.body);
}

TEST_F(StatusRoutesTest, StatusWithoutAProcessorSaysWhatIsNotAvailableAndWhy) {
  Summarize();
  api_ = std::make_unique<Api>(*store_, nullptr);
  const ApiResponse r = Get("/api/status");
  EXPECT_EQ(r.status, 200);
  const std::string no = "no processor runs in this server: it answers from its data dir only";
  EXPECT_EQ(r.body, R"({"healthy":true,"generation":null,"events":null,"eventsPerSecond":null,"lag":null,"pagerank":null,)"
                    R"("pagerankChecks":null,"deadLetters":null,)"
                    R"("totals":{"pages":3,"crawled":0,"linkedTo":3,"links":1254,"domains":2},)"
                    R"("unavailable":{"generation":")" +
                        no + R"(","events":")" + no + R"(","eventsPerSecond":")" + no + R"(","lag":")" + no +
                        R"(","pagerank":"no PageRank result is stored in this data dir","pagerankChecks":")" + no +
                        R"(","deadLetters":")" + no + R"("}})");
  EXPECT_EQ(api_->Handle({"HEAD", "/api/status", false}).status, 200);
}

TEST_F(StatusRoutesTest, StatusOfARunningProcessorHasItsFigures) {
  ProcessorStatus p;
  p.generation = 3;
  p.events = 1234567;
  p.events_per_second = 2500.26;
  p.rate_seconds = 10;
  p.lag.emplace();
  p.lag->push_back({"page", "pages", 0, 100, 112, 12});
  p.lag->push_back({"sink", "webindex.exports", 1, 5, 5, 0});
  p.pagerank_enabled = true;
  p.pagerank_interval = std::chrono::seconds(60);
  p.pagerank_unchanged = 4;
  p.dead_letters = {"webindex.dead-letters", "127.0.0.1:9092,127.0.0.1:9093", 0, std::nullopt, 0, 7, ""};
  api_ = std::make_unique<Api>(*store_, nullptr, [&p] { return p; });
  ApiResponse r = Get("/api/status");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            R"({"healthy":true,"generation":3,"events":1234567,"eventsPerSecond":2500.3,"eventsPerSecondOver":10.0,)"
            R"("lag":{"total":12,"known":12,"unknownPartitions":0,"partitions":[)"
            R"({"stage":"page","topic":"pages","partition":0,"from":"this process","position":100,"end":112,"lag":12},)"
            R"({"stage":"sink","topic":"webindex.exports","partition":1,"from":"this process","position":5,"end":5,)"
            R"("lag":0}]},)"
            R"("pagerank":null,)"
            R"("pagerankChecks":{"intervalSeconds":60,"running":false,"stored":0,"unchanged":4,"failed":0},)"
            R"("deadLetters":{"topic":"webindex.dead-letters","count":0,"last":null,"stored":7,)"
            R"("read":"kcat -b 127.0.0.1:9092,127.0.0.1:9093 -C -t webindex.dead-letters -o beginning -e )"
            R"(-f 'key %k: %h\\n%s\\n\\n'"},)"
            R"("totals":null,)"
            R"("unavailable":{"pagerank":"no result yet: one is computed every pagerank.interval_s (60 s) when the )"
            R"(table changed","totals":"this table has no totals yet: `webindex run` counts them when it opens the )"
            R"(data dir"}})");

  // A group member: a partition another member owns, by the group's offset, and one nobody has
  // reported (the group's join under way): its lag is unknown, and so is the total, never 0.
  p.lag->push_back({"page", "pages", 1, 40, 50, 10, false, true});
  p.lag->push_back({"page", "pages", 2, 0, 70, 0, false, false});
  r = Get("/api/status");
  EXPECT_NE(r.body.find(R"("lag":{"total":null,"known":22,"unknownPartitions":1,)"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"({"stage":"page","topic":"pages","partition":1,"from":"group","position":40,"end":50,)"
                        R"("lag":10})"),
            std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find(R"({"stage":"page","topic":"pages","partition":2,"from":"group","position":null,"end":70,)"
                        R"("lag":null})"),
            std::string::npos)
      << r.body;

  // The brokers did not answer; no rate measured yet; PageRank off.
  p.lag.reset();
  p.lag_error = "watermarks of pages[0]: timed out";
  p.events_per_second.reset();
  p.pagerank_enabled = false;
  r = Get("/api/status");
  EXPECT_NE(r.body.find(R"("lag":null)"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(R"("lag":"the brokers did not answer: watermarks of pages[0]: timed out")"), std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find(R"("eventsPerSecond":"measured once the processor has run for a second")"), std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find(R"("pagerank":"off: pagerank.interval_s is 0")"), std::string::npos) << r.body;
}

TEST_F(StatusRoutesTest, StatusShowsDeadLettersTheLastReasonAndHowToReadThem) {
  ProcessorStatus p;
  p.dead_letters = {"webindex.dead-letters", "kafka1:9092", 3, "crawlDate is not an RFC 3339 date-time",
                    1763938845000, 12, ""};
  api_ = std::make_unique<Api>(*store_, nullptr, [&p] { return p; });
  ApiResponse r = Get("/api/status");
  EXPECT_NE(r.body.find(R"("deadLetters":{"topic":"webindex.dead-letters","count":3,)"
                        R"("last":{"reason":"crawlDate is not an RFC 3339 date-time","atMs":1763938845000},)"
                        R"("stored":12,)"
                        R"("read":"kcat -b kafka1:9092 -C -t webindex.dead-letters -o beginning -e )"
                        R"(-f 'key %k: %h\\n%s\\n\\n'"})"),
            std::string::npos)
      << r.body;
  // The brokers did not answer: what the topic holds is unknown, the rest is this process's own.
  p.dead_letters.stored.reset();
  p.dead_letters.stored_error = "watermarks of webindex.dead-letters[0]: timed out";
  r = Get("/api/status");
  EXPECT_NE(r.body.find(R"("count":3,"last":{"reason":"crawlDate is not an RFC 3339 date-time","atMs":1763938845000},)"
                        R"("stored":null,)"),
            std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find(R"("deadLetters.stored":"the brokers did not answer: watermarks of )"
                        R"(webindex.dead-letters[0]: timed out")"),
            std::string::npos)
      << r.body;
  // Brokers a shell would read otherwise are quoted.
  EXPECT_EQ(DeadLetterCommand("host with space:9092", "t"),
            R"(kcat -b 'host with space:9092' -C -t t -o beginning -e -f 'key %k: %h\n%s\n\n')");
}

}  // namespace
}  // namespace webindex::http
