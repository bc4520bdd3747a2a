// Replay / backfill: `webindex replay` rebuilds the table from the input topic into a new
// generation of the data dir while the current one keeps answering, switches atomically, and
// a running `webindex run` takes the new generation over. Interrupted replays resume with
// the same --from and roll back with --abort or another --from. Every table is compared
// with the batch computation over the events the generation covers.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <ctime>
#include <initializer_list>
#include <algorithm>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "batch_model.h"
#include "cli_cluster.h"
#include "codec/records.h"
#include "kafka/consumer.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

using namespace std::chrono_literals;

uint64_t SeedFromEnv(const char* test) {
  const uint64_t seed = std::getenv("WEBINDEX_SEEDS") ? std::stoull(std::getenv("WEBINDEX_SEEDS"))
                                                      : std::random_device{}();
  std::cout << test << " seed " << seed << " (rerun with WEBINDEX_SEEDS=" << seed << ")" << std::endl;
  return seed;
}

class ReplayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<CliCluster>(WEBINDEX_BINARY, "webindex-replay", 4);
    ASSERT_TRUE(cluster_->ok()) << "the embedded broker did not start; see " << cluster_->log();
  }

  std::vector<std::string> Replay(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"replay", "--brokers", cluster_->brokers(), "--data-dir", cluster_->data_dir()};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  //! Folds `events` into every model, in order, then produces them to `pages`.
  ::testing::AssertionResult Feed(const std::vector<GeneratedEvent>& events,
                                  std::initializer_list<BatchModel*> models) {
    for (const auto& ev : events) {
      for (BatchModel* m : models) m->Apply(ev.value);
    }
    return cluster_->Produce(events);
  }

  //! Builds generation 1 from everything in `pages` and checks it.
  void RunToIdle(const BatchModel& model) {
    ASSERT_EQ(cluster_->StartRun(true)->Wait(), 0) << "see " << cluster_->log();
    ASSERT_TRUE(cluster_->Dump() == model.TableLines()) << "the table differs from the batch computation";
  }

  //! Starts a replay and kills it once its stages run; false if it finished first.
  bool KillReplayMidway(const std::vector<std::string>& extra, const std::string& gen, std::mt19937_64& rng) {
    const size_t from = cluster_->LogSize();
    auto replay = cluster_->Start(Replay(extra));
    EXPECT_TRUE(cluster_->WaitForLog("query table in " + cluster_->data_dir() + "/gen-" + gen, 30000, from));
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 50));
    // A stalled broker holds the replay where it is (it would otherwise be done in moments).
    cluster_->broker().Signal(SIGSTOP);
    const bool running = replay->Running();
    if (running) replay->Signal(SIGKILL);
    replay->Wait();
    cluster_->broker().Signal(SIGCONT);
    return running;
  }

  //! Per partition of webindex.exports: the generations its generation records announce.
  std::vector<std::vector<uint64_t>> Announcements(int partitions) {
    std::vector<std::vector<uint64_t>> out(partitions);
    auto consumer = kafka::Consumer::Create({cluster_->brokers(), {}}, "replay-test");
    EXPECT_TRUE(consumer.ok()) << consumer.status().ToString();
    if (!consumer.ok()) return out;
    std::vector<kafka::TopicPartitionOffset> assignment;
    for (int32_t p = 0; p < partitions; ++p) assignment.push_back({"webindex.exports", p, kafka::kBeginning});
    EXPECT_TRUE((*consumer)->Assign(assignment).ok());
    codec::RecordDecoder decoder;
    kafka::MessageBatch batch;
    for (int empty_polls = 0; empty_polls < 5;) {
      EXPECT_TRUE((*consumer)->PollBatch(10000, 200, &batch).ok());
      if (batch.empty()) ++empty_polls;
      for (const auto& r : batch.records()) {
        auto e = decoder.DecodeExport(r.value);
        EXPECT_TRUE(e.ok()) << e.status().ToString();
        if (e.ok() && e->type == codec::ExportRecord::Type::kGeneration) out[r.partition].push_back(e->gen);
      }
      batch.Clear();
    }
    return out;
  }

  std::unique_ptr<CliCluster> cluster_;
};

