// state/store.cc's memtable settings: families whose commits insert with hints (keys in order,
// from where the last insert ended) must read back exactly what was written. Three threads
// commit at once, so RocksDB sometimes groups commits (inserted concurrently, without hints)
// and sometimes writes one alone (with the memtable's hint, left by whatever came before):
// both kinds interleave on one memtable, in key order or not. Range deletions, which RocksDB's
// hints would corrupt, are refused outside the families opened for them. Keys that only scans
// read stay out of the memtables' Bloom filter without hiding from reads of either kind.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "pipeline_harness.h"
#include "state/store.h"

namespace webindex::state {
namespace {

class StoreMemtableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("store-memtable-test");
    StoreOptions options;
    options.write_buffer_bytes = 1 << 20;  // several memtables fill and flush during the test
    options.sync_commits = false;
    auto store = Store::Open(dir_ + "/db", options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::map<std::string, std::string> ReadAll(Family f) {
    std::map<std::string, std::string> out;
    auto it = store_->NewIterator(f);
    for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace(std::string(it->key()), std::string(it->value()));
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return out;
  }
  std::string dir_;
  std::unique_ptr<Store> store_;
};

//! One writer's commits: batches of puts and deletes over its own keys, in key order or not,
//! applied to `expected` as committed.
void Write(Store& store, Family f, const std::string& prefix, uint64_t seed, int batches,
           std::map<std::string, std::string>* expected) {
  std::mt19937_64 rng(seed);
  for (int b = 0; b < batches; ++b) {
    std::map<std::string, std::optional<std::string>> ops;
    const int n = 1 + static_cast<int>(rng() % 400);
    for (int i = 0; i < n; ++i) {
      char key[64];
      std::snprintf(key, sizeof key, "%s/%06llu/row", prefix.c_str(), static_cast<unsigned long long>(rng() % 20000));
      if (rng() % 5 == 0) {
        ops[key] = std::nullopt;
      } else {
        ops[key] = std::string(8 + rng() % 120, static_cast<char>('a' + rng() % 26));
      }
    }
    std::vector<std::pair<std::string, std::optional<std::string>>> order(ops.begin(), ops.end());
    if (rng() % 3 == 0) std::shuffle(order.begin(), order.end(), rng);  // most commits are sorted, some not
    WriteBatch wb(store);
    for (const auto& [k, v] : order) {
      if (v) {
        wb.Put(f, k, *v);
        (*expected)[k] = *v;
      } else {
        wb.Delete(f, k);
        expected->erase(k);
      }
    }
    ASSERT_TRUE(store.Write(wb).ok());
  }
}

TEST_F(StoreMemtableTest, CommitsInAndOutOfKeyOrderFromConcurrentWritersReadBackExactly) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::printf("StoreMemtableTest seed %llu\n", static_cast<unsigned long long>(seed));
  constexpr int kWriters = 3;
  std::vector<std::map<std::string, std::string>> expected(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    // Two writers share the table family (like the sink and the graph stage), one writes uris.
    const Family f = w < 2 ? Family::kTable : Family::kUris;
    writers.emplace_back(
        [&, w, f] { Write(*store_, f, "w" + std::to_string(w), seed + static_cast<uint64_t>(w), 300, &expected[w]); });
  }
  for (auto& t : writers) t.join();
  std::map<std::string, std::string> table = expected[0];
  table.insert(expected[1].begin(), expected[1].end());
  EXPECT_EQ(ReadAll(Family::kTable), table);
  EXPECT_EQ(ReadAll(Family::kUris), expected[2]);
  for (const auto& [k, v] : expected[2]) {
    auto got = store_->Get(Family::kUris, k);
    ASSERT_TRUE(got.ok() && got->has_value()) << k;
    EXPECT_EQ(**got, v);
  }
}

TEST_F(StoreMemtableTest, RangeDeletionsWorkInTheFamiliesOpenedForThem) {
  std::map<std::string, std::string> expected;
  Write(*store_, Family::kOutbox, "o", 7, 50, &expected);
  WriteBatch wb(*store_);
  wb.DeleteRange(Family::kOutbox, "o/005000", "o/015000");
  ASSERT_TRUE(store_->Write(wb).ok());
  for (auto it = expected.begin(); it != expected.end();) {
    it = it->first >= "o/005000" && it->first < "o/015000" ? expected.erase(it) : std::next(it);
  }
  std::map<std::string, std::string> more;
  Write(*store_, Family::kOutbox, "p", 8, 50, &more);  // inserts after the range deletion
  expected.insert(more.begin(), more.end());
  EXPECT_EQ(ReadAll(Family::kOutbox), expected);
}

TEST_F(StoreMemtableTest, ARangeDeletionInAFamilyThatInsertsWithHintsIsRefused) {
  // RocksDB's threads run: the child re-executes the test rather than forking them mid-flight.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        WriteBatch wb(*store_);
        wb.DeleteRange(Family::kTable, "a", "b");
      },
      "DeleteRange on family table");
}

