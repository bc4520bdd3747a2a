// BulkLoad (state/bulk_load.h): a key-ordered stream into sorted files of a given size, ingested
// in one step. Fed from an ExternalSorter with each key's records folded (the newest wins), the
// store then holds exactly the rows of a map built from the same records.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "pipeline_harness.h"
#include "seeds.h"
#include "state/bulk_load.h"
#include "state/external_sort.h"
#include "state/store.h"

namespace webindex::state {
namespace {

class BulkLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("bulk-load-test");
    std::filesystem::create_directories(dir_ + "/sort");
    OpenEmpty();
  }
  void OpenEmpty() {
    store_.reset();
    std::filesystem::remove_all(dir_ + "/db");
    auto store = Store::Open(dir_ + "/db", StoreOptions());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::map<std::string, std::string> Rows(Family f, const Snapshot* snap = nullptr) {
    std::map<std::string, std::string> rows;
    auto it = store_->NewIterator(f, snap);
    for (it->SeekToFirst(); it->Valid(); it->Next()) rows.emplace(it->key(), it->value());
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return rows;
  }
  std::string dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(BulkLoadTest, SortedFoldedRecordsIngestedInManyFilesAreExactlyTheRowsOfTheModel) {
  for (const uint64_t seed : testing::RandomTestSeeds({7})) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::cout << "bulk load, seed " << seed << std::endl;
    std::mt19937_64 rng(seed);
    OpenEmpty();
    ExternalSortOptions options;
    options.budget_bytes = 256 << 10;  // a few runs
    options.temp_dir = dir_ + "/sort";
    ExternalSorter sorter(options);
    std::map<std::string, std::string> model;  // the newest value of each key
    for (int i = 0; i < 40000; ++i) {
      std::string key = "k" + std::to_string(rng() % 20000);
      if (rng() % 50 == 0) key.append(std::string("\0\xff", 2));
      const std::string value = std::to_string(i) + std::string(rng() % 40, 'v');
      model[key] = value;
      ASSERT_TRUE(sorter.Add(key, value).ok());
    }
    auto sorted = sorter.Finish();
    ASSERT_TRUE(sorted.ok()) << sorted.status().ToString();
    ASSERT_GT(sorter.stats().runs, 1u);

    BulkLoad load(*store_, Family::kTable, 64 << 10);  // files of 64 KiB: several
    SortedRecords& records = **sorted;
    while (records.Valid()) {
      const std::string key(records.key());
      std::string value(records.value());
      for (records.Next(); records.Valid() && records.key() == key; records.Next()) value.assign(records.value());
      ASSERT_TRUE(load.Put(key, value).ok());
    }
    ASSERT_TRUE(records.status().ok()) << records.status().ToString();
    EXPECT_EQ(load.rows(), model.size());
    EXPECT_GT(load.files(), 3u);
    auto before = store_->GetSnapshot();
    ASSERT_TRUE(load.Ingest().ok());
    EXPECT_TRUE(Rows(Family::kTable, before.get()).empty());
    EXPECT_EQ(Rows(Family::kTable), model);
    before.reset();
    ASSERT_TRUE(store_->VerifyChecksums().ok());
    EXPECT_FALSE(load.Put("zzz", "late").ok());  // the load ended with its ingest
  }
}

TEST_F(BulkLoadTest, KeysOutOfOrderAreRefusedAcrossFilesToo) {
  BulkLoad load(*store_, Family::kTable, 1);  // a file per row
  ASSERT_TRUE(load.Put("b", "1").ok());
  EXPECT_EQ(load.files(), 1u);
  EXPECT_FALSE(load.Put("a", "2").ok());  // the first key of the next file
  EXPECT_FALSE(load.Put("b", "2").ok());
  ASSERT_TRUE(load.Put("c", "3").ok());
  EXPECT_EQ(load.files(), 2u);
}

TEST_F(BulkLoadTest, TwoFamiliesLoadedTogetherAppearTogether) {
  BulkLoad table(*store_, Family::kTable, 4 << 10);
  BulkLoad meta(*store_, Family::kMeta, 4 << 10);
  for (int i = 10000; i < 12000; ++i) {
    ASSERT_TRUE(table.Put("t" + std::to_string(i), std::string(30, 't')).ok());
    ASSERT_TRUE(meta.Put("m" + std::to_string(i), "m").ok());
  }
  auto files = table.TakeFiles();
  for (auto& f : meta.TakeFiles()) files.push_back(std::move(f));
  ASSERT_GT(files.size(), 2u);
  auto before = store_->GetSnapshot();
  ASSERT_TRUE(store_->Ingest(std::move(files)).ok());
  EXPECT_EQ(Rows(Family::kTable).size(), 2000u);
  EXPECT_EQ(Rows(Family::kMeta).size(), 2000u);
  EXPECT_TRUE(Rows(Family::kTable, before.get()).empty());
  EXPECT_TRUE(Rows(Family::kMeta, before.get()).empty());
}

TEST_F(BulkLoadTest, FilesNotIngestedAreRemoved) {
  {
    BulkLoad load(*store_, Family::kTable, 1);
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(load.Put("k" + std::to_string(i), "v").ok());
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_ + "/db/ingest"), {}), 5);
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir_ + "/db/ingest"));
}

}  // namespace
}  // namespace webindex::state
