// Crash test: the real `webindex run` as a child process against an embedded broker in a
// separate process (so topics survive), SIGKILLed at random moments while events stream in,
// restarted on the same data dir each time; the final table must equal the batch table.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "batch_model.h"
#include "child_process.h"
#include "event_generator.h"
#include "kafka/client.h"
#include "pipeline_harness.h"

namespace webindex::testing {
namespace {

using namespace std::chrono_literals;

std::string WaitForFile(const std::string& path) {
  for (int i = 0; i < 200; ++i) {
    std::ifstream in(path);
    std::string line;
    if (in && std::getline(in, line) && !line.empty()) return line;
    std::this_thread::sleep_for(50ms);
  }
  return "";
}

class CrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("webindex-crash");
    log_ = dir_ + "/processes.log";
    broker_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{WEBINDEX_BINARY, "broker", "--partitions", "6", "--address-file", dir_ + "/addr"},
        log_);
    brokers_ = WaitForFile(dir_ + "/addr");
    ASSERT_FALSE(brokers_.empty()) << "the embedded broker did not start; see " << log_;
    auto producer = kafka::Producer::Create({brokers_, {}}, [](uint64_t, const Status& st) {
      EXPECT_TRUE(st.ok()) << st.ToString();
    });
    ASSERT_TRUE(producer.ok()) << producer.status().ToString();
    producer_ = std::move(producer).value();
  }
  void TearDown() override {
    producer_.reset();
    broker_.reset();
    if (!HasFailure() && !std::getenv("WEBINDEX_KEEP_TEST_DIR")) std::filesystem::remove_all(dir_);
  }

  void Produce(const std::vector<GeneratedEvent>& events) {
    for (const auto& ev : events) {
      ASSERT_TRUE(producer_->Produce({"pages", ev.partition_hint, ev.key, ev.value, {}}, 0).ok());
    }
    ASSERT_TRUE(producer_->Flush(30000).ok());
  }

  std::unique_ptr<ChildProcess> StartRun(bool exit_when_idle) {
    std::vector<std::string> argv = {WEBINDEX_BINARY, "run", "--brokers", brokers_, "--data-dir", dir_ + "/data"};
    if (exit_when_idle) argv.push_back("--exit-when-idle");
    return std::make_unique<ChildProcess>(argv, log_);
  }

  std::vector<std::string> Dump() {
    std::string out;
    EXPECT_EQ(RunCommand({WEBINDEX_BINARY, "dump", "--data-dir", dir_ + "/data"}, &out, log_), 0);
    std::vector<std::string> lines;
    std::stringstream ss(out);
    for (std::string line; std::getline(ss, line);) lines.push_back(line);
    return lines;
  }

  std::string dir_, log_, brokers_;
  std::unique_ptr<ChildProcess> broker_;
  std::unique_ptr<kafka::Producer> producer_;
};

TEST_F(CrashTest, KillNineAtRandomMomentsRecoversToTheBatchTable) {
  const uint64_t seed = std::getenv("WEBINDEX_SEEDS") ? std::stoull(std::getenv("WEBINDEX_SEEDS"))
                                                      : std::random_device{}();
  std::cout << "crash test seed " << seed << " (rerun with WEBINDEX_SEEDS=" << seed << ")" << std::endl;
  std::mt19937_64 rng(seed);
  EventGenerator gen(seed, 6);
  BatchModel model;
  constexpr int kRounds = 8;
  constexpr size_t kEventsPerRound = 2500;
  int kills = 0;
  for (int round = 0; round < kRounds; ++round) {
    auto events = gen.Next(kEventsPerRound);
    for (const auto& ev : events) model.Apply(ev.value);
    const size_t half = events.size() / 2;
    Produce({events.begin(), events.begin() + half});
    auto run = StartRun(false);
    Produce({events.begin() + half, events.end()});  // while it runs
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 800));
    if (round == kRounds / 2) {
      // One graceful stop: finishes its batch, commits, exits 0 within a few seconds.
      const auto start = std::chrono::steady_clock::now();
      run->Signal(SIGTERM);
      EXPECT_EQ(run->Wait(), 0) << "see " << log_;
      EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
      continue;
    }
    ASSERT_TRUE(run->Running()) << "webindex run died on its own; see " << log_;
    run->Signal(SIGKILL);
    EXPECT_EQ(run->Wait(), 128 + SIGKILL);
    ++kills;
  }
  auto final_run = StartRun(true);
  EXPECT_EQ(final_run->Wait(), 0) << "see " << log_;
  const auto got = Dump();
  const auto want = model.TableLines();
  EXPECT_GE(kills, 5);
  ASSERT_EQ(got.size(), want.size()) << "seed " << seed;
  EXPECT_TRUE(got == want) << "seed " << seed << ": the table differs from the batch computation";
  std::cout << kills << " kills, " << kRounds * kEventsPerRound << " events, " << want.size() << " cells" << std::endl;
}

}  // namespace
}  // namespace webindex::testing
