// JSON records between stages and to the sink: encode/decode round trips, escaping, and
// rejection of malformed records.
#include "codec/records.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace webindex::codec {
namespace {

//! Strings that stress JSON escaping: quotes, backslashes, every control char, unicode, '>'.
std::vector<std::string> NastyStrings() {
  std::string controls;
  for (int c = 1; c < 0x20; ++c) controls.push_back(static_cast<char>(c));
  return {"",
          "plain",
          "quote \" inside",
          "back\\slash \\\\ \\\" \\u0041 \\n",
          controls,
          std::string("nul\0byte", 8),
          "tab\tnewline\ncr\r",
          "\x7f del",
          "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe4\xb8\xad\xe6\x96\x87",
          "com.a>.www>s9443>/a?b=<c>&d=\"e\"",
          "</script><!-- -->",
          "{\"json\":[1,2]}",
          "/"};
}

model::Page SamplePage() {
  model::Page p;
  p.url = "https://www.d.com.au:9443/a/bc";
  p.uri = "au.com.d>.www>s9443>/a/bc";
  p.crawl_date = "2015-07-28T03:06:17Z";
  p.title = "A \"title\" with \\ and \xe2\x9c\x93";
  p.server = "nginx/1.2";
  p.links = {{"http://b.com/1", "com.b>>o>/1", "b1"},
             {"http://1.2.3.4/a/b/c", "1.2.3.4>>o>/a/b/c", ""},
             {"https://www.d.com.au:9443/a/bc", "au.com.d>.www>s9443>/a/bc", "self"}};
  return p;
}

TEST(RecordsTest, PageJsonRoundTrip) {
  RecordDecoder d;
  const auto p = SamplePage();
  const std::string json = EncodePageJson(p);
  auto back = d.DecodePageJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << json;
  EXPECT_EQ(*back, p);
}

TEST(RecordsTest, PageJsonFieldsAsDocumented) {
  auto p = SamplePage();
  p.links.resize(1);
  EXPECT_EQ(EncodePageJson(p),
            R"({"url":"https://www.d.com.au:9443/a/bc","uri":"au.com.d>.www>s9443>/a/bc",)"
            R"("crawlDate":"2015-07-28T03:06:17Z","title":"A \"title\" with \\ and )"
            "\xe2\x9c\x93"
            R"(","server":"nginx/1.2","numOutbound":1,)"
            R"("outboundLinks":[{"url":"http://b.com/1","uri":"com.b>>o>/1","anchorText":"b1"}]})");
}

TEST(RecordsTest, PageJsonOptionalFieldsAbsent) {
  RecordDecoder d;
  model::Page p;
  p.url = "http://a.com/";
  p.uri = "com.a>>o>/";
  const std::string json = EncodePageJson(p);
  EXPECT_EQ(json, R"({"url":"http://a.com/","uri":"com.a>>o>/","numOutbound":0,"outboundLinks":[]})");
  auto back = d.DecodePageJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, p);
  EXPECT_FALSE(back->crawl_date.has_value());
  EXPECT_FALSE(back->title.has_value());
  EXPECT_FALSE(back->server.has_value());

  // An empty title is not an absent title.
  p.title = "";
  auto empty = d.DecodePageJson(EncodePageJson(p));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->title, "");
}

TEST(RecordsTest, PageJsonEscapingRoundTrips) {
  RecordDecoder d;
  for (const auto& s : NastyStrings()) {
    model::Page p;
    p.url = "http://a.com/" + s;
    p.uri = "com.a>>o>/" + s;
    p.title = s;
    p.server = s;
    p.crawl_date = s;
    p.links = {{s, s, s}, {"http://b.com/", "com.b>>o>/", s}};
    const std::string json = EncodePageJson(p);
    // Valid JSON never holds a raw control character.
    for (char c : json) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << "raw control char in " << json;
    auto back = d.DecodePageJson(json);
    ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << json;
    EXPECT_EQ(*back, p) << json;
  }
}

