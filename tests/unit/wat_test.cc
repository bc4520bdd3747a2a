// ingest::WatEventReader on the Common Crawl samples: pages, dates, titles, servers and link
// counts; gzip (per record and whole file), LF files and the test-only extractor agree; damaged
// files give errors naming the file and the offset.
#include "ingest/wat.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "codec/event.h"
#include "gzip_file.h"
#include "model/url.h"
#include "pipeline_harness.h"
#include "wat_extract.h"

namespace webindex::ingest {
namespace {

using testing::TestData;

struct ReadResult {
  std::vector<KeyedEvent> events;
  WatStats stats;
  uint64_t bytes_read = 0;
  Status status;
};

ReadResult ReadWat(const std::string& path, bool all_links = false) {
  ReadResult out;
  WatOptions options;
  options.all_links = all_links;
  auto reader = WatEventReader::Open(path, options);
  if (!reader.ok()) {
    out.status = reader.status();
    return out;
  }
  for (;;) {
    KeyedEvent ev;
    auto got = (*reader)->Next(&ev);
    if (!got.ok()) out.status = got.status();
    if (!got.ok() || !*got) break;
    out.events.push_back(std::move(ev));
  }
  out.stats = (*reader)->stats();
  out.bytes_read = (*reader)->bytes_read();
  return out;
}

model::CrawlEvent Decode(const std::string& json) {
  codec::EventDecoder decoder;
  auto ev = decoder.Decode(json);
  EXPECT_TRUE(ev.ok()) << ev.status().message() << "\n" << json;
  return ev.ok() ? std::move(ev).value() : model::CrawlEvent{};
}

std::vector<std::pair<std::string, std::string>> Pairs(const std::vector<KeyedEvent>& events) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : events) out.emplace_back(e.key, e.value);
  return out;
}

TEST(WatTest, SingleRecordFile) {
  const auto r = ReadWat(TestData("wat.warc"));
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.events.size(), 1u);
  const auto ev = Decode(r.events[0].value);
  EXPECT_EQ(r.events[0].key,
            "http://1079ishot.com/presale-password-trey-songz-young-jeezy-pre-christmas-bash/"
            "screen-shot-2011-10-27-at-11-12-06-am/");
  EXPECT_EQ(ev.page.url, r.events[0].key);
  EXPECT_EQ(ev.page.crawl_date, "2015-04-18T03:35:13Z");
  EXPECT_EQ(ev.page.server, "nginx/1.6.2");
  EXPECT_EQ(ev.page.title,
            "Presale Password &#8211; Trey Songz &#038; Young Jeezy Pre-Christmas Bash Screen shot "
            "2011-10-27 at ");
  EXPECT_EQ(ev.page.links.size(), 0u);  // all six A@/href links stay on 1079ishot.com
  EXPECT_EQ(r.stats.records, 1u);
  EXPECT_EQ(r.stats.events, 1u);
  EXPECT_EQ(r.stats.internal_links, 6u);
  EXPECT_EQ(r.stats.dropped_links, 0u);
  EXPECT_EQ(r.stats.skipped_total(), 0u);
}

TEST(WatTest, SingleRecordFileAllLinks) {
  const auto r = ReadWat(TestData("wat.warc"), /*all_links=*/true);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.stats.links, 6u);
  const auto ev = Decode(r.events[0].value);
  ASSERT_EQ(ev.page.links.size(), 5u);  // http://1079ishot.com and "/" are one URI
  EXPECT_EQ(ev.page.links[0].url, "http://1079ishot.com/");
  EXPECT_EQ(ev.page.links[0].anchor_text, "HOT 107.9");  // no "text": the "title" is the anchor
  EXPECT_EQ(ev.page.links[1].url, "http://1079ishot.com/help/");
  EXPECT_EQ(ev.page.links[1].anchor_text, "Contact Us");
}

struct ExpectedPage {
  std::string url;
  std::string date;
  std::optional<std::string> title;
  std::string server;
  size_t links;  // external links after the decoder's resolution and dedup
};

