// ExternalSorter (state/external_sort.h) and its run files (state/run_file.h): the order of a
// stable sort by key whatever the budget, a buffer that stays within its budget, damaged or cut
// run files refused as Corruption, and no file left behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "pipeline_harness.h"
#include "seeds.h"
#include "state/external_sort.h"
#include "state/run_file.h"

namespace webindex::state {
namespace {

namespace fs = std::filesystem;
using Record = std::pair<std::string, std::string>;

class ExternalSortTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("external-sort-test"); }
  void TearDown() override { fs::remove_all(dir_); }

  ExternalSortOptions Options(size_t budget, size_t fan_in = 128) const {
    ExternalSortOptions o;
    o.budget_bytes = budget;
    o.temp_dir = dir_;
    o.max_fan_in = fan_in;
    return o;
  }
  std::vector<std::string> Files() const {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(dir_)) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
  }
  //! Reads every record; the reader's status is left in `*status`.
  static std::vector<Record> ReadAll(SortedRecords& reader, Status* status) {
    std::vector<Record> out;
    for (; reader.Valid(); reader.Next()) out.emplace_back(reader.key(), reader.value());
    *status = reader.status();
    return out;
  }
  //! A sort of `n` records of 20-byte keys and 100-byte values, not finished.
  std::unique_ptr<ExternalSorter> Filled(size_t n, size_t budget) {
    auto sorter = std::make_unique<ExternalSorter>(Options(budget));
    for (size_t i = 0; i < n; ++i) {
      const std::string key = std::to_string((i * 7919) % n);
      EXPECT_TRUE(sorter->Add(key + std::string(20 - key.size(), 'k'), std::string(100, 'v')).ok());
    }
    return sorter;
  }
  std::string dir_;
};

//! Keys of few bytes from an alphabet with \0, \x80 and \xff (compared unsigned), so that keys
//! repeat and some are prefixes of others; values mostly carry their index, some are empty, and
//! a few are larger than the tiniest budgets.
Record RandomRecord(std::mt19937_64& rng, size_t index) {
  static const std::string kAlphabet("a\0b\xff\x80z", 6);
  std::string key;
  for (size_t i = 0, n = rng() % 5; i < n; ++i) key.push_back(kAlphabet[rng() % kAlphabet.size()]);
  const uint64_t kind = rng() % 10;
  if (kind == 0) return {std::move(key), ""};
  if (kind == 1) return {std::move(key), std::string(300 + rng() % 300, static_cast<char>(rng()))};
  return {std::move(key), std::to_string(index) + std::string(rng() % 8, '\0')};
}

TEST_F(ExternalSortTest, RandomRecordsComeOutAsAStableSortByKeyWhateverTheBudget) {
  struct Case {
    size_t budget, fan_in;
  };
  // 64 bytes: a run or two per record, and runs of their own for records above it; fan-in 3:
  // merge passes over consecutive runs before the last merge.
  const std::vector<Case> cases = {{64, 128}, {64, 3}, {300, 2}, {4096, 128}, {4096, 4}, {1 << 20, 128}};
  for (const uint64_t seed : testing::RandomTestSeeds({1, 2, 3})) {
    std::cout << "external sort, seed " << seed << std::endl;
    for (const Case& c : cases) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", budget " + std::to_string(c.budget) + ", fan-in " +
                   std::to_string(c.fan_in));
      std::mt19937_64 rng(seed);
      std::vector<Record> records;
      ExternalSorter sorter(Options(c.budget, c.fan_in));
      uint64_t bytes = 0;
      for (size_t i = 0, n = 300 + rng() % 700; i < n; ++i) {
        records.push_back(RandomRecord(rng, i));
        bytes += records.back().first.size() + records.back().second.size();
        ASSERT_TRUE(sorter.Add(records.back().first, records.back().second).ok());
      }
      auto reader = sorter.Finish();
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      std::stable_sort(records.begin(), records.end(),
                       [](const Record& a, const Record& b) { return a.first < b.first; });
      Status status;
      const std::vector<Record> sorted = ReadAll(**reader, &status);
      ASSERT_TRUE(status.ok()) << status.ToString();
      ASSERT_EQ(sorted.size(), records.size());
      for (size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], records[i]) << "record " << i;
      const ExternalSortStats& stats = (*reader)->stats();
      EXPECT_EQ(stats.records, records.size());
      EXPECT_EQ(stats.bytes, bytes);
      EXPECT_LE(stats.peak_buffered_bytes, c.budget);
      if (c.budget >= 1 << 20) {
        EXPECT_EQ(stats.runs, 0u);  // all in memory
      } else if (c.fan_in < 128 || c.budget == 64) {
        EXPECT_GT(stats.runs, c.fan_in);  // more runs than a merge reads: merge passes
        EXPECT_GT(stats.merged_runs, 0u);
      } else {
        EXPECT_GT(stats.runs, 1u);
      }
    }
  }
}