TEST(RecordsTest, EscapesAsJsonRequires) {
  model::Page p;
  p.url = "a\"b\\c\n\t\r\x01\x1f";
  p.uri = ">";
  const std::string json = EncodePageJson(p);
  EXPECT_NE(json.find(R"("url":"a\"b\\c\n\t\r\u0001\u001f")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("uri":">")"), std::string::npos) << json;
}

TEST(RecordsTest, UriDeltaRoundTrip) {
  RecordDecoder d;
  for (const auto& s : NastyStrings()) {
    for (auto [links_to, docs] : std::vector<std::pair<int64_t, int64_t>>{
             {0, 0}, {1, 0}, {-1, -1}, {5, 1}, {std::numeric_limits<int64_t>::max(), 0},
             {std::numeric_limits<int64_t>::min(), -1}}) {
      UriDelta in;
      in.origin.src = "page-" + s;
      in.origin.seq = 0xfffffffffffffffeull;
      in.origin.gen = 1 + s.size();
      in.uri = "com.a>>o>/" + s;
      in.delta = {links_to, docs};
      const std::string json = Encode(in);
      auto out = d.DecodeUriDelta(json);
      ASSERT_TRUE(out.ok()) << out.status().ToString() << "\n" << json;
      EXPECT_EQ(out->origin.src, in.origin.src);
      EXPECT_EQ(out->origin.seq, in.origin.seq);
      EXPECT_EQ(out->origin.gen, in.origin.gen);
      EXPECT_EQ(out->uri, in.uri);
      EXPECT_EQ(out->delta, in.delta);
    }
  }
  UriDelta known;
  known.origin = {"page", 7};
  known.uri = "com.a>>o>/";
  known.delta = {1, -1};
  EXPECT_EQ(Encode(known),
            R"({"src":"page","seq":7,"gen":1,"uri":"com.a>>o>/","linksTo":1,"docs":-1})");
  // Records without "gen" come from generation 1.
  auto old = d.DecodeUriDelta(R"({"src":"page","seq":7,"uri":"com.a>>o>/","linksTo":1,"docs":-1})");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->origin.gen, 1u);
  for (const char* bad : {R"({"src":"page","seq":7,"gen":0,"uri":"u","linksTo":1,"docs":-1})",
                          R"({"src":"page","seq":7,"gen":-2,"uri":"u","linksTo":1,"docs":-1})",
                          R"({"src":"page","seq":7,"gen":"2","uri":"u","linksTo":1,"docs":-1})"}) {
    EXPECT_FALSE(d.DecodeUriDelta(bad).ok()) << bad;
  }
}

TEST(RecordsTest, DomainDeltaRoundTrip) {
  RecordDecoder d;
  for (const auto& s : NastyStrings()) {
    for (int64_t pages : {int64_t{0}, int64_t{1}, int64_t{-3}, std::numeric_limits<int64_t>::max()}) {
      DomainDelta in;
      in.origin.src = "uri" + s;
      in.origin.seq = 42;
      in.origin.gen = 3;
      in.domain = "com." + s;
      in.pages = pages;
      const std::string json = Encode(in);
      auto out = d.DecodeDomainDelta(json);
      ASSERT_TRUE(out.ok()) << out.status().ToString() << "\n" << json;
      EXPECT_EQ(out->origin.src, in.origin.src);
      EXPECT_EQ(out->origin.seq, 42u);
      EXPECT_EQ(out->origin.gen, 3u);
      EXPECT_EQ(out->domain, in.domain);
      EXPECT_EQ(out->pages, pages);
    }
  }
  DomainDelta known;
  known.origin = {"uri", 3};
  known.domain = "com.a";
  known.pages = -2;
  EXPECT_EQ(Encode(known), R"({"src":"uri","seq":3,"gen":1,"domain":"com.a","pages":-2})");
}

void ExpectSameExport(const ExportRecord& a, const ExportRecord& b) {
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.seq, b.seq);
  EXPECT_EQ(a.gen, b.gen);
  switch (a.type) {
    case ExportRecord::Type::kPage: EXPECT_EQ(a.page, b.page); break;
    case ExportRecord::Type::kUri: EXPECT_EQ(a.info, b.info); break;
    case ExportRecord::Type::kDomain: EXPECT_EQ(a.pagecount, b.pagecount); break;
    case ExportRecord::Type::kGeneration: break;
  }
}

