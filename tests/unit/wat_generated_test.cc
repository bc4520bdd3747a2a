// ingest::WatConverter / WatEventReader on generated WAT records: the exact event JSON, what is
// skipped by kind, and streaming of files far larger than the reader's buffers in bounded memory.
#include <sys/resource.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gzip_file.h"
#include "ingest/wat.h"
#include "pipeline_harness.h"

namespace webindex::ingest {
namespace {

//! A WAT metadata record holding `json`, with WARC fields as Common Crawl writes them.
std::string WatRecord(const std::string& json, const std::string& date = "2015-04-18T03:35:13Z") {
  return fmt::format(
      "WARC/1.0\r\nWARC-Type: metadata\r\nWARC-Target-URI: http://header.example.org/\r\nWARC-Date: {}\r\n"
      "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{}\r\n\r\n",
      date, json.size(), json);
}

//! An envelope describing a record of `type` for `url`; `http` is the HTTP-Response-Metadata.
std::string Envelope(const std::string& type, const std::string& url, const std::string& http,
                     const std::string& date_field = R"("WARC-Date":"2015-01-02T03:04:05Z",)") {
  return fmt::format(R"({{"Envelope":{{"WARC-Header-Metadata":{{"WARC-Type":"{}",{}"WARC-Target-URI":"{}"}},)"
                     R"("Payload-Metadata":{{"HTTP-Response-Metadata":{}}}}}}})",
                     type, date_field, url, http);
}

class WatGeneratedTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("wat-generated-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& data) {
    testing::WriteFileBytes(dir_ + "/" + name, data);
    return dir_ + "/" + name;
  }
  //! All events of a file, asserting it reads without error.
  std::vector<KeyedEvent> ReadAll(const std::string& path, WatOptions options, WatStats* stats) {
    auto reader = WatEventReader::Open(path, options);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    std::vector<KeyedEvent> events;
    KeyedEvent ev;
    for (auto got = (*reader)->Next(&ev); got.ok() && *got; got = (*reader)->Next(&ev)) events.push_back(ev);
    *stats = (*reader)->stats();
    return events;
  }
  std::string dir_;
};

const char kPageHttp[] = R"({"Headers":{"server":"srv/1"},"HTML-Metadata":{"Head":{"Title":"T \"q\""},"Links":[)"
                         R"({"path":"A@/href","url":"http://b.com/x","text":"text","title":"not this"},)"
                         R"({"path":"A@/href","url":"//c.com","title":"ttl"},)"
                         R"({"path":"A@/href","url":"../up?q=1"},)"
                         R"js({"path":"A@/href","url":"javascript:void(0)","text":"js"},)js"
                         R"({"path":"A@/href","url":"  "},)"
                         R"({"path":"IMG@/src","url":"http://img.com/a.png"},)"
                         R"({"path":"A@/href","text":"no url"},)"
                         R"("not an object",)"
                         R"({"path":"A@/href","url":"https://www.d.co.uk:8443/y#frag"}]}})";

TEST_F(WatGeneratedTest, EventJsonExternalLinksOnly) {
  WatStats stats;
  const auto events =
      ReadAll(Write("p.warc", WatRecord(Envelope("response", "http://A.com/dir/page", kPageHttp))), {}, &stats);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].key, "http://A.com/dir/page");
  EXPECT_EQ(
      events[0].value,
      R"({"url":"http://A.com/dir/page","crawlDate":"2015-01-02T03:04:05Z","title":"T \"q\"","server":"srv/1",)"
      R"("outboundLinks":[{"url":"http://b.com/x","anchorText":"text"},{"url":"http://c.com/","anchorText":"ttl"},)"
      R"({"url":"https://www.d.co.uk:8443/y#frag"}]})");
  EXPECT_EQ(stats.links, 3u);
  EXPECT_EQ(stats.internal_links, 1u);  // ../up?q=1 -> http://a.com/up?q=1
  EXPECT_EQ(stats.dropped_links, 2u);   // javascript:, blank
}

TEST_F(WatGeneratedTest, AllLinksKeepsTheOwnDomainResolved) {
  WatStats stats;
  WatOptions options;
  options.all_links = true;
  const auto events =
      ReadAll(Write("p.warc", WatRecord(Envelope("response", "http://a.com/dir/page", kPageHttp))), options, &stats);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].value.find(R"({"url":"http://a.com/up?q=1"})"), std::string::npos) << events[0].value;
  EXPECT_EQ(stats.links, 4u);
  EXPECT_EQ(stats.internal_links, 0u);
}

TEST_F(WatGeneratedTest, CrawlDateFallsBackToTheRecordHeader) {
  WatStats stats;
  const auto events = ReadAll(
      Write("d.warc", WatRecord(Envelope("response", "http://a.com/", "{}", ""), "2016-02-03T04:05:06Z")), {}, &stats);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].value, R"({"url":"http://a.com/","crawlDate":"2016-02-03T04:05:06Z","outboundLinks":[]})");
}