TEST_F(ExternalSortTest, TheBufferStaysWithinItsBudgetAndSpillsWhenTheNextRecordWouldNotFit) {
  // Records of 20 + 100 bytes and 16 of overhead: 136 bytes each, 7 fit in 1,000 bytes.
  auto sorter = Filled(100, 1000);
  EXPECT_EQ(sorter->stats().peak_buffered_bytes, 7u * 136);
  EXPECT_EQ(sorter->stats().runs, 14u);  // 98 records spilled, 2 still in memory
  EXPECT_EQ(Files().size(), 14u);
  // A record larger than the whole budget: the buffer is spilled first, then the record alone.
  ASSERT_TRUE(sorter->Add("big", std::string(5000, 'b')).ok());
  EXPECT_EQ(sorter->stats().runs, 16u);
  EXPECT_LE(sorter->stats().peak_buffered_bytes, 1000u);
  auto reader = sorter->Finish();
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  Status status;
  EXPECT_EQ(ReadAll(**reader, &status).size(), 101u);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST_F(ExternalSortTest, StatsCountTheDiskTheRunsTake) {
  auto sorter = Filled(1000, 4096);
  uint64_t on_disk = 0;
  for (const auto& f : Files()) on_disk += fs::file_size(f);
  const ExternalSortStats& stats = sorter->stats();
  EXPECT_EQ(stats.records, 1000u);
  EXPECT_EQ(stats.bytes, 120'000u);
  EXPECT_EQ(stats.disk_bytes, on_disk);
  EXPECT_EQ(stats.spilled_bytes, on_disk);
  EXPECT_EQ(stats.peak_disk_bytes, on_disk);
}

TEST_F(ExternalSortTest, FilesAreRemovedWhenTheSorterOrTheReaderIsDropped) {
  Filled(1000, 4096).reset();  // never finished
  EXPECT_TRUE(Files().empty());
  auto sorter = Filled(1000, 4096);
  ASSERT_GT(Files().size(), 1u);
  auto reader = sorter->Finish();
  ASSERT_TRUE(reader.ok());
  sorter.reset();
  EXPECT_GT(Files().size(), 1u);  // the reader owns them now
  reader->reset();
  EXPECT_TRUE(Files().empty());
  // Merge passes remove their inputs as they go.
  ExternalSorter passes(Options(300, 2));
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(passes.Add(std::to_string(i % 37), "value").ok());
  auto merged = passes.Finish();
  ASSERT_TRUE(merged.ok());
  EXPECT_GT(passes.stats().merged_runs, 0u);
  EXPECT_LE(Files().size(), 2u);
  uint64_t on_disk = 0;
  for (const auto& f : Files()) on_disk += fs::file_size(f);
  EXPECT_EQ(passes.stats().disk_bytes, on_disk);
  merged->reset();
  EXPECT_TRUE(Files().empty());
}

TEST_F(ExternalSortTest, ASortIsFinishedOnce) {
  ExternalSorter sorter(Options(4096));
  ASSERT_TRUE(sorter.Add("a", "1").ok());
  auto reader = sorter.Finish();
  ASSERT_TRUE(reader.ok());
  EXPECT_FALSE(sorter.Add("b", "2").ok());
  EXPECT_FALSE(sorter.Finish().ok());
  ExternalSorter empty(Options(4096));
  auto none = empty.Finish();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE((*none)->Valid());
  EXPECT_TRUE((*none)->status().ok());
}

// Empty keys and values as default views (no pointer at all), buffered and spilled: what a
// caller adds as `{}` (the bulk crawl build's domain keys). UBSan flagged memcpy from null.
TEST_F(ExternalSortTest, EmptyViewsWithoutAPointerAreRecords) {
  for (const size_t budget : {size_t{4096}, size_t{64}}) {
    ExternalSorter sorter(Options(budget));
    for (int i = 0; i < 20; ++i) {
      ASSERT_TRUE(sorter.Add(std::string_view(), std::string_view()).ok());
      ASSERT_TRUE(sorter.Add("k", std::string_view()).ok());
    }
    auto reader = sorter.Finish();
    ASSERT_TRUE(reader.ok());
    int empty = 0, k = 0;
    for (; (*reader)->Valid(); (*reader)->Next()) {
      EXPECT_TRUE((*reader)->value().empty());
      ((*reader)->key().empty() ? empty : k) += 1;
    }
    EXPECT_TRUE((*reader)->status().ok());
    EXPECT_EQ(empty, 20) << budget;
    EXPECT_EQ(k, 20) << budget;
  }
}

//! Overwrites the byte at `offset` of `path` (counted from the end when negative).
void FlipByte(const std::string& path, std::streamoff offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(offset, offset < 0 ? std::ios::end : std::ios::beg);
  const std::streampos at = f.tellg();
  const char c = static_cast<char>(f.get() ^ 0x20);
  f.seekp(at);
  f.put(c);
}

TEST_F(ExternalSortTest, ADamagedByteOfARunEndsTheRecordsWithCorruption) {
  // Runs of about 230 KB: four blocks each; a byte of the third block of the second run.
  auto sorter = Filled(5000, 256 << 10);
  const std::vector<std::string> runs = Files();
  ASSERT_EQ(runs.size(), 2u);
  FlipByte(runs[1], 150'000);
  auto reader = sorter->Finish();
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();  // footers and first blocks are whole
  Status status;
  const size_t read = ReadAll(**reader, &status).size();
  EXPECT_EQ(status.code(), Status::Code::kCorruption) << status.ToString();
  EXPECT_NE(status.message().find("checksum"), std::string::npos) << status.ToString();
  EXPECT_GT(read, 1000u);
  EXPECT_LT(read, 5000u);
}

TEST_F(ExternalSortTest, ACutOrDamagedFooterIsRefusedAtFinish) {
  for (const bool cut : {true, false}) {
    SCOPED_TRACE(cut ? "cut" : "damaged footer");
    auto sorter = Filled(2000, 64 << 10);
    const std::vector<std::string> runs = Files();
    ASSERT_GE(runs.size(), 2u);
    if (cut) {
      fs::resize_file(runs[0], fs::file_size(runs[0]) - 100);
    } else {
      FlipByte(runs[0], -20);  // the footer's record count
    }
    auto reader = sorter->Finish();
    ASSERT_FALSE(reader.ok());
    EXPECT_EQ(reader.status().code(), Status::Code::kCorruption) << reader.status().ToString();
    EXPECT_NE(reader.status().message().find(runs[0]), std::string::npos) << reader.status().ToString();
    sorter.reset();
    EXPECT_TRUE(Files().empty());
  }
}

TEST_F(ExternalSortTest, ARunMissingABlockIsRefusedAtItsEndNotReadAsFewerRecords) {
  const std::string path = dir_ + "/run";
  auto writer = RunWriter::Create(path);
  ASSERT_TRUE(writer.ok());
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE((*writer)->Add(std::to_string(100000 + i), std::string(50, 'v')).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  // Cut the first block out; the footer stays as it was.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const uint32_t first = static_cast<uint8_t>(bytes[0]) | static_cast<uint8_t>(bytes[1]) << 8 |
                         static_cast<uint8_t>(bytes[2]) << 16 |
                         static_cast<uint32_t>(static_cast<uint8_t>(bytes[3])) << 24;
  ASSERT_LT(kRunBlockHeaderBytes + first, bytes.size() - kRunFooterBytes);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(kRunBlockHeaderBytes + first);
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->records(), 3000u);
  size_t read = 0;
  while ((*reader)->Next()) ++read;
  EXPECT_GT(read, 0u);
  EXPECT_LT(read, 3000u);
  EXPECT_EQ((*reader)->status().code(), Status::Code::kCorruption) << (*reader)->status().ToString();
}

TEST_F(ExternalSortTest, ARunFileRoundTripsEmptyKeysValuesAndRecordsLargerThanABlock) {
  const std::string path = dir_ + "/run";
  const std::vector<Record> records = {
      {"", ""}, {"", "v"}, {std::string("\0", 1), ""}, {"k", std::string(3 * kRunBlockBytes, 'x')}, {"\xff", "last"}};
  auto writer = RunWriter::Create(path);
  ASSERT_TRUE(writer.ok());
  for (const auto& [k, v] : records) ASSERT_TRUE((*writer)->Add(k, v).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  EXPECT_EQ((*writer)->file_bytes(), fs::file_size(path));
  EXPECT_FALSE(RunWriter::Create(path).ok());  // never over an existing file
  auto reader = RunReader::Open(path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<Record> read;
  while ((*reader)->Next()) read.emplace_back((*reader)->key(), (*reader)->value());
  EXPECT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
  EXPECT_EQ(read, records);
}

TEST(RunChecksumTest, Crc32cGivesTheStandardValues) {
  // RFC 3720, B.4, and the common check value.
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  EXPECT_EQ(Crc32c(ascending), 0x46DD794Eu);
  EXPECT_EQ(Crc32c(descending), 0x113FDB5Cu);
  for (size_t cut = 0; cut <= ascending.size(); ++cut) {  // two parts are one
    EXPECT_EQ(Crc32c(std::string_view(ascending).substr(0, cut), std::string_view(ascending).substr(cut)), 0x46DD794Eu);
  }
}

}  // namespace
}  // namespace webindex::state
