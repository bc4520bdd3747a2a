// PageRank of a partitioned query table across real processes (docs/scale-out.md §6.1): three
// `webindex run --group crawl --table-shard --http` members and a whole-table replica of the
// same group on `webindex broker`. Every member answers /api/pagerank (the one serving table
// shard 0 from its results, the others by forwarding to it) with the replica's ranking: the
// same pages, scores and export positions. Once the computing member is SIGKILLed and more
// events arrive, the member that takes shard 0 over computes and all answer the replica's again,
// from a result numbered after the killed member's.
// The seed is printed (WEBINDEX_SEEDS=N replays it).
#include <signal.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "batch_model.h"
#include "event_generator.h"
#include "seeds.h"
#include "table_shard_cli.h"

namespace webindex::testing {
namespace {

//! An answer of /api/pagerank without what differs between two computations of one graph (the
//! result's id and time): from "iterations" on (sizes, export positions, every page and score).
std::string RankingFacts(const Reply& reply) {
  if (reply.status != 200) return std::to_string(reply.status) + " " + reply.body.substr(0, 300);
  const size_t at = reply.body.find("\"iterations\"");
  return at == std::string::npos ? reply.body : reply.body.substr(at);
}

//! The id of the result an answer of /api/pagerank is from (0: none).
uint64_t ResultId(const Reply& reply) {
  const std::string key = "{\"result\":";
  return reply.status == 200 && reply.body.starts_with(key) ? std::stoull(reply.body.substr(key.size())) : 0;
}

TEST_F(TableShardCliTest, ThreeShardMembersAnswerTheReplicasPageRank) {
  const uint64_t seed = OneRandomTestSeed("table shard pagerank cli");
  EventGenerator gen(seed, kPartitions, 150);
  BatchModel model;
  auto feed = [&](size_t n) {
    auto events = gen.Next(n);
    for (auto& ev : events) model.Apply(ev.value);
    ASSERT_TRUE(cluster_->Produce(events));
  };
  WriteConfig("[group]\nsession_timeout_ms = 6000\n[pagerank]\ninterval_s = 1\n");
  const uint16_t replica_port = FreePort();
  auto replica = StartMember("replica", replica_port, "--no-stages");
  std::map<std::string, uint16_t> ports;
  std::map<std::string, std::unique_ptr<ChildProcess>> members;
  for (const std::string name : {"a", "b", "c"}) {
    ports[name] = FreePort();
    members[name] = StartMember(name, ports[name], "--table-shard");
  }
  // Every member answers the replica's ranking; the whole of it fits one page (limit 1000).
  const std::string question = "/api/pagerank?limit=1000";
  auto expect_ranking = [&](const std::vector<std::string>& names) {
    std::string want;
    std::map<std::string, std::string> got;
    for (auto deadline = std::chrono::steady_clock::now() + 120s; std::chrono::steady_clock::now() < deadline;) {
      want = RankingFacts(Get(replica_port, question));
      bool same = want.starts_with("\"iterations\"");
      for (const std::string& name : names) {
        got[name] = RankingFacts(Get(ports[name], question));
        same = same && got[name] == want;
      }
      if (same && RankingFacts(Get(replica_port, question)) == want) return;
      std::this_thread::sleep_for(500ms);
    }
    for (const std::string& name : names) {
      EXPECT_EQ(got[name].substr(0, 600), want.substr(0, 600)) << name << "; see " << cluster_->log();
    }
  };
  feed(600);
  ExpectTable("replica", model.TableLines());
  expect_ranking({"a", "b", "c"});
  EXPECT_FALSE(NextCursor(Get(replica_port, question).body)) << "the ranking does not fit one page";

  // Exactly one member computes: the one serving shard 0; the others' /internal/pagerank is 503.
  std::string computing;
  for (const auto& [name, port] : ports) {
    const int status = Get(port, "/internal/pagerank?limit=1").status;
    if (status == 200) {
      EXPECT_EQ(computing, "") << "two members compute: " << computing << " and " << name;
      computing = name;
    } else {
      EXPECT_EQ(status, 503) << name;
    }
  }
  ASSERT_NE(computing, "") << "no member computes; see " << cluster_->log();

  // Two more rounds: the computing member's results go on (ids past what the others ever stored).
  for (int round = 0; round < 2; ++round) {
    feed(60);
    ExpectTable("replica", model.TableLines());
    expect_ranking({"a", "b", "c"});
  }

  // The computing member is killed: another takes shard 0 over and computes the grown graph,
  // numbering its results after the killed member's.
  const uint64_t before = ResultId(Get(ports[computing], question));
  ASSERT_GT(before, 0u);
  // Members advertise their result's id once a second; a member killed sooner would take the
  // id of a result stored in its last second with it (docs/scale-out.md §6.1 says so).
  std::this_thread::sleep_for(2500ms);
  members[computing]->Signal(SIGKILL);
  members[computing]->Wait();
  std::vector<std::string> rest;
  for (const auto& [name, port] : ports) {
    if (name != computing) rest.push_back(name);
  }
  feed(300);
  ExpectTable("replica", model.TableLines());
  expect_ranking(rest);
  for (const std::string& name : rest) EXPECT_GT(ResultId(Get(ports[name], question)), before) << name;

  for (const std::string& name : rest) {
    members[name]->Signal(SIGTERM);
    EXPECT_EQ(members[name]->Wait(), 0) << name << "; see " << cluster_->log();
  }
  replica->Signal(SIGTERM);
  EXPECT_EQ(replica->Wait(), 0) << "see " << cluster_->log();
}

}  // namespace
}  // namespace webindex::testing
