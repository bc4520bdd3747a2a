// State follows its partition (docs/scale-out.md §4): with `pipeline.changelog` on, every
// commit of the page, uri and domain stages sends each task's state changes to partition
// `task` of the stage's changelog topic. Restoring every task from the changelogs into an empty
// store gives the state the processor committed, key for key: page states, counters, dedupe
// marks, input positions and the tasks' sequence counters, across restarts and deletions.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <thread>
#include <vector>

#include "batch_model.h"
#include "event_generator.h"
#include "pipeline/changelog.h"
#include "pipeline/fence.h"
#include "pipeline/runner_keys.h"
#include "pipeline_harness.h"
#include "seeds.h"
#include "state/data_dir.h"

namespace webindex::testing {
namespace {

constexpr int kPartitions = 3;
const char* const kStages[] = {"page", "uri", "domain"};

using Cells = std::map<std::string, std::string>;

//! The state a stage's tasks own, by family name and key: everything of the families the
//! stages write, and the stages' own keys of the shared families.
std::map<std::string, Cells> TaskState(state::Store& store, const pipeline::TopicNames& topics) {
  std::map<std::string, Cells> out;
  auto read = [&](state::Family f, const std::string& name, const std::string& prefix) {
    auto it = store.NewIterator(f);
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
      out[name][std::string(it->key())] = std::string(it->value());
    }
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  };
  read(state::Family::kPages, "pages", "");
  read(state::Family::kUris, "uris", "");
  read(state::Family::kDomains, "domains", "");
  read(state::Family::kDedupe, "dedupe", "");
  const std::pair<const char*, std::string> inputs[] = {
      {"page", topics.pages}, {"uri", topics.uri_deltas}, {"domain", topics.domain_deltas}};
  for (const auto& [stage, input] : inputs) {
    read(state::Family::kOffsets, "offsets", pipeline::OffsetPrefix(stage, input));
    read(state::Family::kMeta, "task-seq", "task-seq/" + std::string(stage) + "/");
  }
  return out;
}

//! Every row of every family of a store, by family number and key.
std::map<int, Cells> AllRows(state::Store& store) {
  std::map<int, Cells> out;
  for (int f = 0; f < static_cast<int>(state::Family::kCount); ++f) {
    auto it = store.NewIterator(static_cast<state::Family>(f));
    for (it->SeekToFirst(); it->Valid(); it->Next()) out[f][std::string(it->key())] = std::string(it->value());
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  }
  return out;
}

// With snapshots written as the changelogs grow (a small threshold: many of them), a restore
// that begins at any snapshot, as one of a log whose start is gone does, gives the same store as
// one from the log's start: a snapshot holds what a restore up to it gives (stage rows, position,
// counters, marks, and the records of commits whose outbox rows were not deleted yet).
TEST(ChangelogTest, RestoringEveryTaskFromTheChangelogsGivesTheCommittedState) {
  const uint64_t seed = RandomTestSeeds({11}).front();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::cout << "changelog restore, seed " << seed << std::endl;
  PipelineHarness h(kPartitions);
  h.config().runner.changelog = true;
  h.config().runner.max_batch = 1 + seed % 50;  // many commits, of varying sizes
  h.config().runner.snapshot_min_bytes = 8192;
  EventGenerator gen(seed, kPartitions);
  BatchModel model;
  uint64_t forwarded = 0;
  for (int chunk = 0; chunk < 3; ++chunk) {  // a restart between chunks
    std::vector<std::tuple<int, std::string, std::string>> records;
    for (auto& ev : gen.Next(200)) {
      model.Apply(ev.value);
      // The pages of two partitions' tasks arrive in the next partition (each page in one, so
      // that its events keep their order): the page stage forwards them to their task.
      const int partition = ev.partition_hint == kPartitions - 1 ? ev.partition_hint : ev.partition_hint + 1;
      records.emplace_back(partition, ev.key, ev.value);
    }
    h.ProduceTo(records);
    h.RunUntilIdle([&](const pipeline::Metrics& m) { forwarded += m.forwarded_events; });
  }
  ASSERT_EQ(h.Dump(), model.TableLines());
  EXPECT_GT(forwarded, 0u);

  std::map<std::string, Cells> committed;
  uint64_t generation = 0;
  std::string instance;
  {
    auto store = h.OpenReadOnly();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    committed = TaskState(**store, h.config().topics);
    auto dir = state::DataDir::Open(h.config().data_dir, /*create=*/false);
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    auto current = dir->Current();
    ASSERT_TRUE(current.ok());
    generation = *current;
    auto id = dir->InstanceId();
    ASSERT_TRUE(id.ok());
    instance = *id;
  }
  ASSERT_FALSE(committed["pages"].empty());
  ASSERT_FALSE(committed["uris"].empty());
  ASSERT_FALSE(committed["domains"].empty());
  ASSERT_FALSE(committed["dedupe"].empty());

  // Each task into a store of its own: together they hold the committed state, and each holds
  // only keys of its own partition (a page's task is its URI's partition, wherever its events
  // arrived).
  auto admin = kafka::Admin::Create(h.config().kafka);
  ASSERT_TRUE(admin.ok()) << admin.status().ToString();
  std::map<std::string, Cells> together;
  std::map<std::string, std::vector<PipelineHarness::Consumed>> changelogs;
  for (const char* stage : kStages) {
    const std::string topic = pipeline::ChangelogTopic(h.config().runner.changelog_prefix, stage);
    changelogs[topic] = h.ReadTopic(topic);
  }
  size_t snapshots = 0;
  for (const char* stage : kStages) {
    const std::string topic = pipeline::ChangelogTopic(h.config().runner.changelog_prefix, stage);
    for (int32_t task = 0; task < kPartitions; ++task) {
      SCOPED_TRACE(topic + "[" + std::to_string(task) + "]");
      const std::string dir = MakeTempDir("changelog-restore");
      {
        auto restored = state::Store::Open(dir + "/db", state::StoreOptions{});
        ASSERT_TRUE(restored.ok()) << restored.status().ToString();
        auto stats = pipeline::RestoreTask(h.config().kafka, **admin, **restored, topic, task, generation, instance);
        ASSERT_TRUE(stats.ok()) << stats.status().ToString();
        EXPECT_EQ(stats->unfinished, 0u);
        EXPECT_GT(stats->commits, 0u);
        const auto got = TaskState(**restored, h.config().topics);
        const auto whole = AllRows(**restored);
        // The same from each of three snapshots of the task (the first, a middle one, the last).
        std::vector<int64_t> begins;
        for (const auto& r : changelogs[topic]) {
          const auto key = pipeline::ParseChangelogKey(r.key);
          if (r.partition == task && key && key->generation == generation &&
              static_cast<char>(key->family) == pipeline::kChangelogSnapshot && key->state_key == "begin") {
            begins.push_back(r.offset);
          }
        }
        snapshots += begins.size();
        if (begins.size() > 3) begins = {begins.front(), begins[begins.size() / 2], begins.back()};
        for (int64_t begin : begins) {
          // The snapshot's rows are what a restore up to it gives.
          std::map<int, Cells> rows;
          std::string id;
          for (const auto& r : changelogs[topic]) {
            if (r.partition != task || r.offset < begin) continue;
            auto snap = std::find_if(r.headers.begin(), r.headers.end(),
                                     [](const auto& hd) { return hd.first == pipeline::kSnapshotHeader; });
            if (snap == r.headers.end()) continue;
            if (id.empty()) id = snap->second;
            if (snap->second != id) continue;
            const auto key = pipeline::ParseChangelogKey(r.key);
            ASSERT_TRUE(key);
            if (static_cast<char>(key->family) == pipeline::kChangelogSnapshot) {
              if (key->state_key == "end") break;
              continue;
            }
            rows[key->family][std::string(key->state_key)] = r.value;
          }
          {
            auto upto = state::Store::Open(dir + "/upto-" + std::to_string(begin), state::StoreOptions{});
            ASSERT_TRUE(upto.ok()) << upto.status().ToString();
            pipeline::TaskRestore restore(h.config().kafka, **admin, **upto, topic, task, generation, instance);
            Status st = restore.CatchUp(begin);
            ASSERT_TRUE(st.ok()) << st.ToString();
            auto expected = AllRows(**upto);
            std::erase_if(expected, [](const auto& f) { return f.second.empty(); });
            EXPECT_EQ(rows, expected) << "the snapshot at offset " << begin;
          }
          // And a restore that begins there ends where one from the start does.
          auto from = state::Store::Open(dir + "/from-" + std::to_string(begin), state::StoreOptions{});
          ASSERT_TRUE(from.ok()) << from.status().ToString();
          pipeline::TaskRestore restore(h.config().kafka, **admin, **from, topic, task, generation, instance);
          restore.StartAt(begin);
          Status st = restore.CatchUp();
          ASSERT_TRUE(st.ok()) << st.ToString();
          EXPECT_GT(restore.stats().snapshot_rows, 0u);
          EXPECT_EQ(AllRows(**from), whole) << "restored from the snapshot at offset " << begin;
        }
        const std::string suffix = "/" + std::to_string(task);
        for (const auto& [family, cells] : got) {
          for (const auto& [key, value] : cells) {
            if (family == "pages" || family == "uris" || family == "domains") {
              EXPECT_EQ(pipeline::PartitionFor(key, kPartitions), task) << family << " " << key;
            } else if (family == "dedupe") {
              EXPECT_EQ(key.find(std::string(stage) + suffix + "/"), 0u) << key;
            } else if (family == "offsets" || family == "task-seq") {
              EXPECT_TRUE(key.ends_with(suffix)) << key;
            }
            EXPECT_TRUE(together[family].emplace(key, value).second) << family << " " << key << " in two tasks";
          }
        }
      }
      std::filesystem::remove_all(dir);
    }
  }
  for (const auto& [family, cells] : committed) {
    EXPECT_EQ(together.count(family) ? together.at(family) : Cells{}, cells) << family << " differs after restore";
  }
  EXPECT_EQ(together.size(), committed.size());
  EXPECT_GT(snapshots, 3 * static_cast<size_t>(kPartitions)) << "too few snapshots to test";
  std::cout << "restored " << committed["pages"].size() << " page states, " << committed["uris"].size() << " uris, "
            << committed["domains"].size() << " domains, " << committed["dedupe"].size() << " dedupe marks; "
            << snapshots << " snapshots" << std::endl;
}

//! A producer for changelog records written by hand, whose every delivery must succeed, and the
//! headers of such records (generation 1, data dir "i").
Result<std::unique_ptr<kafka::Producer>> HandWriter(PipelineHarness& h) {
  return kafka::Producer::Create(h.config().kafka, [](uint64_t, const Status& st) {
    EXPECT_TRUE(st.ok()) << st.ToString();
  });
}
const std::vector<std::pair<std::string, std::string>> kHandHeaders = {{"gen", "1"}, {"inst", "i"}};

TEST(ChangelogTest, RestoreAppliesClosedCommitsOnlyDeletesOnNullValuesAndSkipsOtherWriters) {
  PipelineHarness h(1);
  const std::string topic = pipeline::ChangelogTopic(h.config().runner.changelog_prefix, "uri");
  auto producer = HandWriter(h);
  ASSERT_TRUE(producer.ok()) << producer.status().ToString();
  const auto& hdr = kHandHeaders;
  auto key = [](uint64_t gen, const std::string& k) { return pipeline::ChangelogKey(gen, state::Family::kUris, k); };
  const std::vector<OutRecord> records = {
      {topic, 0, key(1, "a"), "1", hdr},
      {topic, 0, key(1, "b"), "2", hdr},
      {topic, 0, key(1, "c"), "", hdr},  // an empty value is a value
      {topic, 0, pipeline::ChangelogCommitKey(1), "", hdr},
      {topic, 0, key(1, "a"), "", hdr, /*tombstone=*/true},
      {topic, 0, key(2, "b"), "3", hdr},  // another generation's (a replay's)
      {topic, 0, pipeline::ChangelogCommitKey(2), "", hdr},
      {topic, 0, pipeline::ChangelogCommitKey(1), "", hdr},
      {topic, 0, key(1, "b"), "4", hdr},  // never closed: its writer stopped before the commit record
      {topic, 0, key(1, "d"), "5", {{"gen", "1"}, {"inst", "another data dir"}}},
  };
  for (const auto& r : records) ASSERT_TRUE((*producer)->Produce(r, 0).ok());
  ASSERT_TRUE((*producer)->Flush(10000).ok());

  const std::string dir = MakeTempDir("changelog-restore");
  {
    auto store = state::Store::Open(dir + "/db", state::StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto admin = kafka::Admin::Create(h.config().kafka);
    ASSERT_TRUE(admin.ok());
    auto stats = pipeline::RestoreTask(h.config().kafka, **admin, **store, topic, 0, 1, "i");
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
    EXPECT_EQ(stats->records, records.size());
    EXPECT_EQ(stats->commits, 2u);
    EXPECT_EQ(stats->changes, 4u);
    EXPECT_EQ(stats->other_generation, 3u);
    EXPECT_EQ(stats->unfinished, 1u);
    Cells got;
    auto it = (*store)->NewIterator(state::Family::kUris);
    for (it->SeekToFirst(); it->Valid(); it->Next()) got[std::string(it->key())] = std::string(it->value());
    EXPECT_EQ(got, (Cells{{"b", "2"}, {"c", ""}}));
  }
  std::filesystem::remove_all(dir);
}

// A changelog whose start the broker deleted (retention; the embedded broker keeps about 5 MiB
// per partition) cannot give the task's state back: the restore refuses, naming the lost range,
// instead of applying what is left.
TEST(ChangelogTest, RestoreRefusesAChangelogWhoseStartWasDeleted) {
  PipelineHarness h(1);
  const std::string topic = pipeline::ChangelogTopic(h.config().runner.changelog_prefix, "page");
  auto producer = HandWriter(h);
  ASSERT_TRUE(producer.ok()) << producer.status().ToString();
  const auto& hdr = kHandHeaders;
  const std::string value(200 * 1024, 'x');
  for (int i = 0; i < 40; ++i) {  // 8 MB, one commit each 200 KB page state
    ASSERT_TRUE((*producer)->Produce({topic, 0, pipeline::ChangelogKey(1, state::Family::kPages, "p" + std::to_string(i)),
                                      value, hdr},
                                     0)
                    .ok());
    ASSERT_TRUE((*producer)->Produce({topic, 0, pipeline::ChangelogCommitKey(1), "", hdr}, 0).ok());
    ASSERT_TRUE((*producer)->Flush(10000).ok());
  }
  auto admin = kafka::Admin::Create(h.config().kafka);
  ASSERT_TRUE(admin.ok());
  auto marks = (*admin)->Watermarks(topic, 0, 5000);
  ASSERT_TRUE(marks.ok());
  ASSERT_GT(marks->first, 0) << "the broker kept every record: nothing to test";
  const std::string dir = MakeTempDir("changelog-restore");
  {
    auto store = state::Store::Open(dir + "/db", state::StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto stats = pipeline::RestoreTask(h.config().kafka, **admin, **store, topic, 0, 1, "");
    ASSERT_FALSE(stats.ok()) << "restored " << stats->commits << " commits of a changelog without its start";
    EXPECT_NE(stats.status().message().find("records [0, " + std::to_string(marks->first) + ") of its changelog were "
                                            "deleted"),
              std::string::npos)
        << stats.status().ToString();
    auto it = (*store)->NewIterator(state::Family::kPages);
    it->SeekToFirst();
    EXPECT_FALSE(it->Valid()) << "a part of the state was written";
  }
  std::filesystem::remove_all(dir);
}

// Snapshots (docs/scale-out.md §5). A restore of a changelog whose start the broker deleted
// begins at the first complete snapshot that no later claim voids: one a record of a higher
// epoch interrupts, or one its fenced writer finishes after such a record, does not count. What
// follows the snapshot applies as usual: commits of the epoch in force, not the fenced writer's.
// Restored from its start, a changelog's snapshot rows apply like changes (they repeat its state,
// or stand for the records compaction took).
TEST(ChangelogTest, RestoreOfALogWithoutItsStartBeginsAtTheFirstCompleteSnapshotNoClaimVoids) {
  PipelineHarness h(1);
  const std::string topic = pipeline::ChangelogTopic(h.config().runner.changelog_prefix, "uri");
  auto producer = HandWriter(h);
  ASSERT_TRUE(producer.ok()) << producer.status().ToString();
  auto headers = [](int epoch) {
    auto hdr = kHandHeaders;
    hdr.emplace_back(pipeline::kEpochHeader, std::to_string(epoch));
    return hdr;
  };
  auto change = [&](int epoch, const std::string& k, const std::string& v) {
    return OutRecord{topic, 0, pipeline::ChangelogKey(1, state::Family::kUris, k), v, headers(epoch)};
  };
  auto commit = [&](int epoch) { return OutRecord{topic, 0, pipeline::ChangelogCommitKey(1), "", headers(epoch)}; };
  auto snapshot = [&](int epoch, const std::string& id, const std::vector<pipeline::SnapshotRow>& rows) {
    return pipeline::SnapshotRecords(topic, 0, 1, headers(epoch), id, rows);
  };
  auto send = [&](const std::vector<OutRecord>& records) {
    for (const auto& r : records) ASSERT_TRUE((*producer)->Produce(r, 0).ok());
    ASSERT_TRUE((*producer)->Flush(10000).ok());
  };
  const std::string big(200 * 1024, 'x');
  for (int i = 0; i < 40; ++i) send({change(1, "old" + std::to_string(i), big), commit(1)});  // 8 MB
  auto admin = kafka::Admin::Create(h.config().kafka);
  ASSERT_TRUE(admin.ok());
  auto marks = (*admin)->Watermarks(topic, 0, 5000);
  ASSERT_TRUE(marks.ok());
  ASSERT_GT(marks->first, 0) << "the broker kept every record: nothing to test";

  std::vector<OutRecord> tail;
  auto add = [&](std::vector<OutRecord> records) { tail.insert(tail.end(), records.begin(), records.end()); };
  // Epoch 1's snapshot, interrupted by epoch 2's first record: its writer was fenced meanwhile.
  auto fenced = snapshot(1, "s1", {{state::Family::kUris, "a", "fenced"}, {state::Family::kUris, "z", "fenced"}});
  add({fenced[0], fenced[1], change(2, "a", "2"), commit(2), fenced[2], fenced[3]});
  // The fenced writer's next snapshot, all of it after epoch 2 began: void.
  add(snapshot(1, "s2", {{state::Family::kUris, "a", "fenced"}}));
  // Epoch 2's snapshot: the state to begin at.
  add(snapshot(2, "s3", {{state::Family::kUris, "a", "2"}, {state::Family::kUris, "b", "3"},
                         {state::Family::kMeta, "epoch/uri/0", "2"}}));
  add({change(2, "a", "4"), commit(2)});          // applies
  add({change(1, "b", "fenced"), commit(1)});     // void
  add({change(2, "c", "unfinished")});           // never closed
  send(tail);

  const std::string dir = MakeTempDir("changelog-snapshot");
  auto restore = [&](const std::string& name, const std::string& restore_topic) {
    auto store = state::Store::Open(dir + "/" + name, state::StoreOptions{});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    pipeline::TaskRestore r(h.config().kafka, **admin, **store, restore_topic, 0, 1, "i");
    Status st = r.CatchUp();
    EXPECT_TRUE(st.ok()) << st.ToString();
    Cells got;
    for (auto family : {state::Family::kUris, state::Family::kMeta}) {
      auto it = (*store)->NewIterator(family);
      for (it->SeekToFirst(); it->Valid(); it->Next()) got[std::string(it->key())] = std::string(it->value());
    }
    return std::make_tuple(got, r.stats(), r.epoch());
  };
  {
    auto [got, stats, epoch] = restore("truncated", topic);
    EXPECT_EQ(got, (Cells{{"a", "4"}, {"b", "3"}, {"epoch/uri/0", "2"}}));
    EXPECT_EQ(stats.snapshot_rows, 3u);
    EXPECT_EQ(stats.snapshots_dropped, 1u);
    EXPECT_EQ(stats.commits, 1u);
    EXPECT_EQ(stats.void_records, 2u);
    EXPECT_EQ(stats.unfinished, 1u);
    EXPECT_EQ(epoch, 2u);
  }
  // A snapshot that only a later record shows void: the claim of epoch 2 was before the log's
  // start, the fenced owner's snapshot comes first. Undone when epoch 2 appears; its owner's
  // snapshot is where the restore begins again.
  const std::string third = pipeline::ChangelogTopic(h.config().runner.changelog_prefix, "page");
  auto on = [&](OutRecord r) {
    r.topic = third;
    return r;
  };
  for (int i = 0; i < 40; ++i) send({on(change(1, "old" + std::to_string(i), big)), on(commit(1))});
  marks = (*admin)->Watermarks(third, 0, 5000);
  ASSERT_TRUE(marks.ok());
  ASSERT_GT(marks->first, 0) << "the broker kept every record: nothing to test";
  tail.clear();
  add(pipeline::SnapshotRecords(third, 0, 1, headers(1), "a", {{state::Family::kUris, "a", "A"}, {state::Family::kUris, "b", "A"}}));
  add({on(change(2, "a", "B2")), on(commit(2))});  // epoch 2: the snapshot before was void
  add(pipeline::SnapshotRecords(third, 0, 1, headers(2), "b", {{state::Family::kUris, "a", "B2"}, {state::Family::kUris, "c", "B"}}));
  add({on(change(1, "d", "fenced")), on(commit(1))});  // void
  add({on(change(2, "c", "B3")), on(commit(2))});
  send(tail);
  {
    auto [got, stats, epoch] = restore("void-begin", third);
    EXPECT_EQ(got, (Cells{{"a", "B2"}, {"c", "B3"}}));
    EXPECT_EQ(stats.snapshots_dropped, 1u);
    EXPECT_EQ(stats.snapshot_rows, 2u);
    EXPECT_EQ(epoch, 2u);
  }
  // From the start, as compaction leaves a log: x's commit is gone (the snapshot's row of x
  // superseded it), y's snapshot row is superseded by a later commit. The snapshot's rows apply.
  const std::string whole = pipeline::ChangelogTopic(h.config().runner.changelog_prefix, "domain");
  std::vector<OutRecord> records =
      pipeline::SnapshotRecords(whole, 0, 1, headers(1), "s", {{state::Family::kUris, "x", "1"}, {state::Family::kUris, "y", "8"}});
  records.push_back({whole, 0, pipeline::ChangelogKey(1, state::Family::kUris, "y"), "2", headers(1)});
  records.push_back({whole, 0, pipeline::ChangelogCommitKey(1), "", headers(1)});
  send(records);
  {
    auto [got, stats, epoch] = restore("whole", whole);
    EXPECT_EQ(got, (Cells{{"x", "1"}, {"y", "2"}}));
    EXPECT_EQ(stats.snapshot_records, 4u);
    EXPECT_EQ(stats.snapshot_rows, 0u);  // not a snapshot it began at
  }
  std::filesystem::remove_all(dir);
}

// While a restore reads, the shared gauge (webindex_restore_lag_records) counts what it has
// left; it is back to zero when the restore ends.
TEST(ChangelogTest, RestoreReportsTheRecordsItHasLeftToRead) {
  PipelineHarness h(1);
  const std::string topic = pipeline::ChangelogTopic(h.config().runner.changelog_prefix, "uri");
  auto producer = HandWriter(h);
  ASSERT_TRUE(producer.ok()) << producer.status().ToString();
  const auto& hdr = kHandHeaders;
  constexpr int kRecords = 30000;
  for (int i = 0; i < kRecords; ++i) {
    ASSERT_TRUE(
        (*producer)->Produce({topic, 0, pipeline::ChangelogKey(1, state::Family::kUris, "u" + std::to_string(i)), "v", hdr}, 0).ok());
    if (i % 100 == 99) {
      ASSERT_TRUE((*producer)->Produce({topic, 0, pipeline::ChangelogCommitKey(1), "", hdr}, 0).ok());
    }
  }
  ASSERT_TRUE((*producer)->Flush(10000).ok());
  auto admin = kafka::Admin::Create(h.config().kafka);
  ASSERT_TRUE(admin.ok());
  const std::string dir = MakeTempDir("changelog-lag");
  {
    auto store = state::Store::Open(dir + "/db", state::StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    std::atomic<int64_t> lag{0};
    std::atomic<bool> done{false};
    int64_t most = 0;
    std::thread sampler([&] {
      while (!done) {
        most = std::max(most, lag.load());
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
    pipeline::TaskRestore restore(h.config().kafka, **admin, **store, topic, 0, 1, "");
    restore.ReportLagTo(&lag);
    const Status st = restore.CatchUp();
    done = true;
    sampler.join();
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(restore.stats().changes, static_cast<uint64_t>(kRecords));
    EXPECT_GT(most, 0) << "the gauge never showed the records left";
    EXPECT_LE(most, kRecords + kRecords / 100);
    EXPECT_EQ(lag.load(), 0);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace webindex::testing
