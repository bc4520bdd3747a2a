// `webindex run --group` (docs/scale-out.md): several real `webindex run` processes, each with a
// data dir of its own, share the page, uri and domain stages' partitions through consumer groups
// on `webindex broker` (a process of its own, so that topics outlive the members). Members are
// SIGKILLed and restarted, join and leave while crawl events stream in; every live member's
// table (each keeps the whole table) must equal the batch table in the end.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "batch_model.h"
#include "cli_cluster.h"
#include "http_test_client.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

using namespace std::chrono_literals;
constexpr int kPartitions = 4;

class GroupCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<CliCluster>(WEBINDEX_BINARY, "webindex-group", kPartitions);
    ASSERT_TRUE(cluster_->ok()) << "the embedded broker did not start; see " << cluster_->log();
    config_ = cluster_->dir() + "/member.toml";
    std::ofstream(config_) << "[group]\nsession_timeout_ms = 6000\n[pagerank]\ninterval_s = 0\n";
  }
  std::string DataDir(const std::string& member) const { return cluster_->dir() + "/" + member; }
  //! A member of group "crawl" that runs its share of the stages and keeps the table, or `what`
  //! says otherwise ("--no-stages", or "" for no table); `env` as CliCluster::Start takes it.
  std::unique_ptr<ChildProcess> StartMember(const std::string& member, const std::string& what = "--table",
                                            const std::string& env = "") {
    std::vector<std::string> args = {"run",     "--brokers", cluster_->brokers(), "--data-dir", DataDir(member),
                                     "--group", "crawl",     "--config",          config_};
    if (what == "--no-stages") args.push_back("--table");
    if (!what.empty()) args.push_back(what);
    return cluster_->Start(args, env);
  }
  //! `webindex run --exit-when-idle` on data dir `member` with `extra` arguments: its exit code.
  int RunToIdle(const std::string& member, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run", "--brokers", cluster_->brokers(), "--data-dir", DataDir(member),
                                     "--exit-when-idle", "--config", config_};
    args.insert(args.end(), extra.begin(), extra.end());
    return cluster_->Run(args);
  }
  //! `member`'s table; empty while its data dir is being made (the dump then fails).
  std::vector<std::string> Dump(const std::string& member) {
    std::string out;
    if (cluster_->Run({"dump", "--data-dir", DataDir(member)}, &out) != 0) return {};
    std::vector<std::string> lines;
    std::stringstream ss(out);
    for (std::string line; std::getline(ss, line);) lines.push_back(line);
    return lines;
  }
  //! Waits up to two minutes for `member`'s table to equal `want`.
  void ExpectTable(const std::string& member, const std::vector<std::string>& want) {
    std::vector<std::string> got;
    for (auto deadline = std::chrono::steady_clock::now() + 120s; std::chrono::steady_clock::now() < deadline;) {
      got = Dump(member);
      if (got == want) return;
      std::this_thread::sleep_for(1s);
    }
    EXPECT_EQ(got, want) << member << "'s table; see " << cluster_->log();
  }

  //! The seed of a randomized test: WEBINDEX_SEEDS, or a random one; printed with how to rerun it.
  static uint64_t Seed(const std::string& test) {
    const uint64_t seed =
        std::getenv("WEBINDEX_SEEDS") ? std::stoull(std::getenv("WEBINDEX_SEEDS")) : std::random_device{}();
    std::cout << test << " seed " << seed << " (rerun with WEBINDEX_SEEDS=" << seed << ")" << std::endl;
    return seed;
  }
  //! Produces `n` events of `gen`, each to its page's partition, and folds them into `model`.
  void Feed(EventGenerator& gen, BatchModel& model, size_t n) {
    auto events = gen.Next(n);
    for (auto& ev : events) model.Apply(ev.value);
    ASSERT_TRUE(cluster_->Produce(events));
  }

  //! The same, but a page's events go to its task's partition or, for half of the tasks, all to
  //! the next one (as a producer keying by raw URL would put them), to be forwarded.
  void FeedForwarded(EventGenerator& gen, BatchModel& model, size_t n) {
    auto events = gen.Next(n);
    for (auto& ev : events) {
      model.Apply(ev.value);
      if (ev.partition_hint % 2) ev.partition_hint = (ev.partition_hint + 1) % kPartitions;
    }
    ASSERT_TRUE(cluster_->Produce(events));
  }

  //! The tasks (`stage`.N) named in lines of the processes' log from byte `from` on that
  //! contain `needle` (e.g. "stage uri: gave up").
  std::set<std::string> TasksIn(const std::string& needle, const std::string& stage, size_t from) const {
    std::ifstream log(cluster_->log());
    log.seekg(static_cast<std::streamoff>(from));
    std::set<std::string> tasks;
    const std::regex task("\\b" + stage + "\\.[0-9]+\\b");
    for (std::string line; std::getline(log, line);) {
      if (line.find(needle) == std::string::npos) continue;
      for (std::sregex_iterator it(line.begin(), line.end(), task), end; it != end; ++it) tasks.insert(it->str());
    }
    return tasks;
  }
  //! Lines of the processes' log that contain `needle`.
  size_t Count(const std::string& needle) const {
    std::ifstream log(cluster_->log());
    size_t n = 0;
    for (std::string line; std::getline(log, line);) n += line.find(needle) != std::string::npos;
    return n;
  }
  //! Waits up to a minute for process `pid` to be stopped (state T in /proc/<pid>/stat).
  static bool WaitStopped(pid_t pid) {
    for (auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;) {
      std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
      std::string content((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
      const size_t paren = content.rfind(')');
      if (paren != std::string::npos && paren + 2 < content.size() && content[paren + 2] == 'T') return true;
      std::this_thread::sleep_for(50ms);
    }
    return false;
  }

  std::unique_ptr<CliCluster> cluster_;
  std::string config_;
};

TEST_F(GroupCliTest, MembersKilledRestartedJoiningAndLeavingKeepEveryTableExact) {
  const uint64_t seed = Seed("group test");
  std::mt19937_64 rng(seed);
  EventGenerator gen(seed, kPartitions);
  BatchModel model;
  auto feed = [&](size_t n) { FeedForwarded(gen, model, n); };

  // Waits until `member`'s table has rows: the group has settled and processes.
  auto wait_for_rows = [&](const std::string& member) {
    for (auto deadline = std::chrono::steady_clock::now() + 120s; std::chrono::steady_clock::now() < deadline;) {
      if (!Dump(member).empty()) return;
      std::this_thread::sleep_for(200ms);
    }
    ADD_FAILURE() << member << " never applied anything; see " << cluster_->log();
  };

  std::map<std::string, std::unique_ptr<ChildProcess>> members;
  for (const char* m : {"a", "b", "c"}) members[m] = StartMember(m);
  feed(600);
  wait_for_rows("a");
  std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 2000));
  // b dies mid-stream; the others take its tasks over once its session times out.
  members["b"]->Signal(SIGKILL);
  EXPECT_EQ(members["b"]->Wait(), 128 + SIGKILL);
  feed(600);
  std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 4000));
  // b comes back on its data dir; c is killed too and d joins with a new one.
  members["b"] = StartMember("b");
  members["c"]->Signal(SIGKILL);
  EXPECT_EQ(members["c"]->Wait(), 128 + SIGKILL);
  members.erase("c");
  members["d"] = StartMember("d");
  feed(600);
  wait_for_rows("d");
  std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 3000));
  // a leaves cleanly.
  members["a"]->Signal(SIGTERM);
  EXPECT_EQ(members["a"]->Wait(), 0) << "see " << cluster_->log();
  members.erase("a");
  feed(600);

  const std::vector<std::string> want = model.TableLines();
  for (const auto& [name, process] : members) ExpectTable(name, want);
  for (auto& [name, process] : members) {
    process->Signal(SIGTERM);
    EXPECT_EQ(process->Wait(), 0) << name << "; see " << cluster_->log();
  }
  // A member that left keeps the table it had; started again, it catches up with the group.
  auto a = StartMember("a");
  ExpectTable("a", want);
  a->Signal(SIGTERM);
  EXPECT_EQ(a->Wait(), 0) << "see " << cluster_->log();
}

