// Crash test: the real `webindex run` as a child process against an embedded broker in a
// separate process (so topics survive), SIGKILLed at random moments while crawl events and RDF
// statements stream in, restarted on the same data dir each time; the final table must equal
// the batch table, and the graph store the statements' reference.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "batch_model.h"
#include "cli_cluster.h"
#include "pipeline/topics.h"
#include "test_paths.h"
#include "triple_generator.h"

namespace webindex::testing {
namespace {

using namespace std::chrono_literals;

class CrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<CliCluster>(WEBINDEX_BINARY, "webindex-crash", 6);
    ASSERT_TRUE(cluster_->ok()) << "the embedded broker did not start; see " << cluster_->log();
  }
  std::unique_ptr<CliCluster> cluster_;
};

TEST_F(CrashTest, KillNineAtRandomMomentsRecoversToTheBatchTable) {
  const uint64_t seed = std::getenv("WEBINDEX_SEEDS") ? std::stoull(std::getenv("WEBINDEX_SEEDS"))
                                                      : std::random_device{}();
  std::cout << "crash test seed " << seed << " (rerun with WEBINDEX_SEEDS=" << seed << ")" << std::endl;
  std::mt19937_64 rng(seed);
  EventGenerator gen(seed, 6);
  BatchModel model;
  TripleGenerator triples(seed);
  std::set<std::string> statements;  // what the graph store must hold
  auto triple_records = [&](size_t n) {
    std::vector<OutRecord> out;
    for (size_t i = 0; i < n; ++i) {
      const TripleRecord r = triples.Next();
      Fold(r, &statements);
      OutRecord rec{"triples", pipeline::PartitionFor(r.key, 6), r.key, r.text, {}};
      if (!r.op.empty()) rec.headers.emplace_back("op", r.op);
      out.push_back(std::move(rec));
    }
    return out;
  };
  constexpr int kRounds = 8;
  constexpr size_t kEventsPerRound = 2500;
  int kills = 0;
  for (int round = 0; round < kRounds; ++round) {
    auto events = gen.Next(kEventsPerRound);
    for (const auto& ev : events) model.Apply(ev.value);
    const size_t half = events.size() / 2;
    ASSERT_TRUE(cluster_->Produce({events.begin(), events.begin() + half}));
    ASSERT_TRUE(cluster_->ProduceRecords(triple_records(200)));
    const size_t log_from = cluster_->LogSize();
    auto run = cluster_->StartRun(false);
    ASSERT_TRUE(cluster_->Produce({events.begin() + half, events.end()}));  // while it runs
    ASSERT_TRUE(cluster_->ProduceRecords(triple_records(200)));
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 800));
    if (round == kRounds / 2) {
      // One graceful stop: finishes its batch, commits, exits 0 within a few seconds. Sent once
      // the run is processing: a signal before its handler exists (a slow start under
      // sanitizers) takes the default action, whatever the program does.
      ASSERT_TRUE(cluster_->WaitForLog("processing pages", 60000, log_from)) << cluster_->LogTail();
      const auto start = std::chrono::steady_clock::now();
      run->Signal(SIGTERM);
      EXPECT_EQ(run->Wait(), 0) << "see " << cluster_->log();
      EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
      continue;
    }
    ASSERT_TRUE(run->Running()) << "webindex run died on its own; " << cluster_->LogTail();
    run->Signal(SIGKILL);
    EXPECT_EQ(run->Wait(), 128 + SIGKILL);
    ++kills;
  }
  auto final_run = cluster_->StartRun(true);
  EXPECT_EQ(final_run->Wait(), 0) << "see " << cluster_->log();
  const auto got = cluster_->Dump();
  const auto want = model.TableLines();
  EXPECT_GE(kills, 5);
  ASSERT_EQ(got.size(), want.size()) << "seed " << seed;
  EXPECT_TRUE(got == want) << "seed " << seed << ": the table differs from the batch computation";
  std::string quads;
  ASSERT_EQ(cluster_->Run({"query", "triples", "--data-dir", cluster_->data_dir(), "--graph", "all", "--format",
                           "ntriples"},
                          &quads),
            0)
      << "see " << cluster_->log();
  std::set<std::string> stored;
  std::stringstream lines(quads);
  for (std::string line; std::getline(lines, line);) stored.insert(line);
  EXPECT_TRUE(stored == statements) << "seed " << seed << ": the graph store differs from the statements applied ("
                                    << stored.size() << " vs " << statements.size() << ")";
  std::cout << kills << " kills, " << kRounds * kEventsPerRound << " events, " << want.size() << " cells" << std::endl;
}

}  // namespace
}  // namespace webindex::testing