TEST_F(WatGeneratedTest, RecordsWithoutAResponseAreSkippedByKind) {
  const std::string warcinfo =
      "WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Type: application/warc-fields\r\n"
      "Content-Length: 9\r\n\r\nsoftware:\r\n\r\n";
  const std::string file = warcinfo + WatRecord("{not json") + WatRecord(Envelope("response", "ftp://a.com/", "{}")) +
                           WatRecord(Envelope("response", "http://a.com/", "{}", R"("WARC-Date":"yesterday",)")) +
                           WatRecord(Envelope("request", "http://a.com/", "{}")) + WatRecord(R"({"Container":{}})") +
                           WatRecord(Envelope("weird", "http://a.com/", "{}")) +
                           WatRecord(Envelope("metadata", "http://a.com/", "{}")) +
                           WatRecord(Envelope("response", "http://ok.com/", "{}")) +
                           WatRecord(Envelope("response", "http://big.com/", std::string(3000, ' ') + "{}"));
  WatStats stats;
  WatOptions options;
  options.warc.max_block_bytes = 2000;
  const auto events = ReadAll(Write("k.warc", file), options, &stats);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].key, "http://ok.com/");
  EXPECT_EQ(stats.records, 10u);
  EXPECT_EQ(stats.events, 1u);
  EXPECT_EQ(stats.skipped, (std::map<std::string, uint64_t>{{"warcinfo", 1},
                                                            {"invalid-json", 1},
                                                            {"invalid-url", 1},
                                                            {"invalid-date", 1},
                                                            {"request", 1},
                                                            {"untyped", 1},
                                                            {"other", 1},
                                                            {"metadata", 1},
                                                            {"oversized", 1}}));
}

//! A response record of page `i`: `links` links to other domains, one to its own, one image.
std::string GeneratedRecord(int i, int links) {
  std::string http = fmt::format(R"({{"Headers":{{"Server":"gen/1"}},"HTML-Metadata":{{"Head":{{"Title":"page {}"}},)"
                                 R"("Links":[{{"path":"A@/href","url":"/self/{}"}},)",
                                 i, i);
  for (int k = 0; k < links; ++k) {
    http += fmt::format(R"({{"path":"A@/href","url":"http://site{}.com/x/{}","text":"link {} of page {}"}},)",
                        (i + k + 1) % 500, k, k, i);
  }
  http += R"({"path":"IMG@/src","url":"http://img.com/a.png"}]}})";
  return WatRecord(Envelope("response", fmt::format("http://site{}.com/p/{}", i % 500, i), http));
}

TEST_F(WatGeneratedTest, PlainAndGzipFilesLargerThanTheBuffersAgree) {
  const std::string plain = dir_ + "/gen.warc", members = dir_ + "/gen-members.warc.gz", whole = dir_ + "/gen.warc.gz";
  std::string all;
  for (int i = 0; i < 3000; ++i) all += GeneratedRecord(i, 20);
  ASSERT_GT(all.size(), 8 * ByteReader::kBufferSize);
  testing::WriteFileBytes(plain, all);
  testing::WriteGzipWarc(members, all, /*per_record=*/true);
  testing::WriteGzipWarc(whole, all, /*per_record=*/false);
  WatStats stats;
  const auto expected = ReadAll(plain, {}, &stats);
  ASSERT_EQ(expected.size(), 3000u);
  EXPECT_EQ(stats.links, 3000u * 20);
  EXPECT_EQ(stats.internal_links, 3000u);
  EXPECT_EQ(expected[2999].key, "http://site499.com/p/2999");
  for (const auto& path : {members, whole}) {
    SCOPED_TRACE(path);
    WatStats gz_stats;
    const auto events = ReadAll(path, {}, &gz_stats);
    ASSERT_EQ(events.size(), expected.size());
    for (size_t i = 0; i < events.size(); ++i) ASSERT_EQ(events[i].value, expected[i].value) << i;
    EXPECT_EQ(gz_stats.links, stats.links);
  }
}

long MaxRssKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// 20k records, ~60 MB once inflated: the reader holds its buffers and one record, never the file.
TEST_F(WatGeneratedTest, LargeMultiMemberFileStreamsInBoundedMemory) {
  const std::string path = dir_ + "/large.warc.gz";
  uint64_t inflated = 0;
  {
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 20000; ++i) {
      const std::string record = GeneratedRecord(i, 30);
      inflated += record.size();
      out << testing::GzipMember(record, /*level=*/1);
    }
  }
  ASSERT_GT(inflated, 50u << 20);
  [[maybe_unused]] const long rss_before = MaxRssKiB();
  auto reader = WatEventReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  KeyedEvent ev;
  uint64_t events = 0, event_bytes = 0;
  for (auto got = (*reader)->Next(&ev); got.ok() && *got; got = (*reader)->Next(&ev)) {
    ++events;
    event_bytes += ev.value.size();
  }
  EXPECT_EQ(events, 20000u);
  EXPECT_EQ((*reader)->stats().records, 20000u);
  EXPECT_EQ((*reader)->bytes_read(), std::filesystem::file_size(path));
  EXPECT_GT(event_bytes, 40u << 20);
  // By design: two fixed buffers, and one record's block (about 3 KB here).
  EXPECT_LT((*reader)->record().block.capacity(), 16u << 10);
  EXPECT_EQ(ByteReader::kFootprint, 2 * ByteReader::kBufferSize + (48 << 10));
  // And measured: the peak resident set grew by far less than the 60 MB that went through
  // (not under ASan, whose quarantine keeps freed memory resident).
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(MaxRssKiB() - rss_before, 8 << 10) << "KiB";
#endif
}

}  // namespace
}  // namespace webindex::ingest
