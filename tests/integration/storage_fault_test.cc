// Storage faults under the running pipeline, simulated with FaultFs beneath RocksDB.
// Power loss: of every file only what was synced survives; the processor must never have sent
// a record whose commit is then lost (the stage would re-create its sequence numbers with other
// content, receivers would drop them as duplicates, and the table would silently differ).
// Full disk: the processor stops with a clear error, and a restart with space resumes.
// Damaged files (WAL, MANIFEST, SST): reported at open or at the first read, never turned into
// another table.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "batch_model.h"
#include "event_generator.h"
#include "fault_fs.h"
#include "http/api.h"
#include "pipeline_harness.h"
#include "query/table_reader.h"
#include "state/data_dir.h"

namespace webindex::testing {
namespace {

using namespace std::chrono_literals;

//! Runs a processor until `cut` says so (or a stage fails), then cuts the power under it.
void RunAndCutPower(PipelineHarness& h, FaultFs& fs, const std::function<bool(const pipeline::Metrics&)>& cut) {
  app::Processor processor(h.config());
  ASSERT_TRUE(processor.Start().ok());
  std::atomic<bool> stop{false};
  std::thread watcher([&] {
    const auto deadline = std::chrono::steady_clock::now() + 60s;  // never hang on a condition not met
    while (!cut(processor.metrics()) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
    fs.PowerOff();
    std::this_thread::sleep_for(50ms);  // the stages notice at their next commit
    stop = true;
  });
  processor.Run(/*exit_when_idle=*/false, stop).PermitUncheckedError();
  stop = true;
  watcher.join();
  processor.Stop().PermitUncheckedError();  // fails: the disk is gone
}

void PowerLossSeed(uint64_t seed) {
  PipelineHarness h(2);
  auto fs = std::make_shared<FaultFs>();
  h.config().store.env = fs->env();
  h.config().runner.max_batch = 50 + seed % 150;  // many commits, so that one is always in flight
  EventGenerator gen(seed, 2);
  BatchModel model;
  h.Feed(gen, model, 600);
  h.RunUntilIdle();  // a data dir with SST files and a history
  h.Feed(gen, model, 3000);
  std::mt19937_64 rng(seed);
  const uint64_t at = 2 + rng() % 40;  // commits of this run before the power goes
  uint64_t first = 0;
  RunAndCutPower(h, *fs, [&](const pipeline::Metrics& m) {
    if (first == 0) first = m.commits + 1;
    return m.commits >= first + at;
  });
  const uint64_t dropped = fs->DropUnsyncedData();
  std::cout << "seed " << seed << ": power cut after " << at << " commits, " << dropped << " unsynced bytes lost"
            << std::endl;
  h.Feed(gen, model, 300);
  h.RunUntilIdle();
  EXPECT_EQ(h.Dump(), model.TableLines()) << "seed " << seed;
}

TEST(PowerLossTest, NothingSentOutlivesItsCommit) {
  for (uint64_t seed : {31, 32, 33}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    PowerLossSeed(seed);
  }
}

TEST(DiskFullTest, StopsWithAClearErrorAndResumesWhenSpaceReturns) {
  PipelineHarness h(2);
  auto fs = std::make_shared<FaultFs>();
  h.config().store.env = fs->env();
  h.config().runner.max_batch = 100;
  EventGenerator gen(41, 2);
  BatchModel model;
  h.Feed(gen, model, 300);
  h.RunUntilIdle();
  h.Feed(gen, model, 3000);

  fs->SetSpaceLeft(256 << 10);  // far less than 3,000 events need
  Status st = h.TryRunUntilIdle();
  ASSERT_FALSE(st.ok()) << "the disk filled up, yet the processor reported success";
  EXPECT_GT(fs->no_space_errors(), 0u);
  EXPECT_EQ(st.code(), Status::Code::kIoError) << st.ToString();
  EXPECT_NE(st.message().find("no space left on the disk of " + h.config().data_dir), std::string::npos)
      << st.ToString();
  EXPECT_NE(st.message().find("free at least"), std::string::npos) << st.ToString();

  fs->SetSpaceLeft(-1);  // space returns
  h.RunUntilIdle();
  EXPECT_EQ(h.Dump(), model.TableLines());
}

//! The largest file of the current generation whose name ends with `suffix`.
std::string LargestFile(const std::string& data_dir, const std::string& suffix) {
  std::string best;
  uintmax_t best_size = 0;
  for (const auto& e : std::filesystem::directory_iterator(data_dir + "/gen-1")) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with(suffix) && !name.starts_with(suffix)) continue;
    if (e.file_size() >= best_size) {
      best = e.path().string();
      best_size = e.file_size();
    }
  }
  return best;
}

void Overwrite(const std::string& path, uint64_t offset, const std::string& bytes) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f.good()) << path;
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(DamagedStateTest, WalCorruptedInTheMiddleIsReportedAtOpen) {
  PipelineHarness h(2);
  auto fs = std::make_shared<FaultFs>();
  h.config().store.env = fs->env();
  h.config().runner.max_batch = 100;
  EventGenerator gen(61, 2);
  BatchModel model;
  h.Feed(gen, model, 300);
  h.RunUntilIdle();
  h.Feed(gen, model, 2000);
  uint64_t first = 0;
  RunAndCutPower(h, *fs, [&](const pipeline::Metrics& m) {
    if (first == 0) first = m.commits + 1;
    return m.commits >= first + 20;
  });
  fs->DropUnsyncedData();
  const std::string wal = LargestFile(h.config().data_dir, ".log");
  ASSERT_FALSE(wal.empty());
  const auto size = std::filesystem::file_size(wal);
  ASSERT_GT(size, 64u << 10) << "the test needs commits in the WAL";
  Overwrite(wal, size / 2, std::string(64, '\xab'));
  auto store = state::OpenCurrent(h.config().data_dir, {});
  ASSERT_FALSE(store.ok()) << "a WAL corrupted in the middle was opened as if whole";
  EXPECT_EQ(store.status().code(), Status::Code::kCorruption) << store.status().ToString();
  app::Processor processor(h.config());
  EXPECT_EQ(processor.Start().code(), Status::Code::kCorruption);
}

