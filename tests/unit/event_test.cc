// Crawl-event decoding (docs/semantics.md §1): every invalid case is rejected with a reason, valid events
// are decoded into resolved, deduplicated pages.
#include "codec/event.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "codec/records.h"
#include "pipeline_harness.h"

namespace webindex::codec {
namespace {

model::CrawlEvent MustDecode(EventDecoder& decoder, std::string_view json) {
  auto r = decoder.Decode(json);
  EXPECT_TRUE(r.ok()) << json << ": " << r.status().ToString();
  return r.ok() ? std::move(r).value() : model::CrawlEvent{};
}

model::CrawlEvent MustDecode(std::string_view json) {
  EventDecoder decoder;
  return MustDecode(decoder, json);
}

std::vector<std::string> LinkUris(const model::CrawlEvent& ev) {
  std::vector<std::string> out;
  for (const auto& l : ev.page.links) out.push_back(l.uri);
  return out;
}

struct InvalidCase {
  std::string json;
  std::string reason_contains;  //!< the dead-letter reason must say what is wrong
};

TEST(EventTest, InvalidEventsAreRejectedWithAReason) {
  const std::vector<InvalidCase> cases = {
      {"", "not JSON"},
      {"not json", "not JSON at column 1: 'not' is no JSON value: a string needs double quotes"},
      {R"({"url":"http://a.com/1")", "not JSON: the text ends before its object or array is closed"},
      {R"({"url":"http://a.com/1"} trailing)", "not JSON at column 26: text after the JSON value"},
      {R"([{"url":"http://a.com/1"}])", "not a JSON object"},
      {R"("http://a.com/1")", "not a JSON object"},
      {"42", "not a JSON object"},
      {"null", "not a JSON object"},
      {R"({})", "url is missing"},
      {R"({"crawlDate":"2015-07-28T03:06:17Z"})", "url is missing"},
      {R"({"url":null})", "url is missing"},
      {R"({"url":5})", "not a string"},
      {R"({"url":["http://a.com/1"]})", "not a string"},
      {R"({"url":"ftp://a.com/1"})", "URL"},
      {R"({"url":"a.com/1"})", "URL"},
      {R"({"url":"http://a.com/a>b"})", "URL"},
      {R"({"url":"http://com/"})", "URL"},
      {R"({"url":"http://"})", "URL"},
      {R"({"url":"http://a.com:http/"})", "URL"},
      {R"({"url":"http://a.com/1","deleted":"true"})", "deleted"},
      {R"({"url":"http://a.com/1","revision":-1})", "revision is not a non-negative integer"},
      {R"({"url":"http://a.com/1","revision":"3"})", "revision is not a non-negative integer"},
      {R"({"url":"http://a.com/1","revision":1.5})", "revision is not a non-negative integer"},
      {R"({"url":"http://a.com/1","revision":18446744073709551616})",
       "not JSON at column 36: the number 18446744073709551616 is too large"},
      {R"({"url":"http://a.com/1","revision":true})", "revision is not a non-negative integer"},
      {R"({"url":"http://a.com/1","deleted":"yes"})", "deleted"},
      {R"({"url":"http://a.com/1","deleted":1})", "deleted"},
      {R"({"url":"http://a.com/1","crawlDate":5})", "crawlDate"},
      {R"({"url":"http://a.com/1","crawlDate":"yesterday"})", "crawlDate"},
      {R"({"url":"http://a.com/1","crawlDate":"2015-07-28T03:06:17"})", "crawlDate"},
      {R"({"url":"http://a.com/1","crawlDate":"2015-02-30T03:06:17Z"})", "crawlDate"},
      {R"({"url":"http://a.com/1","outboundLinks":{"url":"http://b.com/"}})", "outboundLinks"},
      {R"({"url":"http://a.com/1","outboundLinks":"http://b.com/"})", "outboundLinks"},
      {R"({"url":"http://a.com/1","outboundLinks":[5]})", "link is not an object"},
      {R"({"url":"http://a.com/1","outboundLinks":[{"url":"http://b.com/"},"http://c.com/"]})", "link is not an object"},
      {R"({"url":"http://a.com/1","outboundLinks":[{"url":7}]})", "link's url"},
      {R"({"url":"http://a.com/1","outboundLinks":[{"url":null}]})", "link's url"},
      {R"({"url":"http://a.com/1","outboundLinks":[{"anchorText":"x"}]})", "link's url"},
      {R"({"url":"http://a.com/1","outboundLinks":[{"url":"http://b.com/","anchorText":3}]})", "anchorText"},
      // A link error invalidates the event even after valid links and with deleted:true.
      {R"({"url":"http://a.com/1","deleted":true,"outboundLinks":[{"url":"/x"},{"url":7}]})", "link's url"},
      // A control character in the page's URL, also where Java's trim would have dropped it.
      {R"({"url":"http://a.com/a\u0000b"})", "control character U+0000 in URL 'http://a.com/a\\x00b'"},
      {R"({"url":"\u0000http://a.com/1"})", "control character U+0000"},
      {R"({"url":"http://a.com/1\u0001 "})", "control character U+0001"},
      {R"({"url":"http://a.com/a\u001fb"})", "control character U+001F"},
      {R"({"url":"http://a.com/a\u007fb"})", "control character U+007F"},
      {R"({"url":"http://a.com/a\tb"})", "control character U+0009"},
      {R"({"url":"http://a.com/a\nb"})", "control character U+000A"},
      // Keys given twice: a lookup would read the first and drop the other.
      {R"({"url":"http://a.com/1","url":"http://b.com/1"})", "the key \"url\" appears more than once"},
      {R"({"url":"http://a.com/1","url":null})", "the key \"url\" appears more than once"},
      {R"({"url":"http://a.com/1","title":"a","deleted":false,"title":"b"})", "the key \"title\" appears"},
      {R"({"url":"http://a.com/1","x":1,"x":1})", "the key \"x\" appears more than once"},
      {R"({"url":"http://a.com/1","a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"e":2})",
       "the key \"e\" appears more than once"},
      {R"({"url":"http://a.com/1","outboundLinks":[{"url":"/x","url":"/y"}]})",
       "a link has the key \"url\" more than once"},
      {R"({"url":"http://a.com/1","outboundLinks":[{"url":"/x","anchorText":"a","anchorText":"b"}]})",
       "a link has the key \"anchorText\" more than once"},
      // Another type than a string (or null) is refused, not ignored.
      {R"({"url":"http://a.com/1","title":5})", "title is not a string"},
      {R"({"url":"http://a.com/1","title":{"text":"x"}})", "title is not a string"},
      {R"({"url":"http://a.com/1","title":["x"]})", "title is not a string"},
      {R"({"url":"http://a.com/1","title":false})", "title is not a string"},
      {R"({"url":"http://a.com/1","server":5})", "server is not a string"},
      {R"({"url":"http://a.com/1","server":{"name":"nginx"}})", "server is not a string"},
      // Finer than nanoseconds: cut, two dates that differ would compare equal.
      {R"({"url":"http://a.com/1","crawlDate":"2015-07-28T03:06:17.1234567891Z"})",
       "crawlDate has more than 9 fraction digits"},
      {R"({"url":"http://a.com/1","crawlDate":"2015-07-28T03:06:17.0000000000+02:00"})", "more than 9 fraction digits"},
  };
  EventDecoder decoder;
  for (const auto& c : cases) {
    auto r = decoder.Decode(c.json);
    ASSERT_FALSE(r.ok()) << "accepted: " << c.json;
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << c.json;
    EXPECT_NE(r.status().message().find(c.reason_contains), std::string::npos)
        << c.json << " -> reason '" << r.status().message() << "' does not mention '" << c.reason_contains << "'";
  }
  // The decoder stays usable after errors.
  EXPECT_EQ(MustDecode(decoder, R"({"url":"http://a.com/1"})").page.uri, "com.a>>o>/1");
}

TEST(EventTest, WebindexPageJsonIsAValidEvent) {
  const auto lines = testing::ReadLines(testing::TestData("5-pages.txt"));
  ASSERT_EQ(lines.size(), 5u);
  RecordDecoder fixture;  // the fixture lines are webindex Page JSON: what webindex computed
  EventDecoder decoder;
  const std::vector<size_t> num_outbound = {19, 4, 6, 8, 7};  // the lines' numOutbound
  for (size_t i = 0; i < lines.size(); ++i) {
    auto expected = fixture.DecodePageJson(lines[i]);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    const auto ev = MustDecode(decoder, lines[i]);
    EXPECT_EQ(ev.page.uri, expected->uri);
    EXPECT_EQ(ev.page.url, expected->url);
    EXPECT_EQ(ev.page.links.size(), num_outbound[i]) << expected->uri;
    EXPECT_EQ(ev.page.links, expected->links) << expected->uri;  // url, uri and anchor text of each link
    EXPECT_EQ(ev.page.crawl_date, expected->crawl_date);
    EXPECT_EQ(ev.page.title, expected->title);
    EXPECT_EQ(ev.page.server, expected->server);
    EXPECT_FALSE(ev.deleted);
    EXPECT_TRUE(ev.crawl_time.has_value());
    EXPECT_EQ(ev.dropped_links, 0u);
    EXPECT_EQ(ev.truncated_links, 0u);
  }
  const auto first = MustDecode(decoder, lines[0]);
  EXPECT_EQ(first.page.uri,
            "com.cheezburger>.app>o>/Rokas08/TrophyDetails/13f82307-8f12-402e-a544-76db8a2dc19c");
  EXPECT_EQ(first.page.links.size(), 19u);
  EXPECT_EQ(first.page.links[0].url, "https://www.facebook.com/Cheezburger");
  EXPECT_EQ(first.page.links[0].uri, "com.facebook>.www>s>/Cheezburger");
  EXPECT_EQ(first.page.links[0].anchor_text, "Facebook");
  EXPECT_FALSE(first.page.server.has_value());
  EXPECT_TRUE(MustDecode(decoder, lines[1]).page.server.has_value());
}

TEST(EventTest, MinimalEvent) {
  const auto ev = MustDecode(R"({"url":"HTTP://WWW.A.com:80/Path"})");
  EXPECT_EQ(ev.page.url, "http://www.a.com/Path");
  EXPECT_EQ(ev.page.uri, "com.a>.www>o>/Path");
  EXPECT_FALSE(ev.deleted);
  EXPECT_FALSE(ev.crawl_time.has_value());
  EXPECT_FALSE(ev.page.crawl_date.has_value());
  EXPECT_FALSE(ev.page.title.has_value());
  EXPECT_FALSE(ev.page.server.has_value());
  EXPECT_TRUE(ev.page.links.empty());
}

TEST(EventTest, RevisionIsANonNegativeInteger) {
  EXPECT_FALSE(MustDecode(R"({"url":"http://a.com/1"})").revision.has_value());
  EXPECT_FALSE(MustDecode(R"({"url":"http://a.com/1","revision":null})").revision.has_value());
  EXPECT_EQ(MustDecode(R"({"url":"http://a.com/1","revision":0})").revision, 0u);
  EXPECT_EQ(MustDecode(R"({"url":"http://a.com/1","revision":18446744073709551615})").revision, UINT64_MAX);
}

TEST(EventTest, CrawlDateIsParsedAndKeptAsText) {
  const auto ev = MustDecode(R"({"url":"http://a.com/1","crawlDate":"2015-07-28T03:06:17Z"})");
  ASSERT_TRUE(ev.crawl_time.has_value());
  EXPECT_EQ(*ev.crawl_time, (Instant{1438052777, 0}));
  EXPECT_EQ(ev.page.crawl_date, "2015-07-28T03:06:17Z");
  // Same instant, other spelling: compares by time, text kept as received.
  const auto ev2 = MustDecode(R"({"url":"http://a.com/1","crawlDate":"2015-07-28t05:06:17.000+02:00"})");
  EXPECT_EQ(ev2.crawl_time, ev.crawl_time);
  EXPECT_EQ(ev2.page.crawl_date, "2015-07-28t05:06:17.000+02:00");
}

TEST(EventTest, CrawlDatesCompareChronologically) {
  const std::vector<std::string> dates = {"1970-01-01T00:00:00Z", "1999-12-31T23:59:59.999Z", "2000-01-01T00:00:00Z",
                                          "2000-01-01T00:00:00.000000001Z", "2015-07-28T03:06:17Z",
                                          "2015-07-28T03:06:18+00:00", "2015-07-28T02:06:19-01:00"};
  EventDecoder decoder;
  std::optional<Instant> prev;
  for (const auto& d : dates) {
    const auto ev = MustDecode(decoder, R"({"url":"http://a.com/1","crawlDate":")" + d + R"("})");
    ASSERT_TRUE(ev.crawl_time.has_value()) << d;
    if (prev) {
      EXPECT_LT(*prev, *ev.crawl_time) << d;
    }
    prev = ev.crawl_time;
  }
}

// Every RFC 3339 year keeps chronological order (int64 nanoseconds would overflow past 2262).
TEST(EventTest, CrawlDatesOutsideInt64NanosecondsKeepOrderOrAreRejected) {
  const std::vector<std::string> dates = {"0000-01-01T00:00:00Z", "1600-01-01T00:00:00Z", "2015-07-28T03:06:17Z",
                                          "2262-04-11T23:47:17Z", "2300-01-01T00:00:00Z", "9999-12-31T23:59:59Z"};
  EventDecoder decoder;
  std::optional<Instant> prev;
  for (const auto& d : dates) {
    auto r = decoder.Decode(R"({"url":"http://a.com/1","crawlDate":")" + d + R"("})");
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("crawlDate"), std::string::npos) << d << ": " << r.status().message();
      continue;
    }
    ASSERT_TRUE(r->crawl_time.has_value()) << d;
    if (prev) {
      EXPECT_LT(*prev, *r->crawl_time) << d << " does not sort after the previous accepted date";
    }
    prev = r->crawl_time;
  }
}

TEST(EventTest, UnknownFieldsAreIgnored) {
  const auto ev = MustDecode(
      R"({"url":"http://a.com/1","uri":"bogus","numOutbound":99,"extra":{"x":[1,2]},)"
      R"("outboundLinks":[{"url":"http://b.com/","uri":"bogus","foo":1}]})");
  EXPECT_EQ(ev.page.uri, "com.a>>o>/1");
  ASSERT_EQ(ev.page.links.size(), 1u);
  EXPECT_EQ(ev.page.links[0].uri, "com.b>>o>/");
  EXPECT_EQ(ev.page.links[0].anchor_text, "");
  // Many keys, none twice; nested objects may repeat a key of the event.
  EXPECT_EQ(MustDecode(R"({"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"url":"http://a.com/1",)"
                       R"("j":{"url":1,"a":2}})")
                .page.uri,
            "com.a>>o>/1");
}

TEST(EventTest, RelativeLinksAreResolvedAgainstThePageUrl) {
  const auto ev = MustDecode(
      R"({"url":"http://a.com/dir/page?x=1","outboundLinks":[)"
      R"({"url":"other"},{"url":"/root"},{"url":"../up"},{"url":"?q=2"},{"url":"//b.com/x"},)"
      R"({"url":"sub/leaf#frag"},{"url":"  http://c.com/abs  "}]})");
  std::vector<std::string> urls;
  for (const auto& l : ev.page.links) urls.push_back(l.url);
  EXPECT_EQ(urls, (std::vector<std::string>{"http://a.com/dir/other", "http://a.com/root", "http://a.com/up",
                                            "http://a.com/dir/page?q=2", "http://b.com/x",
                                            "http://a.com/dir/sub/leaf#frag", "http://c.com/abs"}));
  EXPECT_EQ(ev.page.links[0].uri, "com.a>>o>/dir/other");
  EXPECT_EQ(ev.page.links[4].uri, "com.b>>o>/x");
  EXPECT_EQ(ev.dropped_links, 0u);
}

TEST(EventTest, RelativeLinksKeepSchemeAndPortOfThePage) {
  const auto ev = MustDecode(R"({"url":"https://www.d.com.au:9443/a/bc","outboundLinks":[{"url":"d"}]})");
  ASSERT_EQ(ev.page.links.size(), 1u);
  EXPECT_EQ(ev.page.links[0].url, "https://www.d.com.au:9443/a/d");
  EXPECT_EQ(ev.page.links[0].uri, "au.com.d>.www>s9443>/a/d");
}

TEST(EventTest, SelfLinkIsKept) {
  const auto ev =
      MustDecode(R"({"url":"http://a.com/1","outboundLinks":[{"url":"http://a.com/1","anchorText":"me"}]})");
  ASSERT_EQ(ev.page.links.size(), 1u);
  EXPECT_EQ(ev.page.links[0].uri, ev.page.uri);
  EXPECT_EQ(ev.page.links[0].anchor_text, "me");
}

TEST(EventTest, DuplicateTargetsAreDeduplicatedFirstAnchorKept) {
  const auto ev = MustDecode(
      R"({"url":"http://a.com/1","outboundLinks":[)"
      R"({"url":"http://b.com/1","anchorText":"first"},{"url":"http://c.com/","anchorText":"c"},)"
      R"({"url":"HTTP://B.COM/1","anchorText":"second"},{"url":"http://b.com:80/1","anchorText":"third"},)"
      R"({"url":"http://b.com/1"},{"url":"http://b.com/1/","anchorText":"other path"}]})");
  EXPECT_EQ(LinkUris(ev), (std::vector<std::string>{"com.b>>o>/1", "com.c>>o>/", "com.b>>o>/1/"}));
  EXPECT_EQ(ev.page.links[0].anchor_text, "first");
  EXPECT_EQ(ev.page.links[2].anchor_text, "other path");
  EXPECT_EQ(ev.dropped_links, 0u);
  EXPECT_EQ(ev.truncated_links, 0u);
}

TEST(EventTest, UnresolvableLinksAreDroppedAndCounted) {
  const auto ev = MustDecode(
      R"({"url":"http://a.com/1","outboundLinks":[)"
      R"j({"url":"mailto:x@a.com"},{"url":"http://b.com/ok","anchorText":"ok"},{"url":"javascript:void(0)"},)j"
      R"({"url":"ftp://a.com/f"},{"url":"http://com/"},{"url":"/a>b"},{"url":""},{"url":"   "},)"
      R"({"url":"http://a.com:99999/"}]})");
  EXPECT_EQ(LinkUris(ev), (std::vector<std::string>{"com.b>>o>/ok"}));
  EXPECT_EQ(ev.dropped_links, 8u);
  EXPECT_EQ(ev.truncated_links, 0u);
}

// A link URL with a control character does not resolve to a valid URL (docs/semantics.md §2): like
// any such link it is dropped and counted, and the event applies.
TEST(EventTest, LinksWithControlCharactersAreDroppedAndCounted) {
  const auto ev = MustDecode(
      R"({"url":"http://a.com/1","outboundLinks":[{"url":"/a\u0000b"},{"url":"http://b.com/\u0001"},)"
      R"({"url":"\u0000http://b.com/2"},{"url":"/c\u007f"},{"url":"/d\te"},{"url":" /ok\n"}]})");
  EXPECT_EQ(LinkUris(ev), (std::vector<std::string>{"com.a>>o>/ok"}));
  EXPECT_EQ(ev.dropped_links, 5u);
}

TEST(EventTest, CrawlDateKeepsNineFractionDigits) {
  const auto ev = MustDecode(R"({"url":"http://a.com/1","crawlDate":"2015-07-28T03:06:17.123456789Z"})");
  ASSERT_TRUE(ev.crawl_time.has_value());
  EXPECT_EQ(ev.crawl_time->nanos, 123456789);
}

TEST(EventTest, MaxOutlinksTruncatesAndCounts) {
  EventDecoder decoder(DecodeLimits{.max_event_bytes = 1 << 20, .max_outlinks = 2});
  const auto ev = MustDecode(decoder,
                             R"({"url":"http://a.com/1","outboundLinks":[)"
                             R"({"url":"/1"},{"url":"/1"},{"url":"/2"},{"url":"/3"},{"url":"/4"},{"url":"/5"}]})");
  // Deduplication comes first: 5 distinct targets, 2 kept (the first ones), 3 truncated.
  EXPECT_EQ(LinkUris(ev), (std::vector<std::string>{"com.a>>o>/1", "com.a>>o>/2"}));
  EXPECT_EQ(ev.truncated_links, 3u);
  EXPECT_EQ(ev.dropped_links, 0u);

  const auto at_limit = MustDecode(decoder, R"({"url":"http://a.com/1","outboundLinks":[{"url":"/1"},{"url":"/2"}]})");
  EXPECT_EQ(at_limit.page.links.size(), 2u);
  EXPECT_EQ(at_limit.truncated_links, 0u);
  const auto dups = MustDecode(decoder, R"({"url":"http://a.com/1","outboundLinks":[{"url":"/1"},{"url":"/1"},)"
                                        R"({"url":"/2"},{"url":"/2"}]})");
  EXPECT_EQ(dups.page.links.size(), 2u);
  EXPECT_EQ(dups.truncated_links, 0u);
}

TEST(EventTest, MaxEventBytesRejectsOversizedEvents) {
  const std::string small = R"({"url":"http://a.com/1"})";
  EventDecoder exact(DecodeLimits{.max_event_bytes = small.size(), .max_outlinks = 10});
  EXPECT_TRUE(exact.Decode(small).ok());
  auto r = exact.Decode(R"({"url":"http://a.com/12"})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("exceeds"), std::string::npos) << r.status().message();

  EventDecoder defaults;
  std::string big = R"({"url":"http://a.com/1","title":")" + std::string(1 << 20, 'x') + R"("})";
  auto rb = defaults.Decode(big);
  ASSERT_FALSE(rb.ok());
  EXPECT_NE(rb.status().message().find("exceeds"), std::string::npos) << rb.status().message();
}

TEST(EventTest, NullFieldsAreAbsent) {
  const auto ev = MustDecode(
      R"({"url":"http://a.com/1","title":null,"server":null,"crawlDate":null,"deleted":null,)"
      R"("outboundLinks":[{"url":"http://b.com/","anchorText":null}]})");
  EXPECT_FALSE(ev.page.title.has_value());
  EXPECT_FALSE(ev.page.server.has_value());
  EXPECT_FALSE(ev.page.crawl_date.has_value());
  EXPECT_FALSE(ev.crawl_time.has_value());
  EXPECT_FALSE(ev.deleted);
  ASSERT_EQ(ev.page.links.size(), 1u);
  EXPECT_EQ(ev.page.links[0].anchor_text, "");
  EXPECT_TRUE(MustDecode(R"({"url":"http://a.com/1","outboundLinks":null})").page.links.empty());
}

TEST(EventTest, TitleAndServerAreKept) {
  const auto ev = MustDecode(R"({"url":"http://a.com/1","title":"T \"q\" \u00e9","server":"nginx"})");
  EXPECT_EQ(ev.page.title, "T \"q\" \xc3\xa9");
  EXPECT_EQ(ev.page.server, "nginx");
  EXPECT_EQ(MustDecode(R"({"url":"http://a.com/1","title":""})").page.title, "");
}

TEST(EventTest, DeletedTrueClearsLinks) {
  const auto ev = MustDecode(
      R"({"url":"http://a.com/1","deleted":true,"crawlDate":"2015-07-28T03:06:17Z",)"
      R"("outboundLinks":[{"url":"http://b.com/1"},{"url":"/2"}]})");
  EXPECT_TRUE(ev.deleted);
  EXPECT_TRUE(ev.page.links.empty());
  EXPECT_EQ(ev.page.uri, "com.a>>o>/1");
  EXPECT_TRUE(ev.crawl_time.has_value());

  const auto kept = MustDecode(R"({"url":"http://a.com/1","deleted":false,"outboundLinks":[{"url":"/2"}]})");
  EXPECT_FALSE(kept.deleted);
  EXPECT_EQ(kept.page.links.size(), 1u);
}

TEST(EventTest, ExtractEventUrl) {
  auto u = ExtractEventUrl(R"({"url":"http://a.com/1","outboundLinks":5})");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(*u, "http://a.com/1");
  // Not validated or normalized: that is the decoder's job.
  auto raw = ExtractEventUrl(R"({"url":"  HTTP://A.com:80 "})");
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(*raw, "  HTTP://A.com:80 ");
  auto escaped = ExtractEventUrl(R"({"url":"http:\/\/a.com\/\u0031"})");
  ASSERT_TRUE(escaped.ok());
  EXPECT_EQ(*escaped, "http://a.com/1");

  for (const char* bad : {"", "not json", R"(["http://a.com/1"])", R"({})", R"({"url":5})", R"({"url":null})",
                          R"({"URL":"http://a.com/1"})"}) {
    auto r = ExtractEventUrl(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_FALSE(r.status().message().empty());
  }
  // What `load` prints for a line that is not JSON: the column and the mistake, not simdjson's words.
  EXPECT_EQ(ExtractEventUrl(R"({"url":"http://a.com/1","title":nope})").status().message(),
            "not JSON at column 33: 'nope' is no JSON value: a string needs double quotes, and the only bare words "
            "are true, false and null");
}

}  // namespace
}  // namespace webindex::codec