// The zombie case (docs/scale-out.md §5): member a stops (SIGSTOP, as a long stall would) right
// after a commit of its uri stage, before it sends the commit's changelog records and outputs.
// Past its session timeout the group gives its tasks to b, which fences and claims them and
// stops right there (a pause point), before it reads anything. a wakes up and sends what it had
// in hand before it learns that its tasks are gone; then b wakes up and processes the tasks'
// input again under the same seqs, in batches of its own. Receivers must drop a's records as
// fenced: accepted, they take the seqs of b's records, which are then dropped as duplicates, and
// the tables differ (checked by removing the receivers' fence check). Both tables end equal to
// the batch table.
TEST_F(GroupCliTest, AMemberPausedPastItsSessionTimeoutChangesNoTableWhenItWakes) {
  EventGenerator gen(Seed("group pause test"), kPartitions);
  BatchModel model;
  auto feed = [&](size_t n) { Feed(gen, model, n); };
  const std::string arm_b = cluster_->dir() + "/arm-b";
  auto a = StartMember("a", "--table", "WEBINDEX_PAUSE_AT=uri-committed");
  auto b = StartMember("b", "--table", "WEBINDEX_PAUSE_AT=uri-taken-over WEBINDEX_PAUSE_IF=" + arm_b);
  // Both own uri tasks before any input comes.
  for (auto deadline = std::chrono::steady_clock::now() + 60s;
       Count("stage uri: took over") < 2 && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_GE(Count("stage uri: took over"), 2u) << "see " << cluster_->log();
  feed(1000);
  ASSERT_TRUE(WaitStopped(a->pid())) << "a never reached its pause point; see " << cluster_->log();
  std::ofstream(arm_b).put('1');
  ASSERT_TRUE(WaitStopped(b->pid())) << "b never took a's tasks over; see " << cluster_->log();
  a->Signal(SIGCONT);
  std::this_thread::sleep_for(2s);  // a sends what it had; b's session (6 s) must not time out
  b->Signal(SIGCONT);
  feed(300);
  ExpectTable("b", model.TableLines());
  ExpectTable("a", model.TableLines());
  for (auto* m : {a.get(), b.get()}) {
    m->Signal(SIGTERM);
    EXPECT_EQ(m->Wait(), 0) << "see " << cluster_->log();
  }
  // What a sent on waking reached the receivers, who dropped it.
  std::ifstream log(cluster_->log());
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(std::regex_search(text, std::regex("fenced=[1-9]"))) << "nothing was fenced; see " << cluster_->log();
}

// A member that stalls the moment it is given tasks (SIGSTOP before it reads their changelogs),
// past its session timeout: the group gives the tasks back to the others, which claim them at a
// later group generation and go on. Woken, the stalled member reads those claims and takes
// nothing (a claim ranks by the claimer's group generation, docs/scale-out.md §5): claiming
// "one more" than the epoch it read, its fence markers would void the others' records for
// those tasks and their tables would lose them.
TEST_F(GroupCliTest, AMemberStalledWhileGivenTasksTakesThemFromNoOne) {
  EventGenerator gen(Seed("stalled takeover test"), kPartitions);
  BatchModel model;
  auto feed = [&](size_t n) { Feed(gen, model, n); };
  auto a = StartMember("a");
  auto b = StartMember("b");
  auto took_over = [&](size_t n) {
    for (auto deadline = std::chrono::steady_clock::now() + 60s;
         Count("stage uri: took over") < n && std::chrono::steady_clock::now() < deadline;) {
      std::this_thread::sleep_for(100ms);
    }
    return Count("stage uri: took over") >= n;
  };
  ASSERT_TRUE(took_over(2)) << "see " << cluster_->log();
  feed(600);
  const size_t c_started = cluster_->LogSize();
  auto c = StartMember("c", "", "WEBINDEX_PAUSE_AT=uri-assigned");
  ASSERT_TRUE(WaitStopped(c->pid())) << "c was given no uri task; see " << cluster_->log();
  const size_t c_stopped = cluster_->LogSize();
  // What a and b gave up is what c was given (a cooperative rebalance revokes first).
  const std::set<std::string> given_c = TasksIn("stage uri: gave up", "uri", c_started);
  ASSERT_FALSE(given_c.empty()) << "see " << cluster_->log();
  feed(300);
  // Past c's session timeout (6 s) and the rounds of the rebalance that follows, a and b (c is
  // stopped) take each of c's tasks back.
  bool back = false;
  for (auto deadline = std::chrono::steady_clock::now() + 90s; !back && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(500ms);
    const std::set<std::string> taken = TasksIn("stage uri: took over", "uri", c_stopped);
    back = std::includes(taken.begin(), taken.end(), given_c.begin(), given_c.end());
  }
  ASSERT_TRUE(back) << "a and b did not take back the tasks they gave c (or lost theirs meanwhile, and c got "
                       "others); see "
                    << cluster_->log();
  c->Signal(SIGCONT);
  feed(300);
  ExpectTable("a", model.TableLines());
  ExpectTable("b", model.TableLines());
  // c's takeover, woken, may end after a and b caught up: its verdict is waited for.
  for (auto deadline = std::chrono::steady_clock::now() + 60s;
       Count("is not taken over: the group gave it to another member") == 0 &&
       std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_GE(Count("is not taken over: the group gave it to another member"), 1u) << "see " << cluster_->log();
  // c's other stages, stopped in the middle of their takeovers too, found their requests timed
  // out on waking: taken over again, not stopped.
  EXPECT_EQ(Count("taking over task"), 0u) << "see " << cluster_->log();
  for (auto* m : {a.get(), b.get()}) {
    m->Signal(SIGTERM);
    EXPECT_EQ(m->Wait(), 0) << "see " << cluster_->log();
  }
  // Not asked to stop cleanly: woken after its group moved on, c can fail a takeover of another
  // stage (an admin request that times out) and then hang in librdkafka's destruction of a
  // consumer that is rejoining (docs/scale-out.md §9, open).
  c->Signal(SIGKILL);
  c->Wait();
}

// The broker stops (SIGSTOP, as a stalled or overloaded broker would) for 25 s while two members
// join the group for the first time. Woken, the members join again within the session timeout
// (6 s) and a few seconds (the rebalance timeout, max.poll.interval.ms, is the session timeout
// and 5 s); with librdkafka's default of 5 minutes the group sat with no task taken over for
// that long. A member that stays out of the group longer than that says so in a warning.
TEST_F(GroupCliTest, AGroupWhoseBrokerPausedDuringItsFirstJoinTakesItsTasksSoonAfter) {
  EventGenerator gen(Seed("broker pause test"), kPartitions);
  BatchModel model;
  auto a = StartMember("a");
  auto b = StartMember("b");
  for (auto deadline = std::chrono::steady_clock::now() + 60s;
       Count("member of group crawl") < 2 && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(Count("member of group crawl"), 2u) << cluster_->LogTail();
  cluster_->broker().Signal(SIGSTOP);
  std::this_thread::sleep_for(25s);
  cluster_->broker().Signal(SIGCONT);
  const auto woken = std::chrono::steady_clock::now();
  for (auto deadline = woken + 60s;
       Count("stage uri: took over") < 2 && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(100ms);
  }
  const auto waited = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - woken);
  ASSERT_GE(Count("stage uri: took over"), 2u) << "no uri task taken over by both members " << waited.count()
                                               << " s after the broker woke; " << cluster_->LogTail();
  EXPECT_GE(Count("is not in group"), 1u) << "no member warned that it was out of its group; " << cluster_->LogTail();
  Feed(gen, model, 500);
  ExpectTable("a", model.TableLines());
  ExpectTable("b", model.TableLines());
  for (auto* m : {a.get(), b.get()}) {
    m->Signal(SIGTERM);
    EXPECT_EQ(m->Wait(), 0) << cluster_->LogTail();
  }
}

// Replays of a group (docs/scale-out.md §9.6): `replay --group` announces generation 2, which the
// members build beside generation 1 (the stage member b is SIGKILLed and restarted during the
// build) while events keep coming; once its stage groups caught up the replay switches, every
// member moves over (the data dirs' current generation is 2, generation 1 removed), and the
// tables equal the batch table, then and after more events; a member joining then starts in
// generation 2. A replay that would lose pages (from
// a time after every event) stops before the switch (exit 1); generation 2 goes on processing
// new events beside the build, and `--abort` drops the build everywhere: generation 2 stays
// current.
TEST_F(GroupCliTest, AReplayOfTheGroupIsBuiltByItsMembersWhichAllSwitch) {
  const uint64_t seed = Seed("group replay test");
  EventGenerator gen(seed, kPartitions);
  BatchModel model;
  auto feed = [&](size_t n) { FeedForwarded(gen, model, n); };
  std::map<std::string, std::unique_ptr<ChildProcess>> members;
  members["a"] = StartMember("a");                // stages and the table
  members["b"] = StartMember("b", "");            // stages only
  members["r"] = StartMember("r", "--no-stages");  // a replica
  feed(800);
  ExpectTable("a", model.TableLines());
  auto generation_of = [&](const std::string& member) {
    std::ifstream in(DataDir(member) + "/GENERATION");
    std::string g;
    in >> g;
    return g;
  };
  auto replay = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"replay", "--brokers", cluster_->brokers(), "--group", "crawl", "--config",
                                     config_};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };

  // The exit code of a replay, or -1 when it has not ended within 3 minutes (then killed).
  auto finish = [&](ChildProcess& process) {
    for (auto deadline = std::chrono::steady_clock::now() + 180s;
         process.Running() && std::chrono::steady_clock::now() < deadline;) {
      std::this_thread::sleep_for(200ms);
    }
    if (process.Running()) process.Signal(SIGKILL);
    return process.Wait();
  };

  size_t from = cluster_->LogSize();
  auto replaying = cluster_->Start(replay({"--switch-lag", "0"}));
  ASSERT_TRUE(cluster_->WaitForLog("group crawl builds generation 2", 30000, from)) << "see " << cluster_->log();
  feed(400);
  std::this_thread::sleep_for(std::chrono::milliseconds(500 + seed % 2000));
  members["b"]->Signal(SIGKILL);
  EXPECT_EQ(members["b"]->Wait(), 128 + SIGKILL);
  members["b"] = StartMember("b", "");
  feed(400);
  ASSERT_EQ(finish(*replaying), 0) << "see " << cluster_->log();
  EXPECT_TRUE(cluster_->WaitForLog("replay done: group crawl switched to generation 2", 0, from));
  for (const char* m : {"a", "b", "r"}) {
    for (auto deadline = std::chrono::steady_clock::now() + 60s;
         generation_of(m) != "2" && std::chrono::steady_clock::now() < deadline;) {
      std::this_thread::sleep_for(200ms);
    }
    EXPECT_EQ(generation_of(m), "2") << m << "; see " << cluster_->log();
  }
  feed(300);
  const std::vector<std::string> want = model.TableLines();
  ExpectTable("a", want);
  ExpectTable("r", want);
  // A member that joins now starts in the group's generation.
  members["d"] = StartMember("d", "--no-stages");
  ExpectTable("d", want);
  EXPECT_EQ(generation_of("d"), "2");
  for (const char* m : {"a", "b", "r"}) {  // removed once the member stopped its runners
    for (auto deadline = std::chrono::steady_clock::now() + 30s;
         std::filesystem::exists(DataDir(m) + "/gen-1") && std::chrono::steady_clock::now() < deadline;) {
      std::this_thread::sleep_for(200ms);
    }
    EXPECT_FALSE(std::filesystem::exists(DataDir(m) + "/gen-1")) << m << " kept generation 1";
  }

  // A replay from after every event would lack every page: refused, and aborted.
  from = cluster_->LogSize();
  ASSERT_EQ(finish(*cluster_->Start(replay({"--from", "2130-01-01T00:00:00Z", "--switch-lag", "0"}))), 1)
      << "see " << cluster_->log();
  EXPECT_TRUE(cluster_->WaitForLog("generation 3 would lack ", 0, from)) << "see " << cluster_->log();
  EXPECT_TRUE(cluster_->WaitForLog("Generation 2 stays current", 0, from)) << "see " << cluster_->log();
  EXPECT_TRUE(std::filesystem::exists(DataDir("a") + "/gen-3")) << "a does not build generation 3";
  // The build goes on until aborted; generation 2 keeps every partition meanwhile: new events reach
  // the current tables (stage groups shared by two generations would split the partitions).
  feed(300);
  const std::vector<std::string> later = model.TableLines();
  ExpectTable("a", later);
  ExpectTable("d", later);
  EXPECT_EQ(cluster_->Run(replay({"--abort"})), 0) << "see " << cluster_->log();
  for (auto deadline = std::chrono::steady_clock::now() + 30s;
       std::filesystem::exists(DataDir("a") + "/gen-3") && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_FALSE(std::filesystem::exists(DataDir("a") + "/gen-3")) << "the aborted build stays; see " << cluster_->log();
  EXPECT_EQ(generation_of("a"), "2");
  EXPECT_EQ(Dump("a"), later);
  for (auto& [name, process] : members) {
    process->Signal(SIGTERM);
    EXPECT_EQ(process->Wait(), 0) << name << "; see " << cluster_->log();
  }
}

// A replay of the group built in bulk (app/group_bulk.h): the replay command folds the events
// itself and writes each task's state as a changelog snapshot, which the members restore. Killed
// once every record of its build is acknowledged but before it announces the generation, it
// leaves generation 1 answering; run again, it builds the next number (the first one's records
// are never restored). The table then equals the batch table, and again after more events.
TEST_F(GroupCliTest, AReplayOfTheGroupBuiltInBulkIsRestoredByItsMembers) {
  const uint64_t seed = Seed("group bulk replay test");
  EventGenerator gen(seed, kPartitions, 300);  // ten events a page: re-crawls, deletes, stale ones
  BatchModel model;
  auto feed = [&](size_t n) { FeedForwarded(gen, model, n); };
  std::map<std::string, std::unique_ptr<ChildProcess>> members;
  members["a"] = StartMember("a");      // stages and the table
  members["b"] = StartMember("b", "");  // stages only
  feed(3000);
  ExpectTable("a", model.TableLines());
  const std::vector<std::string> replay = {"replay", "--brokers", cluster_->brokers(), "--group", "crawl",
                                           "--config", config_,  "--switch-lag",     "0",       "--bulk-min-records",
                                           "0"};
  size_t from = cluster_->LogSize();
  // The exit code of a replay, or -1 when it has not ended within 2 minutes (then killed).
  auto finish = [&](std::unique_ptr<ChildProcess> process) {
    for (auto deadline = std::chrono::steady_clock::now() + 120s;
         process->Running() && std::chrono::steady_clock::now() < deadline;) {
      std::this_thread::sleep_for(200ms);
    }
    if (process->Running()) process->Signal(SIGKILL);
    return process->Wait();
  };
  EXPECT_NE(finish(cluster_->Start(replay, "WEBINDEX_CRASH_AT=group-replay-after-bulk")), 0);
  ASSERT_TRUE(cluster_->WaitForLog("group bulk build of generation 2: ", 0, from)) << cluster_->LogTail();
  EXPECT_FALSE(cluster_->WaitForLog("builds generation 2", 1000, from)) << "announced before the crash";
  EXPECT_EQ(Dump("a"), model.TableLines()) << "generation 1 stopped answering";

  from = cluster_->LogSize();
  const auto began = std::chrono::steady_clock::now();
  ASSERT_EQ(finish(cluster_->Start(replay)), 0) << cluster_->LogTail();
  std::cout << "group replay of 3000 events in bulk: "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() << " s" << std::endl;
  ASSERT_TRUE(cluster_->WaitForLog("group bulk build of generation 3: ", 0, from)) << cluster_->LogTail();
  EXPECT_TRUE(cluster_->WaitForLog("replay done: group crawl switched to generation 3", 0, from));
  // Generation 3's page tasks began at their snapshots, not at their partitions' starts.
  EXPECT_EQ(TasksIn(" commits restored, ", "page", from).size(), size_t{kPartitions}) << cluster_->LogTail();
  EXPECT_TRUE(TasksIn(" void, 0 snapshot records", "page", from).empty()) << cluster_->LogTail();
  const std::string when = " (seed " + std::to_string(seed) + ")";
  for (auto deadline = std::chrono::steady_clock::now() + 60s;
       !std::filesystem::exists(DataDir("a") + "/gen-3") || std::filesystem::exists(DataDir("a") + "/gen-1");) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "a did not switch to generation 3; " << cluster_->LogTail();
    std::this_thread::sleep_for(200ms);
  }
  ExpectTable("a", model.TableLines());
  feed(1000);
  ExpectTable("a", model.TableLines());
  for (auto& [name, process] : members) {
    process->Signal(SIGTERM);
    EXPECT_EQ(process->Wait(), 0) << name << when << "; see " << cluster_->log();
  }
}

