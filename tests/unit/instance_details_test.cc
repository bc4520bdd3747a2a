// Instance details (app/instance_details.h): recorded and read back in a store, defaults of a
// generation set up before they existed, --indexes changes, the drift from a configuration.
#include <gtest/gtest.h>

#include <filesystem>

#include "app/instance_details.h"
#include "pipeline_harness.h"

namespace webindex::app {
namespace {

TEST(InstanceDetailsTest, RecordedAndReadBack) {
  const std::string dir = testing::MakeTempDir("webindex-details");
  {
    auto store = state::Store::Open(dir, state::StoreOptions{.sync_commits = false});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    // Nothing recorded: a generation set up before details existed.
    auto old = ReadDetails(**store);
    ASSERT_TRUE(old.ok());
    EXPECT_EQ(old->name, "");
    EXPECT_EQ(old->created_ms, -1);
    EXPECT_FALSE(old->web_triples || old->indexes.temporal || old->indexes.freetext);
    EXPECT_TRUE(old->pagerank);
    EXPECT_EQ(DetailsJson(*old, "id1", 3),
              R"({"name":"","id":"id1","version":null,"createdAt":null,"generation":3,"generationCreatedAt":null,)"
              R"("indexes":{"graph":true,"web_triples":false,"temporal":false,"freetext":false,"pagerank":true,)"
              R"("temporal.predicates":[],"freetext.by_predicate":false}})");

    ProcessorConfig config;
    config.instance_name = "crawl";
    config.web_triples = true;
    config.indexes.temporal_predicates = {"http://a/p", "http://a/q"};
    config.rank.interval = std::chrono::milliseconds(0);
    const InstanceDetails d = DetailsFromConfig(config, 1795000000000);
    state::WriteBatch batch(**store);
    RecordDetails(d, &batch);
    ASSERT_TRUE((*store)->Write(batch).ok());
    auto back = ReadDetails(**store);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, d);
    EXPECT_EQ(DetailsJson(*back, "id1", 1),
              R"({"name":"crawl","id":"id1","version":")" + std::string(Version()) +
                  R"(","createdAt":"2026-11-18T11:06:40.000Z","generation":1,)"
                  R"("generationCreatedAt":"2026-11-18T11:06:40.000Z","indexes":{"graph":true,"web_triples":true,)"
                  R"("temporal":true,"freetext":true,"pagerank":false,"temporal.predicates":["http://a/p","http://a/q"],)"
                  R"("freetext.by_predicate":true}})");
  }
  std::filesystem::remove_all(dir);
}

TEST(InstanceDetailsTest, IndexChanges) {
  InstanceDetails d;
  ASSERT_TRUE(ChangeIndexes("+temporal,-pagerank,web_triples", &d).ok());
  EXPECT_TRUE(d.indexes.temporal);
  EXPECT_FALSE(d.pagerank);
  EXPECT_TRUE(d.web_triples);
  ASSERT_TRUE(ChangeIndexes("", &d).ok());
  ASSERT_TRUE(ChangeIndexes("-temporal", &d).ok());
  EXPECT_FALSE(d.indexes.temporal);
  auto bad = ChangeIndexes("+freetext,-graph", &d);
  EXPECT_EQ(bad.message(),
            "--indexes: 'graph' is not an index; write +name or -name, comma-separated, with names web_triples, "
            "temporal, freetext, pagerank (the graph's four statement orders are always kept)");
  EXPECT_FALSE(ChangeIndexes("+temporal,,", &d).ok());
}

TEST(InstanceDetailsTest, DriftNamesEveryDifferenceAndTheChangeThatFollowsTheConfiguration) {
  ProcessorConfig config;  // temporal, freetext, pagerank on; web_triples off
  InstanceDetails recorded = DetailsFromConfig(config, 0);
  EXPECT_EQ(DriftFrom(recorded, config).description, "");
  recorded.indexes.temporal = false;
  recorded.web_triples = true;
  const Drift drift = DriftFrom(recorded, config);
  EXPECT_EQ(drift.description,
            "web_triples: on in this table, off in the configuration; temporal: off in this table, on in the "
            "configuration");
  EXPECT_EQ(drift.changes, "-web_triples,+temporal");
  recorded = DetailsFromConfig(config, 0);
  config.indexes.temporal_predicates = {"http://a/p"};
  EXPECT_EQ(DriftFrom(recorded, config).description,
            "temporal.predicates: [] in this table, [http://a/p] in the configuration");
  EXPECT_EQ(DriftFrom(recorded, config).changes, "");
}

}  // namespace
}  // namespace webindex::app
