// PageRank of a partitioned query table (rank/source_graph.h, rank/rank_service.h): the p: rows
// of shards kept by separate sinks, one of them read from another member over HTTP, merged give
// exactly the graph ReadTableGraph reads from the whole table (same nodes in the same order,
// same edges, same out-degrees) and the same ranks, whatever the page size of the scans. A
// RankService over the shards records each shard's sink position, equal to the whole table's
// sink's, and finds nothing changed on its next check. A shard without an owner is Unavailable.
// The seed is printed (WEBINDEX_SEEDS=N replays it).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <random>
#include <set>

#include "batch_model.h"
#include "event_generator.h"
#include "http/server.h"
#include "http/shard_client.h"
#include "kafka/admin.h"
#include "pipeline_harness.h"
#include "query/sharded_table.h"
#include "rank/pagerank.h"
#include "rank/rank_service.h"
#include "rank/source_graph.h"
#include "rank/table_graph.h"
#include "seeds.h"
#include "sink/sink_stage.h"
#include "sink/table.h"
#include "task_cluster.h"

namespace webindex::testing {
namespace {

constexpr int kPartitions = 4;

//! Every array of `got` equals `want`'s; the first difference is reported.
void ExpectSameGraph(const rank::LinkGraph& want, const rank::LinkGraph& got, const std::string& what) {
  ASSERT_EQ(got.nodes(), want.nodes()) << what;
  for (uint32_t u = 0; u < want.nodes(); ++u) ASSERT_EQ(got.name(u), want.name(u)) << what << ": node " << u;
  EXPECT_EQ(got.in_begin, want.in_begin) << what;
  EXPECT_EQ(got.in_sources, want.in_sources) << what;
  EXPECT_EQ(got.out_degree, want.out_degree) << what;
}

//! A source that counts the cells its reads' scans return.
class CountingSource final : public query::TableSource {
 public:
  explicit CountingSource(std::shared_ptr<query::TableSource> inner) : inner_(std::move(inner)) {}
  std::unique_ptr<query::TableRead> Read() override { return std::make_unique<CountingRead>(inner_->Read(), &cells_); }
  uint64_t cells() const { return cells_; }

 private:
  class CountingRead final : public query::TableRead {
   public:
    CountingRead(std::unique_ptr<query::TableRead> inner, std::atomic<uint64_t>* cells)
        : inner_(std::move(inner)), cells_(cells) {}
    Result<std::vector<std::optional<std::string>>> Get(std::string_view owner,
                                                        const std::vector<std::string>& keys) override {
      return inner_->Get(owner, keys);
    }
    Status Scan(std::string_view prefix, std::string_view after, size_t limit,
                std::vector<query::KeyValue>* out) override {
      Status st = inner_->Scan(prefix, after, limit, out);
      *cells_ += out->size();
      return st;
    }
    Status ScanDomainIndex(std::string_view prefix, size_t limit, std::vector<query::KeyValue>* out) override {
      return inner_->ScanDomainIndex(prefix, limit, out);
    }
    Result<std::optional<sink::TableTotals>> Totals() override { return inner_->Totals(); }
    Result<int64_t> Position(int32_t shard, std::string_view key) override { return inner_->Position(shard, key); }
    bool remote() const override { return inner_->remote(); }