TEST_F(GroupCliTest, AGroupNeedsABrokerOtherProcessesCanReach) {
  std::string out;
  EXPECT_EQ(cluster_->Run({"run", "--brokers", "embedded", "--data-dir", DataDir("x"), "--group", "crawl"}, &out), 2);
  EXPECT_EQ(cluster_->Run({"run", "--brokers", cluster_->brokers(), "--data-dir", DataDir("x"), "--group-instance-id",
                           "m1"},
                          &out),
            2);
}

// Members without a table run only their share of the stages; a replica with --no-stages keeps
// the whole table from the exports and runs no stage. The replica's table equals the batch
// table; the stage members keep none, say so when they start, and `query`, `dump` and `pagerank`
// on their data dirs send the user to a member with the table (exit 3) instead of answering empty.
TEST_F(GroupCliTest, StageMembersFeedATableReplica) {
  EventGenerator gen(17, kPartitions);
  BatchModel model;
  auto events = gen.Next(1500);
  for (const auto& ev : events) model.Apply(ev.value);
  auto s1 = StartMember("s1", "");
  auto s2 = StartMember("s2", "");
  auto replica = StartMember("replica", "--no-stages");
  ASSERT_TRUE(cluster_->Produce(events));
  ExpectTable("replica", model.TableLines());
  const std::string no_table = DataDir("s1") + ": this data dir keeps no table (a stage-only member of a group); ask "
                               "a member started with --table or --http";
  std::string answer;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"dump"}, {"query", "top"}, {"query", "triples"}, {"pagerank"}}) {
    std::vector<std::string> command = args;
    command.insert(command.end(), {"--data-dir", DataDir("s1")});
    const size_t from = cluster_->LogSize();
    EXPECT_EQ(cluster_->Run(command, &answer), 3) << args[0];
    EXPECT_TRUE(cluster_->WaitForLog(no_table, 0, from)) << args[0] << ": see " << cluster_->log();
    if (args[0] == "query") EXPECT_TRUE(answer.starts_with(R"({"error":")")) << answer;
  }
  EXPECT_TRUE(
      cluster_->WaitForLog("processing pages -> stage state in " + DataDir("s1") + "/gen-1, no query table", 0));
  EXPECT_FALSE(cluster_->WaitForLog("query table in " + DataDir("s1"), 0)) << "see " << cluster_->log();
  EXPECT_TRUE(cluster_->WaitForLog("processing pages -> query table in " + DataDir("replica") + "/gen-1", 0));
  for (auto* m : {s1.get(), s2.get(), replica.get()}) {
    m->Signal(SIGTERM);
    EXPECT_EQ(m->Wait(), 0) << "see " << cluster_->log();
  }
  std::string out;
  EXPECT_EQ(cluster_->Run({"run", "--brokers", cluster_->brokers(), "--data-dir", DataDir("x"), "--table"}, &out), 2);
  EXPECT_EQ(cluster_->Run({"run", "--brokers", cluster_->brokers(), "--data-dir", DataDir("x"), "--group", "crawl",
                           "--no-stages"},
                          &out),
            2);
}

