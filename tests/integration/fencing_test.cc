// Fencing (docs/scale-out.md §5, pipeline/fence.h): a member that lost a task must not change the
// table. Member A owns the uri stage's tasks; member B claims them (fence markers, then the claim
// in the changelog), restores their state and processes on. A, a zombie that never learned it
// lost them, processes the same input in batches of its own. Downstream, the domain stage and the
// sink must drop everything A wrote after the fence, and a restore of the changelog must skip A's
// records after the claim: the table equals the one the deltas define, and the restored state
// equals B's.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "codec/records.h"
#include "codec/state_codec.h"
#include "common/bytes.h"
#include "model/url.h"
#include "pipeline/changelog.h"
#include "pipeline/fence.h"
#include "pipeline/runner_keys.h"
#include "pipeline/uri_stage.h"
#include "pipeline_harness.h"
#include "task_cluster.h"
#include "seeds.h"
#include "sink/sink_stage.h"
#include "sink/table.h"

namespace webindex::testing {
namespace {

constexpr int32_t kPartitions = 2;

//! Member `b` takes the uri stage's tasks over: reads their changelogs, fences at the next
//! epoch, claims, reads on (what a member given the partitions does).
void TakeOver(Member& b, kafka::Admin& admin, const kafka::ClientConfig& config, uint64_t want_epoch) {
  const pipeline::TopicNames names;
  const std::string changelog = pipeline::ChangelogTopic("webindex.changelog.", "uri");
  for (int32_t task = 0; task < kPartitions; ++task) {
    pipeline::ClaimSpec spec{"uri", task, 1, b.name_, changelog,
                             {{names.domain_deltas, kPartitions}, {names.exports, kPartitions}}};
    auto took = pipeline::TakeOverTask(config, admin, *b.store_, spec);
    ASSERT_TRUE(took.ok()) << took.status().ToString();
    EXPECT_EQ(took->epoch, want_epoch);
  }
}


TEST(FencingTest, AFormerOwnerThatGoesOnWritingChangesNeitherTheTableNorTheRestoredState) {
  const uint64_t seed = RandomTestSeeds({5}).front();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::cout << "fencing, seed " << seed << std::endl;
  Cluster cluster;
  kafka::Admin& admin = *cluster.admin;
  DeltaFeeder feeder(cluster.config, seed);

  // Downstream: the domain stage and the sink, in a data dir of their own.
  Member c("c", cluster.brokers);
  c.RunDownstream();

  // A owns the uri tasks and commits in small batches.
  auto a = std::make_unique<Member>("a", cluster.brokers);
  a->RunUriStage(1 + feeder.rng()() % 7);
  feeder.Feed(200);
  a->WaitFor(admin);

  Member b("b", cluster.brokers);
  TakeOver(b, admin, cluster.config, 1);
  b.RunUriStage(1000);

  // A goes on as if it still owned them, in batches of its own: a different history.
  feeder.Feed(200);
  a->WaitFor(admin);
  b.WaitFor(admin);
  a.reset();  // it learns that it lost its tasks
  feeder.Feed(200);
  b.WaitFor(admin);
  c.WaitFor(admin);
  EXPECT_GT(c.metrics_.fenced_records.load(), 0u) << "A's records after the fence reached the receivers";
  EXPECT_EQ(TableCells(*c.store_), ExpectedTable(feeder.expected()));

  // Restoring the changelogs gives B's state: A's records after the claim are void.
  b.Stop();
  const std::string changelog = pipeline::ChangelogTopic("webindex.changelog.", "uri");
  const std::string dir = MakeTempDir("fencing-restore");
  {
    auto store = state::Store::Open(dir + "/db", state::StoreOptions{});
    ASSERT_TRUE(store.ok());
    uint64_t void_records = 0;
    for (int32_t task = 0; task < kPartitions; ++task) {
      pipeline::TaskRestore restore(cluster.config, admin, **store, changelog, task, 1, "");
      ASSERT_TRUE(restore.CatchUp().ok());
      EXPECT_EQ(restore.epoch(), 1u);
      void_records += restore.stats().void_records;
    }
    EXPECT_GT(void_records, 0u) << "A wrote nothing to the changelog after the claim";
    EXPECT_EQ(Family(**store, state::Family::kUris), Family(*b.store_, state::Family::kUris));
    EXPECT_EQ(Family(**store, state::Family::kDedupe), Family(*b.store_, state::Family::kDedupe));
    EXPECT_EQ(Family(**store, state::Family::kOffsets), Family(*b.store_, state::Family::kOffsets));
    EXPECT_EQ(Family(**store, state::Family::kMeta, "task-"), Family(*b.store_, state::Family::kMeta, "task-"));
  }
  std::filesystem::remove_all(dir);
}

// §4 and §5: a commit counts once its changelog records are in, whether or not its owner then
// sent its records. A's last commits reach the changelog (broker 2) while the outputs' broker 1
// is down, and A dies with their records undelivered. B restores the tasks with those commits
// and must send their records itself.
TEST(FencingTest, ANewOwnerSendsTheRecordsOfRestoredCommitsThatTheirOwnerNeverSent) {
  const uint64_t seed = RandomTestSeeds({7}).front();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::cout << "adoption, seed " << seed << std::endl;
  Cluster cluster({.input = 2, .changelog = 2, .outputs = 1});
  kafka::Admin& admin = *cluster.admin;
  DeltaFeeder feeder(cluster.config, seed);

  Member c("c", cluster.brokers);
  c.RunDownstream();

  auto a = std::make_unique<Member>("a", cluster.brokers);
  a->RunUriStage(1 + feeder.rng()() % 20);
  feeder.Feed(100);
  a->WaitFor(admin);

  ASSERT_TRUE(cluster.broker->SetBrokerUp(false, 1).ok());
  feeder.Feed(100);
  // Wait until A has read it all and its changelog stopped growing: its commits are in.
  a->WaitRead(200);
  const std::vector<std::string> changelog = {pipeline::ChangelogTopic("webindex.changelog.", "uri")};
  for (int64_t before = -1, now = cluster.Ends(changelog); now != before; before = now, now = cluster.Ends(changelog)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  EXPECT_GT(a->runners_[0]->unacked(), 0u) << "A's records were delivered although their broker is down";
  a->Crash();
  a.reset();
  ASSERT_TRUE(cluster.broker->SetBrokerUp(true, 1).ok());

  Member b("b", cluster.brokers);
  TakeOver(b, admin, cluster.config, 1);
  EXPECT_FALSE(Family(*b.store_, state::Family::kOutbox, pipeline::TaskOutboxPrefix("uri")).empty())
      << "the changelog holds no records of A's last commits";
  b.RunUriStage(1000);
  b.WaitFor(admin);
  c.WaitFor(admin);
  EXPECT_EQ(TableCells(*c.store_), ExpectedTable(feeder.expected())) << "before more input";
  feeder.Feed(100);
  b.WaitFor(admin);
  c.WaitFor(admin);
  EXPECT_EQ(TableCells(*c.store_), ExpectedTable(feeder.expected()));
  // Nothing of A's is left for a later owner to send again.
  b.Stop();
  EXPECT_EQ(Family(*b.store_, state::Family::kOutbox, pipeline::TaskOutboxPrefix("uri")), Cells{});
}

// The claim rules of TaskRestore on a changelog written by hand: a claim cuts off the unfinished
// commit before it, a former owner's records after it are void whoever restores, and of two
// claims of one epoch the first wins.
TEST(FencingTest, RestoreCountsTheFirstClaimOfAnEpochAndVoidsWhatTheFormerOwnerWritesAfterIt) {
  Cluster cluster;
  const kafka::ClientConfig& config = cluster.config;
  const std::string topic = pipeline::ChangelogTopic("webindex.changelog.", "uri");
  auto producer = kafka::Producer::Create(config, [](uint64_t, const Status& st) { EXPECT_TRUE(st.ok()); });
  ASSERT_TRUE(producer.ok());
  auto hdr = [](const std::string& inst, uint64_t ep) {
    std::vector<std::pair<std::string, std::string>> h = {{"gen", "1"}, {"inst", inst}};
    if (ep) h.emplace_back(pipeline::kEpochHeader, std::to_string(ep));
    return h;
  };
  auto put = [&](const std::string& k, const std::string& v, const std::string& inst, uint64_t ep) {
    return OutRecord{topic, 0, pipeline::ChangelogKey(1, state::Family::kUris, k), v, hdr(inst, ep)};
  };
  auto close = [&](const std::string& inst, uint64_t ep) {
    return OutRecord{topic, 0, pipeline::ChangelogCommitKey(1), "", hdr(inst, ep)};
  };
  auto claim = [&](const std::string& inst, uint64_t ep) {
    BytesWriter v;
    v.PutFixed64BE(ep);
    auto h = hdr(inst, ep);
    h.emplace_back(pipeline::kClaimHeader, "uri.0");
    return OutRecord{topic, 0, pipeline::ClaimKey(1, "uri", 0, ep), v.Take(), h};
  };
  const std::vector<OutRecord> records = {
      put("a", "1", "A", 0), close("A", 0),  // A's commit
      put("b", "2", "A", 0),                 // A's next, unfinished when B claims
      claim("B", 1),
      put("a", "9", "A", 0), close("A", 0),  // A, not knowing: void
      claim("C", 1),                         // too late for epoch 1: void
      put("c", "3", "B", 1), close("B", 1),  // B's commit
  };
  for (const auto& r : records) ASSERT_TRUE((*producer)->Produce(r, 0).ok());
  ASSERT_TRUE((*producer)->Flush(10000).ok());

  for (const std::string instance : {"", "A"}) {
    SCOPED_TRACE("restoring the records of data dir '" + instance + "'");
    const std::string dir = MakeTempDir("fencing-claims");
    {
      auto store = state::Store::Open(dir + "/db", state::StoreOptions{});
      ASSERT_TRUE(store.ok());
      pipeline::TaskRestore restore(config, *cluster.admin, **store, topic, 0, 1, instance);
      ASSERT_TRUE(restore.CatchUp().ok());
      EXPECT_EQ(restore.epoch(), 1u);
      EXPECT_EQ(restore.claimed_by(), "B");
      EXPECT_EQ(restore.stats().claims, 1u);
      EXPECT_EQ(restore.stats().interrupted, 1u);
      EXPECT_EQ(restore.stats().void_records, 3u);
      EXPECT_EQ(Family(**store, state::Family::kUris), instance.empty() ? (Cells{{"a", "1"}, {"c", "3"}}) : (Cells{{"a", "1"}}));
      BytesWriter one;
      one.PutFixed64BE(1);
      EXPECT_EQ(Family(**store, state::Family::kMeta), (Cells{{pipeline::TaskEpochKey("uri", 0), one.str()}}));
    }
    std::filesystem::remove_all(dir);
  }
}

// A member of an earlier group generation outranks no claim of a later one (NextEpoch): C, given
// the uri tasks at generation 3 and then dropped by the group while it took them over, wakes up
// after B took them over at generation 5. Reading B's claim, C claims nothing (the group no longer
// counts it); having read the log before B's claim, its late claim is void and its fence markers
// void none of B's records. The table downstream is the one the deltas define.
TEST(FencingTest, AMemberOfAnEarlierGroupGenerationTakesNoTaskFromItsNextOwner) {
  const uint64_t seed = RandomTestSeeds({19}).front();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Cluster cluster;
  kafka::Admin& admin = *cluster.admin;
  DeltaFeeder feeder(cluster.config, seed);
  Member down("down", cluster.brokers);
  down.RunDownstream();
  auto a = std::make_unique<Member>("a", cluster.brokers);
  a->RunUriStage(1 + feeder.rng()() % 7);
  feeder.Feed(200);
  a->WaitFor(admin);
  a.reset();

  const pipeline::TopicNames names;
  const std::string changelog = pipeline::ChangelogTopic("webindex.changelog.", "uri");
  auto spec_of = [&](const std::string& member, int32_t task, int32_t group_generation, bool counted) {
    pipeline::ClaimSpec spec{"uri",  task,      1,
                             member, changelog, {{names.domain_deltas, kPartitions}, {names.exports, kPartitions}}};
    spec.group_generation = group_generation;
    spec.confirm_member = [counted] {
      return counted ? Status::Ok() : Status::Aborted("the group refused the commit: unknown member");
    };
    return spec;
  };
  Member b("b", cluster.brokers);
  Member c("c", cluster.brokers);
  const uint64_t b_epoch = uint64_t{5} << 32;
  for (int32_t task = 0; task < kPartitions; ++task) {
    auto took = pipeline::TakeOverTask(cluster.config, admin, *b.store_, spec_of("b", task, 5, true));
    ASSERT_TRUE(took.ok()) << took.status().ToString();
    EXPECT_TRUE(took->ours);
    EXPECT_EQ(took->epoch, b_epoch);
  }
  // C, after B's claim: nothing claimed, nothing written.
  const int64_t logged = cluster.Ends({changelog, names.domain_deltas, names.exports});
  auto lost = pipeline::TakeOverTask(cluster.config, admin, *c.store_, spec_of("c", 0, 3, false));
  ASSERT_TRUE(lost.ok()) << lost.status().ToString();
  EXPECT_FALSE(lost->ours) << "a member of generation 3 took a task claimed at generation 5";
  // Neither does one of B's own generation (a process B replaced under its static member id),
  // nor one that does not know its generation, once the group refuses them.
  for (const int32_t generation : {5, -1}) {
    auto refused = pipeline::TakeOverTask(cluster.config, admin, *c.store_, spec_of("c", 0, generation, false));
    ASSERT_TRUE(refused.ok()) << refused.status().ToString();
    EXPECT_FALSE(refused->ours) << "a member of generation " << generation << " took a task without asking the group";
  }
  EXPECT_EQ(cluster.Ends({changelog, names.domain_deltas, names.exports}), logged) << "C wrote a claim or markers";
  // C, having read the log before B's claim, claims late.
  const auto late = pipeline::NextEpoch(0, 3);
  ASSERT_TRUE(late.has_value());
  ASSERT_TRUE(pipeline::ClaimTask(cluster.config, spec_of("c", 1, 3, false), *late).ok());

  b.RunUriStage(1000);
  feeder.Feed(200);
  b.WaitFor(admin);
  down.WaitFor(admin);
  EXPECT_EQ(down.metrics_.fenced_records.load(), 0u) << "C's markers fenced B's records";
  EXPECT_EQ(TableCells(*down.store_), ExpectedTable(feeder.expected()));
  b.Stop();
  const std::string dir = MakeTempDir("fencing-generations");
  {
    auto store = state::Store::Open(dir + "/db", state::StoreOptions{});
    ASSERT_TRUE(store.ok());
    for (int32_t task = 0; task < kPartitions; ++task) {
      pipeline::TaskRestore restore(cluster.config, admin, **store, changelog, task, 1, "");
      ASSERT_TRUE(restore.CatchUp().ok());
      EXPECT_EQ(restore.epoch(), b_epoch) << "task " << task;
      EXPECT_EQ(restore.claimed_by(), "b") << "task " << task;
    }
    EXPECT_EQ(Family(**store, state::Family::kUris), Family(*b.store_, state::Family::kUris));
  }
  std::filesystem::remove_all(dir);
  // A group made anew (its generations begin again) still takes its tasks: the member the group
  // counts claims after the claim in force.
  Member d("d", cluster.brokers);
  auto anew = pipeline::TakeOverTask(cluster.config, admin, *d.store_, spec_of("d", 0, 1, true));
  ASSERT_TRUE(anew.ok()) << anew.status().ToString();
  EXPECT_TRUE(anew->ours);
  EXPECT_EQ(anew->epoch, b_epoch + 1);
  // Another member of the same generation that the group still counts claims after it; a member
  // claiming again after its own claim of its generation does not ask.
  auto same = pipeline::TakeOverTask(cluster.config, admin, *b.store_, spec_of("b", 0, 5, true));
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_TRUE(same->ours);
  EXPECT_EQ(same->epoch, b_epoch + 2);
  auto again = pipeline::TakeOverTask(cluster.config, admin, *b.store_, spec_of("b", 0, 5, false));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->ours) << "a member asked the group before claiming after its own claim";
  EXPECT_EQ(again->epoch, b_epoch + 3);
}

// Step 4 of docs/scale-out.md §5: a batch's records exist only after its changelog records do, so
// that a batch a claim voids can never have reached a receiver before the fence. The changelog's
// partitions are led by a second broker, which goes down: until it is back, nothing of the batch
// may appear in the output topics, led by the first.
TEST(FencingTest, ABatchsRecordsAreSentOnlyAfterItsChangelogRecordsAreAcknowledged) {
  Cluster cluster({.input = 1, .changelog = 2, .outputs = 1});
  kafka::Admin& admin = *cluster.admin;
  const pipeline::TopicNames names;
  Member a("a", cluster.brokers);
  a.RunUriStage(1000);
  a.WaitFor(admin);  // the start's commit, acknowledged
  ASSERT_TRUE(cluster.broker->SetBrokerUp(false, 2).ok());

  DeltaFeeder feeder(cluster.config, 1);
  feeder.Feed(20);
  a.WaitRead(20);
  // Committed, its changelog records sent to a broker that is down: its outputs wait (sent at
  // once, they appear within a second).
  const std::vector<std::string> outputs = {names.exports, names.domain_deltas};
  int64_t sent = 0;
  for (int i = 0; i < 20 && sent == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    sent = cluster.Ends(outputs);
  }
  EXPECT_EQ(sent, 0) << "outputs were sent before the changelog records were acknowledged";
  EXPECT_GT(a.runners_[0]->unacked(), 0u);

  ASSERT_TRUE(cluster.broker->SetBrokerUp(true, 2).ok());
  a.WaitFor(admin);  // the changelog answers: the outputs go
  EXPECT_GT(cluster.Ends(outputs), 0);
}

}  // namespace
}  // namespace webindex::testing