   private:
    std::unique_ptr<query::TableRead> inner_;
    std::atomic<uint64_t>* cells_;
  };
  std::shared_ptr<query::TableSource> inner_;
  std::atomic<uint64_t> cells_{0};
};

//! Every cell of `store`'s table.
std::vector<query::KeyValue> ScanAll(state::Store& store) {
  std::vector<query::KeyValue> cells;
  EXPECT_TRUE(query::ScanStore(store, nullptr, "", "", size_t{1} << 30, &cells).ok());
  return cells;
}

TEST(ShardedPageRankTest, TheShardsMergedGiveTheWholeTablesGraphAndRanks) {
  const uint64_t seed = OneRandomTestSeed("sharded pagerank");
  std::mt19937_64 rng(seed);
  PipelineHarness h(kPartitions);
  EventGenerator gen(seed, kPartitions, 200);
  BatchModel model;
  h.Feed(gen, model, 1500);
  h.RunUntilIdle();
  auto whole = h.OpenReadOnly();
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();

  // Three sinks: partition 0, partition 1, partitions 2 and 3; the last one served over HTTP.
  auto admin = kafka::Admin::Create({h.brokers(), {}});
  ASSERT_TRUE(admin.ok());
  std::vector<std::unique_ptr<Member>> sinks;
  for (const std::set<int32_t>& partitions : std::vector<std::set<int32_t>>{{0}, {1}, {2, 3}}) {
    auto& m = sinks.emplace_back(
        std::make_unique<Member>("rank" + std::to_string(*partitions.begin()), h.brokers(), kPartitions));
    m->defaults.partitions = partitions;
    m->Add(std::make_unique<sink::SinkStage>(m->Layout(false)), 1000);
    m->Start();
  }
  for (auto& m : sinks) m->WaitFor(**admin);
  http::ServerOptions served;
  served.listen = "127.0.0.1:0";
  http::Server server(*sinks[2]->store_, served);
  auto far = std::make_shared<query::StoreTableSource>(*sinks[2]->store_);
  server.api().SetShardLookup(
      [&](int32_t shard) -> std::shared_ptr<query::TableSource> { return shard >= 2 ? far : nullptr; });
  ASSERT_TRUE(server.Start().ok());
  auto remote = std::make_shared<http::RemoteShardSource>("127.0.0.1:" + std::to_string(server.port()),
                                                         std::vector<int32_t>{2, 3}, kPartitions);
  std::vector<std::shared_ptr<query::TableSource>> local;
  for (auto& m : sinks) local.push_back(std::make_shared<query::StoreTableSource>(*m->store_));
  auto counted = std::make_shared<CountingSource>(remote);
  const std::vector<std::shared_ptr<query::TableSource>> mixed{local[0], local[1], counted, counted};
  const std::vector<std::shared_ptr<query::TableSource>> near{local[0], local[1], local[2], local[2]};

  rank::TableGraphStats whole_stats;
  auto want = rank::ReadTableGraph(**whole, nullptr, &whole_stats);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_GT(want->edges(), 100u) << "a graph too small to tell anything";
  const auto want_scores = rank::ComputePageRank(*want, {10, 1});
  for (int round = 0; round < 3; ++round) {
    const bool over_http = round != 1;
    rank::SourceGraphOptions options;
    options.page_cells = round == 0 ? std::uniform_int_distribution<size_t>(1, 40)(rng) : 10000;
    query::ShardedTableSource table(over_http ? mixed : near);
    auto read = table.Read();
    rank::SourceGraphStats stats;
    const uint64_t fetched = counted->cells();
    auto got = rank::ReadSourceGraph(*read, &stats, options);
    const std::string what = (over_http ? "shards 2 and 3 over HTTP" : "every shard here") +
                             std::string(", scans of ") + std::to_string(options.page_cells) + " cells";
    ASSERT_TRUE(got.ok()) << what << ": " << got.status().ToString();
    ExpectSameGraph(*want, *got, what);
    EXPECT_EQ(stats.cells, whole_stats.cells) << what;
    EXPECT_EQ(stats.dropped, 0u) << what;
    // A range read page by page fetches each cell of the other member's shards about once.
    uint64_t far_cells = 0;
    for (query::KeyValue& c : ScanAll(*sinks[2]->store_)) far_cells += c.key.starts_with(sink::RowPrefixKey("p:"));
    if (over_http) EXPECT_LE(counted->cells() - fetched, far_cells + 2 * options.page_cells) << what;
    EXPECT_EQ(rank::ComputePageRank(*got, {10, 1}), want_scores) << what;
  }

  // The service over the shards: each shard's sink position is the whole table's sink's.
  const std::string results_dir = MakeTempDir("sharded-rank");
  {
    auto results = state::Store::Open(results_dir + "/rank", state::StoreOptions{});
    ASSERT_TRUE(results.ok()) << results.status().ToString();
    rank::RankServiceOptions options;
    options.iterations = 10;
    options.exports_topic = sinks[0]->Layout(false).names.exports;
    options.exports_partitions = kPartitions;
    rank::RankService service(**results, std::make_shared<query::ShardedTableSource>(mixed), options);
    auto computed = service.RunOnce();
    ASSERT_TRUE(computed.ok()) << computed.status().ToString();
    EXPECT_TRUE(*computed);
    auto info = rank::CurrentRankResult(**results);
    ASSERT_TRUE(info.ok() && *info);
    std::vector<int64_t> positions;
    for (int32_t p = 0; p < kPartitions; ++p) {
      auto at = query::StorePosition(**whole, nullptr, "sink/" + options.exports_topic + "/" + std::to_string(p));
      ASSERT_TRUE(at.ok()) << at.status().ToString();
      positions.push_back(*at);
    }
    EXPECT_GT(positions[3], 0);
    EXPECT_EQ((*info)->positions, positions);
    EXPECT_EQ((*info)->nodes, want->nodes());
    EXPECT_EQ((*info)->edges, want->edges());
    auto ranking = rank::RankingPage(**results, want->nodes(), "");
    ASSERT_TRUE(ranking.ok()) << ranking.status().ToString();
    const auto order = rank::RankOrder(*want, want_scores);
    ASSERT_EQ(ranking->pages.size(), order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      EXPECT_EQ(ranking->pages[i].url, want->name(order[i])) << "rank " << i;
      EXPECT_EQ(ranking->pages[i].score, want_scores[order[i]]) << "rank " << i;
    }
    auto again = service.RunOnce();
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_FALSE(*again) << "the shards did not change, yet the service computed again";
    EXPECT_EQ(service.stats().unchanged, 1u);

    // A shard without an owner: the check fails naming it, and the result stays.
    std::vector<std::shared_ptr<query::TableSource>> missing = mixed;
    missing[1] = nullptr;
    rank::RankService partial(**results, std::make_shared<query::ShardedTableSource>(missing), options);
    auto failed = partial.RunOnce();
    ASSERT_FALSE(failed.ok());
    EXPECT_EQ(failed.status().code(), Status::Code::kUnavailable) << failed.status().ToString();
    EXPECT_NE(failed.status().message().find("shard(s) 1 "), std::string::npos) << failed.status().ToString();
  }
  server.Stop();
  std::filesystem::remove_all(results_dir);
}

}  // namespace
}  // namespace webindex::testing
