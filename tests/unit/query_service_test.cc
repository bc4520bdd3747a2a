// QueryService over a table built by the real pipeline: the 5 sample pages and the two
// pages of the Accumulo golden table. Results, cursor paging, domains, pages and links.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "pipeline_harness.h"
#include "query/query_json.h"
#include "query/query_service.h"
#include "query/table_reader.h"

namespace webindex::query {
namespace {

using testing::PipelineHarness;

constexpr char kBlog[] = "http://blog.stackoverflow.com/2009/06/attribution-required/";
constexpr char kBadge[] = "http://apple.stackexchange.com/help/badges/9/autobiographer?userid=796";

class QueryServiceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    harness_ = std::make_unique<PipelineHarness>(2);
    std::vector<std::pair<std::string, std::string>> events;
    for (const auto& line : testing::ReadLines(testing::TestData("5-pages.txt"))) events.emplace_back("", line);
    events.emplace_back("http://a.com/1",
                        R"({"url":"http://a.com/1","outboundLinks":[{"url":"http://b.com/1","anchorText":"b1"},)"
                        R"({"url":"http://b.com/3","anchorText":"b3"},{"url":"http://c.com/1","anchorText":"c1"}]})");
    events.emplace_back("http://b.com",
                        R"({"url":"http://b.com","outboundLinks":[{"url":"http://c.com/1","anchorText":"c1"},)"
                        R"({"url":"http://b.com/2","anchorText":"b2"},{"url":"http://b.com/3","anchorText":"b3"}]})");
    harness_->Produce(events);
    harness_->RunUntilIdle();
    auto store = harness_->OpenReadOnly();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  static void TearDownTestSuite() {
    store_.reset();
    harness_.reset();
  }

  QueryService service() { return QueryService(*store_); }

  static std::unique_ptr<PipelineHarness> harness_;
  static std::unique_ptr<state::Store> store_;
};

std::unique_ptr<PipelineHarness> QueryServiceTest::harness_;
std::unique_ptr<state::Store> QueryServiceTest::store_;

std::vector<std::string> Uris(const std::vector<RankedPage>& pages) {
  std::vector<std::string> out;
  for (const auto& p : pages) out.push_back(p.uri + "=" + std::to_string(p.count));
  return out;
}

//! Pages through a query with `limit` per call, checking each page's size and that the
//! cursor chain ends.
template <typename Fetch>
std::vector<std::string> PageThrough(size_t limit, Fetch fetch) {
  std::vector<std::string> all;
  std::string cursor;
  for (int calls = 0; calls < 1000; ++calls) {
    auto [items, next] = fetch(limit, cursor);
    EXPECT_LE(items.size(), limit);
    EXPECT_FALSE(items.empty()) << "a cursor led to an empty page";
    all.insert(all.end(), items.begin(), items.end());
    if (!next) return all;
    cursor = *next;
  }
  ADD_FAILURE() << "cursor chain does not end";
  return all;
}

TEST_F(QueryServiceTest, TopIsTheTRowsInTableOrder) {
  std::vector<std::string> expected;
  ASSERT_TRUE(ScanRows(*store_, "t:", [&](const sink::Cell& c) {
                const size_t colon = c.row.find(':', 2);
                expected.push_back(c.row.substr(colon + 1) + "=" + c.value);
                return true;
              }).ok());
  ASSERT_GT(expected.size(), 40u);
  auto top = service().Top(kMaxLimit, "");
  ASSERT_TRUE(top.ok()) << top.status().ToString();
  EXPECT_EQ(Uris(top->results), expected);
  EXPECT_FALSE(top->next);
  for (size_t i = 1; i < top->results.size(); ++i) EXPECT_GE(top->results[i - 1].count, top->results[i].count);
  // Ties sort by URI: http://apple.blogoverflow.com/ (com.blogoverflow>...) comes first.
  EXPECT_EQ(top->results[0].url, "http://apple.blogoverflow.com/");
  EXPECT_EQ(top->results[0].count, 4u);
  EXPECT_NE(std::find(expected.begin(), expected.end(), "com.stackoverflow>.blog>o>/2009/06/attribution-required/=4"),
            expected.end());
}

TEST_F(QueryServiceTest, TopPagesConcatenateToTheWholeList) {
  auto whole = service().Top(kMaxLimit, "");
  ASSERT_TRUE(whole.ok());
  for (size_t limit = 1; limit <= 3; ++limit) {
    auto paged = PageThrough(limit, [&](size_t n, const std::string& cursor) {
      auto r = service().Top(n, cursor);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      return std::make_pair(Uris(r->results), r->next);
    });
    EXPECT_EQ(paged, Uris(whole->results)) << "limit " << limit;
    EXPECT_EQ(std::set<std::string>(paged.begin(), paged.end()).size(), paged.size()) << "duplicates";
  }
}

TEST_F(QueryServiceTest, PagesNormalizesAnyHostOfTheDomain) {
  auto plain = service().Pages("stackoverflow.com", kDefaultLimit, "");
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->domain, "stackoverflow.com");
  EXPECT_EQ(plain->total, 4u);
  ASSERT_FALSE(plain->results.empty());
  EXPECT_EQ(plain->results[0].url, kBlog);
  EXPECT_EQ(plain->results[0].count, 4u);
  for (const char* spelling : {"www.stackoverflow.com", "STACKOVERFLOW.COM", "blog.stackoverflow.com",
                               "http://meta.stackoverflow.com/some/page"}) {
    auto other = service().Pages(spelling, kDefaultLimit, "");
    ASSERT_TRUE(other.ok()) << spelling << ": " << other.status().ToString();
    EXPECT_EQ(ToJson(*other), ToJson(*plain)) << spelling;
  }
}

TEST_F(QueryServiceTest, PagesPageThroughTheDomain) {
  auto whole = service().Pages("stackexchange.com", kMaxLimit, "");
  ASSERT_TRUE(whole.ok());
  ASSERT_GT(whole->results.size(), 3u);
  EXPECT_EQ(whole->total, whole->results.size());
  for (size_t limit = 1; limit <= 3; ++limit) {
    auto paged = PageThrough(limit, [&](size_t n, const std::string& cursor) {
      auto r = service().Pages("apple.stackexchange.com", n, cursor);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      return std::make_pair(Uris(r->results), r->next);
    });
    EXPECT_EQ(paged, Uris(whole->results)) << "limit " << limit;
  }
}

TEST_F(QueryServiceTest, PagesOfUnknownAndBadDomains) {
  auto unknown = service().Pages("nothing-here.org", 10, "");
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->total, 0u);
  EXPECT_TRUE(unknown->results.empty());
  EXPECT_FALSE(unknown->next);
  for (const char* bad : {"", "a/b", "a b", "ftp://x.com/"}) {
    EXPECT_EQ(service().Pages(bad, 10, "").status().code(), Status::Code::kInvalidArgument) << bad;
  }
  auto ip = service().Pages("10.1.2.3", 10, "");
  ASSERT_TRUE(ip.ok()) << ip.status().ToString();
  EXPECT_EQ(ip->domain, "10.1.2.3");
}

TEST_F(QueryServiceTest, PageOfACrawledPage) {
  auto page = service().Page(kBadge);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->url, kBadge);
  EXPECT_EQ(page->uri, "com.stackexchange>.apple>o>/help/badges/9/autobiographer?userid=796");
  EXPECT_EQ(page->domain, "stackexchange.com");
  EXPECT_TRUE(page->crawled);
  EXPECT_EQ(page->num_outbound, 4u);
  EXPECT_EQ(page->title, "Autobiographer - Badge - Ask Different");
  EXPECT_EQ(page->server, "cloudflare-nginx");
  EXPECT_EQ(page->crawl_date, "2015-07-28T01:32:26Z");
  // Differently spelled URLs of one page find it.
  auto upper = service().Page("HTTP://Apple.StackExchange.com:80/help/badges/9/autobiographer?userid=796");
  ASSERT_TRUE(upper.ok()) << upper.status().ToString();
  EXPECT_EQ(ToJson(*upper), ToJson(*page));
}

