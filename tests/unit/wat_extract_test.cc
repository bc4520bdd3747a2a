// The test-only WAT extractor (tests/support/wat_extract.h) on the Common Crawl samples.
#include "wat_extract.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "codec/event.h"
#include "pipeline_harness.h"

namespace webindex::testing {
namespace {

model::CrawlEvent MustDecode(const std::string& json) {
  codec::EventDecoder decoder;
  auto ev = decoder.Decode(json);
  EXPECT_TRUE(ev.ok()) << ev.status().message() << "\n" << json;
  return ev.ok() ? std::move(ev).value() : model::CrawlEvent{};
}

TEST(WatExtractTest, SingleRecordFileGivesOnePage) {
  const auto events = ExtractWatEvents(TestData("wat.warc"));
  ASSERT_EQ(events.size(), 1u);
  const auto ev = MustDecode(events[0]);
  EXPECT_TRUE(ev.page.url.starts_with("http://1079ishot.com/presale-password-trey-songz-young-jeezy-pre-christmas-bash/"))
      << ev.page.url;
  EXPECT_EQ(ev.page.crawl_date, "2015-04-18T03:35:13Z");
  EXPECT_EQ(ev.page.server, "nginx/1.6.2");
  ASSERT_TRUE(ev.page.title.has_value());
  EXPECT_TRUE(ev.page.title->starts_with("Presale Password")) << *ev.page.title;
  EXPECT_FALSE(ev.deleted);
  EXPECT_EQ(ev.page.links.size(), 0u);  // all six A@/href links stay on 1079ishot.com
}

TEST(WatExtractTest, SingleRecordFileAllLinks) {
  const auto events = ExtractWatEvents(TestData("wat.warc"), /*external_links_only=*/false);
  ASSERT_EQ(events.size(), 1u);
  const auto ev = MustDecode(events[0]);
  // Six A@/href links: http://1079ishot.com and "/" are one URI, so five remain.
  ASSERT_EQ(ev.page.links.size(), 5u);
  EXPECT_EQ(ev.page.links[0].url, "http://1079ishot.com/");
  EXPECT_EQ(ev.page.links[0].anchor_text, "HOT 107.9");  // no "text": the "title" is the anchor
  EXPECT_EQ(ev.page.links[1].url, "http://1079ishot.com/help/");
  EXPECT_EQ(ev.page.links[1].anchor_text, "Contact Us");
  EXPECT_EQ(ev.dropped_links, 0u);
}

// Link objects in an extracted event: each, like the event itself, starts with {"url":.
size_t CountLinkObjects(const std::string& json) {
  size_t n = 0;
  for (size_t pos = json.find(R"({"url":)"); pos != std::string::npos; pos = json.find(R"({"url":)", pos + 1)) ++n;
  return n - 1;
}

struct ExpectedPage {
  std::string url_prefix;
  size_t raw_links;       // link objects in the extracted event
  size_t links;           // after resolution and dedup by the event decoder
  uint32_t dropped;       // links that do not resolve (javascript:, empty)
  size_t all_links;       // decoded links without the external filter
};

// Checked against the file by hand (a Python re-count of A@/href links to another domain):
// 18 records = warcinfo + its JSON metadata + 5 x (request, response, metadata) + 1 request.
const std::vector<ExpectedPage> kWat18 = {
    {"http://0.r.msn.com/?ld=", 0, 0, 0, 0},
    {"http://00assclown.newgrounds.com/", 4, 4, 0, 88},
    {"http://0x20.be/smw/index.php?title=Special:WhatLinksHere/Game_Night", 8, 8, 0, 40},
    {"http://1000games.me/games/gametion/", 8, 7, 1, 75},            // one empty href
    {"http://100zone.blogspot.com/2013/03/please-memp3", 59, 10, 34, 110},  // 34 javascript:void(0)
};

TEST(WatExtractTest, Wat18GivesFiveResponsePagesWithExternalLinks) {
  const auto events = ExtractWatEvents(TestData("wat-18.warc"));
  const auto all = ExtractWatEvents(TestData("wat-18.warc"), /*external_links_only=*/false);
  ASSERT_EQ(events.size(), kWat18.size());
  ASSERT_EQ(all.size(), kWat18.size());
  size_t total = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    SCOPED_TRACE(kWat18[i].url_prefix);
    const auto ev = MustDecode(events[i]);
    EXPECT_TRUE(ev.page.url.starts_with(kWat18[i].url_prefix)) << ev.page.url;
    EXPECT_TRUE(ev.page.crawl_date.has_value() && ev.page.crawl_date->starts_with("2015-04-"));
    EXPECT_EQ(ev.page.links.size(), kWat18[i].links);
    EXPECT_EQ(ev.dropped_links, kWat18[i].dropped);
    EXPECT_EQ(CountLinkObjects(events[i]), kWat18[i].raw_links);
    EXPECT_EQ(MustDecode(all[i]).page.links.size(), kWat18[i].all_links);
    const std::string page_domain = ev.page.uri.substr(0, ev.page.uri.find('>'));
    for (const auto& l : ev.page.links) {
      EXPECT_NE(l.uri.substr(0, l.uri.find('>')), page_domain) << l.url;
    }
    total += ev.page.links.size();
  }
  EXPECT_EQ(total, 29u);
}

TEST(WatExtractTest, MissingFileThrows) {
  EXPECT_THROW(ExtractWatEvents(TestData("no-such-file.warc")), std::runtime_error);
}

}  // namespace
}  // namespace webindex::testing