TEST(RecordsTest, ExportRoundTripAllTypes) {
  RecordDecoder d;
  std::vector<ExportRecord> records;
  {
    ExportRecord r;
    r.type = ExportRecord::Type::kPage;
    r.key = "au.com.d>.www>s9443>/a/bc";
    r.seq = 1;
    r.page = SamplePage();
    records.push_back(r);
    r.seq = 2;
    r.page.reset();  // page gone
    records.push_back(r);
  }
  {
    ExportRecord r;
    r.type = ExportRecord::Type::kUri;
    r.key = "com.b>>o>/1";
    r.seq = std::numeric_limits<uint64_t>::max();
    r.info = {3, 1};
    records.push_back(r);
    r.info = {0, 0};
    records.push_back(r);
  }
  {
    ExportRecord r;
    r.type = ExportRecord::Type::kDomain;
    r.key = "com.b";
    r.seq = 0;
    r.pagecount = 12345;
    records.push_back(r);
  }
  for (const auto& s : NastyStrings()) {
    ExportRecord r;
    r.type = ExportRecord::Type::kPage;
    r.key = s;
    r.seq = 9;
    r.page = model::Page{s, s, s, s, s, {{s, s, s}}};
    records.push_back(r);
  }
  for (const auto& r : records) {
    const std::string json = Encode(r);
    auto back = d.DecodeExport(json);
    ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << json;
    ExpectSameExport(*back, r);
  }
}

TEST(RecordsTest, ExportJsonFieldsAsDocumented) {
  ExportRecord page;
  page.type = ExportRecord::Type::kPage;
  page.key = "com.a>>o>/";
  page.seq = 2;
  EXPECT_EQ(Encode(page), R"({"type":"page","key":"com.a>>o>/","seq":2,"gen":1,"page":null})");
  page.page = model::Page{"http://a.com/", "com.a>>o>/", std::nullopt, std::nullopt, std::nullopt, {}};
  page.gen = 7;
  EXPECT_EQ(Encode(page),
            R"({"type":"page","key":"com.a>>o>/","seq":2,"gen":7,"page":)" + EncodePageJson(*page.page) + "}");

  ExportRecord uri;
  uri.type = ExportRecord::Type::kUri;
  uri.key = "com.a>>o>/";
  uri.seq = 3;
  uri.info = {4, 1};
  EXPECT_EQ(Encode(uri), R"({"type":"uri","key":"com.a>>o>/","seq":3,"gen":1,"url":"http://a.com/","linksTo":4,"docs":1})");

  ExportRecord domain;
  domain.type = ExportRecord::Type::kDomain;
  domain.key = "com.a";
  domain.seq = 4;
  domain.pagecount = 2;
  EXPECT_EQ(Encode(domain), R"({"type":"domain","key":"com.a","seq":4,"gen":1,"pagecount":2})");
  RecordDecoder d;
  auto decoded = d.DecodeExport(Encode(page));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->gen, 7u);
  ExportRecord announce;
  announce.type = ExportRecord::Type::kGeneration;
  announce.key = "3";
  announce.gen = 3;
  EXPECT_EQ(Encode(announce), R"({"type":"generation","key":"3","seq":0,"gen":3})");
  auto announced = d.DecodeExport(Encode(announce));
  ASSERT_TRUE(announced.ok()) << announced.status().ToString();
  EXPECT_EQ(announced->type, ExportRecord::Type::kGeneration);
  EXPECT_EQ(announced->gen, 3u);
  auto old = d.DecodeExport(R"({"type":"domain","key":"com.a","seq":4,"pagecount":2})");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->gen, 1u);
}