TEST_F(QueryServiceTest, PageThatIsOnlyLinkedTo) {
  auto page = service().Page("http://b.com/3");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_FALSE(page->crawled);
  EXPECT_EQ(page->incount, 2u);
  EXPECT_EQ(page->num_outbound, 0u);
  EXPECT_FALSE(page->title);
  EXPECT_FALSE(page->crawl_date);
  EXPECT_EQ(ToJson(*page),
            R"({"url":"http://b.com/3","uri":"com.b>>o>/3","domain":"b.com","incount":2,"numOutbound":0,)"
            R"("crawled":false,"crawlDate":null,"title":null,"server":null})");
  auto blog = service().Page(kBlog);
  ASSERT_TRUE(blog.ok());
  EXPECT_EQ(blog->incount, 4u);
}

TEST_F(QueryServiceTest, PageNotFoundAndBadUrls) {
  EXPECT_EQ(service().Page("http://nowhere.example.org/").status().code(), Status::Code::kNotFound);
  EXPECT_EQ(service().Links("http://nowhere.example.org/", LinkType::kIn, 10, "").status().code(),
            Status::Code::kNotFound);
  for (const char* bad : {"", "not a url", "ftp://a.com/", "http://a>b.com/"}) {
    EXPECT_EQ(service().Page(bad).status().code(), Status::Code::kInvalidArgument) << bad;
  }
}