//! Keys read only by scans (StoreOptions::scan_only) stay out of the memtables' Bloom filter,
//! the others are the only ones in it: point reads of both kinds, and seeks to keys present or
//! absent on either side, in memtables and in flushed files, find exactly what was written.
TEST_F(StoreMemtableTest, ScanOnlyKeysAndPointReadKeysReadBackExactlyByKeyAndByScan) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::printf("StoreMemtableTest seed %llu\n", static_cast<unsigned long long>(seed));
  store_.reset();
  StoreOptions options;
  options.write_buffer_bytes = 1 << 20;  // several memtables flush: reads meet files and memtables
  options.sync_commits = false;
  options.scan_only = {{Family::kTable, "m", "n"}};
  auto opened = Store::Open(dir_ + "/scan-only", options);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  store_ = std::move(opened).value();

  std::mt19937_64 rng(seed);
  std::map<std::string, std::string> expected;
  auto key_of = [](char first, uint64_t n) {
    char key[32];
    std::snprintf(key, sizeof key, "%c/%06llu", first, static_cast<unsigned long long>(n));
    return std::string(key);
  };
  for (int b = 0; b < 60; ++b) {
    std::map<std::string, std::optional<std::string>> ops;
    for (int i = 0; i < 500; ++i) {
      const char first = "lmn"[rng() % 3];  // m: scan-only; l and n: read by key
      const std::string key = key_of(first, (rng() % 10000) * 2);  // odd numbers are never written
      if (rng() % 6 == 0) {
        ops[key] = std::nullopt;
      } else {
        ops[key] = std::string(40 + rng() % 80, static_cast<char>('a' + rng() % 26));
      }
    }
    WriteBatch wb(*store_);
    for (const auto& [k, v] : ops) {
      if (v) {
        wb.Put(Family::kTable, k, *v);
        expected[k] = *v;
      } else {
        wb.Delete(Family::kTable, k);
        expected.erase(k);
      }
    }
    ASSERT_TRUE(store_->Write(wb).ok());
  }
  ASSERT_EQ(ReadAll(Family::kTable), expected);

  std::vector<std::string> keys;
  for (int i = 0; i < 3000; ++i) keys.push_back(key_of("lmn"[rng() % 3], rng() % 20000));
  std::vector<std::optional<std::string>> got;
  ASSERT_TRUE(store_->MultiGet(Family::kTable, keys, &got).ok());
  for (size_t i = 0; i < keys.size(); ++i) {
    auto want = expected.find(keys[i]);
    const std::optional<std::string> expect =
        want == expected.end() ? std::nullopt : std::optional<std::string>(want->second);
    EXPECT_EQ(got[i], expect) << keys[i];
    auto one = store_->Get(Family::kTable, keys[i]);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(*one, expect) << keys[i];
  }

  // Seeks to keys present and absent (odd numbers), then a few steps on.
  auto it = store_->NewIterator(Family::kTable);
  for (const std::string& target : keys) {
    it->Seek(target);
    auto want = expected.lower_bound(target);
    for (int step = 0; step < 3; ++step, ++want, it->Next()) {
      if (want == expected.end()) {
        EXPECT_FALSE(it->Valid()) << "seek " << target;
        break;
      }
      ASSERT_TRUE(it->Valid()) << "seek " << target << ": expected " << want->first;
      ASSERT_EQ(it->key(), want->first) << "seek " << target;
    }
  }
}

}  // namespace
}  // namespace webindex::state
