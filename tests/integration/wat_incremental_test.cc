// Webindex's incremental scenario (after Apache Fluo webindex's IndexIT) on real Common Crawl
// pages: load wat-18.warc, then delete a page, link a fresh target from two pages and unlink it,
// and edit an anchor text. After every step the whole table must equal the batch model over all
// events so far, and the rows the step touches are checked one by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "batch_model.h"
#include "codec/event.h"
#include "codec/json_writer.h"
#include "model/url.h"
#include "pipeline_harness.h"
#include "wat_extract.h"

namespace webindex::testing {
namespace {

using Lines = std::vector<std::string>;

// The five response pages of wat-18.warc, in file order.
constexpr size_t kNewgrounds = 1;   // http://00assclown.newgrounds.com/, 4 external links
constexpr size_t kHackerspace = 2;  // http://0x20.be/smw/index.php?..., 8 external links
constexpr size_t kBlogspot = 4;     // http://100zone.blogspot.com/..., 10 external links

constexpr char kFreshTarget[] = "http://www.webindex-test.org/fresh";
constexpr char kFreshUri[] = "org.webindex-test>.www>o>/fresh";

bool Has(const Lines& table, const std::string& line) {
  return std::find(table.begin(), table.end(), line) != table.end();
}

// Lines of the table that mention `text` anywhere.
Lines Mentioning(const Lines& table, const std::string& text) {
  Lines out;
  for (const auto& l : table) {
    if (l.find(text) != std::string::npos) out.push_back(l);
  }
  return out;
}

// Lines of `a` that are not in `b`, in string order (a table is in (row, cf, cq) order).
Lines Minus(Lines a, Lines b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  Lines out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// A crawl event re-sending `page` (url, title, server) with `links` at `date`.
std::string PageEvent(const model::Page& page, const std::vector<model::Link>& links, const std::string& date) {
  codec::JsonWriter w;
  w.BeginObject().Key("url").String(page.url).Key("crawlDate").String(date);
  if (page.title) w.Key("title").String(*page.title);
  if (page.server) w.Key("server").String(*page.server);
  w.Key("outboundLinks").BeginArray();
  for (const auto& l : links) w.BeginObject().Key("url").String(l.url).Key("anchorText").String(l.anchor_text).EndObject();
  w.EndArray().EndObject();
  return w.Take();
}

std::string DeleteEvent(const model::Page& page, const std::string& date) {
  codec::JsonWriter w;
  w.BeginObject().Key("url").String(page.url).Key("crawlDate").String(date).Key("deleted").Bool(true).EndObject();
  return w.Take();
}

class WatIncrementalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto events = ExtractWatEvents(TestData("wat-18.warc"));
    ASSERT_EQ(events.size(), 5u);
    codec::EventDecoder decoder;
    for (const auto& e : events) {
      auto ev = decoder.Decode(e);
      ASSERT_TRUE(ev.ok()) << ev.status().message();
      pages_.push_back(ev->page);
    }
    loaded_ = Step(events);
  }

  // Produces `events` to partition 0, runs the pipeline until idle, and checks the whole table
  // against the batch model over every event so far. Returns the table.
  Lines Step(const std::vector<std::string>& events) {
    std::vector<std::pair<std::string, std::string>> keyed;
    for (const auto& e : events) {
      keyed.emplace_back(*codec::ExtractEventUrl(e), e);
      model_.Apply(e);
    }
    h_.Produce(keyed, 0);
    h_.RunUntilIdle();
    Lines table = h_.Dump();
    EXPECT_EQ(table, model_.TableLines()) << "table differs from the batch model after " << ++steps_ << " step(s)";
    return table;
  }

  // The first link of page `page` whose url starts with `url_prefix`, or null.
  const model::Link* LinkTo(size_t page, const std::string& url_prefix) const {
    const auto& links = pages_[page].links;
    auto it = std::find_if(links.begin(), links.end(), [&](const auto& l) { return l.url.starts_with(url_prefix); });
    return it == links.end() ? nullptr : &*it;
  }

