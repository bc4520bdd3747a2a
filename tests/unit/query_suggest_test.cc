// QueryService::Suggest and Totals over a table with the sink's summary: domains by the start of
// their name (most pages first, hosts after their domain), hosts the text names, IPs, bounds.
#include <gtest/gtest.h>

#include <filesystem>

#include "pipeline/runner_keys.h"
#include "pipeline_harness.h"
#include "query/query_json.h"
#include "query/query_service.h"
#include "sink/summary.h"
#include "sink/table.h"

namespace webindex::query {
namespace {

//! (uri, linksTo, docs) rows and their domains' page counts, written as the sink writes them.
struct Row {
  std::string uri;
  int64_t links_to = 0, docs = 0;
};

class SuggestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("webindex-suggest");
    auto store = state::Store::Open(dir_, {});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  void Write(const std::vector<Row>& rows, const std::vector<std::pair<std::string, int64_t>>& domains) {
    state::WriteBatch wb(*store_);
    sink::TableWriter table(*store_, wb);
    for (const auto& r : rows) table.SetUriInfo(r.uri, {r.links_to, r.docs}, std::nullopt);
    for (const auto& [key, n] : domains) table.SetDomainCount(key, n);
    table.Flush();
    ASSERT_TRUE(store_->Write(wb).ok());
  }
  //! Counts the summary as the sink does when it opens the table.
  void Summarize() {
    const Status st = sink::OpenSummary(*store_, pipeline::OffsetPrefix("sink", "webindex.exports"));
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  void WriteSample() {
    Write({{"com.stackoverflow>>o>/", 5, 1},
           {"com.stackoverflow>.blog>o>/a", 4, 0},
           {"com.stackoverflow>.meta>o>/q/1", 1, 1},
           {"com.stackoverflow>.www>o>/x", 0, 1},
           {"com.stackexchange>.apple>o>/", 2, 1},
           {"com.stackexchange>.apple>o>/b", 1, 0},
           {"com.stackapps>>o>/", 1, 0},
           {"org.stack>>o>/", 1, 0},
           {"192.168.1.7>>o>/", 1, 0},
           {"uk.co.bbc>.news>o>/", 3, 0}},
          {{"com.stackoverflow", 4},
           {"com.stackexchange", 2},
           {"com.stackapps", 1},
           {"org.stack", 1},
           {"192.168.1.7", 1},
           {"uk.co.bbc", 1}});
    Summarize();
  }

  //! "name(kind)" per result, for compact expectations.
  std::vector<std::string> Names(std::string_view q, size_t limit = kDefaultSuggestLimit) {
    auto r = QueryService(*store_).Suggest(q, limit);
    EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
    std::vector<std::string> out;
    if (!r.ok()) return out;
    for (const auto& s : r->results) out.push_back(s.name + (s.is_domain ? "" : " (host)"));
    return out;
  }

  std::string dir_;
  std::unique_ptr<state::Store> store_;
};

TEST_F(SuggestTest, DomainsStartingWithTheTextMostPagesFirstEachFollowedByItsHosts) {
  WriteSample();
  EXPECT_EQ(Names("stack"), (std::vector<std::string>{"stackoverflow.com", "blog.stackoverflow.com (host)",
                                                      "meta.stackoverflow.com (host)", "www.stackoverflow.com (host)",
                                                      "stackexchange.com", "apple.stackexchange.com (host)",
                                                      "stack.org", "stackapps.com"}));
  // The domains come first when the limit is short; hosts take what the domains leave.
  EXPECT_EQ(Names("stack", 3), (std::vector<std::string>{"stackoverflow.com", "stackexchange.com", "stack.org"}));
  EXPECT_EQ(Names("stack", 5), (std::vector<std::string>{"stackoverflow.com", "blog.stackoverflow.com (host)",
                                                         "stackexchange.com", "stack.org", "stackapps.com"}));
  // "stackoverflow" finds the domain and its hosts, meta.stackoverflow.com among them.
  EXPECT_EQ(Names("stackoverflow"),
            (std::vector<std::string>{"stackoverflow.com", "blog.stackoverflow.com (host)",
                                      "meta.stackoverflow.com (host)", "www.stackoverflow.com (host)"}));
  // The exact name first, whatever the page counts.
  EXPECT_EQ(Names("stack.org", 1), (std::vector<std::string>{"stack.org"}));

  auto r = QueryService(*store_).Suggest("stackoverflow", 2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ToJson(*r), R"({"q":"stackoverflow","results":[)"
                        R"({"name":"stackoverflow.com","kind":"domain","domain":"stackoverflow.com","pages":4},)"
                        R"({"name":"blog.stackoverflow.com","kind":"host","domain":"stackoverflow.com"}],)"
                        R"("truncated":false})");
}

TEST_F(SuggestTest, TextThatNamesAHostFindsItUnderItsDomain) {
  WriteSample();
  EXPECT_EQ(Names("meta.stackoverflow"), (std::vector<std::string>{"meta.stackoverflow.com (host)"}));
  EXPECT_EQ(Names("meta.stackoverflow.com"), (std::vector<std::string>{"meta.stackoverflow.com (host)"}));
  EXPECT_EQ(Names("news.bbc"), (std::vector<std::string>{"news.bbc.co.uk (host)"}));
  EXPECT_EQ(Names("apple.stackex"), (std::vector<std::string>{"apple.stackexchange.com (host)"}));
  EXPECT_EQ(Names("bbc.co"), (std::vector<std::string>{"bbc.co.uk", "news.bbc.co.uk (host)"}));
  EXPECT_EQ(Names("192.168"), (std::vector<std::string>{"192.168.1.7"}));
  EXPECT_TRUE(Names("mail.stackoverflow").empty());
  EXPECT_TRUE(Names("nothing-here").empty());
}

TEST_F(SuggestTest, TextIsLoweredAndStrippedOfSchemePortAndPath) {
  WriteSample();
  auto r = QueryService(*store_).Suggest("  HTTPS://StackOverflow.COM:8080/questions?x ", 1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->q, "stackoverflow.com");
  ASSERT_EQ(r->results.size(), 1u);
  EXPECT_EQ(r->results[0].name, "stackoverflow.com");
}

TEST_F(SuggestTest, BadTextAndLimitsAreInvalidArguments) {
  WriteSample();
  QueryService q(*store_);
  for (const char* text : {"", "   ", "stack overflow", "a<b", "http://", "\xc3\xa9t\xc3\xa9"}) {
    auto r = q.Suggest(text, 10);
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << text;
  }
  EXPECT_EQ(q.Suggest(std::string(254, 'a'), 10).status().code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(q.Suggest(std::string(253, 'a'), 10).ok());
  EXPECT_EQ(q.Suggest("stack", 0).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(q.Suggest("stack", kMaxSuggestLimit + 1).status().code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(q.Suggest("stack", kMaxSuggestLimit).ok());
}

TEST_F(SuggestTest, ManyMatchesAreReadUpToABoundAndSaySo) {
  std::vector<std::pair<std::string, int64_t>> domains;
  for (int i = 0; i < 1200; ++i) domains.emplace_back("com.x" + std::to_string(10000 + i), 1 + i % 7);
  Write({}, domains);
  Summarize();
  auto r = QueryService(*store_).Suggest("x", 5);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->truncated);
  ASSERT_EQ(r->results.size(), 5u);
  for (const auto& s : r->results) EXPECT_EQ(s.pages, 7u) << s.name;
  auto few = QueryService(*store_).Suggest("x1000", 50);
  ASSERT_TRUE(few.ok());
  EXPECT_FALSE(few->truncated);
  EXPECT_EQ(few->results.size(), 10u);  // x10000 .. x10009
}

TEST_F(SuggestTest, TotalsComeFromTheSummaryAndAreNotFoundWithoutOne) {
  Write({{"com.a>>o>/", 2, 1}, {"com.b>>o>/", 0, 1}}, {{"com.a", 1}, {"com.b", 1}});
  QueryService q(*store_);
  EXPECT_EQ(q.Totals().status().code(), Status::Code::kNotFound);
  EXPECT_EQ(q.Suggest("a", 10).status().code(), Status::Code::kNotFound);
  Summarize();
  auto totals = q.Totals();
  ASSERT_TRUE(totals.ok()) << totals.status().ToString();
  EXPECT_EQ(ToJson(*totals), R"({"pages":2,"crawled":0,"linkedTo":1,"links":2,"domains":2})");
}

}  // namespace
}  // namespace webindex::query
