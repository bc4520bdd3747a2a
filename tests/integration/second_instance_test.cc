// A second lone `webindex run` on the topics a running one uses (another data dir, the newcomer's
// mistake) is refused before it writes anything, naming the data dir and host of the first,
// which goes on with an exact table; so is a replay of the second data dir. Once the first
// stopped cleanly, or died and stopped renewing its claim, another data dir may take the topics
// (app/instance_claim.h).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>
#include <thread>

#include "app/instance_claim.h"
#include "batch_model.h"
#include "cli_cluster.h"
#include "gzip_file.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

using namespace std::chrono_literals;

std::string Host() {
  char name[256] = {};
  ::gethostname(name, sizeof(name) - 1);
  return name;
}

TEST(SecondInstanceTest, ASecondLoneRunIsRefusedNamingTheFirstWhichGoesOnExact) {
  CliCluster cluster(WEBINDEX_BINARY, "second-instance", 2);
  ASSERT_TRUE(cluster.ok()) << cluster.log();
  EventGenerator gen(71, 2);
  BatchModel model;
  auto feed = [&](size_t n) {
    auto events = gen.Next(n);
    for (const auto& ev : events) model.Apply(ev.value);
    return cluster.Produce(events);
  };
  ASSERT_TRUE(feed(500));
  auto first = cluster.StartRun(false);
  ASSERT_TRUE(cluster.WaitForLog("is new: reading", 20000)) << cluster.log();

  const std::string other = cluster.dir() + "/data-b";
  const size_t from = cluster.LogSize();
  const int refused = cluster.Run({"run", "--brokers", cluster.brokers(), "--data-dir", other, "--exit-when-idle"});
  EXPECT_EQ(refused, 1) << ReadFileBytes(cluster.log()).substr(from);
  const std::string said = ReadFileBytes(cluster.log()).substr(from);
  EXPECT_NE(said.find("another webindex run works on these topics: data dir " + cluster.data_dir() + " on " + Host()),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find("is new: reading"), std::string::npos) << "the second run started: " << said;
  // A replay of the other data dir writes internal records on the topics too: refused alike.
  const size_t before_replay = cluster.LogSize();
  EXPECT_EQ(cluster.Run({"replay", "--brokers", cluster.brokers(), "--data-dir", other, "--from", "earliest"}), 1)
      << ReadFileBytes(cluster.log()).substr(before_replay);
  const std::string replay_said = ReadFileBytes(cluster.log()).substr(before_replay);
  EXPECT_NE(replay_said.find("another webindex run works on these topics: data dir " + cluster.data_dir()),
            std::string::npos)
      << replay_said;

  // The first goes on: more input, then a clean stop, and its table is the batch table.
  ASSERT_TRUE(feed(500));
  std::this_thread::sleep_for(3s);
  ASSERT_TRUE(first->Running()) << cluster.log();
  first->Signal(SIGTERM);
  EXPECT_EQ(first->Wait(), 0) << cluster.log();
  EXPECT_EQ(ReadFileBytes(cluster.log()).find("holds a record of another webindex processor"), std::string::npos)
      << cluster.log();
  EXPECT_EQ(cluster.Dump(), model.TableLines());

  // Stopped cleanly, the claim is free: another data dir takes the topics without waiting.
  const size_t before_b = cluster.LogSize();
  EXPECT_EQ(cluster.Run({"run", "--brokers", cluster.brokers(), "--data-dir", other, "--exit-when-idle"}), 0)
      << ReadFileBytes(cluster.log()).substr(before_b);
  EXPECT_EQ(ReadFileBytes(cluster.log()).substr(before_b).find("checking for"), std::string::npos);
}

