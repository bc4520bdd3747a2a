// A partitioned query table across real processes (docs/scale-out.md §6): three `webindex run
// --group crawl --table-shard --http` members on `webindex broker`, each keeping the shards its
// group assigns it (well under the whole table), and each answering every question for the whole
// table through the other members: top pages through every cursor, each domain's pages, pages and
// their links, suggestions, totals, exactly as a whole-table replica of the same group (whose
// table equals the batch table) answers them. After a member is SIGKILLed the other two answer
// exactly again once its shards moved; a member SIGSTOPped past its session timeout, woken, never
// answers from the shards it no longer owns, even with the broker paused so that it cannot hear
// it lost them. The seed is printed (WEBINDEX_SEEDS=N replays it).
#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "batch_model.h"
#include "event_generator.h"
#include "model/url.h"
#include "seeds.h"
#include "table_shard_cli.h"

namespace webindex::testing {
namespace {

TEST_F(TableShardCliTest, ThreeShardMembersAnswerAsTheWholeTableThroughAKillAndAPause) {
  const uint64_t seed = OneRandomTestSeed("table shard cli");
  std::mt19937_64 rng(seed);
  EventGenerator gen(seed, kPartitions, 300);
  BatchModel model;
  auto feed = [&](size_t n) {
    auto events = gen.Next(n);
    for (auto& ev : events) model.Apply(ev.value);
    ASSERT_TRUE(cluster_->Produce(events));
  };
  const uint16_t replica_port = FreePort();
  auto replica = StartMember("replica", replica_port, "--no-stages");
  std::map<std::string, uint16_t> ports;
  std::map<std::string, std::unique_ptr<ChildProcess>> members;
  for (const std::string name : {"a", "b", "c"}) {
    ports[name] = FreePort();
    members[name] = StartMember(name, ports[name], "--table-shard");
  }
  feed(1500);
  ExpectTable("replica", model.TableLines());

  // The questions: top, each domain's pages, suggestions, a sample of pages with their in- and
  // outlinks.
  std::set<std::string> domains, uris;
  for (const std::string& line : model.TableLines()) {
    const std::string row = line.substr(0, line.find('|'));
    if (row.starts_with("d:") && line.find("|domain|pagecount|") != std::string::npos) domains.insert(row.substr(2));
    if (row.starts_with("p:")) uris.insert(row.substr(2));
  }
  std::vector<std::string> questions = {"/api/totals?", "/api/top?limit=7"};
  for (const std::string& d : domains) questions.push_back("/api/pages?limit=5&domain=" + Encode(model::HostName(d)));
  std::set<std::string> starts;  // suggestions: starts of domain names
  for (const std::string& d : domains) starts.insert(model::HostName(d).substr(0, 3));
  for (const std::string& s : starts) questions.push_back("/api/suggest?limit=8&q=" + Encode(s));
  std::vector<std::string> sample(uris.begin(), uris.end());
  std::shuffle(sample.begin(), sample.end(), rng);
  sample.resize(std::min<size_t>(sample.size(), 40));
  for (const std::string& uri : sample) {
    const std::string url = Encode(query::DisplayUrl(uri));
    questions.push_back("/api/page?url=" + url);
    questions.push_back("/api/links?limit=3&linkType=in&url=" + url);
    questions.push_back("/api/links?limit=3&linkType=out&url=" + url);
  }
  ExpectAnswers(replica_port, {ports["a"], ports["b"], ports["c"]}, questions);

  // Each member holds a part of the table: together all of it, each well under the whole.
  size_t whole = model.TableLines().size(), sum = 0;
  for (const std::string name : {"a", "b", "c"}) {
    size_t held = 0;
    for (const auto& [p, n] : ShardCells(name)) held += n;
    sum += held;
    EXPECT_LT(held, whole * 3 / 4) << name << " holds " << held << " of " << whole << " cells";
  }
  EXPECT_EQ(sum, whole);

  // c is killed: a and b take its shards over, build them from the exports and answer whole again.
  members["c"]->Signal(SIGKILL);
  members["c"]->Wait();
  feed(500);
  ExpectTable("replica", model.TableLines());
  ExpectAnswers(replica_port, {ports["a"], ports["b"]}, questions);

  // b is paused past its session timeout while more events come: a takes every shard. Woken, b
  // never answers from the shards it lost: every answer of its is the replica's or a refusal.
  members["b"]->Signal(SIGSTOP);
  std::this_thread::sleep_for(9s);
  feed(500);
  ExpectTable("replica", model.TableLines());
  ExpectAnswers(replica_port, {ports["a"]}, questions);
  // The broker is paused too, so that b cannot catch its copies up or hear that it lost them:
  // whatever b answers must come from a's shards.
  const std::string want = Get(replica_port, "/api/top?limit=1000").body;
  cluster_->broker().Signal(SIGSTOP);
  members["b"]->Signal(SIGCONT);
  size_t refused = 0, answered = 0;
  for (auto until = std::chrono::steady_clock::now() + 3s; std::chrono::steady_clock::now() < until;) {
    const Reply got = Get(ports["b"], "/api/top?limit=1000");
    if (got.status == 200) {
      ++answered;
      EXPECT_EQ(got.body, want) << "b answered from stale shards after its pause; see " << cluster_->log();
    } else {
      ++refused;
    }
    std::this_thread::sleep_for(50ms);
  }
  cluster_->broker().Signal(SIGCONT);
  std::cout << "woken b: " << answered << " answers, " << refused << " refusals" << std::endl;
  ExpectAnswers(replica_port, {ports["a"], ports["b"]}, questions);

  for (auto& [name, m] : members) {
    if (name == "c") continue;
    m->Signal(SIGTERM);
    EXPECT_EQ(m->Wait(), 0) << name << "; see " << cluster_->log();
  }
  replica->Signal(SIGTERM);
  EXPECT_EQ(replica->Wait(), 0) << "see " << cluster_->log();
}

// --table-shard belongs to a member of a group, and others must be able to reach its API.
TEST_F(TableShardCliTest, ShardMembersAreGroupMembersOthersCanReach) {
  const std::string brokers = cluster_->brokers(), data = DataDir("x");
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "--brokers", brokers, "--data-dir", data};
    args.insert(args.end(), extra.begin(), extra.end());
    return cluster_->Run(args);
  };
  EXPECT_EQ(run({"--table-shard"}), 2);
  EXPECT_EQ(run({"--group", "g", "--http-advertise", "h:1"}), 2);
  EXPECT_EQ(run({"--group", "g", "--table-shard", "--http-advertise", "h:1"}), 2);  // no --http
  EXPECT_EQ(run({"--group", "g", "--table-shard", "--http", "0.0.0.0:0"}), 2);     // nowhere to reach it
  EXPECT_EQ(run({"--group", "g", "--table-shard", "--http", "0.0.0.0:0", "--http-advertise", "h:0"}), 2);
  EXPECT_TRUE(cluster_->WaitForLog("--http 0.0.0.0:0 listens on every interface: give --http-advertise", 1000))
      << cluster_->LogTail();
  EXPECT_FALSE(std::filesystem::exists(data)) << "a usage error touched the disk";
}

}  // namespace
}  // namespace webindex::testing
