// ingest::WikipediaReader: the 14-line revision records of the University of Glasgow dump, plain
// and gzip, and every kind of malformed record named by file and line (docs/pagerank.md, "Batch").
#include "ingest/wikipedia.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gzip_file.h"
#include "pipeline_harness.h"

namespace webindex::ingest {
namespace {

using testing::WriteFileBytes;

// The record of MrPageRank's test fixture (enwiki-dummy.txt): bare tags, a template with '+'.
constexpr std::string_view kSeedRecord =
    "REVISION 1 10 A 2018-02-07T17:44:47Z Homerol 12345\n"
    "CATEGORY Social_philosophy\nIMAGE\nMAIN B C D\nTALK\nUSER\nUSER_TALK\nOTHER\nEXTERNAL\n"
    "TEMPLATE Notepad++\nCOMMENT /* registro dummy */\nMINOR\nTEXTDATA\n\n";

std::string Record(std::string_view title, uint64_t rev, std::string_view main, std::string_view ts =
                                                                                   "2008-01-02T03:04:05Z") {
  return "REVISION 7 " + std::to_string(rev) + " " + std::string(title) + " " + std::string(ts) +
         " ip:office.dcs.gla.ac.uk ip:office.dcs.gla.ac.uk\nCATEGORY\nIMAGE\nMAIN" +
         (main.empty() ? "" : " " + std::string(main)) +
         "\nTALK\nUSER\nUSER_TALK\nOTHER\nEXTERNAL\nTEMPLATE\nCOMMENT\nMINOR 1\nTEXTDATA 42\n\n";
}

class WikipediaReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("wikipedia-reader-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(std::string_view data, bool gzip = false) {
    const std::string path = dir_ + "/revisions" + std::to_string(++files_) + (gzip ? ".gz" : ".txt");
    WriteFileBytes(path, gzip ? testing::GzipMember(data) : std::string(data));
    return path;
  }
  //! Every record of the file; the error message of the first malformed one in *error.
  std::vector<Revision> ReadAll(const std::string& path, std::string* error = nullptr) {
    auto reader = WikipediaReader::Open(path);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    std::vector<Revision> out;
    for (Revision rev;;) {
      auto more = (*reader)->Next(&rev);
      if (!more.ok()) {
        if (error && error->empty()) *error = more.status().message();
        if (more.status().code() != Status::Code::kCorruption) break;
        continue;
      }
      if (!*more) break;
      out.push_back(rev);
    }
    return out;
  }
  //! The error the file's only record gets.
  std::string ErrorOf(std::string_view data) {
    std::string error;
    const std::string path = Write(data);
    EXPECT_TRUE(ReadAll(path, &error).empty());
    EXPECT_EQ(error.rfind(path + ":", 0), 0u) << error;
    return error;
  }
  std::string dir_;
  int files_ = 0;
};

TEST_F(WikipediaReaderTest, ReadsTheSeedsFixtureRecord) {
  const auto revs = ReadAll(Write(kSeedRecord));
  ASSERT_EQ(revs.size(), 1u);
  EXPECT_EQ(revs[0].title, "A");
  EXPECT_EQ(revs[0].rev_id, 10u);
  EXPECT_EQ(revs[0].timestamp_text, "2018-02-07T17:44:47Z");
  EXPECT_EQ(revs[0].timestamp, (Instant{1518025487, 0}));
  EXPECT_EQ(revs[0].links, (std::vector<std::string>{"B", "C", "D"}));
  EXPECT_EQ(revs[0].line, 1u);
}

TEST_F(WikipediaReaderTest, MainSplitsOnRunsOfSpacesAndTabsAndKeepsDuplicates) {
  const auto revs = ReadAll(Write(Record("X", 1, "  B\t\tC  B \xc3\xa9t\xc3\xa9  ")));
  ASSERT_EQ(revs.size(), 1u);
  EXPECT_EQ(revs[0].links, (std::vector<std::string>{"B", "C", "B", "\xc3\xa9t\xc3\xa9"}));
  EXPECT_TRUE(ReadAll(Write(Record("Y", 1, "")))[0].links.empty());
}

TEST_F(WikipediaReaderTest, ManyRecordsPlainOrGzipWithExtraBlankLinesAndCrlf) {
  std::string data = "\n" + Record("A", 1, "B") + "\n\n" + Record("B", 2, "A C") + Record("C", 3, "");
  data.pop_back();  // the last record without its empty line
  for (bool gzip : {false, true}) {
    const auto revs = ReadAll(Write(data, gzip));
    ASSERT_EQ(revs.size(), 3u) << "gzip " << gzip;
    EXPECT_EQ(revs[1].title, "B");
    EXPECT_EQ(revs[1].line, 18u);
    EXPECT_EQ(revs[2].line, 32u);
  }
  std::string crlf;
  for (char c : Record("D", 4, "E F")) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const auto revs = ReadAll(Write(crlf));
  ASSERT_EQ(revs.size(), 1u);
  EXPECT_EQ(revs[0].links, (std::vector<std::string>{"E", "F"}));
}

TEST_F(WikipediaReaderTest, MalformedRecordsNameFileLineAndProblem) {
  std::string wrong_order = Record("A", 1, "B");
  wrong_order.replace(wrong_order.find("TALK\nUSER\n"), 10, "USER\nTALK\n");
  EXPECT_NE(ErrorOf(wrong_order).find(":1: malformed revision record: line 5 starts with 'USER' where TALK"),
            std::string::npos)
      << ErrorOf(wrong_order);
  std::string short_record = Record("A", 1, "B");
  short_record.erase(short_record.find("MINOR"));
  EXPECT_NE(ErrorOf(short_record + "\n").find("ends after 11 lines, without the MINOR line"), std::string::npos);
  std::string long_record = Record("A", 1, "B");
  long_record.insert(long_record.size() - 1, "EXTRA\n");
  EXPECT_NE(ErrorOf(long_record).find("line 14 follows TEXTDATA"), std::string::npos) << ErrorOf(long_record);
  EXPECT_NE(ErrorOf("REVISION 1 10 A 2018-02-07T17:44:47Z Homerol\n" + std::string(kSeedRecord.substr(51)))
                .find("REVISION has 5 fields"),
            std::string::npos);
  EXPECT_NE(ErrorOf("REVISION 1 10  A 2018-02-07T17:44:47Z Homerol 1\n" + std::string(kSeedRecord.substr(51)))
                .find("REVISION has 7 fields"),
            std::string::npos);
  for (const char* rev : {"-1", "x", "1.0", "18446744073709551616", "+3"}) {
    EXPECT_NE(ErrorOf(Record("A", 0, "").replace(11, 1, rev)).find("rev_id '" + std::string(rev) + "'"),
              std::string::npos)
        << rev;
  }
  for (const char* ts : {"2008-01-02T03:04:05", "2008-01-02T03:04:05.5Z", "2008-01-02T03:04:05+00:00",
                         "2008-02-30T00:00:00Z", "2008-1-02T03:04:05Z", "2008-01-02t03:04:05Z"}) {
    EXPECT_NE(ErrorOf(Record("A", 1, "", ts)).find("timestamp '" + std::string(ts) + "'"), std::string::npos)
        << ts;
  }
}

TEST_F(WikipediaReaderTest, ReadingGoesOnAfterAMalformedRecord) {
  std::string bad = Record("B", 2, "");
  bad.replace(bad.find("IMAGE"), 5, "IMAGES");
  std::string error;
  const auto revs = ReadAll(Write(Record("A", 1, "") + bad + Record("C", 3, "A")), &error);
  ASSERT_EQ(revs.size(), 2u);
  EXPECT_EQ(revs[1].title, "C");
  EXPECT_EQ(revs[1].line, 29u);
  EXPECT_NE(error.find(":15: malformed revision record: line 17 starts with 'IMAGES' where IMAGE"),
            std::string::npos)
      << error;
}

TEST_F(WikipediaReaderTest, TitlesMustBeUtf8) {
  EXPECT_NE(ErrorOf(Record("A\xff", 1, "")).find("article_title is not valid UTF-8"), std::string::npos);
}

TEST(WikipediaEventTest, UrlsPercentEncodeEveryByteOutsideTheUnreservedSet) {
  EXPECT_EQ(WikipediaUrl("Albert_Einstein"), "https://en.wikipedia.org/wiki/Albert_Einstein");
  EXPECT_EQ(WikipediaUrl("A~b.c-d_0"), "https://en.wikipedia.org/wiki/A~b.c-d_0");
  EXPECT_EQ(WikipediaUrl("AC/DC"), "https://en.wikipedia.org/wiki/AC%2FDC");
  EXPECT_EQ(WikipediaUrl("100%+x&y?#>"), "https://en.wikipedia.org/wiki/100%25%2Bx%26y%3F%23%3E");
  EXPECT_EQ(WikipediaUrl("\xc3\xa9t\xc3\xa9"), "https://en.wikipedia.org/wiki/%C3%A9t%C3%A9");
}

TEST(WikipediaEventTest, ARevisionIsACrawlEventKeyedByItsUrl) {
  Revision rev;
  rev.title = "Caf\xc3\xa9";
  rev.rev_id = 18446744073709551615ull;
  rev.timestamp_text = "2008-01-02T03:04:05Z";
  rev.links = {"B", "Caf\xc3\xa9", "B", "C/D"};
  const KeyedEvent ev = RevisionEvent(rev);
  EXPECT_EQ(ev.key, "https://en.wikipedia.org/wiki/Caf%C3%A9");
  EXPECT_EQ(ev.value,
            "{\"url\":\"https://en.wikipedia.org/wiki/Caf%C3%A9\",\"title\":\"Caf\xc3\xa9\",\"crawlDate\":"
            "\"2008-01-02T03:04:05Z\",\"revision\":18446744073709551615,\"outboundLinks\":["
            "{\"url\":\"https://en.wikipedia.org/wiki/B\"},{\"url\":\"https://en.wikipedia.org/wiki/Caf%C3%A9\"},"
            "{\"url\":\"https://en.wikipedia.org/wiki/B\"},{\"url\":\"https://en.wikipedia.org/wiki/C%2FD\"}]}");
}

TEST(WikipediaSplitTest, SplitEntries) {
  EXPECT_TRUE(SplitEntries("").empty());
  EXPECT_TRUE(SplitEntries(" \t ").empty());
  EXPECT_EQ(SplitEntries("a  b\tc "), (std::vector<std::string_view>{"a", "b", "c"}));
}

}  // namespace
}  // namespace webindex::ingest