// Two application ids on one cluster are two indexes of the same input: each has its own
// internal topics, consumer groups and claim, so the second runs beside the first (as another
// data dir under the first's id is refused), and both tables equal the batch table, through
// events fed while both run. A data dir keeps the id it was built under.
TEST(SecondInstanceTest, TwoAppIdsAreTwoIndependentIndexesOfOneInput) {
  CliCluster cluster(WEBINDEX_BINARY, "second-instance-app-id", 2);
  ASSERT_TRUE(cluster.ok()) << cluster.log();
  EventGenerator gen(73, 2);
  BatchModel model;
  auto feed = [&](size_t n) {
    auto events = gen.Next(n);
    for (const auto& ev : events) model.Apply(ev.value);
    return cluster.Produce(events);
  };
  ASSERT_TRUE(feed(400));
  auto first = cluster.StartRun(false);
  ASSERT_TRUE(cluster.WaitForLog("is new: reading", 20000)) << cluster.LogTail();
  const std::string staging = cluster.dir() + "/data-staging";
  auto second = cluster.Start({"--app-id", "staging", "run", "--brokers", cluster.brokers(), "--data-dir", staging});
  ASSERT_TRUE(feed(400));
  std::this_thread::sleep_for(3s);
  ASSERT_TRUE(first->Running()) << cluster.LogTail();
  ASSERT_TRUE(second->Running()) << cluster.LogTail();
  for (auto* run : {first.get(), second.get()}) {
    run->Signal(SIGTERM);
    EXPECT_EQ(run->Wait(), 0) << cluster.LogTail();
  }
  EXPECT_EQ(ReadFileBytes(cluster.log()).find("holds a record of another webindex processor"), std::string::npos)
      << cluster.LogTail();
  // Each catches up alone and holds the whole input, counted once.
  EXPECT_EQ(cluster.Run({"run", "--brokers", cluster.brokers(), "--data-dir", cluster.data_dir(), "--exit-when-idle"}),
            0)
      << cluster.LogTail();
  EXPECT_EQ(cluster.Run({"--app-id", "staging", "run", "--brokers", cluster.brokers(), "--data-dir", staging,
                         "--exit-when-idle"}),
            0)
      << cluster.LogTail();
  EXPECT_EQ(cluster.Dump(), model.TableLines());
  std::string staged;
  ASSERT_EQ(cluster.Run({"dump", "--data-dir", staging}, &staged), 0);
  std::vector<std::string> lines;
  std::stringstream ss(staged);
  for (std::string line; std::getline(ss, line);) lines.push_back(line);
  EXPECT_EQ(lines, model.TableLines());
  // Under another id the staging data dir would read the default index's topics: refused.
  const size_t before = cluster.LogSize();
  EXPECT_EQ(cluster.Run({"run", "--brokers", cluster.brokers(), "--data-dir", staging, "--exit-when-idle"}), 1);
  EXPECT_NE(ReadFileBytes(cluster.log()).substr(before).find("was built under app id staging"), std::string::npos)
      << cluster.LogTail();
}

TEST(SecondInstanceTest, AClaimWhoseHolderDiedIsTakenAfterItsHeartbeatsStop) {
  CliCluster cluster(WEBINDEX_BINARY, "second-instance-died", 2);
  ASSERT_TRUE(cluster.ok()) << cluster.log();
  EventGenerator gen(72, 2);
  BatchModel model;
  auto events = gen.Next(300);
  for (const auto& ev : events) model.Apply(ev.value);
  ASSERT_TRUE(cluster.Produce(events));
  auto first = cluster.StartRun(false);
  ASSERT_TRUE(cluster.WaitForLog("is new: reading", 20000)) << cluster.log();
  first->Signal(SIGKILL);
  first->Wait();
  // The same data dir restarts at once: its own claim.
  const size_t before = cluster.LogSize();
  EXPECT_EQ(cluster.Run({"run", "--brokers", cluster.brokers(), "--data-dir", cluster.data_dir(), "--exit-when-idle"}),
            0);
  EXPECT_EQ(ReadFileBytes(cluster.log()).substr(before).find("checking for"), std::string::npos);
  EXPECT_EQ(cluster.Dump(), model.TableLines());
  // Another data dir after a holder that died: one look of 1.5 heartbeats, then it runs.
  const size_t restarted = cluster.LogSize();
  auto again = cluster.StartRun(false);
  ASSERT_TRUE(cluster.WaitForLog("processing pages -> query table", 20000, restarted)) << cluster.log();
  again->Signal(SIGKILL);
  again->Wait();
  const size_t before_b = cluster.LogSize();
  EXPECT_EQ(cluster.Run({"run", "--brokers", cluster.brokers(), "--data-dir", cluster.dir() + "/data-b",
                         "--exit-when-idle"}),
            0);
  EXPECT_NE(ReadFileBytes(cluster.log()).substr(before_b).find("checking for"), std::string::npos) << cluster.log();
}

TEST(InstanceClaimTest, ClaimsRoundTripAndBadOnesAreNamed) {
  app::ClaimHolder h{"0123456789abcdef", "", "/var/lib/webindex", "host-1", 42, 1764000000000, 2000, false};
  auto back = app::DecodeClaim(app::EncodeClaim(h));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->instance, h.instance);
  EXPECT_EQ(back->data_dir, h.data_dir);
  EXPECT_EQ(back->host, h.host);
  EXPECT_EQ(back->pid, 42);
  EXPECT_EQ(back->heartbeat_ms, h.heartbeat_ms);
  EXPECT_EQ(back->interval_ms, 2000);
  EXPECT_FALSE(back->stopped);
  EXPECT_EQ(back->group, "");
  h.group = "crawl";
  back = app::DecodeClaim(app::EncodeClaim(h));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->group, "crawl");
  EXPECT_EQ(app::DecodeClaim("{\"pid\":\"x\"}").status().code(), Status::Code::kCorruption);
  EXPECT_EQ(app::DecodeClaim("not json").status().code(), Status::Code::kCorruption);
}

}  // namespace
}  // namespace webindex::testing