TEST_F(QueryServiceTest, InlinksWithAnchorText) {
  auto in = service().Links("http://c.com/1", LinkType::kIn, kDefaultLimit, "");
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  EXPECT_EQ(in->total, 2u);
  ASSERT_EQ(in->results.size(), 2u);
  EXPECT_EQ(in->results[0].url, "http://a.com/1");
  EXPECT_EQ(in->results[0].uri, "com.a>>o>/1");
  EXPECT_EQ(in->results[0].anchor_text, "c1");
  EXPECT_EQ(in->results[1].url, "http://b.com/");
  EXPECT_EQ(in->results[1].anchor_text, "c1");
  EXPECT_FALSE(in->next);
}

TEST_F(QueryServiceTest, OutlinksSortedByUriAndPaged) {
  auto out = service().Links("http://a.com/1", LinkType::kOut, kDefaultLimit, "");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->total, 3u);
  ASSERT_EQ(out->results.size(), 3u);
  EXPECT_EQ(out->results[0].url, "http://b.com/1");
  EXPECT_EQ(out->results[0].anchor_text, "b1");
  EXPECT_EQ(out->results[1].url, "http://b.com/3");
  EXPECT_EQ(out->results[2].url, "http://c.com/1");
  EXPECT_EQ(out->results[2].anchor_text, "c1");
  auto only_linked = service().Links("http://b.com/3", LinkType::kOut, kDefaultLimit, "");
  ASSERT_TRUE(only_linked.ok());
  EXPECT_EQ(only_linked->total, 0u);
  EXPECT_TRUE(only_linked->results.empty());

  auto big = service().Links("http://app.cheezburger.com/Rokas08/TrophyDetails/13f82307-8f12-402e-a544-76db8a2dc19c",
                             LinkType::kOut, kMaxLimit, "");
  ASSERT_TRUE(big.ok());
  std::vector<std::string> whole;
  for (const auto& l : big->results) whole.push_back(l.uri + " " + l.anchor_text);
  EXPECT_EQ(big->total, whole.size());
  EXPECT_TRUE(std::is_sorted(whole.begin(), whole.end()));
  for (size_t limit = 1; limit <= 3; ++limit) {
    auto paged = PageThrough(limit, [&](size_t n, const std::string& cursor) {
      auto r = service().Links(big->url, LinkType::kOut, n, cursor);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      std::vector<std::string> items;
      for (const auto& l : r->results) items.push_back(l.uri + " " + l.anchor_text);
      return std::make_pair(items, r->next);
    });
    EXPECT_EQ(paged, whole) << "limit " << limit;
  }
}

TEST_F(QueryServiceTest, InlinksPageThrough) {
  auto whole = service().Links(kBlog, LinkType::kIn, kMaxLimit, "");
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(whole->results.size(), 4u);
  EXPECT_EQ(whole->total, 4u);
  std::vector<std::string> expected;
  for (const auto& l : whole->results) expected.push_back(l.uri);
  for (size_t limit = 1; limit <= 3; ++limit) {
    auto paged = PageThrough(limit, [&](size_t n, const std::string& cursor) {
      auto r = service().Links(kBlog, LinkType::kIn, n, cursor);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      std::vector<std::string> items;
      for (const auto& l : r->results) items.push_back(l.uri);
      return std::make_pair(items, r->next);
    });
    EXPECT_EQ(paged, expected) << "limit " << limit;
  }
}

TEST_F(QueryServiceTest, RejectsBadLimitsAndForeignCursors) {
  EXPECT_EQ(service().Top(0, "").status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(service().Top(kMaxLimit + 1, "").status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(service().Top(5, "garbage!").status().code(), Status::Code::kInvalidArgument);
  auto top = service().Top(1, "");
  ASSERT_TRUE(top.ok() && top->next);
  // A cursor of one query does not position another.
  EXPECT_EQ(service().Pages("stackoverflow.com", 5, *top->next).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(service().Links(kBlog, LinkType::kIn, 5, *top->next).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(service().Links(kBlog, LinkType::kOut, 5, *top->next).status().code(), Status::Code::kInvalidArgument);
  auto so = service().Pages("stackoverflow.com", 1, "");
  ASSERT_TRUE(so.ok() && so->next);
  EXPECT_EQ(service().Pages("stackexchange.com", 1, *so->next).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(ParseLinkType("sideways").status().code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace webindex::query
