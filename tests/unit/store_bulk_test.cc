// state/store.h's bulk paths: sorted files added to a family in one step (what PageRank's
// results use), split keys for reading a range on several threads, bounded bulk scans.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "pipeline_harness.h"
#include "state/store.h"

namespace webindex::state {
namespace {

class StoreBulkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("store-bulk-test");
    Reopen();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Reopen() {
    store_.reset();
    StoreOptions options;
    options.auto_compactions = false;  // the files the test's flushes make stay as they are
    auto store = Store::Open(dir_ + "/db", options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  //! Every key of `f` in [begin, end) ("" = no end), read with `scan`.
  std::vector<std::string> Keys(Family f, const std::string& begin, ScanOptions scan = {},
                                const Snapshot* snap = nullptr) {
    std::vector<std::string> keys;
    auto it = store_->NewIterator(f, snap, scan);
    for (it->Seek(begin); it->Valid(); it->Next()) keys.emplace_back(it->key());
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return keys;
  }
  static std::string Key(int i) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "k%06d", i);
    return buf;
  }
  std::string dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(StoreBulkTest, AnIngestedFileIsSeenWholeAfterAndNotAtAllBefore) {
  WriteBatch wb(*store_);
  wb.Put(Family::kMeta, Key(5), "old");  // replaced by the file
  wb.Put(Family::kMeta, "other", "kept");
  ASSERT_TRUE(store_->Write(wb).ok());
  auto before = store_->GetSnapshot();
  auto file = store_->NewSortedFile(Family::kMeta);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE((*file)->Put(Key(i), "v" + std::to_string(i)).ok());
  EXPECT_EQ((*file)->count(), 1000u);
  EXPECT_EQ(Keys(Family::kMeta, "k").size(), 2u);  // nothing of the file before Ingest
  ASSERT_TRUE(store_->Ingest(std::move(file).value()).ok());
  EXPECT_EQ(Keys(Family::kMeta, "k").size(), 1001u);  // 1000 k-keys and "other"
  EXPECT_EQ(*store_->Get(Family::kMeta, Key(5)).value(), "v5");
  EXPECT_EQ(*store_->Get(Family::kMeta, "other").value(), "kept");
  EXPECT_EQ(Keys(Family::kMeta, "k", {}, before.get()).size(), 2u);  // the snapshot before: none
  EXPECT_EQ(*store_->Get(Family::kMeta, Key(5), before.get()).value(), "old");
  // Other families see nothing; the data survives a reopen; no file is left in ingest/.
  EXPECT_TRUE(Keys(Family::kTable, "").empty());
  before.reset();
  Reopen();
  EXPECT_EQ(Keys(Family::kMeta, "k").size(), 1001u);
  EXPECT_TRUE(!std::filesystem::exists(dir_ + "/db/ingest") || std::filesystem::is_empty(dir_ + "/db/ingest"));
}

TEST_F(StoreBulkTest, FilesOfSeveralFamiliesAreIngestedInOneStep) {
  std::vector<std::unique_ptr<SortedFile>> files;
  for (const Family f : {Family::kMeta, Family::kMeta, Family::kTable}) {
    auto file = store_->NewSortedFile(f);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    const int first = files.size() == 1 ? 1000 : 0;  // the two kMeta files hold disjoint ranges
    for (int i = first; i < first + 500; ++i) ASSERT_TRUE((*file)->Put(Key(i), "v").ok());
    files.push_back(std::move(file).value());
  }
  auto before = store_->GetSnapshot();
  ASSERT_TRUE(store_->Ingest(std::move(files)).ok());
  EXPECT_EQ(Keys(Family::kMeta, "").size(), 1000u);
  EXPECT_EQ(Keys(Family::kTable, "").size(), 500u);
  EXPECT_TRUE(Keys(Family::kMeta, "", {}, before.get()).empty());
  EXPECT_TRUE(Keys(Family::kTable, "", {}, before.get()).empty());
  EXPECT_TRUE(std::filesystem::is_empty(dir_ + "/db/ingest"));
}

TEST_F(StoreBulkTest, WhenOneFileCannotBeIngestedNoneIs) {
  std::vector<std::unique_ptr<SortedFile>> files;
  for (const Family f : {Family::kMeta, Family::kTable}) {
    auto file = store_->NewSortedFile(f);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    for (int i = 0; i < 100; ++i) ASSERT_TRUE((*file)->Put(Key(i), "v").ok());
    files.push_back(std::move(file).value());
  }
  // The table's file (the second one made) disappears before the ingest.
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(dir_ + "/db/ingest")) paths.push_back(e.path().string());
  ASSERT_EQ(paths.size(), 2u);
  std::sort(paths.begin(), paths.end(), [](const std::string& a, const std::string& b) {
    return std::stoull(a.substr(a.rfind('-') + 1)) < std::stoull(b.substr(b.rfind('-') + 1));
  });
  std::filesystem::remove(paths[1]);
  EXPECT_FALSE(store_->Ingest(std::move(files)).ok());
  EXPECT_TRUE(Keys(Family::kMeta, "").empty());
  EXPECT_TRUE(Keys(Family::kTable, "").empty());
  EXPECT_TRUE(std::filesystem::is_empty(dir_ + "/db/ingest"));
}

TEST_F(StoreBulkTest, KeysOutOfOrderAreRefusedAndAnUnusedFileLeavesNothing) {
  {
    auto file = store_->NewSortedFile(Family::kMeta);
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->Put("b", "1").ok());
    EXPECT_FALSE((*file)->Put("a", "2").ok());
    EXPECT_FALSE((*file)->Put("b", "3").ok());  // not strictly greater
  }  // dropped without Ingest
  EXPECT_TRUE(std::filesystem::is_empty(dir_ + "/db/ingest"));
  auto empty = store_->NewSortedFile(Family::kMeta);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(store_->Ingest(std::move(empty).value()).ok());
  EXPECT_TRUE(Keys(Family::kMeta, "").empty());
  EXPECT_TRUE(std::filesystem::is_empty(dir_ + "/db/ingest"));
}

