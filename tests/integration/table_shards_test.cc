// Members keeping a partitioned query table (app/table_shards.h): two members in one group share
// the shards of webindex.exports, each holding a part; together they answer every question as the
// whole table does. When one leaves, the other builds its shards and answers alone; more crawl
// events reach every shard; the member back on its data dir reads on from the copies it kept.
// A shard whose partition lost records to retention is refused. A member whose sinks are slow to
// stop hands over only the shards the group moves, and keeps the others. The seed is printed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include "app/table_shards.h"
#include "batch_model.h"
#include "event_generator.h"
#include "pipeline_harness.h"
#include "query/query_service.h"
#include "query/sharded_table.h"
#include "seeds.h"
#include "table_compare.h"

namespace webindex::testing {
namespace {

constexpr int kPartitions = 4;

class ShardMember {
 public:
  //! `before_sink_stops`: called as each of its shards' sinks starts to stop.
  ShardMember(const std::string& brokers, const std::string& dir,
              std::function<void(int32_t)> before_sink_stops = {}) {
    app::TableShardsOptions o;
    o.dir = dir;
    o.group_id = "shards.table";
    o.session_timeout_ms = 6000;
    o.kafka.brokers = brokers;
    o.layout.export_partitions = kPartitions;
    o.runner.poll_timeout_ms = 20;
    o.before_sink_stops = std::move(before_sink_stops);
    auto started = app::TableShards::Start(o, metrics_);
    EXPECT_TRUE(started.ok()) << started.status().ToString();
    if (started.ok()) shards_ = std::move(started).value();
  }
  app::TableShards& shards() { return *shards_; }
  void Stop() { shards_.reset(); }