TEST_F(ReplayTest, LiveRunTakesOverTheReplayedGeneration) {
  const uint64_t seed = SeedFromEnv("replay takeover");
  EventGenerator gen(seed, 4);
  BatchModel model;
  auto first = gen.Next(4000);
  ASSERT_TRUE(Feed(first, {&model}));
  RunToIdle(model);
  const auto before = model.TableLines();

  const size_t log_from = cluster_->LogSize();
  auto live = cluster_->StartRun(false);
  ASSERT_TRUE(cluster_->WaitForLog("query table in " + cluster_->data_dir() + "/gen-1", 30000, log_from));
  auto replay = cluster_->Start(Replay({"--switch-lag", "0"}));
  ASSERT_TRUE(cluster_->WaitForLog("replay from earliest into generation 2", 30000)) << "see " << cluster_->log();
  // The current table answers, whole, while generation 2 is built beside it.
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(cluster_->Dump() == before) << "a query during the replay saw a partial table";
    std::this_thread::sleep_for(100ms);
  }
  auto more = gen.Next(3000);  // arrives while the replay runs
  ASSERT_TRUE(Feed(more, {&model}));
  ASSERT_EQ(replay->Wait(), 0) << "see " << cluster_->log();
  EXPECT_EQ(cluster_->CurrentGeneration(), "2");
  ASSERT_TRUE(cluster_->WaitForLog("now running generation 2", 20000)) << "see " << cluster_->log();
  EXPECT_EQ(cluster_->GenerationDirs(), std::vector<std::string>{"gen-2"});
  ASSERT_TRUE(live->Running()) << "see " << cluster_->log();
  // The switch is announced once in every partition of the exports topic.
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(Announcements(4), std::vector<std::vector<uint64_t>>(4, std::vector<uint64_t>{2}));

  auto last = gen.Next(2000);  // processed by the live run on generation 2
  ASSERT_TRUE(Feed(last, {&model}));
  live->Signal(SIGTERM);
  EXPECT_EQ(live->Wait(), 0) << "see " << cluster_->log();
  RunToIdle(model);
  EXPECT_EQ(cluster_->CurrentGeneration(), "2");
}

TEST_F(ReplayTest, InterruptedReplayResumesAbortAndOtherFromRollBack) {
  const uint64_t seed = SeedFromEnv("interrupted replay");
  std::mt19937_64 rng(seed);
  EventGenerator gen(seed, 4);
  BatchModel model;
  auto events = gen.Next(20000);
  ASSERT_TRUE(Feed(events, {&model}));
  RunToIdle(model);
  const auto want = model.TableLines();

  // Killed mid-way, then --abort: generation 2 goes, generation 1 stays as it was.
  ASSERT_TRUE(KillReplayMidway({}, "2", rng)) << "the replay finished before it could be killed";
  EXPECT_EQ(cluster_->CurrentGeneration(), "1");
  EXPECT_EQ(cluster_->GenerationDirs(), (std::vector<std::string>{"gen-1", "gen-2"}));
  EXPECT_TRUE(cluster_->Dump() == want);
  ASSERT_EQ(cluster_->Run(Replay({"--abort"})), 0) << "see " << cluster_->log();
  EXPECT_TRUE(cluster_->WaitForLog("rolling back the unfinished replay of generation 2", 0));
  EXPECT_EQ(cluster_->GenerationDirs(), std::vector<std::string>{"gen-1"});
  EXPECT_TRUE(cluster_->Dump() == want);

  // Killed twice, resumed with the same --from: one generation, the batch table.
  ASSERT_TRUE(KillReplayMidway({}, "2", rng));
  ASSERT_TRUE(KillReplayMidway({}, "2", rng));
  EXPECT_TRUE(cluster_->WaitForLog("resuming the replay of generation 2", 0));
  ASSERT_EQ(cluster_->Run(Replay({"--switch-lag", "0"})), 0) << "see " << cluster_->log();
  EXPECT_EQ(cluster_->CurrentGeneration(), "2");
  EXPECT_EQ(cluster_->GenerationDirs(), std::vector<std::string>{"gen-2"});
  EXPECT_TRUE(cluster_->Dump() == want) << "seed " << seed << ": the resumed replay differs from the batch table";

  // Killed, then started with another --from: rolled back, replayed afresh.
  ASSERT_TRUE(KillReplayMidway({}, "3", rng));
  ASSERT_EQ(cluster_->Run(Replay({"--from", "1970-01-01T00:00:01Z", "--switch-lag", "0"})), 0)
      << "see " << cluster_->log();
  EXPECT_TRUE(cluster_->WaitForLog("rolling back the unfinished replay of generation 3", 0));
  EXPECT_EQ(cluster_->CurrentGeneration(), "4");
  EXPECT_EQ(cluster_->GenerationDirs(), std::vector<std::string>{"gen-4"});
  EXPECT_TRUE(cluster_->Dump() == want) << "seed " << seed;
}