TEST_F(StoreBulkTest, FilesLeftByAStoppedProcessAreRemovedOnOpen) {
  std::filesystem::create_directories(dir_ + "/db/ingest");
  { std::ofstream(dir_ + "/db/ingest/123-0.sst") << "half written"; }
  Reopen();
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/db/ingest/123-0.sst"));
}

TEST_F(StoreBulkTest, SplitKeysCutARangeIntoPartsThatTogetherReadEveryKeyOnce) {
  // 4,000 keys of 100-byte values in eight files; then the same keys in one file that spans
  // them all (as a memtable flushed in one piece leaves it).
  for (int layout = 0; layout < 2; ++layout) {
    Reopen();
    for (int f = 0; f < 8; ++f) {
      WriteBatch wb(*store_);
      for (int i = f * 500; i < (f + 1) * 500; ++i) {
        const int key = layout == 0 ? i : (i % 8) * 500 + i / 8;  // layout 1: every batch spans the range
        wb.Put(Family::kTable, Key(key), std::string(100, 'x'));
      }
      ASSERT_TRUE(store_->Write(wb).ok());
      if (layout == 0) {
        ASSERT_TRUE(store_->Flush().ok());
      }
    }
    ASSERT_TRUE(store_->Flush().ok());
    WriteBatch outside(*store_);
    outside.Put(Family::kTable, "a-before", "x");
    outside.Put(Family::kTable, "z-after", "x");
    ASSERT_TRUE(store_->Write(outside).ok());
    for (int parts : {1, 2, 3, 4, 16}) {
      const auto cuts = store_->SplitKeys(Family::kTable, "k", "l", parts);
      ASSERT_EQ(cuts.size(), static_cast<size_t>(parts - 1)) << layout << "/" << parts;
      std::vector<std::string> bounds = {"k"};
      for (const auto& cut : cuts) {
        EXPECT_GT(cut, bounds.back()) << parts;  // ascending, inside the range
        EXPECT_LT(cut, "l") << parts;
        bounds.push_back(cut);
      }
      bounds.push_back("l");
      std::vector<std::string> all;
      for (size_t i = 0; i + 1 < bounds.size(); ++i) {
        ScanOptions scan;
        scan.bulk = true;
        scan.upper_bound = bounds[i + 1];
        const auto keys = Keys(Family::kTable, bounds[i], scan);
        // About equal parts: 4000 / parts keys each, within a few blocks.
        EXPECT_NEAR(static_cast<double>(keys.size()), 4000.0 / parts, 4000.0 / parts * 0.25 + 80)
            << "layout " << layout << ", part " << i << " of " << parts;
        all.insert(all.end(), keys.begin(), keys.end());
      }
      ASSERT_EQ(all.size(), 4000u) << parts;
      for (int i = 0; i < 4000; ++i) ASSERT_EQ(all[i], Key(i)) << parts;
    }
    EXPECT_TRUE(store_->SplitKeys(Family::kMeta, "k", "l", 4).empty());  // nothing on disk there
    store_.reset();
    std::filesystem::remove_all(dir_ + "/db");
  }
}

