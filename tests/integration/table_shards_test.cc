// Members keeping a partitioned query table (app/table_shards.h): two members in one group share
// the shards of webindex.exports, each holding a part; together they answer every question as the
// whole table does. When one leaves, the other builds its shards and answers alone; more crawl
// events reach every shard; the member back on its data dir reads on from the copies it kept.
// A shard whose partition lost records to retention is refused. The seed is printed.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
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
  ShardMember(const std::string& brokers, const std::string& dir) {
    app::TableShardsOptions o;
    o.dir = dir;
    o.group_id = "shards.table";
    o.session_timeout_ms = 6000;
    o.kafka.brokers = brokers;
    o.layout.export_partitions = kPartitions;
    o.runner.poll_timeout_ms = 20;
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

}  // namespace
}  // namespace webindex::testing