// `--switch-lag 0` switches to a table that has every input record: what its stages committed
// and the broker has not acknowledged counts as lag. linger.ms holds every record back here, so
// that each stage has read all it was sent long before its own records reach the next one.
TEST_F(ReplayTest, SwitchLagZeroWaitsForRecordsOnTheirWay) {
  const uint64_t seed = SeedFromEnv("replay records on their way");
  EventGenerator gen(seed, 4);
  BatchModel model;
  ASSERT_TRUE(Feed(gen.Next(3000), {&model}));
  RunToIdle(model);
  ASSERT_EQ(cluster_->Run(Replay({"--switch-lag", "0", "-X", "linger.ms=900"})), 0) << "see " << cluster_->log();
  EXPECT_EQ(cluster_->CurrentGeneration(), "2");
  EXPECT_TRUE(cluster_->Dump() == model.TableLines())
      << "seed " << seed << ": the replay switched to a table without the records still on their way";
}

TEST_F(ReplayTest, FromTimeKeepsOnlyEventsStampedFromThen) {
  const uint64_t seed = SeedFromEnv("replay from time");
  EventGenerator gen(seed, 4);
  BatchModel all, later;
  auto early = gen.Next(3000);
  ASSERT_TRUE(Feed(early, {&all}));
  std::this_thread::sleep_for(50ms);
  const auto from = std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
  std::this_thread::sleep_for(50ms);
  auto late = gen.Next(3000);
  ASSERT_TRUE(Feed(late, {&all, &later}));
  RunToIdle(all);

  const auto ms = from.time_since_epoch().count();
  const std::time_t seconds = ms / 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  const std::string from_text = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900,
                                            utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, ms % 1000);
  // --force: pages that only early events had may go, by design (ReplayThatWouldEmptyTheTableIsRefused).
  ASSERT_EQ(cluster_->Run(Replay({"--from", from_text, "--switch-lag", "0", "--force"})), 0)
      << "see " << cluster_->log();
  EXPECT_EQ(cluster_->CurrentGeneration(), "2");
  EXPECT_TRUE(cluster_->Dump() == later.TableLines())
      << "seed " << seed << ": the replay from " << from_text << " differs from the batch table of the later events";

  // The generation keeps its start: newer events are processed as usual.
  auto newer = gen.Next(1000);
  ASSERT_TRUE(Feed(newer, {&later}));
  RunToIdle(later);

  // Bad input is refused with the reason.
  EXPECT_EQ(cluster_->Run(Replay({"--from", "yesterday"})), 2);
  EXPECT_TRUE(cluster_->WaitForLog("--from expects 'earliest' or an RFC 3339 time", 0));
}

// A replay from a time after every event (a typo of the year, say) would switch to an empty
// table: it stops before the switch and names what would go, whatever --switch-lag.
TEST_F(ReplayTest, ReplayThatWouldEmptyTheTableIsRefused) {
  const uint64_t seed = SeedFromEnv("replay from the future");
  EventGenerator gen(seed, 4);
  BatchModel model;
  ASSERT_TRUE(Feed(gen.Next(500), {&model}));
  ASSERT_TRUE(cluster_->ProduceRecords(
      {{"triples", 0, "<http://a.example/s>", "<http://a.example/s> <http://a.example/p> \"o\" .\n", {}}}));
  RunToIdle(model);
  const auto pages = model.TableLines();
  const size_t log_from = cluster_->LogSize();
  EXPECT_EQ(cluster_->Run(Replay({"--from", "2130-01-01T00:00:00Z"})), 1) << "see " << cluster_->log();
  EXPECT_TRUE(cluster_->WaitForLog("generation 2 would lack what generation 1 has: ", 0, log_from))
      << "see " << cluster_->log();
  EXPECT_TRUE(cluster_->WaitForLog(
      ", and 1 statement(s) (e.g. <http://a.example/s> <http://a.example/p> \"o\" .) whose input is no longer in "
      "topic triples (removed by retention) or is stamped before --from 2130-01-01T00:00:00.000Z",
      0, log_from))
      << "see " << cluster_->log();
  EXPECT_EQ(cluster_->CurrentGeneration(), "1");
  EXPECT_TRUE(cluster_->Dump() == pages) << "the refused replay changed the table";
  ASSERT_EQ(cluster_->Run(Replay({"--abort"})), 0) << "see " << cluster_->log();
  EXPECT_EQ(cluster_->GenerationDirs(), std::vector<std::string>{"gen-1"});
  // From earliest, nothing is missing: it switches.
  ASSERT_EQ(cluster_->Run(Replay({"--switch-lag", "0"})), 0) << "see " << cluster_->log();
  EXPECT_EQ(cluster_->CurrentGeneration(), "2");
  EXPECT_TRUE(cluster_->Dump() == pages);
}

