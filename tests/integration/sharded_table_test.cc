// A partitioned query table (query/sharded_table.h): sinks that each keep the rows of some
// partitions of webindex.exports, read together, answer every question exactly as the whole
// table does: top pages, a domain's pages and a page's in- and outlinks through every cursor
// (random page sizes), one page, the totals. A shard without a source makes the questions that
// need it fail, never answer short. Served by members over HTTP, several shards to a request,
// they answer the same. The seed is printed (WEBINDEX_SEEDS=N replays it).
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <set>
#include <sstream>

#include "batch_model.h"
#include "event_generator.h"
#include "http/server.h"
#include "http/shard_client.h"
#include "kafka/admin.h"
#include "model/url.h"
#include "pipeline_harness.h"
#include "query/query_service.h"
#include "query/sharded_table.h"
#include "query/table_reader.h"
#include "seeds.h"
#include "sink/sink_stage.h"
#include "table_compare.h"
#include "task_cluster.h"

namespace webindex::testing {
namespace {

constexpr int kPartitions = 4;

TEST(ShardedTableTest, EveryQueryOfTheShardsMergedEqualsTheWholeTable) {
  const uint64_t seed = OneRandomTestSeed("sharded table");
  std::mt19937_64 rng(seed);
  PipelineHarness h(kPartitions);
  EventGenerator gen(seed, kPartitions, 300);
  BatchModel model;
  h.Feed(gen, model, 3000);
  h.RunUntilIdle();
  auto whole_store = h.OpenReadOnly();
  ASSERT_TRUE(whole_store.ok()) << whole_store.status().ToString();
  ASSERT_EQ(h.Dump(), model.TableLines());

  // Three sinks: partition 0, partition 1, partitions 2 and 3 (one source serving two shards).
  auto admin = kafka::Admin::Create({h.brokers(), {}});
  ASSERT_TRUE(admin.ok());
  std::vector<std::unique_ptr<Member>> sinks;
  for (const std::set<int32_t>& partitions : std::vector<std::set<int32_t>>{{0}, {1}, {2, 3}}) {
    auto& m = sinks.emplace_back(std::make_unique<Member>("shard" + std::to_string(*partitions.begin()), h.brokers(),
                                                          kPartitions));
    m->defaults.partitions = partitions;
    m->Add(std::make_unique<sink::SinkStage>(m->Layout(false)), 1000);
    m->Start();
  }
  for (auto& m : sinks) m->WaitFor(**admin);
  std::vector<std::shared_ptr<query::TableSource>> sources;
  for (auto& m : sinks) sources.push_back(std::make_shared<query::StoreTableSource>(*m->store_));
  const std::vector<std::shared_ptr<query::TableSource>> shards{sources[0], sources[1], sources[2], sources[2]};

  // Each shard keeps a part of the table; together all of it.
  std::set<std::string> whole_lines, shard_lines;
  for (const std::string& line : h.Dump()) whole_lines.insert(line);
  for (auto& m : sinks) {
    size_t cells = 0;
    ASSERT_TRUE(query::ScanRows(*m->store_, "", [&](const sink::Cell& c) {
                  ++cells;
                  EXPECT_TRUE(shard_lines.insert(query::CellLine(c)).second) << "in two shards: " << query::CellLine(c);
                  return true;
                }).ok());
    EXPECT_LT(cells, whole_lines.size() * 3 / 4) << m->name_;
  }
  EXPECT_EQ(shard_lines, whole_lines);

  query::QueryService whole(**whole_store);
  query::QueryService sharded(std::make_shared<query::ShardedTableSource>(shards));
  EXPECT_EQ(ExpectSameAnswers(**whole_store, whole, sharded, rng), 0u);

  // The shards served over HTTP and asked as two members' would be, shards 0 and 1 of one, 2 and
  // 3 of the other: each scan and the totals are one request per member, which merges its shards.
  http::ServerOptions options;
  options.listen = "127.0.0.1:0";
  http::Server server(**whole_store, options);
  server.api().SetShardLookup([&shards](int32_t p) { return p < kPartitions ? shards[p] : nullptr; });
  ASSERT_TRUE(server.Start().ok());
  const std::string address = "127.0.0.1:" + std::to_string(server.port());
  auto low = std::make_shared<http::RemoteShardSource>(address, std::vector<int32_t>{0, 1}, kPartitions);
  auto high = std::make_shared<http::RemoteShardSource>(address, std::vector<int32_t>{2, 3}, kPartitions);
  query::QueryService remote(std::make_shared<query::ShardedTableSource>(
      std::vector<std::shared_ptr<query::TableSource>>{low, low, high, high}));
  EXPECT_EQ(ExpectSameAnswers(**whole_store, whole, remote, rng), 0u);
  std::set<std::string> uris;
  size_t inlinks = 0;
  ASSERT_TRUE(query::ScanRows(**whole_store, "", [&](const sink::Cell& c) {
                if (c.row.starts_with("p:")) uris.insert(c.row.substr(2));
                if (c.cf == "inlinks") ++inlinks;
                return true;
              }).ok());
  EXPECT_GT(inlinks, 0u);

  // Shard 1 without an owner: what needs it fails and names it; the rest still answers.
  std::vector<std::shared_ptr<query::TableSource>> missing = shards;
  missing[1] = nullptr;
  query::QueryService partial(std::make_shared<query::ShardedTableSource>(missing));
  auto top_partial = partial.Top(5, "");
  ASSERT_FALSE(top_partial.ok());
  EXPECT_EQ(top_partial.status().code(), Status::Code::kUnavailable);
  EXPECT_NE(top_partial.status().message().find("1"), std::string::npos) << top_partial.status().ToString();
  EXPECT_FALSE(partial.Totals().ok());
  query::ShardedTableSource router(shards);
  for (const std::string& uri : uris) {
    const std::string url = query::DisplayUrl(uri);
    auto page = partial.Page(url);
    if (router.ShardOf(uri) == 1) {
      EXPECT_EQ(page.status().code(), Status::Code::kUnavailable) << url;
    } else {
      EXPECT_EQ(PageText(page), PageText(whole.Page(url))) << url;
    }
  }
}

}  // namespace
}  // namespace webindex::testing
