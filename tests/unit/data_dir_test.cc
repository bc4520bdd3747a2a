// state::DataDir and FileLock: the generation layout of a data dir, the atomic switch, the
// removal of old generations, and the locks that keep a replay and a run apart. Also the
// replay's roll-back of unfinished generations (app::Replay --abort), which needs no broker.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "app/replay.h"
#include "pipeline_harness.h"
#include "state/data_dir.h"

namespace webindex::state {
namespace {
namespace fs = std::filesystem;

class DataDirTest : public ::testing::Test {
 protected:
  void SetUp() override { root_ = testing::MakeTempDir("webindex-datadir"); }
  void TearDown() override { fs::remove_all(root_); }
  std::string root_;
};

TEST_F(DataDirTest, NewDirStartsAtGenerationOne) {
  const std::string path = root_ + "/new/data";
  EXPECT_EQ(DataDir::Open(path, /*create=*/false).status().code(), Status::Code::kNotFound);
  auto dir = DataDir::Open(path, /*create=*/true);
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  EXPECT_EQ(dir->Current().value(), 1u);
  EXPECT_EQ(dir->PathOf(1), path + "/gen-1");
  EXPECT_EQ(dir->List().value(), std::vector<uint64_t>{1});  // empty until a store opens it
  EXPECT_TRUE(fs::is_empty(dir->PathOf(1)));
  auto store = OpenCurrent(path, {});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(dir->List().value(), std::vector<uint64_t>{1});
  // Opening again keeps the generation.
  EXPECT_EQ(DataDir::Open(path, true).value().Current().value(), 1u);
}

TEST_F(DataDirTest, SwitchAndRemoveOlder) {
  auto dir = DataDir::Open(root_, true).value();
  for (uint64_t g : {1, 2, 3}) fs::create_directories(dir.PathOf(g));
  fs::create_directories(root_ + "/gen-x");  // not a generation
  EXPECT_EQ(dir.List().value(), (std::vector<uint64_t>{1, 2, 3}));
  ASSERT_TRUE(dir.SetCurrent(2).ok());
  EXPECT_EQ(dir.Current().value(), 2u);
  EXPECT_FALSE(fs::exists(root_ + "/GENERATION.tmp"));
  EXPECT_EQ(dir.Remove(2).code(), Status::Code::kInvalidArgument);  // never the current one
  EXPECT_EQ(dir.RemoveOlder().value(), 1);
  EXPECT_EQ(dir.List().value(), (std::vector<uint64_t>{2, 3}));  // 3 is a replay in progress
  EXPECT_EQ(dir.RemoveOlder().value(), 0);
}

TEST_F(DataDirTest, RejectsUnreadableAndOldLayouts) {
  {
    std::ofstream(root_ + "/GENERATION") << "two\n";
  }
  EXPECT_EQ(DataDir::Open(root_, true).status().code(), Status::Code::kCorruption);
  const std::string old = root_ + "/old";
  fs::create_directories(old);
  std::ofstream(old + "/CURRENT") << "MANIFEST-000001\n";
  auto legacy = DataDir::Open(old, true);
  EXPECT_EQ(legacy.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(legacy.status().message().find("gen-1"), std::string::npos) << legacy.status().message();
}

//! A data dir with generation 1's database in it, closed again.
DataDir MakeUsed(const std::string& root) {
  auto dir = DataDir::Open(root, true).value();
  auto store = OpenCurrent(root, {});
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return dir;
}

TEST_F(DataDirTest, MissingGenerationFileIsRefusedNotRestartedFromNothing) {
  MakeUsed(root_);
  fs::remove(root_ + "/GENERATION");
  auto dir = DataDir::Open(root_, /*create=*/true);
  ASSERT_EQ(dir.status().code(), Status::Code::kCorruption);
  EXPECT_NE(dir.status().message().find("no GENERATION file"), std::string::npos) << dir.status().message();
  EXPECT_NE(dir.status().message().find("--reset"), std::string::npos) << dir.status().message();
  EXPECT_TRUE(fs::exists(root_ + "/gen-1/CURRENT"));
  EXPECT_FALSE(fs::exists(root_ + "/GENERATION"));
}

TEST_F(DataDirTest, GenerationFileNamingAMissingGenerationDeletesNothing) {
  auto dir = MakeUsed(root_);
  ASSERT_TRUE(dir.SetCurrent(3).ok());
  auto opened = DataDir::Open(root_, /*create=*/true);
  ASSERT_EQ(opened.status().code(), Status::Code::kCorruption);
  EXPECT_NE(opened.status().message().find("gen-3 is missing"), std::string::npos) << opened.status().message();
  EXPECT_NE(opened.status().message().find(root_ + "/gen-1"), std::string::npos) << opened.status().message();
  EXPECT_FALSE(OpenCurrent(root_, {}).ok());
  EXPECT_TRUE(fs::exists(root_ + "/gen-1/CURRENT"));
}

TEST_F(DataDirTest, DatabaseWithoutCurrentFileIsRefusedNotRecreated) {
  MakeUsed(root_);
  fs::remove(root_ + "/gen-1/CURRENT");
  auto store = OpenCurrent(root_, {});
  ASSERT_EQ(store.status().code(), Status::Code::kCorruption) << store.status().ToString();
  EXPECT_NE(store.status().message().find("damaged"), std::string::npos) << store.status().message();
  EXPECT_FALSE(fs::exists(root_ + "/gen-1/CURRENT"));  // nothing new was made over it
}

TEST_F(DataDirTest, ForeignNonEmptyDirIsRefused) {
  std::ofstream(root_ + "/notes.txt") << "not webindex\n";
  auto dir = DataDir::Open(root_, /*create=*/true);
  ASSERT_EQ(dir.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(dir.status().message().find("notes.txt"), std::string::npos) << dir.status().message();
  EXPECT_FALSE(fs::exists(root_ + "/GENERATION"));
}

TEST_F(DataDirTest, UnfinishedCreationContinuesAndResetStartsAfresh) {
  fs::create_directories(root_ + "/gen-1");  // killed before GENERATION was written
  auto dir = DataDir::Open(root_, /*create=*/true);
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  EXPECT_EQ(dir->Current().value(), 1u);
  ASSERT_TRUE(OpenCurrent(root_, {}).ok());
  fs::create_directories(root_ + "/gen-2");
  ASSERT_TRUE(DataDir::Reset(root_).ok());
  // Only the data dir's id stays (made with it, kept across --reset).
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(root_)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"INSTANCE"});
  auto fresh = DataDir::Open(root_, /*create=*/true);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_EQ(fresh->List().value(), std::vector<uint64_t>{1});
  EXPECT_TRUE(fs::is_empty(root_ + "/gen-1"));
}

TEST_F(DataDirTest, FileLockExcludesOtherHolders) {
  const std::string path = root_ + "/run.lock";
  auto first = FileLock::TryAcquire(path);
  ASSERT_TRUE(first.ok());
  ASSERT_NE(*first, nullptr);
  auto second = FileLock::TryAcquire(path);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, nullptr);  // held, in this process too
  first->reset();
  auto third = FileLock::TryAcquire(path);
  ASSERT_TRUE(third.ok());
  EXPECT_NE(*third, nullptr);
  EXPECT_FALSE(FileLock::TryAcquire(root_ + "/missing/dir/lock").ok());
}

TEST_F(DataDirTest, FileLockNamesItsHolder) {
  const std::string path = root_ + "/run.lock";
  EXPECT_EQ(FileLock::Holder(path), "");  // no file yet
  {
    auto held = FileLock::TryAcquire(path, "run");
    ASSERT_TRUE(held.ok() && *held);
    EXPECT_EQ(FileLock::Holder(path), std::to_string(::getpid()) + " run");
  }
  // A later holder replaces the text, a shorter one too.
  auto again = FileLock::TryAcquire(path, "x");
  ASSERT_TRUE(again.ok() && *again);
  EXPECT_EQ(FileLock::Holder(path), std::to_string(::getpid()) + " x");
}

TEST_F(DataDirTest, InstanceIdIsMadeOnceAndKept) {
  auto dir = DataDir::Open(root_, true).value();
  auto id = dir.InstanceId();
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(id->size(), 16u);
  EXPECT_EQ(id->find_first_not_of("0123456789abcdef"), std::string::npos) << *id;
  EXPECT_EQ(DataDir::Open(root_, false).value().InstanceId().value(), *id);
  // Kept across --reset, and the dir still opens with it.
  ASSERT_TRUE(DataDir::Reset(root_).ok());
  auto fresh = DataDir::Open(root_, true);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_EQ(fresh->InstanceId().value(), *id);
  // Another data dir has another id; a damaged file is named, not replaced.
  const std::string other = root_ + "/../" + fs::path(root_).filename().string() + "-other";
  EXPECT_NE(DataDir::Open(other, true).value().InstanceId().value(), *id);
  fs::remove_all(other);
  std::ofstream(root_ + "/INSTANCE") << "xyz\n";
  EXPECT_EQ(fresh->InstanceId().status().code(), Status::Code::kCorruption);
}

TEST_F(DataDirTest, ADeletedInstanceFileBesideADatabaseIsRefusedNotMadeAnew) {
  auto dir = DataDir::Open(root_, true).value();
  const std::string id = dir.InstanceId().value();
  ASSERT_TRUE(OpenCurrent(root_, {}).ok());
  fs::remove(root_ + "/INSTANCE");
  auto again = dir.InstanceId();
  ASSERT_FALSE(again.ok()) << "a new id " << again.value() << " was made for a data dir with a database";
  EXPECT_EQ(again.status().code(), Status::Code::kCorruption) << again.status().ToString();
  EXPECT_NE(again.status().message().find("--reset"), std::string::npos) << again.status().ToString();
  EXPECT_FALSE(fs::exists(root_ + "/INSTANCE"));
  // Restored by hand, it is read again; after --reset a new one may be made.
  std::ofstream(root_ + "/INSTANCE") << id << "\n";
  EXPECT_EQ(dir.InstanceId().value(), id);
  fs::remove(root_ + "/INSTANCE");
  ASSERT_TRUE(DataDir::Reset(root_).ok());
  auto fresh = DataDir::Open(root_, true);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_TRUE(fresh->InstanceId().ok());
}

TEST_F(DataDirTest, ReplayAbortRollsBackUnfinishedGenerations) {
  auto dir = DataDir::Open(root_, true).value();
  ASSERT_TRUE(OpenCurrent(root_, {}).ok());
  // Generation 2: a replay killed before its start positions were committed.
  ASSERT_TRUE(Store::Open(dir.PathOf(2), {}).ok());
  app::ProcessorConfig config;
  config.data_dir = root_;
  config.kafka.brokers = "127.0.0.1:1";  // never contacted by --abort
  app::ReplayOptions options;
  options.abort = true;
  std::atomic<bool> stop{false};
  Status st = app::Replay(config, options, stop);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(dir.List().value(), std::vector<uint64_t>{1});
  EXPECT_EQ(dir.Current().value(), 1u);
  // A second replay on the same dir at the same time is refused.
  auto held = FileLock::TryAcquire(root_ + "/replay.lock");
  ASSERT_TRUE(held.ok() && *held);
  st = app::Replay(config, options, stop);
  EXPECT_EQ(st.code(), Status::Code::kAborted);
  EXPECT_NE(st.message().find("another replay"), std::string::npos) << st.ToString();
}

TEST(ReplayFromTest, ParsesEarliestAndRfc3339) {
  EXPECT_EQ(app::ParseReplayFrom("earliest").value(), -1);
  EXPECT_EQ(app::ParseReplayFrom("1970-01-01T00:00:01.250Z").value(), 1250);
  EXPECT_EQ(app::ParseReplayFrom("2026-11-21T08:00:00+01:00").value(), 1795244400000);
  for (const char* bad : {"", "latest", "yesterday", "2026-11-21", "1969-12-31T23:59:59Z"}) {
    EXPECT_EQ(app::ParseReplayFrom(bad).status().code(), Status::Code::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace webindex::state