 private:
  pipeline::Metrics metrics_;
  std::unique_ptr<app::TableShards> shards_;
};

//! Each shard from whichever member serves it.
std::shared_ptr<query::TableSource> Combined(const std::vector<ShardMember*>& members) {
  std::vector<std::shared_ptr<query::TableSource>> shards(kPartitions);
  for (ShardMember* m : members) {
    const auto sources = m->shards().Sources();
    for (int p = 0; p < kPartitions; ++p) {
      if (sources[p]) shards[p] = sources[p];
    }
  }
  return std::make_shared<query::ShardedTableSource>(shards);
}

//! Waits until `members` serve every shard between them, each shard once.
void WaitServed(const std::vector<ShardMember*>& members) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    std::multiset<int32_t> served;
    for (ShardMember* m : members) {
      ASSERT_FALSE(m->shards().failure().has_value()) << m->shards().failure()->ToString();
      const auto sources = m->shards().Sources();
      for (int p = 0; p < kPartitions; ++p) {
        if (sources[p]) served.insert(p);
      }
    }
    if (served.size() == kPartitions && std::set<int32_t>(served.begin(), served.end()).size() == kPartitions) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL() << "the members did not serve every shard within 60 s";
}

//! Waits until the members' answers equal the whole table's (their sinks catch up), then checks
//! them once more with failures reported.
void ExpectAnswersOfTheWholeTable(PipelineHarness& h, const std::vector<ShardMember*>& members, std::mt19937_64& rng) {
  WaitServed(members);
  auto whole_store = h.OpenReadOnly();
  ASSERT_TRUE(whole_store.ok());
  query::QueryService whole(**whole_store);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    query::QueryService shards(Combined(members));
    auto a = whole.Top(1000, ""), b = shards.Top(1000, "");
    auto ta = whole.Totals(), tb = shards.Totals();
    if (a.ok() && b.ok() && ta.ok() && tb.ok() && *ta == *tb && a->results.size() == b->results.size()) {
      bool same = true;
      for (size_t i = 0; i < a->results.size() && same; ++i) {
        same = a->results[i].uri == b->results[i].uri && a->results[i].count == b->results[i].count;
      }
      if (same) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  query::QueryService shards(Combined(members));
  EXPECT_EQ(ExpectSameAnswers(**whole_store, whole, shards, rng), 0u);
}

TEST(TableShardsTest, MembersShareTheShardsAndAnswerAsTheWholeTableThroughMoves) {
  const uint64_t seed = OneRandomTestSeed("table shards");
  std::mt19937_64 rng(seed);
  PipelineHarness h(kPartitions);
  EventGenerator gen(seed, kPartitions, 300);
  BatchModel model;
  h.Feed(gen, model, 2000);
  h.RunUntilIdle();
  const std::string dir_a = MakeTempDir("shards-a"), dir_b = MakeTempDir("shards-b");

  auto a = std::make_unique<ShardMember>(h.brokers(), dir_a);
  auto b = std::make_unique<ShardMember>(h.brokers(), dir_b);
  WaitServed({a.get(), b.get()});
  EXPECT_FALSE(a->shards().Ready().empty());
  EXPECT_FALSE(b->shards().Ready().empty());
  ExpectAnswersOfTheWholeTable(h, {a.get(), b.get()}, rng);

  // A leaves: B builds A's shards from the exports and answers alone, as more events arrive.
  a.reset();
  h.Feed(gen, model, 1000);
  h.RunUntilIdle();
  ExpectAnswersOfTheWholeTable(h, {b.get()}, rng);
  EXPECT_EQ(b->shards().Ready().size(), static_cast<size_t>(kPartitions));

  // A comes back on its data dir: the shards it is given again read on from its copies.
  a = std::make_unique<ShardMember>(h.brokers(), dir_a);
  h.Feed(gen, model, 500);
  h.RunUntilIdle();
  for (int i = 0; i < 600 && a->shards().Ready().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_FALSE(a->shards().Ready().empty()) << "the group gave the member back no shard within 60 s";
  ExpectAnswersOfTheWholeTable(h, {a.get(), b.get()}, rng);
  EXPECT_GT(a->shards().resumed_locally(), 0u);
  a.reset();
  b.reset();
  std::filesystem::remove_all(dir_a);
  std::filesystem::remove_all(dir_b);
}

// Stopping a shard's sink can take longer than a rebalance on a slow machine (here 12 s, the
// session 6 s). A member that waited for it inside the rebalance callback could not rejoin when
// another rebalance began meanwhile: the group dropped it and moved every shard it had, again and
// again under load. It must hand over only the shards that move, keep serving the others, and
// take a shard back only once its old sink stopped.
TEST(TableShardsTest, ASlowSinkStopCostsTheMemberOnlyTheShardsThatMove) {
  const uint64_t seed = OneRandomTestSeed("table shards slow stop");
  std::mt19937_64 rng(seed);
  PipelineHarness h(kPartitions);
  EventGenerator gen(seed, kPartitions, 300);
  BatchModel model;
  h.Feed(gen, model, 1000);
  h.RunUntilIdle();
  const std::string dir_a = MakeTempDir("shards-a"), dir_b = MakeTempDir("shards-b"), dir_c = MakeTempDir("shards-c"),
                    dir_d = MakeTempDir("shards-d");
  std::atomic<int> stops_ab{0};
  std::atomic<bool> slow{true};
  const auto slow_stop = [&](int32_t) {
    ++stops_ab;
    for (int i = 0; i < 120 && slow; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  };
  auto a = std::make_unique<ShardMember>(h.brokers(), dir_a, slow_stop);
  auto b = std::make_unique<ShardMember>(h.brokers(), dir_b, slow_stop);
  WaitServed({a.get(), b.get()});
  ExpectAnswersOfTheWholeTable(h, {a.get(), b.get()}, rng);

  // C joins: the group moves one of the four shards to it (2/1/1), so A or B stops that one's
  // sink; D joins while it stops, which begins another rebalance (1/1/1/1).
  auto c = std::make_unique<ShardMember>(h.brokers(), dir_c);
  for (int i = 0; i < 600 && stops_ab == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(stops_ab.load(), 1) << "no shard moved to a third member within 60 s";
  auto d = std::make_unique<ShardMember>(h.brokers(), dir_d);
  WaitServed({a.get(), b.get(), c.get(), d.get()});
  for (ShardMember* m : {a.get(), b.get(), c.get(), d.get()}) {
    for (int i = 0; i < 600 && m->shards().Ready().size() != 1; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(m->shards().Ready().size(), 1u);
  }
  ExpectAnswersOfTheWholeTable(h, {a.get(), b.get(), c.get(), d.get()}, rng);
  EXPECT_EQ(stops_ab.load(), 2) << "A and B stopped the sinks of shards that did not move: the group dropped a "
                                   "member that was stopping a sink during a rebalance";

  // C and D leave; their shards come back to A and B, each read by one sink at a time.
  c.reset();
  d.reset();
  h.Feed(gen, model, 300);
  h.RunUntilIdle();
  ExpectAnswersOfTheWholeTable(h, {a.get(), b.get()}, rng);
  EXPECT_EQ(stops_ab.load(), 2);
  slow = false;
  a.reset();
  b.reset();
  for (const auto& dir : {dir_a, dir_b, dir_c, dir_d}) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace webindex::testing
