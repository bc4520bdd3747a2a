// Stage runners in a consumer group (docs/scale-out.md §9, step 1): uri-stage runners of several
// data dirs share the stage's partitions through the group protocol. A member given a task drops
// its local rows of it, restores it from the changelog, fences and claims it before reading; a
// member losing a task drops its rows. Through joins and leaves, the downstream table must equal
// the one the deltas define, and no member may keep rows of a task it does not own.
#include <gtest/gtest.h>

#include <atomic>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "batch_model.h"
#include "codec/state_codec.h"
#include "event_generator.h"
#include "model/url.h"
#include "pipeline/topics.h"
#include "pipeline/page_stage.h"
#include "pipeline/uri_stage.h"
#include "query/table_reader.h"
#include "seeds.h"
#include "task_cluster.h"

namespace webindex::testing {
namespace {

constexpr int32_t kTasks = 4;

//! A member whose one stage runner (the uri stage's unless said) joins group "g.<stage>".
class GroupMember : public Member {
 public:
  GroupMember(const std::string& name, Cluster& cluster, size_t max_batch, bool page_stage = false,
              pipeline::RunnerOptions options = {})
      : Member(name, cluster.brokers, kTasks), max_batch_(max_batch), page_stage_(page_stage) {
    defaults = std::move(options);
    auto admin = kafka::Admin::Create(cluster.config);  // one per member: an admin serves one thread
    EXPECT_TRUE(admin.ok());
    admin_ = std::move(admin).value();
    AddRunner();
    Start();
  }
  //! Stops (leaving the group, keeping the rows) and starts again on the same data dir, as a
  //! restarted process would; `while_down` runs in between.
  void Restart(const std::function<void()>& while_down = {}) {
    Stop();
    runners_.clear();
    if (while_down) while_down();
    AddRunner();
    Start();
  }
  ~GroupMember() {  // before the admin the runner uses goes
    Stop();
    runners_.clear();
  }
  pipeline::StageRunner& runner() { return *runners_[0]; }