// A read-only open reads a view of hard links to the database's files (<db>/views/<name>), so
// that a writer's compactions cannot delete files under it; the view goes with the store. A
// reader holds a lock on its view: views whose lock is free belong to readers that died (kill
// -9), and are removed by the next open and by the writer; those of live readers stay.
TEST_F(StoreBulkTest, ReadOnlyViewsLinkTheFilesAndLeaveNothingBehind) {
  namespace fs = std::filesystem;
  WriteBatch wb(*store_);
  for (int i = 0; i < 100; ++i) wb.Put(Family::kTable, Key(i), "value");
  ASSERT_TRUE(store_->Write(wb).ok());
  ASSERT_TRUE(store_->Flush().ok());
  const fs::path views = fs::path(dir_) / "db" / "views";
  const fs::path dead = views / "1.0.dead";    // its lock file is free: its reader is gone
  const fs::path alive = views / "1.0.alive";  // locked, as by a reader in another pid namespace
  auto make_view = [](const fs::path& view) {
    fs::create_directories(view);
    std::ofstream(view / "000001.sst") << "a link that pins a file the writer deleted";
    return ::open((view / "reader.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  };
  ::close(make_view(dead));
  const int alive_lock = make_view(alive);
  ASSERT_GE(alive_lock, 0);
  ASSERT_EQ(::flock(alive_lock, LOCK_EX | LOCK_NB), 0);
  StoreOptions read_only;
  read_only.read_only = true;
  {
    auto view = Store::Open(dir_ + "/db", read_only);
    ASSERT_TRUE(view.ok()) << view.status().ToString();
    EXPECT_FALSE(fs::exists(dead));
    EXPECT_TRUE(fs::exists(alive));
    std::vector<fs::path> own;
    for (const auto& entry : fs::directory_iterator(views)) {
      if (entry.path() != alive) own.push_back(entry.path());
    }
    ASSERT_EQ(own.size(), 1u);
    EXPECT_TRUE(own[0].filename().string().starts_with(std::to_string(::getpid()) + "."));
    EXPECT_TRUE(fs::exists(own[0] / "CURRENT"));
    // Its lock is taken: a writer's cleaning leaves it alone.
    store_->RemoveStaleViews();
    EXPECT_TRUE(fs::exists(own[0]));
    size_t keys = 0;
    auto it = (*view)->NewIterator(Family::kTable);
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++keys;
    EXPECT_EQ(keys, 100u);
  }
  std::vector<fs::path> left;
  for (const auto& entry : fs::directory_iterator(views)) left.push_back(entry.path());
  EXPECT_EQ(left, std::vector<fs::path>{alive});
  // A running writer removes dead readers' views; a live reader's stays until its lock is free.
  ::close(make_view(dead));
  store_->RemoveStaleViews();
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(alive));
  ::close(alive_lock);
  store_->RemoveStaleViews();
  EXPECT_FALSE(fs::exists(alive));
  // An open that fails leaves no view behind.
  store_.reset();
  std::ofstream(fs::path(dir_) / "db" / "CURRENT", std::ios::trunc) << "MANIFEST-999999\n";
  auto broken = Store::Open(dir_ + "/db", read_only);
  EXPECT_FALSE(broken.ok());
  EXPECT_TRUE(fs::is_empty(views));
}

// `webindex query` and `pagerank --data-dir` open a data dir read-only while `webindex run`
// writes it; the writer's compactions delete files under the reader. Every open and every full
// read must succeed and see a consistent count.
TEST_F(StoreBulkTest, ReadOnlyViewsOpenAndReadWhileAWriterFlushesAndCompacts) {
  store_.reset();
  auto writable = Store::Open(dir_ + "/db", {});  // compactions on
  ASSERT_TRUE(writable.ok()) << writable.status().ToString();
  store_ = std::move(writable).value();
  std::atomic<bool> stop{false};
  std::atomic<int> flushes{0};
  std::thread writer([&] {
    for (int round = 0; !stop && round < 2000; ++round) {
      WriteBatch wb(*store_);
      for (int i = 0; i < 200; ++i) wb.Put(Family::kTable, Key((round * 7919 + i * 104729) % 1000000), "value");
      ASSERT_TRUE(store_->Write(wb).ok());
      ASSERT_TRUE(store_->Flush().ok());  // many small files: compactions keep deleting them
      ++flushes;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  StoreOptions read_only;
  read_only.read_only = true;
  int opened = 0;
  for (int i = 0; i < 60 && !HasFatalFailure(); ++i) {
    auto view = Store::Open(dir_ + "/db", read_only);
    ASSERT_TRUE(view.ok()) << "open " << i << ": " << view.status().ToString();
    auto it = (*view)->NewIterator(Family::kTable);
    size_t keys = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++keys;
    ASSERT_TRUE(it->status().ok()) << "read " << i << ": " << it->status().ToString();
    ++opened;
  }
  stop = true;
  writer.join();
  EXPECT_EQ(opened, 60);
  EXPECT_GT(flushes.load(), 10);
}

}  // namespace
}  // namespace webindex::state