TEST(DamagedStateTest, ManifestCutIsReportedAtOpen) {
  PipelineHarness h(2);
  EventGenerator gen(62, 2);
  BatchModel model;
  h.Feed(gen, model, 500);
  h.RunUntilIdle();
  h.Feed(gen, model, 500);
  h.RunUntilIdle();
  const std::string manifest = LargestFile(h.config().data_dir, "MANIFEST-");
  ASSERT_FALSE(manifest.empty());
  const auto size = std::filesystem::file_size(manifest);
  std::filesystem::resize_file(manifest, size - 20);
  auto store = state::OpenCurrent(h.config().data_dir, {});
  std::cout << "MANIFEST cut by 20 bytes: " << (store.ok() ? "opened" : store.status().ToString()) << std::endl;
  if (store.ok()) {
    // Opened: then it must be the same table (the cut lost nothing that mattered).
    store->reset();
    EXPECT_EQ(h.Dump(), model.TableLines()) << "a cut MANIFEST silently gave another table";
  } else {
    EXPECT_EQ(store.status().code(), Status::Code::kCorruption) << store.status().ToString();
  }
}

TEST(DamagedStateTest, OverwrittenSstBytesAreReportedOnRead) {
  PipelineHarness h(2);
  EventGenerator gen(63, 2);
  BatchModel model;
  h.Feed(gen, model, 1500);
  h.RunUntilIdle();
  // 8 bytes inside the first data block of every table file (data blocks come first).
  int damaged = 0;
  for (const auto& e : std::filesystem::directory_iterator(h.config().data_dir + "/gen-1")) {
    if (e.path().extension() != ".sst") continue;
    Overwrite(e.path().string(), 64, "\x01\x02\x03\x04\x05\x06\x07\x08");
    ++damaged;
  }
  ASSERT_GT(damaged, 0);
  auto store = h.OpenReadOnly();
  if (!store.ok()) {
    EXPECT_EQ(store.status().code(), Status::Code::kCorruption) << store.status().ToString();
    return;
  }
  Status verified = (*store)->VerifyChecksums();
  EXPECT_EQ(verified.code(), Status::Code::kCorruption) << verified.ToString();
  std::ostringstream out;
  auto dumped = query::DumpTable(**store, out);
  EXPECT_FALSE(dumped.ok()) << "a damaged table was read without an error";
}


//! Families of the database in `dir`, as RocksDB lists them (nothing opened, nothing created).
std::vector<std::string> FamiliesOf(const std::string& dir) {
  std::vector<std::string> names;
  EXPECT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir, &names).ok()) << dir;
  return names;
}