TEST(RecordsTest, DecodeExportRejectsMalformedRecords) {
  RecordDecoder d;
  const std::vector<std::string> bad = {
      "",
      "not json",
      "[]",
      "null",
      R"({"type":"table","key":"k","seq":1})",
      R"({"type":"PAGE","key":"k","seq":1,"page":null})",
      R"({"type":5,"key":"k","seq":1,"page":null})",
      R"({"key":"k","seq":1,"page":null})",
      R"({"type":"page","seq":1,"page":null})",
      R"({"type":"page","key":"k","page":null})",
      R"({"type":"page","key":"k","seq":"1","page":null})",
      R"({"type":"page","key":"k","seq":-1,"page":null})",
      R"({"type":"page","key":"k","seq":1,"gen":0,"page":null})",
      R"({"type":"page","key":"k","seq":1,"gen":"1","page":null})",
      R"({"type":"page","key":5,"seq":1,"page":null})",
      R"({"type":"page","key":"k","seq":1})",
      R"({"type":"page","key":"k","seq":1,"page":5})",
      R"({"type":"page","key":"k","seq":1,"page":{"uri":"u","outboundLinks":[]}})",
      R"({"type":"page","key":"k","seq":1,"page":{"url":"u","outboundLinks":[]}})",
      R"({"type":"page","key":"k","seq":1,"page":{"url":"u","uri":"u"}})",
      R"({"type":"page","key":"k","seq":1,"page":{"url":"u","uri":"u","outboundLinks":{}}})",
      R"({"type":"page","key":"k","seq":1,"page":{"url":"u","uri":"u","outboundLinks":[5]}})",
      R"({"type":"page","key":"k","seq":1,"page":{"url":"u","uri":"u","outboundLinks":[{"url":"a","uri":"b"}]}})",
      R"({"type":"page","key":"k","seq":1,"page":{"url":"u","uri":"u","outboundLinks":[{"url":"a","anchorText":""}]}})",
      R"({"type":"uri","key":"k","seq":1,"linksTo":1})",
      R"({"type":"uri","key":"k","seq":1,"docs":1})",
      R"({"type":"uri","key":"k","seq":1,"linksTo":"1","docs":1})",
      R"({"type":"uri","key":"k","seq":1,"linksTo":1.5,"docs":1})",
      R"({"type":"domain","key":"k","seq":1})",
      R"({"type":"domain","key":"k","seq":1,"pagecount":null})",
      R"({"type":"domain","key":"k","seq":1,"pagecount":1} x)",
  };
  for (const auto& json : bad) {
    auto r = d.DecodeExport(json);
    ASSERT_FALSE(r.ok()) << "accepted: " << json;
    EXPECT_EQ(r.status().code(), Status::Code::kCorruption) << json;
    EXPECT_FALSE(r.status().message().empty());
  }
  auto unknown = d.DecodeExport(R"({"type":"table","key":"k","seq":1})");
  EXPECT_NE(unknown.status().message().find("table"), std::string::npos) << unknown.status().message();
  auto missing = d.DecodeExport(R"({"type":"domain","key":"k","seq":1})");
  EXPECT_NE(missing.status().message().find("pagecount"), std::string::npos) << missing.status().message();
  // The decoder stays usable after errors.
  EXPECT_TRUE(d.DecodeExport(R"({"type":"domain","key":"k","seq":1,"pagecount":1})").ok());
}

TEST(RecordsTest, DecodeDeltasRejectMalformedRecords) {
  RecordDecoder d;
  for (const char* json : {"", "{", "[]", R"({"seq":1,"uri":"u","linksTo":1,"docs":0})",
                           R"({"src":"p","uri":"u","linksTo":1,"docs":0})", R"({"src":"p","seq":1,"linksTo":1,"docs":0})",
                           R"({"src":"p","seq":1,"uri":"u","docs":0})", R"({"src":"p","seq":1,"uri":"u","linksTo":1})",
                           R"({"src":"p","seq":1,"uri":"u","linksTo":"1","docs":0})",
                           R"({"src":"p","seq":-5,"uri":"u","linksTo":1,"docs":0})"}) {
    auto r = d.DecodeUriDelta(json);
    EXPECT_FALSE(r.ok()) << "accepted uri delta: " << json;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Status::Code::kCorruption) << json;
    }
  }
  for (const char* json : {"", "7", R"({"seq":1,"domain":"d","pages":1})", R"({"src":"u","domain":"d","pages":1})",
                           R"({"src":"u","seq":1,"pages":1})", R"({"src":"u","seq":1,"domain":"d"})",
                           R"({"src":"u","seq":1,"domain":5,"pages":1})"}) {
    auto r = d.DecodeDomainDelta(json);
    EXPECT_FALSE(r.ok()) << "accepted domain delta: " << json;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Status::Code::kCorruption) << json;
    }
  }
}

TEST(RecordsTest, DecodePageJsonAcceptsNullOptionalFields) {
  RecordDecoder d;
  auto p = d.DecodePageJson(
      R"({"url":"http://a.com/","uri":"com.a>>o>/","crawlDate":null,"title":null,"server":null,)"
      R"("numOutbound":0,"outboundLinks":[]})");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_FALSE(p->crawl_date.has_value());
  EXPECT_FALSE(p->title.has_value());
  EXPECT_FALSE(p->server.has_value());
}

}  // namespace
}  // namespace webindex::codec