  PipelineHarness h_;
  BatchModel model_;
  std::vector<model::Page> pages_;
  Lines loaded_;
  int steps_ = 0;
};

TEST_F(WatIncrementalTest, InitialLoadMatchesBatchModel) {
  EXPECT_EQ(model_.current_pages(), 5u);
  EXPECT_EQ(model_.invalid_events(), 0u);
  EXPECT_EQ(std::count_if(loaded_.begin(), loaded_.end(),
                          [](const auto& l) { return l.find("|page|cur|") != std::string::npos; }),
            5);
  // 29 external links to 29 distinct URIs, none of them a crawled page: 29 inlinks rows.
  EXPECT_EQ(Mentioning(loaded_, "|inlinks|").size(), 29u);
  EXPECT_TRUE(Has(loaded_, "d:com.facebook|domain|pagecount|2"));
  EXPECT_TRUE(Has(loaded_, "d:com.twitter|domain|pagecount|2"));
  EXPECT_TRUE(Has(loaded_, "p:" + pages_[kNewgrounds].uri + "|page|incount|0"));
}

TEST_F(WatIncrementalTest, DeletingAPageRemovesItsRowsAndLowersItsTargetsCounts) {
  const model::Page& page = pages_[kNewgrounds];
  ASSERT_EQ(page.links.size(), 4u);
  EXPECT_EQ(Mentioning(loaded_, page.uri).size(), 8u);  // page|cur, incount, rank, t:, 4 inlinks
  for (const auto& l : page.links) {
    EXPECT_TRUE(Has(loaded_, "p:" + l.uri + "|inlinks|" + page.uri + "|" + l.anchor_text)) << l.url;
    EXPECT_TRUE(Has(loaded_, "p:" + l.uri + "|page|incount|1")) << l.url;
  }

  const Lines table = Step({DeleteEvent(page, "2015-05-01T00:00:00Z")});
  EXPECT_EQ(model_.current_pages(), 4u);
  EXPECT_TRUE(Mentioning(table, page.uri).empty());  // no page|cur, no inlinks from it, no counts
  EXPECT_TRUE(Mentioning(table, "d:com.newgrounds").empty());
  for (const auto& l : page.links) EXPECT_TRUE(Mentioning(table, "p:" + l.uri + "|").empty()) << l.url;
  // Its targets went from 1 inlink to 0 and are gone; their domains lost one URI each.
  EXPECT_TRUE(Has(table, "d:com.facebook|domain|pagecount|1"));
  EXPECT_TRUE(Has(table, "d:com.twitter|domain|pagecount|1"));
  EXPECT_TRUE(Mentioning(table, "d:com.reddit").empty());
  // Deleting only removes rows or lowers counts: the only new lines are the lowered pagecounts.
  EXPECT_EQ(Minus(table, loaded_), Lines({"d:com.facebook|domain|pagecount|1", "d:com.twitter|domain|pagecount|1"}));
}

TEST_F(WatIncrementalTest, FreshTargetCountGoesZeroTwoZero) {
  ASSERT_EQ(model::ParseUrl(kFreshTarget)->ToUri(), kFreshUri);
  const std::string p = std::string("p:") + kFreshUri;
  const model::Page& a = pages_[kHackerspace];
  const model::Page& b = pages_[kBlogspot];
  EXPECT_TRUE(Mentioning(loaded_, kFreshUri).empty());

  auto with_fresh = [](const model::Page& page, const std::string& anchor) {
    auto links = page.links;
    links.push_back({kFreshTarget, kFreshUri, anchor});
    return links;
  };
  Lines table = Step({PageEvent(a, with_fresh(a, "fresh from a"), "2015-05-01T00:00:00Z")});
  EXPECT_TRUE(Has(table, p + "|page|incount|1"));
  EXPECT_TRUE(Has(table, p + "|inlinks|" + a.uri + "|fresh from a"));
  EXPECT_TRUE(Has(table, std::string("t:fefdfefdff:") + kFreshUri + "|||1"));
  EXPECT_TRUE(Has(table, "d:org.webindex-test|domain|pagecount|1"));
  EXPECT_TRUE(Has(table, std::string("d:org.webindex-test:fefdfefdff:") + kFreshUri + "|rank||1"));
  EXPECT_EQ(Mentioning(table, kFreshUri).size(), 5u);  // incount, inlinks, t:, rank, a's page|cur

  table = Step({PageEvent(b, with_fresh(b, "fresh from b"), "2015-05-02T00:00:00Z")});
  EXPECT_TRUE(Has(table, p + "|page|incount|2"));
  EXPECT_TRUE(Has(table, std::string("t:fefdfdff:") + kFreshUri + "|||2"));
  EXPECT_TRUE(Has(table, std::string("d:org.webindex-test:fefdfdff:") + kFreshUri + "|rank||2"));
  EXPECT_TRUE(Has(table, p + "|inlinks|" + a.uri + "|fresh from a"));
  EXPECT_TRUE(Has(table, p + "|inlinks|" + b.uri + "|fresh from b"));
  EXPECT_TRUE(Has(table, "d:org.webindex-test|domain|pagecount|1"));
  EXPECT_EQ(Mentioning(table, kFreshUri).size(), 7u);  // incount, t:, rank, 2 inlinks, 2 page|cur

  table = Step({PageEvent(a, a.links, "2015-05-03T00:00:00Z"), PageEvent(b, b.links, "2015-05-03T00:00:00Z")});
  EXPECT_TRUE(Mentioning(table, kFreshUri).empty()) << "no p:, t:, d: rows for the unlinked target";
  EXPECT_TRUE(Mentioning(table, "d:org.webindex-test").empty());
  // Back to the loaded table but for the two re-sent pages' page|cur (their crawlDate).
  const Lines changed = Minus(table, loaded_);
  ASSERT_EQ(changed.size(), 2u);
  EXPECT_TRUE(changed[0].starts_with("p:" + a.uri + "|page|cur|") || changed[0].starts_with("p:" + b.uri + "|page|cur|"));
  EXPECT_TRUE(changed[1].starts_with("p:" + a.uri + "|page|cur|") || changed[1].starts_with("p:" + b.uri + "|page|cur|"));
  EXPECT_EQ(table.size(), loaded_.size());
}

TEST_F(WatIncrementalTest, AnchorTextOnlyEditChangesTheInlinksValue) {
  const model::Page& page = pages_[kHackerspace];
  const model::Link* found = LinkTo(kHackerspace, "http://hackerspaces.org/");
  ASSERT_NE(found, nullptr);
  const model::Link& link = *found;
  const std::string inlinks = "p:" + link.uri + "|inlinks|" + page.uri + "|";
  ASSERT_TRUE(Has(loaded_, inlinks + link.anchor_text)) << inlinks;
  ASSERT_NE(link.anchor_text, "renamed anchor");

  auto links = page.links;
  for (auto& l : links) {
    if (l.uri == link.uri) l.anchor_text = "renamed anchor";
  }
  const Lines table = Step({PageEvent(page, links, "2015-05-01T00:00:00Z")});
  EXPECT_TRUE(Has(table, inlinks + "renamed anchor"));
  EXPECT_FALSE(Has(table, inlinks + link.anchor_text));
  EXPECT_TRUE(Has(table, "p:" + link.uri + "|page|incount|1"));
  // Only the inlinks value and the source's page|cur (it embeds anchor texts and crawlDate) change.
  const Lines removed = Minus(loaded_, table), added = Minus(table, loaded_);
  ASSERT_EQ(removed.size(), 2u);
  ASSERT_EQ(added.size(), 2u);
  EXPECT_TRUE(removed[0].starts_with("p:" + page.uri + "|page|cur|"));  // "p:be.0x20..." sorts first
  EXPECT_TRUE(added[0].starts_with("p:" + page.uri + "|page|cur|"));
  EXPECT_EQ(removed[1], inlinks + link.anchor_text);
  EXPECT_EQ(added[1], inlinks + "renamed anchor");
}


// IndexIT's order in one pipeline: every step on top of all the previous ones, then a stale
// event (older crawlDate: ignored) and the deleted page coming back.
TEST_F(WatIncrementalTest, AllStepsInSequenceMatchBatchModel) {
  const model::Page &gone = pages_[kNewgrounds], &a = pages_[kHackerspace], &b = pages_[kBlogspot];
  auto plus_fresh = [](std::vector<model::Link> links) {
    links.push_back({kFreshTarget, kFreshUri, "fresh"});
    return links;
  };
  Step({DeleteEvent(gone, "2015-05-01T00:00:00Z")});
  Step({PageEvent(a, plus_fresh(a.links), "2015-05-02T00:00:00Z")});
  Lines table = Step({PageEvent(b, plus_fresh(b.links), "2015-05-02T00:00:00Z")});
  EXPECT_TRUE(Has(table, std::string("p:") + kFreshUri + "|page|incount|2"));
  table = Step({PageEvent(a, a.links, "2015-05-03T00:00:00Z"), PageEvent(b, b.links, "2015-05-03T00:00:00Z")});
  EXPECT_TRUE(Mentioning(table, kFreshUri).empty());
  auto renamed = a.links;
  renamed.front().anchor_text = "renamed anchor";
  table = Step({PageEvent(a, renamed, "2015-05-04T00:00:00Z")});
  EXPECT_TRUE(Has(table, "p:" + renamed.front().uri + "|inlinks|" + a.uri + "|renamed anchor"));
  // Stale: b's original links at its 2015-04 crawl date change nothing.
  EXPECT_EQ(Step({PageEvent(b, plus_fresh(b.links), *b.crawl_date)}), table);
  table = Step({PageEvent(gone, gone.links, "2015-05-05T00:00:00Z")});
  // Differs from the load only in a's renamed inlinks value and three page|cur cells (a, b, gone).
  EXPECT_EQ(Minus(table, loaded_).size(), 4u);
  EXPECT_EQ(table.size(), loaded_.size());
  EXPECT_EQ(model_.current_pages(), 5u);
}

// With internal links too, pages link to themselves and to each other (docs and linksTo meet).
TEST(WatAllLinksTest, LoadWithInternalLinksMatchesBatchModel) {
  PipelineHarness h;
  BatchModel model;
  std::vector<std::pair<std::string, std::string>> keyed;
  for (const auto& e : ExtractWatEvents(TestData("wat-18.warc"), /*external_links_only=*/false)) {
    keyed.emplace_back("", e);
    model.Apply(e);
  }
  h.Produce(keyed, 0);
  h.RunUntilIdle();
  const Lines table = h.Dump();
  EXPECT_EQ(table, model.TableLines());
  EXPECT_EQ(Mentioning(table, "|inlinks|").size(), 313u);  // 0 + 88 + 40 + 75 + 110 links
}

}  // namespace
}  // namespace webindex::testing