// A data dir never changes sides: a lone run's state is in no group's changelogs, a member's
// holds only its own tasks. Each refusal says what to do.
TEST_F(GroupCliTest, ADataDirStaysALoneRunOrAMemberOfItsGroup) {
  ASSERT_TRUE(cluster_->Produce(EventGenerator(5, kPartitions).Next(20)));
  // The member first: a group's table starts at the exports' beginning (a lone run at their end).
  EXPECT_EQ(RunToIdle("member", {"--group", "crawl"}), 0) << "see " << cluster_->log();
  EXPECT_EQ(RunToIdle("lone", {}), 0) << "see " << cluster_->log();
  size_t from = cluster_->LogSize();
  EXPECT_EQ(RunToIdle("lone", {"--group", "crawl"}), 1);
  EXPECT_TRUE(cluster_->WaitForLog("was built by a lone `webindex run`", 1000, from)) << "see " << cluster_->log();
  from = cluster_->LogSize();
  EXPECT_EQ(RunToIdle("member", {}), 1);
  EXPECT_TRUE(cluster_->WaitForLog("belongs to consumer group crawl", 1000, from)) << "see " << cluster_->log();
  from = cluster_->LogSize();
  EXPECT_EQ(RunToIdle("member", {"--group", "other"}), 1);
  EXPECT_TRUE(cluster_->WaitForLog("Run it with --group crawl", 1000, from)) << "see " << cluster_->log();
}