//! Every partition announces generations in order, the current one last. A kill between
//! sending an announcement and committing its acknowledgement sends it again on restart, like
//! any committed record: repeats are allowed (an announcement is idempotent).
void ExpectAnnouncedInOrder(const std::vector<std::vector<uint64_t>>& announced, uint64_t current) {
  for (size_t p = 0; p < announced.size(); ++p) {
    const auto& gens = announced[p];
    EXPECT_TRUE(std::is_sorted(gens.begin(), gens.end())) << "partition " << p;
    ASSERT_FALSE(gens.empty()) << "partition " << p;
    EXPECT_EQ(gens.back(), current) << "partition " << p;
  }
}

// The instants between the durable steps of a switch, which a random kill rarely hits: killed
// at each (WEBINDEX_CRASH_AT, src/common/crash_point.h), the data dir recovers to one current
// generation with the batch table, and the switches are announced in order.
TEST_F(ReplayTest, KilledAtEachStepOfTheSwitchRecovers) {
  const uint64_t seed = SeedFromEnv("switch crash points");
  EventGenerator gen(seed, 4);
  BatchModel model;
  auto events = gen.Next(3000);
  ASSERT_TRUE(Feed(events, {&model}));
  RunToIdle(model);
  const auto want = model.TableLines();

  struct Case {
    const char* point;
    bool switched;        //!< GENERATION names the new generation after the kill
    bool recover_by_run;  //!< else by the same replay command again
  };
  const Case cases[] = {{"replay-before-announce", false, false},
                        {"replay-before-switch", false, false},
                        {"replay-after-switch", true, true}};
  int current = 1;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.point);
    auto replay = cluster_->Start(Replay({"--switch-lag", "0"}), std::string("WEBINDEX_CRASH_AT=") + c.point);
    ASSERT_EQ(replay->Wait(), 128 + SIGKILL) << "see " << cluster_->log();
    const int next = current + 1;
    EXPECT_EQ(cluster_->CurrentGeneration(), std::to_string(c.switched ? next : current));
    EXPECT_TRUE(cluster_->Dump() == want);
    if (c.recover_by_run) {
      ASSERT_EQ(cluster_->StartRun(true)->Wait(), 0) << "see " << cluster_->log();
    } else {
      ASSERT_EQ(cluster_->Run(Replay({"--switch-lag", "0"})), 0) << "see " << cluster_->log();
    }
    current = next;
    EXPECT_EQ(cluster_->CurrentGeneration(), std::to_string(current));
    EXPECT_EQ(cluster_->GenerationDirs(), std::vector<std::string>{"gen-" + std::to_string(current)});
    EXPECT_TRUE(cluster_->Dump() == want) << "seed " << seed;
  }

  // A running processor killed while it takes a new generation over.
  auto more = gen.Next(2000);
  ASSERT_TRUE(Feed(more, {&model}));
  const size_t log_from = cluster_->LogSize();
  auto live = cluster_->StartRun(false, "WEBINDEX_CRASH_AT=run-switch-started");
  ASSERT_TRUE(cluster_->WaitForLog("query table in " + cluster_->data_dir() + "/gen-" + std::to_string(current),
                                   30000, log_from));
  auto replay = cluster_->Start(Replay({"--switch-lag", "0"}));
  EXPECT_EQ(live->Wait(), 128 + SIGKILL) << "see " << cluster_->log();
  ++current;
  EXPECT_EQ(cluster_->CurrentGeneration(), std::to_string(current));
  // Restarted, it runs the new generation and removes the old one; the replay sees it done.
  ASSERT_EQ(cluster_->StartRun(true)->Wait(), 0) << "see " << cluster_->log();
  EXPECT_EQ(replay->Wait(), 0) << "see " << cluster_->log();
  EXPECT_EQ(cluster_->GenerationDirs(), std::vector<std::string>{"gen-" + std::to_string(current)});
  EXPECT_TRUE(cluster_->Dump() == model.TableLines()) << "seed " << seed;
  ExpectAnnouncedInOrder(Announcements(4), current);
}

}  // namespace
}  // namespace webindex::testing