 private:
  void AddRunner() {
    std::unique_ptr<pipeline::Stage> stage;
    if (page_stage_) {
      stage = std::make_unique<pipeline::PageStage>(Layout(false), codec::DecodeLimits{});
    } else {
      stage = std::make_unique<pipeline::UriStage>(Layout());
    }
    kafka::GroupMembership group;
    group.group_id = "g." + std::string(stage->name());
    group.session_timeout_ms = 3000;
    Add(std::move(stage), max_batch_, group, admin_.get());
  }
  const size_t max_batch_;
  const bool page_stage_;
  std::unique_ptr<kafka::Admin> admin_;
};

//! Waits until `members` own every task once between them.
void WaitSettled(const std::vector<GroupMember*>& members) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (std::chrono::steady_clock::now() < deadline) {
    std::multiset<int32_t> owned;
    for (GroupMember* m : members) {
      ASSERT_FALSE(m->runner().failed());
      for (int32_t t : m->runner().Owned()) owned.insert(t);
    }
    if (owned.size() == kTasks && std::set<int32_t>(owned.begin(), owned.end()).size() == kTasks) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL() << "the group did not settle on one owner per task within 90 s";
}

//! Waits until `members` own every task once between them, have read their input to its end,
//! and `downstream`'s table equals `want` (90 s at most). A member can lose its assignment after
//! the group settled (a commit of its that met a newer generation makes the client drop it; the
//! group then hands the tasks out again), so settling is waited for again until the table agrees.
void SettleAndCatchUp(const std::vector<GroupMember*>& members, Member& downstream, kafka::Admin& admin,
                      const Cells& want) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  do {
    WaitSettled(members);
    for (GroupMember* m : members) m->WaitFor(admin);
    downstream.WaitFor(admin);
    if (TableCells(*downstream.store_) == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  } while (std::chrono::steady_clock::now() < deadline);
  WaitSettled(members);
}

//! The stage rows of `m` all belong to tasks it owns: a task that left took its rows along.
void ExpectOnlyOwnedRows(GroupMember& m) {
  const std::set<int32_t> owned = m.runner().Owned();
  const std::string stage(m.runner().stage().name());
  size_t rows = 0;
  for (const auto& [key, value] : Family(*m.store_, *m.runner().stage().StateFamily())) {
    ++rows;
    EXPECT_TRUE(owned.count(pipeline::PartitionFor(key, kTasks))) << m.name_ << " keeps " << key;
  }
  for (int32_t t = 0; t < kTasks; ++t) {
    if (owned.count(t)) continue;
    EXPECT_TRUE(Family(*m.store_, state::Family::kDedupe, stage + "/" + std::to_string(t) + "/").empty()) << m.name_;
    const std::string position = pipeline::OffsetKey(stage, m.runner().stage().input_topic(), t);
    EXPECT_FALSE(m.store_->Get(state::Family::kOffsets, position).value())
        << m.name_ << " keeps the position of task " << t;
  }
  std::cout << m.name_ << " owns " << owned.size() << " " << stage << " tasks, " << rows << " rows" << std::endl;
}

TEST(GroupTasksTest, TasksMoveBetweenMembersThroughJoinsAndLeavesAndTheTableStaysExact) {
  const uint64_t seed = RandomTestSeeds({11}).front();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::cout << "group tasks, seed " << seed << std::endl;
  Cluster cluster({}, kTasks);
  kafka::Admin& admin = *cluster.admin;
  DeltaFeeder feeder(cluster.config, seed, kTasks);
  auto batch = [&] { return 1 + feeder.rng()() % 50; };

  // Downstream of the group: the domain stage and the sink, in a data dir of their own.
  Member downstream("downstream", cluster.brokers, kTasks);
  downstream.RunDownstream();

  // A alone owns every task.
  auto a = std::make_unique<GroupMember>("a", cluster, batch());
  feeder.Feed(300);
  WaitSettled({a.get()});
  a->WaitFor(admin);
  EXPECT_EQ(a->runner().Owned().size(), size_t{kTasks});

  // B joins: cooperative-sticky moves half of A's tasks, with their state, to B.
  auto b = std::make_unique<GroupMember>("b", cluster, batch());
  feeder.Feed(150);
  for (int i = 0; i < 100 && b->runner().Owned().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  WaitSettled({a.get(), b.get()});
  feeder.Feed(150);
  a->WaitFor(admin);
  b->WaitFor(admin);
  EXPECT_GT(a->runner().given_up(), 0u);
  EXPECT_GT(b->runner().taken_over(), 0u);
  ExpectOnlyOwnedRows(*a);
  ExpectOnlyOwnedRows(*b);

  // C joins, then A leaves: its tasks go to the others, restored from the changelog.
  auto c = std::make_unique<GroupMember>("c", cluster, batch());
  for (int i = 0; i < 100 && c->runner().Owned().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  feeder.Feed(200);
  a.reset();
  feeder.Feed(200);
  WaitSettled({b.get(), c.get()});
  b->WaitFor(admin);
  c->WaitFor(admin);
  ExpectOnlyOwnedRows(*b);
  ExpectOnlyOwnedRows(*c);

  // A comes back with its old data dir gone (a new member), B leaves.
  auto a2 = std::make_unique<GroupMember>("a2", cluster, batch());
  for (int i = 0; i < 100 && a2->runner().Owned().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  b.reset();
  feeder.Feed(300);
  const Cells want = ExpectedTable(feeder.expected());
  SettleAndCatchUp({c.get(), a2.get()}, downstream, admin, want);
  ExpectOnlyOwnedRows(*c);
  ExpectOnlyOwnedRows(*a2);
  EXPECT_EQ(TableCells(*downstream.store_), want);

  // The members' rows are, together, the counts the deltas define.
  std::map<std::string, std::string> rows;
  for (GroupMember* m : {c.get(), a2.get()}) {
    for (auto& [k, v] : Family(*m->store_, state::Family::kUris)) EXPECT_TRUE(rows.emplace(k, v).second) << k;
  }
  size_t live = 0;
  for (const auto& [uri, info] : feeder.expected()) {
    if (info.Exists()) ++live;
  }
  size_t stored = 0;
  for (const auto& [uri, bytes] : rows) {
    auto counted = codec::DecodeCounted(bytes);
    ASSERT_TRUE(counted.ok());
    if (counted->info.Exists()) ++stored;
    EXPECT_EQ(counted->info.links_to, feeder.expected().at(uri).links_to) << uri;
    EXPECT_EQ(counted->info.docs, feeder.expected().at(uri).docs) << uri;
  }
  EXPECT_EQ(stored, live);
}

//! Records in all partitions of the uri stage's changelog.
int64_t ChangelogRecords(kafka::Admin& admin) {
  int64_t n = 0;
  for (int32_t t = 0; t < kTasks; ++t) {
    auto marks = admin.Watermarks(pipeline::ChangelogTopic("webindex.changelog.", "uri"), t, 5000);
    EXPECT_TRUE(marks.ok());
    if (marks.ok()) n += marks->second - marks->first;
  }
  return n;
}

//! The uri rows of `m` are the counts of the URIs its tasks hold.
void ExpectRowsAreTheCounts(GroupMember& m, const std::map<std::string, model::UriInfo>& expected) {
  const std::set<int32_t> owned = m.runner().Owned();
  const std::map<std::string, std::string> rows = Family(*m.store_, state::Family::kUris);
  for (const auto& [uri, info] : expected) {
    if (!owned.count(pipeline::PartitionFor(uri, kTasks))) continue;
    auto row = rows.find(uri);
    if (row == rows.end()) {
      EXPECT_FALSE(info.Exists()) << m.name_ << " lacks " << uri;
      continue;
    }
    auto counted = codec::DecodeCounted(row->second);
    ASSERT_TRUE(counted.ok());
    EXPECT_EQ(counted->info.links_to, info.links_to) << m.name_ << " " << uri;
    EXPECT_EQ(counted->info.docs, info.docs) << m.name_ << " " << uri;
  }
}

// docs/scale-out.md §4: a member that stops keeps its tasks' rows and, once everything it sent is
// acknowledged and the group confirms it still owns them, notes that they are current copies.
// Restarted on its data dir and given a task back, it reads the task's changelog on from where
// the copy ends instead of from the start. A copy that another owner's claim followed is not
// used: that owner's writes may be compacted away in the changelog's tail.
TEST(GroupTasksTest, AMemberRestartedOnItsDataDirReadsOnFromTheCopyItKept) {
  const uint64_t seed = RandomTestSeeds({13}).front();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::cout << "local copies, seed " << seed << std::endl;
  Cluster cluster({}, kTasks);
  kafka::Admin& admin = *cluster.admin;
  DeltaFeeder feeder(cluster.config, seed, kTasks);
  Member downstream("downstream", cluster.brokers, kTasks);
  downstream.RunDownstream();

  auto a = std::make_unique<GroupMember>("a", cluster, 1 + feeder.rng()() % 50);
  feeder.Feed(400);
  WaitSettled({a.get()});
  a->WaitFor(admin);
  EXPECT_EQ(a->metrics_.tasks_resumed_locally.load(), 0u);

  // A restarts: every task comes back to it, read on from its copy, not from the log's start.
  const int64_t logged = ChangelogRecords(admin);
  const uint64_t restored_before = a->metrics_.restored_records;
  a->Restart();
  feeder.Feed(200);
  SettleAndCatchUp({a.get()}, downstream, admin, ExpectedTable(feeder.expected()));
  EXPECT_EQ(a->metrics_.tasks_resumed_locally.load(), uint64_t{kTasks});
  const uint64_t read = a->metrics_.restored_records - restored_before;
  std::cout << "restart: " << read << " changelog records read of " << logged << std::endl;
  EXPECT_LT(read * 4, static_cast<uint64_t>(logged)) << "the restart read the changelogs from their start";
  ExpectOnlyOwnedRows(*a);
  ASSERT_EQ(a->runner().Owned().size(), size_t{kTasks});
  ExpectRowsAreTheCounts(*a, feeder.expected());
  EXPECT_EQ(TableCells(*downstream.store_), ExpectedTable(feeder.expected()));

  // B joins; A stops, and while it is down B owns every task and claims A's. Restarted, A gets
  // them back only when B leaves: its copies are not current, it restores them from the changelog.
  auto b = std::make_unique<GroupMember>("b", cluster, 1 + feeder.rng()() % 50);
  for (int i = 0; i < 100 && b->runner().Owned().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  WaitSettled({a.get(), b.get()});
  feeder.Feed(200);
  a->WaitFor(admin);
  b->WaitFor(admin);
  const size_t kept = a->runner().Owned().size();
  ASSERT_GT(kept, 0u);
  a->Restart([&] {
    EXPECT_EQ(Family(*a->store_, state::Family::kMeta, "local-copy/uri/").size(), kept)
        << "the stop kept no copy: nothing below tests a copy another owner's claim followed";
    WaitSettled({b.get()});
    feeder.Feed(200);
    b->WaitFor(admin);
  });
  for (int i = 0; i < 100 && a->runner().Owned().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  WaitSettled({a.get(), b.get()});
  b.reset();
  feeder.Feed(200);
  SettleAndCatchUp({a.get()}, downstream, admin, ExpectedTable(feeder.expected()));
  EXPECT_EQ(a->metrics_.tasks_resumed_locally.load(), uint64_t{kTasks}) << "a copy another owner's claim followed was used";
  ExpectOnlyOwnedRows(*a);
  EXPECT_EQ(TableCells(*downstream.store_), ExpectedTable(feeder.expected()));
  ASSERT_EQ(a->runner().Owned().size(), size_t{kTasks});
  ExpectRowsAreTheCounts(*a, feeder.expected());
}

//! A changelog record as read: its offset, key, snapshot id (header `snap`) and whether it is null.
struct LoggedRecord {
  int64_t offset;
  std::string key, snapshot;
};

//! Every record of partition `task` of the uri stage's changelog, from its start to its end.
std::vector<LoggedRecord> ReadChangelog(Cluster& cluster, int32_t task) {
  const std::string topic = pipeline::ChangelogTopic("webindex.changelog.", "uri");
  std::vector<LoggedRecord> out;
  auto marks = cluster.admin->Watermarks(topic, task, 5000);
  EXPECT_TRUE(marks.ok());
  if (!marks.ok()) return out;
  auto consumer = kafka::Consumer::Create(cluster.config, "changelog-reader");
  EXPECT_TRUE(consumer.ok());
  EXPECT_TRUE((*consumer)->Assign({{topic, task, marks->first}}).ok());
  kafka::MessageBatch batch;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while ((out.empty() ? marks->first : out.back().offset + 1) < marks->second &&
         std::chrono::steady_clock::now() < deadline) {
    EXPECT_TRUE((*consumer)->PollBatch(10000, 500, &batch).ok());
    for (const auto& r : batch.records()) {
      out.push_back({r.offset, std::string(r.key), std::string(r.Header(pipeline::kSnapshotHeader).value_or(""))});
    }
    batch.Clear();
  }
  return out;
}

//! Every row of every family of `store`.
std::map<int, Cells> AllRows(state::Store& store) {
  std::map<int, Cells> out;
  for (int f = 0; f < static_cast<int>(state::Family::kCount); ++f) {
    out[f] = Family(store, static_cast<state::Family>(f));
  }
  return out;
}

// A member deletes the records of each task's changelog before the task's newest snapshot whose
// every record was acknowledged, once the group has confirmed that it still owns the task. The
// embedded broker serves no DeleteRecords, so the member stops at its first trim (not sent);
// what it would have deleted is checked here: each trim point is the begin record of a complete
// snapshot, and a restore of the log from there (as a trimmed log is read) equals one from the
// log's start. Before that, while the runner is told that another generation of the group shares
// the changelog (RunnerOptions::trims_allowed, app/group_generations.h), it trims nothing.
TEST(GroupTasksTest, AMemberTrimsEachChangelogToItsNewestAcknowledgedSnapshot) {
  const uint64_t seed = RandomTestSeeds({17}).front();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::cout << "changelog trims, seed " << seed << std::endl;
  Cluster cluster({}, kTasks);
  const std::string topic = pipeline::ChangelogTopic("webindex.changelog.", "uri");
  DeltaFeeder feeder(cluster.config, seed, kTasks);
  pipeline::RunnerOptions options;
  options.snapshot_min_bytes = 2048;  // many snapshots
  options.trim_interval = std::chrono::seconds(3);
  // First another generation shares the changelog (a replay of the group is being built): no trim.
  std::atomic<bool> allowed{false};
  std::atomic<int> gate_asked{0};
  options.trims_allowed = [&] {
    ++gate_asked;
    return allowed.load();
  };
  GroupMember a("a", cluster, 1 + seed % 20, false, options);
  // Deltas until the member has asked for its trims, and 2 s more: it joins, snapshots each task
  // it takes over and then every few KB, and asks for trims 10 s after its start at the earliest,
  // once its assignment is settled.
  auto feed_for = [&](std::chrono::seconds duration, const std::function<bool()>& until) {
    for (const auto deadline = std::chrono::steady_clock::now() + duration;
         std::chrono::steady_clock::now() < deadline && !until();) {
      feeder.Feed(40);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  };
  feed_for(std::chrono::seconds(60), [&] { return gate_asked >= 2 || !a.runner().trims_asked().empty(); });
  ASSERT_TRUE(a.runner().trims_asked().empty()) << "a trim while another generation shares the changelog";
  ASSERT_GE(gate_asked.load(), 2) << "the runner never came to a trim";
  allowed = true;
  feed_for(std::chrono::seconds(60), [&] { return !a.runner().trims_asked().empty(); });
  feed_for(std::chrono::seconds(2), [] { return false; });
  WaitSettled({&a});
  a.WaitFor(*cluster.admin);
  const std::map<int32_t, int64_t> asked = a.runner().trims_asked();
  ASSERT_FALSE(asked.empty()) << "no trim was asked for";
  EXPECT_TRUE(a.runner().trims_off()) << "the embedded broker serves no DeleteRecords";
  EXPECT_EQ(a.metrics_.changelog_trims.load(), 0u);
  EXPECT_EQ(a.metrics_.changelog_trims_refused.load(), 0u) << "the group did not confirm its only member";
  for (const auto& [task, before] : asked) {
    SCOPED_TRACE("task " + std::to_string(task) + ", trim before offset " + std::to_string(before));
    const std::vector<LoggedRecord> log = ReadChangelog(cluster, task);
    auto at = std::find_if(log.begin(), log.end(), [&](const LoggedRecord& r) { return r.offset == before; });
    ASSERT_NE(at, log.end());
    auto is = [](const LoggedRecord& r, std::string_view part) {
      const auto key = pipeline::ParseChangelogKey(r.key);
      return key && static_cast<char>(key->family) == pipeline::kChangelogSnapshot && key->state_key == part;
    };
    ASSERT_TRUE(is(*at, "begin")) << "the trim point is not a snapshot's first record";
    auto end =
        std::find_if(at, log.end(), [&](const LoggedRecord& r) { return r.snapshot == at->snapshot && is(r, "end"); });
    ASSERT_NE(end, log.end()) << "the snapshot at the trim point is not complete";
    EXPECT_TRUE(std::any_of(log.begin(), at, [&](const LoggedRecord& r) { return is(r, "begin"); }))
        << "the trim point is the task's first snapshot: the test trims nothing";
    EXPECT_NE(std::next(end), log.end()) << "nothing was logged after the snapshot trimmed to";
    // A restore of the log from the trim point gives what one from the start gives.
    const std::string dir = MakeTempDir("trim-restore");
    std::map<int, Cells> whole, trimmed;
    for (bool from_trim : {false, true}) {
      auto store = state::Store::Open(dir + (from_trim ? "/trimmed" : "/whole"), state::StoreOptions{});
      ASSERT_TRUE(store.ok()) << store.status().ToString();
      pipeline::TaskRestore restore(cluster.config, *cluster.admin, **store, topic, task, 1, "");
      if (from_trim) restore.StartAt(before);
      const Status st = restore.CatchUp();
      ASSERT_TRUE(st.ok()) << st.ToString();
      if (from_trim) EXPECT_GT(restore.stats().snapshot_rows, 0u);
      (from_trim ? trimmed : whole) = AllRows(**store);
    }
    EXPECT_FALSE(whole[static_cast<int>(state::Family::kUris)].empty());
    EXPECT_EQ(trimmed, whole);
    std::filesystem::remove_all(dir);
  }
  std::cout << asked.size() << " trims asked for; " << a.metrics_.snapshots.load() << " snapshots written" << std::endl;
}

//! Produces crawl events to the pages topic, most of them to another partition than their
//! page's task (each page to one, so that its events keep their order), and folds them into a
//! batch model of the table.
class EventFeeder {
 public:
  EventFeeder(const kafka::ClientConfig& config, uint64_t seed) : gen_(seed, kTasks) {
    auto producer = kafka::Producer::Create(config, [](uint64_t, const Status& st) { ASSERT_TRUE(st.ok()); });
    EXPECT_TRUE(producer.ok());
    producer_ = std::move(producer).value();
  }
  void Feed(size_t n) {
    for (auto& ev : gen_.Next(n)) {
      model_.Apply(ev.value);
      const int32_t partition = ev.partition_hint == 0 ? 0 : (ev.partition_hint + 1) % kTasks;
      ASSERT_TRUE(producer_->Produce({"pages", partition, ev.key, ev.value, {}}, 0).ok());
    }
    ASSERT_TRUE(producer_->Flush(10000).ok());
  }
  //! An event with headers of its producer's choosing, on `partition`.
  void Produce(int32_t partition, const std::string& value, std::vector<std::pair<std::string, std::string>> headers) {
    model_.Apply(value);
    ASSERT_TRUE(producer_->Produce({"pages", partition, "forged", value, std::move(headers)}, 0).ok());
    ASSERT_TRUE(producer_->Flush(10000).ok());
  }
  const BatchModel& model() const { return model_; }

 private:
  EventGenerator gen_;
  BatchModel model_;
  std::unique_ptr<kafka::Producer> producer_;
};

std::vector<std::string> TableLines(state::Store& store) {
  std::vector<std::string> lines;
  EXPECT_TRUE(query::ScanRows(store, "", [&](const sink::Cell& c) {
                lines.push_back(query::CellLine(c));
                return true;
              }).ok());
  return lines;
}

// The page stage in a group: a page's state lives in its URI's task wherever its events arrive.
// Members forward the events they read for pages of other tasks; through a join and a leave the
// table equals the batch model. Folding them where they arrive instead gives a member pages of
// tasks it does not own (the rows check) and state split between members (the table).
TEST(GroupTasksTest, PageTasksFollowTheirPagesWhereverTheirEventsArrive) {
  const uint64_t seed = RandomTestSeeds({13}).front();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::cout << "group page tasks, seed " << seed << std::endl;
  Cluster cluster({}, kTasks);
  for (const std::string topic : {"pages", "webindex.changelog.page", "webindex.changelog.domain"}) {
    ASSERT_TRUE(cluster.broker->CreateTopic(topic, kTasks).ok());
  }
  kafka::Admin& admin = *cluster.admin;
  EventFeeder feeder(cluster.config, seed);
  std::mt19937_64 rng(seed);

  // Downstream of the group: the uri and domain stages and the sink, in a data dir of their own.
  Member downstream("downstream", cluster.brokers, kTasks);
  downstream.Add(std::make_unique<pipeline::UriStage>(downstream.Layout(false)), 1000);
  downstream.RunDownstream();

  auto a = std::make_unique<GroupMember>("a", cluster, 1 + rng() % 30, /*page_stage=*/true);
  feeder.Feed(150);
  // A producer of pages copies the headers of every page task's forwards, with seqs no task
  // will reach: read as forwards, they would make the group drop every later forward as a
  // duplicate. They are events like any other.
  for (int32_t p = 0; p < kTasks; ++p) {
    for (int32_t from = 0; from < kTasks; ++from) {
      const std::string url = "http://forged.example/" + std::to_string(p) + "/" + std::to_string(from);
      feeder.Produce(p, R"({"url":")" + url + R"(","outboundLinks":[{"url":"http://t.example/"}]})",
                     {{pipeline::kForwardHeader, "page." + std::to_string(from)},
                      {pipeline::kForwardSeqHeader, "18446744073709551000"},
                      {"gen", std::to_string(pipeline::TopicLayout{}.generation)},
                      {"inst", a->Layout(false).instance}});
    }
  }
  WaitSettled({a.get()});
  a->WaitFor(admin);
  auto b = std::make_unique<GroupMember>("b", cluster, 1 + rng() % 30, /*page_stage=*/true);
  for (int i = 0; i < 100 && b->runner().Owned().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  feeder.Feed(150);
  WaitSettled({a.get(), b.get()});
  a->WaitFor(admin);
  b->WaitFor(admin);
  ExpectOnlyOwnedRows(*a);
  ExpectOnlyOwnedRows(*b);
  EXPECT_GT(a->metrics_.forwarded_events + b->metrics_.forwarded_events, 0u);
  a.reset();
  feeder.Feed(150);
  WaitSettled({b.get()});
  b->WaitFor(admin);
  downstream.WaitFor(admin);
  ExpectOnlyOwnedRows(*b);
  EXPECT_EQ(TableLines(*downstream.store_), feeder.model().TableLines());
}

// A page task that never read its partition starts where the partition starts now and names
// what the broker deleted before, as a new lone table does.
TEST(GroupTasksTest, AFreshPageTaskNamesTheInputDeletedBeforeIt) {
  Cluster cluster({}, kTasks);
  for (const std::string topic : {"pages", "webindex.changelog.page", "webindex.changelog.domain"}) {
    ASSERT_TRUE(cluster.broker->CreateTopic(topic, kTasks).ok());
  }
  auto producer = kafka::Producer::Create(cluster.config, [](uint64_t, const Status& st) { ASSERT_TRUE(st.ok()); });
  ASSERT_TRUE(producer.ok());
  // ~8 MiB of one page's events, in its task's partition: the broker keeps the newest ~5.
  const int32_t task = pipeline::PartitionFor(model::ParseUrl("http://c.com/")->ToUri(), kTasks);
  const std::string padding(900, 'x');
  constexpr int kEvents = 8000;
  for (int i = 0; i < kEvents; ++i) {
    ASSERT_TRUE((*producer)
                    ->Produce({"pages", task, "http://c.com/",
                               R"({"url":"http://c.com/","title":")" + std::to_string(i) + padding + R"("})", {}},
                              0)
                    .ok());
  }
  ASSERT_TRUE((*producer)->Flush(30000).ok());
  auto a = std::make_unique<GroupMember>("a", cluster, 1000, /*page_stage=*/true);
  WaitSettled({a.get()});
  a->WaitFor(*cluster.admin);
  EXPECT_GT(a->metrics_.deleted_before_start, 0u) << "the test needs the broker to have deleted records";
  EXPECT_EQ(a->metrics_.lost_records, 0u);
  EXPECT_EQ(a->metrics_.deleted_before_start + a->metrics_.events, static_cast<uint64_t>(kEvents));
}

TEST(GroupTasksTest, AStageWithoutTaskRowsOrChangelogCannotJoinAGroup) {
  Cluster cluster({}, kTasks);
  Member m("m", cluster.brokers, kTasks);
  kafka::GroupMembership group;
  group.group_id = "g.uri";
  pipeline::RunnerOptions options;  // no changelog
  options.group = group;
  options.admin = cluster.admin.get();
  pipeline::StageRunner runner(std::make_unique<pipeline::UriStage>(m.Layout()), 0, kTasks, *m.store_, *m.producer_,
                               m.config_, m.metrics_, options);
  const Status st = runner.Start();
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("without a changelog"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace webindex::testing