// While a member joins its group, it holds no partition and nobody has reported a position:
// /api/status says the lag is unknown (null), never 0 with records waiting; once the group
// reported, the lag is a number again, down to 0 when everything is read.
TEST_F(GroupCliTest, StatusNeverCallsTheLagOfAJoiningGroupZero) {
  ASSERT_TRUE(cluster_->Produce(EventGenerator(8, kPartitions).Next(200)));
  std::vector<std::string> args = {"run",     "--brokers", cluster_->brokers(), "--data-dir", DataDir("m1"),
                                   "--group", "crawl",     "--config",          config_,      "--http",
                                   "127.0.0.1:0"};
  auto member = cluster_->Start(args);
  uint16_t port = 0;
  for (auto deadline = Clock::now() + 60s; port == 0 && Clock::now() < deadline;) {
    std::this_thread::sleep_for(10ms);
    port = LoggedPort(cluster_->log());
  }
  ASSERT_NE(port, 0) << cluster_->LogTail();
  int unknown = 0, zero = 0;
  for (auto deadline = Clock::now() + 120s; zero == 0 && Clock::now() < deadline;) {
    const std::string body = Get(port, "/api/status").body;
    if (body.find(R"("lag":{"total":null)") != std::string::npos) {
      ++unknown;
    } else if (body.find(R"("lag":{"total":0,)") != std::string::npos) {
      EXPECT_NE(body.find(R"("unknownPartitions":0,)"), std::string::npos) << body;
      ++zero;
    }
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_GT(unknown, 0) << "no status answered while the member joined";
  EXPECT_EQ(zero, 1) << "the lag never came down to 0";
  member->Signal(SIGTERM);
  EXPECT_EQ(member->Wait(), 0) << cluster_->LogTail();
}

// The members of one group share the topics; a lone run of another data dir, or a member of
// another group, is refused while they run, before it writes anything; and a group's member
// while a lone run holds them.
TEST_F(GroupCliTest, OneGroupOrOneLoneRunWorksOnTheTopicsAtATime) {
  ASSERT_TRUE(cluster_->Produce(EventGenerator(7, kPartitions).Next(50)));
  auto first = StartMember("m1");
  ASSERT_TRUE(cluster_->WaitForLog("processing pages", 60000)) << cluster_->LogTail();
  size_t from = cluster_->LogSize();
  EXPECT_EQ(RunToIdle("lone", {}), 1);
  EXPECT_TRUE(cluster_->WaitForLog("the members of group crawl work on these topics (the last to say so: data dir " +
                                       DataDir("m1"),
                                   0, from))
      << cluster_->LogTail();
  EXPECT_TRUE(cluster_->WaitForLog("A lone run would write records that stop them", 0, from)) << cluster_->LogTail();
  from = cluster_->LogSize();
  EXPECT_EQ(RunToIdle("other", {"--group", "other"}), 1);
  EXPECT_TRUE(cluster_->WaitForLog("Another group would write records that stop them", 0, from))
      << cluster_->LogTail();
  EXPECT_FALSE(cluster_->WaitForLog("is new:", 0, from)) << "a refused member set up a generation";
  // A second member of the same group shares them.
  from = cluster_->LogSize();
  EXPECT_EQ(RunToIdle("m2", {"--group", "crawl"}), 0) << cluster_->LogTail();
  ASSERT_TRUE(first->Running()) << cluster_->LogTail();
  first->Signal(SIGTERM);
  EXPECT_EQ(first->Wait(), 0) << cluster_->LogTail();

  // The group gone quiet, a lone run takes the topics once the group's beats have stopped.
  auto lone = cluster_->Start({"run", "--brokers", cluster_->brokers(), "--data-dir", DataDir("lone"), "--config",
                               config_});
  from = cluster_->LogSize();
  ASSERT_TRUE(cluster_->WaitForLog("processing pages", 60000, from)) << cluster_->LogTail();
  from = cluster_->LogSize();
  EXPECT_EQ(RunToIdle("m3", {"--group", "crawl"}), 1);
  EXPECT_TRUE(cluster_->WaitForLog("another webindex run works on these topics: data dir " + DataDir("lone"), 0, from))
      << cluster_->LogTail();
  ASSERT_TRUE(lone->Running()) << cluster_->LogTail();
  lone->Signal(SIGTERM);
  EXPECT_EQ(lone->Wait(), 0) << cluster_->LogTail();
}

// A lone data dir that a replay moved to generation 2 while the group runs generation 1: refused
// before anything is switched or removed, its table whole.
TEST_F(GroupCliTest, ALoneDataDirAtAnotherGenerationIsRefusedNotEmptiedToJoin) {
  ASSERT_TRUE(cluster_->Produce(EventGenerator(6, kPartitions).Next(20)));
  EXPECT_EQ(RunToIdle("member", {"--group", "crawl"}), 0) << "see " << cluster_->log();
  EXPECT_EQ(RunToIdle("lone", {}), 0) << "see " << cluster_->log();
  ASSERT_EQ(cluster_->Run({"replay", "--brokers", cluster_->brokers(), "--data-dir", DataDir("lone"), "--switch-lag",
                           "0", "--config", config_}),
            0)
      << "see " << cluster_->log();
  std::string before;
  ASSERT_EQ(cluster_->Run({"dump", "--data-dir", DataDir("lone")}, &before), 0);
  ASSERT_FALSE(before.empty());
  const size_t from = cluster_->LogSize();
  EXPECT_EQ(RunToIdle("lone", {"--group", "crawl"}), 1);
  EXPECT_TRUE(cluster_->WaitForLog("generation 2 of data dir " + DataDir("lone") + " was built by a lone `webindex run`",
                                   1000, from))
      << cluster_->LogTail();
  EXPECT_FALSE(cluster_->WaitForLog("removing generation", 0, from)) << cluster_->LogTail();
  std::string after;
  EXPECT_EQ(cluster_->Run({"dump", "--data-dir", DataDir("lone")}, &after), 0) << cluster_->LogTail();
  EXPECT_EQ(after, before);
}

}  // namespace
}  // namespace webindex::testing