// From the file (a Python re-count of A@/href links to another registrable domain).
const std::vector<ExpectedPage> kWat18 = {
    {"http://0.r.msn.com/"
     "?ld=7vbVzbpUDAd0qm2bWud6cigjVUCUxlyL-YoTXA18CeXPypaUenoNPYlOR6Q9zg-o5JFSqn-aZqW7vfaeEOcx9MskmI91"
     "bEJ8AgoKeDmZZL97q7gL1BYKUywdhKxTmPDqnqGE0q5Q&u=www.jamesallen.com%2F",
     "2015-04-18T03:30:14Z", std::nullopt, "Microsoft-IIS/8.0", 0},
    {"http://00assclown.newgrounds.com/", "2015-04-18T03:18:39Z", "00Assclown", "cloudflare-nginx", 4},
    {"http://0x20.be/smw/index.php?title=Special:WhatLinksHere/Game_Night&hideredirs=1", "2015-04-18T03:28:35Z",
     "Pages that link to \"Game Night\" - Whitespace (Hackerspace Gent)", "Apache/2.2.22 (Ubuntu)", 8},
    {"http://1000games.me/games/gametion/", "2015-04-18T03:21:15Z", "Gametion | 1000 games", "cloudflare-nginx", 7},
    {"http://100zone.blogspot.com/2013/03/please-memp3-4shared.html", "2015-04-18T03:20:36Z", std::nullopt, "GSE", 10},
};

TEST(WatTest, Wat18FiveResponsePages) {
  const auto r = ReadWat(TestData("wat-18.warc"));
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  ASSERT_EQ(r.events.size(), kWat18.size());
  size_t total = 0;
  for (size_t i = 0; i < kWat18.size(); ++i) {
    SCOPED_TRACE(kWat18[i].url);
    const auto ev = Decode(r.events[i].value);
    EXPECT_EQ(r.events[i].key, kWat18[i].url);
    EXPECT_EQ(ev.page.url, kWat18[i].url);
    EXPECT_EQ(ev.page.crawl_date, kWat18[i].date);
    if (kWat18[i].title) {
      EXPECT_EQ(ev.page.title, kWat18[i].title);
    }
    EXPECT_EQ(ev.page.server, kWat18[i].server);
    EXPECT_EQ(ev.page.links.size(), kWat18[i].links);
    EXPECT_EQ(ev.dropped_links, 0u);  // the reader already dropped what does not resolve
    const std::string page_domain(model::DomainOfUri(ev.page.uri));
    for (const auto& l : ev.page.links) EXPECT_NE(model::DomainOfUri(l.uri), page_domain) << l.url;
    total += ev.page.links.size();
  }
  EXPECT_EQ(total, 29u);
  EXPECT_TRUE(Decode(r.events[4].value).page.title->starts_with("เต&#3659;า"));
  // 18 records = warcinfo + its JSON metadata + 5 x (request, response, metadata) + 1 request.
  EXPECT_EQ(r.stats.records, 18u);
  EXPECT_EQ(r.stats.events, 5u);
  EXPECT_EQ(r.stats.skipped, (std::map<std::string, uint64_t>{{"warcinfo", 2}, {"request", 6}, {"metadata", 5}}));
  EXPECT_EQ(r.stats.SkippedSummary(), "request 6, metadata 5, warcinfo 2");
  EXPECT_EQ(r.stats.dropped_links, 35u);  // one empty href, 34 javascript:void(0)
  EXPECT_EQ(r.stats.links, 44u);          // before dedup: 0 + 4 + 8 + 7 + 25
  EXPECT_EQ(r.bytes_read, std::filesystem::file_size(TestData("wat-18.warc")));
}

// The product reader and the independent test-only extractor give the same pages.
TEST(WatTest, AgreesWithTheTestExtractor) {
  for (const bool all_links : {false, true}) {
    SCOPED_TRACE(all_links);
    const auto mine = ReadWat(TestData("wat-18.warc"), all_links);
    const auto theirs = testing::ExtractWatEvents(TestData("wat-18.warc"), !all_links);
    ASSERT_EQ(mine.events.size(), theirs.size());
    size_t links = 0;
    for (size_t i = 0; i < theirs.size(); ++i) {
      EXPECT_EQ(Decode(mine.events[i].value).page, Decode(theirs[i]).page);
      links += Decode(mine.events[i].value).page.links.size();
    }
    EXPECT_EQ(links, all_links ? 0u + 88 + 40 + 75 + 110 : 29u);
  }
}

class WatFileTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("wat-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(WatFileTest, GzipPerRecordWholeFileAndLfGiveIdenticalEvents) {
  const std::string warc = testing::ReadFileBytes(TestData("wat-18.warc"));
  const auto plain = ReadWat(TestData("wat-18.warc"));
  const std::string members = dir_ + "/members.warc.gz", whole = dir_ + "/whole.warc.gz", lf = dir_ + "/lf.warc";
  testing::WriteGzipWarc(members, warc, /*per_record=*/true);
  testing::WriteGzipWarc(whole, warc, /*per_record=*/false);
  std::string lf_text;  // LF in the header and the record's end; blocks (counted by Content-Length) unchanged
  for (std::string_view record : testing::SplitWarcRecords(warc)) {
    const size_t block = record.find("\r\n\r\n") + 4;
    for (char c : record.substr(0, block)) {
      if (c != '\r') lf_text.push_back(c);
    }
    ASSERT_TRUE(record.ends_with("\r\n\r\n"));
    lf_text.append(record.substr(block, record.size() - block - 4)).append("\n\n");
  }
  ASSERT_LT(lf_text.size(), warc.size());
  testing::WriteFileBytes(lf, lf_text);
  for (const auto& path : {members, whole, lf}) {
    SCOPED_TRACE(path);
    const auto r = ReadWat(path);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(Pairs(r.events), Pairs(plain.events));
    EXPECT_EQ(r.stats.skipped, plain.stats.skipped);
    EXPECT_EQ(r.stats.links, plain.stats.links);
    EXPECT_EQ(r.bytes_read, std::filesystem::file_size(path));
  }
  EXPECT_EQ(testing::SplitWarcRecords(warc).size(), 18u);  // so `members` has one member per record
}

TEST_F(WatFileTest, TruncatedGzipIsAnErrorNamingFileAndOffset) {
  const std::string warc = testing::ReadFileBytes(TestData("wat-18.warc"));
  std::string gz;
  for (auto record : testing::SplitWarcRecords(warc)) gz += testing::GzipMember(record);
  const std::string path = dir_ + "/cut.warc.gz";
  testing::WriteFileBytes(path, std::string_view(gz).substr(0, gz.size() * 2 / 3));
  const auto r = ReadWat(path);
  ASSERT_EQ(r.status.code(), Status::Code::kCorruption) << r.status.ToString();
  EXPECT_NE(r.status.message().find(path + ": offset "), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("compressed offset"), std::string::npos) << r.status.message();
  EXPECT_GE(r.events.size(), 2u);  // the pages before the cut came through
  EXPECT_LT(r.events.size(), 5u);
}

TEST_F(WatFileTest, CorruptWarcHeaderIsAnErrorAtThatRecord) {
  std::string warc = testing::ReadFileBytes(TestData("wat-18.warc"));
  const auto records = testing::SplitWarcRecords(warc);
  const size_t offset = static_cast<size_t>(records[7].data() - warc.data());
  const size_t field = warc.find("Content-Length:", offset);
  warc.replace(field, 15, "Content-Lenght:");
  const std::string path = dir_ + "/bad.warc";
  testing::WriteFileBytes(path, warc);
  const auto r = ReadWat(path);
  ASSERT_EQ(r.status.code(), Status::Code::kCorruption) << r.status.ToString();
  EXPECT_NE(r.status.message().find(path + ": offset " + std::to_string(offset) + ": "), std::string::npos)
      << r.status.message();
  EXPECT_NE(r.status.message().find("Content-Length"), std::string::npos) << r.status.message();
  EXPECT_EQ(r.events.size(), 2u);  // the responses before it: records 3 and 6 (0-based)
}

}  // namespace
}  // namespace webindex::ingest