bool Has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(DamagedStateTest, AFamilyMissingFromTheManifestIsRefusedNotRecreatedEmpty) {
  PipelineHarness h(2);
  EventGenerator gen(64, 2);
  BatchModel model;
  h.Feed(gen, model, 300);
  h.RunUntilIdle();
  const std::string db = h.config().data_dir + "/gen-1";
  {
    // The MANIFEST's record of the family gone, as a cut MANIFEST can lose it.
    rocksdb::DB* raw = nullptr;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    for (const auto& name : FamiliesOf(db)) cfs.emplace_back(name, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::DBOptions(), db, cfs, &handles, &raw).ok());
    std::unique_ptr<rocksdb::DB> opened(raw);
    for (auto* handle : handles) {
      if (handle->GetName() == "versions") ASSERT_TRUE(raw->DropColumnFamily(handle).ok());
    }
    for (auto* handle : handles) ASSERT_TRUE(raw->DestroyColumnFamilyHandle(handle).ok());
  }
  ASSERT_FALSE(Has(FamiliesOf(db), "versions"));
  auto store = state::OpenCurrent(h.config().data_dir, {});
  ASSERT_FALSE(store.ok()) << "a store missing a family was opened for writing";
  EXPECT_EQ(store.status().code(), Status::Code::kCorruption) << store.status().ToString();
  EXPECT_NE(store.status().message().find("versions"), std::string::npos) << store.status().ToString();
  app::Processor processor(h.config());
  EXPECT_EQ(processor.Start().code(), Status::Code::kCorruption);
  EXPECT_FALSE(Has(FamiliesOf(db), "versions")) << "the missing family was created empty";
}

TEST(DamagedStateTest, AFirstOpenCutShortBetweenFamiliesIsCompletedNotRefused) {
  // RocksDB adds the families of a new database one MANIFEST edit at a time: a kill in between
  // leaves some of them, all empty. Nothing of the others was ever written, so they are made.
  const std::string dir = ::testing::TempDir() + "/first-open-cut-short";
  std::filesystem::remove_all(dir);
  {
    rocksdb::DBOptions options;
    options.create_if_missing = true;
    options.create_missing_column_families = true;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {{rocksdb::kDefaultColumnFamilyName, {}}, {"pages", {}},
                                                        {"uris", {}}};
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir, cfs, &handles, &raw).ok());
    for (auto* handle : handles) ASSERT_TRUE(raw->DestroyColumnFamilyHandle(handle).ok());
    delete raw;
  }
  auto store = state::Store::Open(dir, {});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  store->reset();
  EXPECT_TRUE(Has(FamiliesOf(dir), "versions"));
  EXPECT_EQ(FamiliesOf(dir).size(), static_cast<size_t>(state::Family::kCount) + 1);
  std::filesystem::remove_all(dir);
}

TEST(DamagedStateTest, ACompactionThatMeetsDamageStopsTheRunAndFailsHealthChecks) {
  PipelineHarness h(2);
  h.config().store.auto_compactions = false;  // each run's stop flushes one more file per family
  EventGenerator gen(65, 2);
  BatchModel model;
  for (int run = 0; run < 4; ++run) {
    h.Feed(gen, model, 400);
    h.RunUntilIdle();
  }
  // The query table's files only: an idle run reads none of them, only their compaction does.
  const std::string db = h.config().data_dir + "/gen-1";
  std::vector<rocksdb::LiveFileMetaData> files;
  {
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    for (const auto& name : FamiliesOf(db)) cfs.emplace_back(name, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(), db, cfs, &handles, &raw).ok());
    raw->GetLiveFilesMetaData(&files);
    for (auto* handle : handles) raw->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
    delete raw;
  }
  int damaged = 0;
  for (const auto& file : files) {
    if (file.column_family_name != "table") continue;
    Overwrite(db + file.name, 64, "\x01\x02\x03\x04\x05\x06\x07\x08");
    ++damaged;
  }
  ASSERT_EQ(damaged, 4);
  h.config().store.auto_compactions = true;
  app::Processor processor(h.config());
  Status started = processor.Start();
  ASSERT_TRUE(started.ok()) << started.ToString();
  http::Api api(*processor.store(), {});
  std::atomic<bool> stop{false};
  std::thread deadline([&] {
    for (int i = 0; i < 600 && !stop; ++i) std::this_thread::sleep_for(100ms);
    stop = true;
  });
  Status run = processor.Run(/*exit_when_idle=*/false, stop);
  const bool timed_out = stop.exchange(true);
  deadline.join();
  EXPECT_FALSE(timed_out) << "the run went on after a compaction met a damaged file";
  EXPECT_EQ(run.code(), Status::Code::kCorruption) << run.ToString();
  EXPECT_NE(run.message().find("compaction"), std::string::npos) << run.ToString();
  auto health = api.Handle({"GET", "/healthz"});
  EXPECT_EQ(health.status, 503) << health.body;
  auto status = api.Handle({"GET", "/api/status"});
  EXPECT_NE(status.body.find(R"("healthy":false)"), std::string::npos) << status.body;
  processor.Stop().PermitUncheckedError();
}

}  // namespace
}  // namespace webindex::testing
