// ingest::WarcReader: records from CRLF and LF files, plain and gzip; corrupt input gives a
// Corruption naming the file and the offset.
#include "ingest/warc_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gzip_file.h"
#include "pipeline_harness.h"

namespace webindex::ingest {
namespace {

class WarcReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("warc-reader-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, std::string_view data) {
    const std::string path = dir_ + "/" + name;
    testing::WriteFileBytes(path, data);
    return path;
  }
  //! Reads every record; the error (if any) of the first bad one.
  Status ReadAll(const std::string& path, std::vector<WarcRecord>* records, WarcReaderOptions options = {}) {
    ASSIGN_OR_RETURN(auto reader, WarcReader::Open(path, options));
    for (;;) {
      WarcRecord rec;
      ASSIGN_OR_RETURN(const bool got, reader->Next(&rec));
      if (!got) return Status::Ok();
      records->push_back(std::move(rec));
    }
  }
  std::string dir_;
};

std::string Record(const std::string& type, const std::string& body, const std::string& eol = "\r\n") {
  return "WARC/1.0" + eol + "WARC-Type: " + type + eol + "Content-Type: text/plain" + eol +
         "Content-Length: " + std::to_string(body.size()) + eol + eol + body + eol + eol;
}

TEST_F(WarcReaderTest, ReadsCrLfAndLfRecords) {
  for (const std::string eol : {"\r\n", "\n"}) {
    SCOPED_TRACE(eol.size());
    const std::string first = Record("warcinfo", "a: b" + eol + "c: d", eol);
    const std::string path = Write("r.warc", first + Record("metadata", "{\"x\":1}", eol));
    std::vector<WarcRecord> records;
    ASSERT_TRUE(ReadAll(path, &records).ok());
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0].version, "WARC/1.0");
    EXPECT_EQ(records[0].Field("warc-type"), "warcinfo");  // names are case-insensitive
    EXPECT_EQ(records[0].block, "a: b" + eol + "c: d");
    EXPECT_EQ(records[0].offset, 0u);
    EXPECT_EQ(records[1].Field("WARC-Type"), "metadata");
    EXPECT_EQ(records[1].block, "{\"x\":1}");
    EXPECT_EQ(records[1].offset, first.size());
    EXPECT_EQ(records[1].Field("No-Such-Field"), "");
    EXPECT_GE(records[1].block.capacity(), records[1].block.size() + kBlockPadding);
  }
}

TEST_F(WarcReaderTest, FoldedFieldsAndMissingTrailingBlankLines) {
  const std::string path =
      Write("f.warc", "WARC/1.0\r\nWARC-Type: x\r\nX-Long: one\r\n  two\r\nContent-Length: 3\r\n\r\nabc");
  std::vector<WarcRecord> records;
  ASSERT_TRUE(ReadAll(path, &records).ok());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].Field("X-Long"), "one two");
  EXPECT_EQ(records[0].block, "abc");
}

TEST_F(WarcReaderTest, GzipPerRecordAndWholeFileGiveTheSameRecords) {
  const std::string warc = testing::ReadFileBytes(testing::TestData("wat-18.warc"));
  const std::string members = dir_ + "/members.warc.gz", whole = dir_ + "/whole.warc.gz";
  testing::WriteGzipWarc(members, warc, /*per_record=*/true);
  testing::WriteGzipWarc(whole, warc, /*per_record=*/false);
  std::vector<WarcRecord> plain, a, b;
  ASSERT_TRUE(ReadAll(testing::TestData("wat-18.warc"), &plain).ok());
  ASSERT_TRUE(ReadAll(members, &a).ok());
  ASSERT_TRUE(ReadAll(whole, &b).ok());
  ASSERT_EQ(plain.size(), 18u);
  ASSERT_EQ(a.size(), 18u);
  ASSERT_EQ(b.size(), 18u);
  for (size_t i = 0; i < plain.size(); ++i) {
    EXPECT_EQ(a[i].fields, plain[i].fields);
    EXPECT_EQ(a[i].block, plain[i].block);
    EXPECT_EQ(b[i].block, plain[i].block);
    EXPECT_EQ(a[i].offset, plain[i].offset);
  }
}

//! The first error of reading the file at `path`.
Status ErrorOf(const std::string& path) {
  auto reader = WarcReader::Open(path);
  if (!reader.ok()) return reader.status();
  for (;;) {
    WarcRecord rec;
    auto got = (*reader)->Next(&rec);
    if (!got.ok()) return got.status();
    if (!*got) return Status::Ok();
  }
}

TEST_F(WarcReaderTest, CorruptHeadersNameFileAndOffset) {
  const std::string good = Record("warcinfo", "hello");
  const std::string off = std::to_string(good.size());
  struct Case {
    std::string second_record;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"HTTP/1.1 200 OK\r\n\r\n", ": offset " + off + ": not a WARC record"},
      {"WARC/1.0\r\nWARC-Type response\r\nContent-Length: 1\r\n\r\nx",
       ": offset " + std::to_string(good.size() + 10) + ": malformed WARC header line"},
      {"WARC/1.0\r\nWARC-Type: response\r\n\r\n", ": offset " + off + ": WARC record without a valid Content-Length"},
      {"WARC/1.0\r\nContent-Length: 12x\r\n\r\n", ": offset " + off + ": WARC record without a valid Content-Length"},
      {"WARC/1.0\r\nContent-Length: 100\r\n\r\nshort",
       ": offset " + off + ": truncated WARC record: the file ends after 5 of 100"},
      {"WARC/1.0\r\nWARC-Type: response\r\n",
       ": offset " + off + ": truncated WARC record: the file ends inside its header"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.second_record);
    const std::string path = Write("bad.warc", good + c.second_record);
    const Status st = ErrorOf(path);
    EXPECT_EQ(st.code(), Status::Code::kCorruption) << st.ToString();
    EXPECT_NE(st.message().find(path + c.message), std::string::npos) << st.message();
    // The same damage inside a gzip member: decompressed and compressed offsets are named.
    const std::string gz_path = dir_ + "/bad.warc.gz";
    testing::WriteFileBytes(gz_path, testing::GzipMember(good) + testing::GzipMember(c.second_record));
    const Status gz = ErrorOf(gz_path);
    EXPECT_EQ(gz.code(), Status::Code::kCorruption) << gz.ToString();
    EXPECT_NE(gz.message().find(gz_path + c.message.substr(0, c.message.find(':', 2))), std::string::npos)
        << gz.message();
    EXPECT_NE(gz.message().find("compressed offset"), std::string::npos) << gz.message();
  }
}

TEST_F(WarcReaderTest, OversizedBlocksAreSkippedNotHeld) {
  const std::string path = Write("big.warc", Record("resource", std::string(100000, 'z')) + Record("metadata", "{}"));
  std::vector<WarcRecord> records;
  WarcReaderOptions options;
  options.max_block_bytes = 1000;
  ASSERT_TRUE(ReadAll(path, &records, options).ok());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_TRUE(records[0].block_skipped);
  EXPECT_TRUE(records[0].block.empty());
  EXPECT_EQ(records[0].content_length, 100000u);
  EXPECT_FALSE(records[1].block_skipped);
  EXPECT_EQ(records[1].block, "{}");
}

TEST_F(WarcReaderTest, NotAWarcFile) {
  const Status st = ErrorOf(testing::TestData("5-pages.txt"));
  EXPECT_EQ(st.code(), Status::Code::kCorruption);
  EXPECT_NE(st.message().find("5-pages.txt: offset 0: not a WARC record"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace webindex::ingest
