// ingest::ByteReader: plain, single- and multi-member gzip through fixed buffers, and the errors
// of bad input (file and offset named, never a crash).
#include "ingest/byte_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gzip_file.h"
#include "pipeline_harness.h"

namespace webindex::ingest {
namespace {

using testing::GzipMember;
using testing::WriteFileBytes;

class ByteReaderTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("byte-reader-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, std::string_view data) {
    const std::string path = dir_ + "/" + name;
    WriteFileBytes(path, data);
    return path;
  }
  std::string dir_;
};

std::unique_ptr<ByteReader> MustOpen(const std::string& path) {
  auto r = ByteReader::Open(path);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

//! All lines of the reader; fails the test on an error.
std::vector<std::string> AllLines(ByteReader* r) {
  std::vector<std::string> lines;
  for (;;) {
    std::string line;
    auto got = r->ReadLine(&line, 1 << 20);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok() || !*got) return lines;
    lines.push_back(std::move(line));
  }
}

//! ~1.3 MB of lines of varied length: several buffers' worth, lines straddling buffer ends.
std::string ManyLines(std::vector<std::string>* lines) {
  std::string data;
  for (int i = 0; i < 5000; ++i) {
    lines->push_back(std::string(static_cast<size_t>(i * 37 % 521), 'a' + i % 26) + std::to_string(i));
    data += lines->back() + (i % 3 == 0 ? "\r\n" : "\n");
  }
  return data;
}

//! Deterministic bytes that deflate barely shrinks, so that a gzip file spans many buffers.
std::string NoisyBytes(size_t n) {
  std::string s(n, '\0');
  uint64_t x = 88172645463325252ull;
  for (auto& c : s) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    c = static_cast<char>('!' + x % 90);
  }
  return s;
}

TEST_F(ByteReaderTest, PlainLinesWithCrLfAndLf) {
  auto r = MustOpen(Write("a.txt", "one\r\ntwo\n\nthree"));
  EXPECT_FALSE(r->gzip());
  EXPECT_EQ(AllLines(r.get()), (std::vector<std::string>{"one", "two", "", "three"}));
  EXPECT_EQ(r->offset(), 15u);
  EXPECT_EQ(r->compressed_offset(), 15u);
}

TEST_F(ByteReaderTest, PlainSingleAndMultiMemberGzipGiveTheSameLines) {
  std::vector<std::string> expected;
  const std::string data = ManyLines(&expected);
  ASSERT_GT(data.size(), 4 * ByteReader::kBufferSize);
  std::string members;  // odd-sized members: boundaries fall anywhere, also inside lines
  for (size_t pos = 0; pos < data.size(); pos += 70001) members += GzipMember(data.substr(pos, 70001));
  const std::vector<std::string> paths = {Write("plain", data), Write("one.gz", GzipMember(data)),
                                          Write("many.gz", members)};
  for (const auto& path : paths) {
    SCOPED_TRACE(path);
    auto r = MustOpen(path);
    EXPECT_EQ(r->gzip(), path.ends_with(".gz"));
    EXPECT_EQ(AllLines(r.get()), expected);
    EXPECT_EQ(r->offset(), data.size());
    EXPECT_EQ(r->compressed_offset(), std::filesystem::file_size(path));
  }
}

TEST_F(ByteReaderTest, ThousandsOfTinyMembers) {
  std::string data, members;
  for (int i = 0; i < 3000; ++i) {
    const std::string chunk = "record " + std::to_string(i) + "\n";
    data += chunk;
    members += GzipMember(chunk);
  }
  auto r = MustOpen(Write("tiny.gz", members));
  std::string all;
  auto n = r->Read(1 << 30, &all);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(all, data);
  EXPECT_TRUE(*r->AtEnd());
}

TEST_F(ByteReaderTest, ReadAndSkipCountBytes) {
  auto r = MustOpen(Write("x.gz", GzipMember("0123456789")));
  std::string out;
  EXPECT_EQ(*r->Read(3, &out), 3u);
  EXPECT_EQ(*r->Skip(4), 4u);
  EXPECT_EQ(*r->Read(10, &out), 3u);  // only 3 left
  EXPECT_EQ(out, "012789");
  EXPECT_TRUE(*r->AtEnd());
  EXPECT_EQ(r->offset(), 10u);
}

TEST_F(ByteReaderTest, EmptyFileIsAtEnd) {
  auto r = MustOpen(Write("empty", ""));
  EXPECT_TRUE(*r->AtEnd());
  std::string line;
  EXPECT_FALSE(*r->ReadLine(&line, 100));
}

TEST_F(ByteReaderTest, MissingFileIsIoError) {
  auto r = ByteReader::Open(dir_ + "/no-such-file");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kIoError);
  EXPECT_NE(r.status().message().find("no-such-file"), std::string::npos);
}

//! Reads to the end or the first error.
Status Drain(ByteReader* r) {
  std::string sink;
  for (;;) {
    sink.clear();
    auto n = r->Read(1 << 16, &sink);
    if (!n.ok()) return n.status();
    if (*n == 0) return Status::Ok();
  }
}

TEST_F(ByteReaderTest, TruncatedGzipNamesFileAndOffset) {
  const std::string gz = GzipMember(NoisyBytes(3 * ByteReader::kBufferSize));
  const std::string path = Write("cut.gz", gz.substr(0, gz.size() / 2));
  auto r = MustOpen(path);
  const Status st = Drain(r.get());
  ASSERT_EQ(st.code(), Status::Code::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find(path + ": offset "), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("compressed offset " + std::to_string(gz.size() / 2)), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("truncated gzip"), std::string::npos) << st.message();
  EXPECT_GT(r->offset(), 0u);  // what came before the cut was delivered
}

TEST_F(ByteReaderTest, GarbageAfterAMemberIsCorruption) {
  const std::string path = Write("tail.gz", GzipMember("hello\n") + "this is not gzip");
  auto r = MustOpen(path);
  const Status st = Drain(r.get());
  ASSERT_EQ(st.code(), Status::Code::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find(path + ": offset 6 "), std::string::npos) << st.message();
}

TEST_F(ByteReaderTest, DamagedDeflateDataIsCorruption) {
  std::string gz = GzipMember(NoisyBytes(100000));
  for (size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i) gz[i] = static_cast<char>(~gz[i]);
  auto r = MustOpen(Write("bad.gz", gz));
  EXPECT_EQ(Drain(r.get()).code(), Status::Code::kCorruption);
}

TEST_F(ByteReaderTest, OverlongLineIsCorruptionAtItsStart) {
  auto r = MustOpen(Write("long", "ok\n" + std::string(5000, 'x') + "\n"));
  std::string line;
  EXPECT_TRUE(*r->ReadLine(&line, 100));
  line.clear();
  auto got = r->ReadLine(&line, 100);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find(": offset 3: line longer than 100 bytes"), std::string::npos)
      << got.status().message();
}

}  // namespace
}  // namespace webindex::ingest
