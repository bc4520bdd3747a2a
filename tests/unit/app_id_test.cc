// The application id (app/app_id.h): which names it gives, which it leaves, which ids it takes.
#include "app/app_id.h"

#include <gtest/gtest.h>

namespace webindex::app {
namespace {

TEST(AppIdTest, AnotherIdNamesEveryOwnedTopicAndGroupAndLeavesTheInputs) {
  ProcessorConfig config;
  config.partitions = {{"pages", 8}, {"webindex.uri-deltas", 4}};
  config.topic_config = {{"webindex.instances", {{"cleanup.policy", "compact"}}}};
  config.group = "crawl";
  config.app_id = "staging";
  ApplyAppId(&config);
  const auto& n = config.topics;
  EXPECT_EQ(n.pages, "pages");
  EXPECT_EQ(n.triples, "triples");
  EXPECT_EQ(n.uri_deltas, "staging.uri-deltas");
  EXPECT_EQ(n.domain_deltas, "staging.domain-deltas");
  EXPECT_EQ(n.exports, "staging.exports");
  EXPECT_EQ(n.dead_letters, "staging.dead-letters");
  EXPECT_EQ(n.pagerank, "staging.pagerank");
  EXPECT_EQ(n.generations, "staging.generations");
  EXPECT_EQ(n.instances, "staging.instances");
  EXPECT_EQ(config.runner.changelog_prefix, "staging.changelog.");
  EXPECT_EQ(config.runner.dead_letters, "staging.dead-letters");
  EXPECT_EQ(config.runner.app_id, "staging");
  EXPECT_EQ(config.partitions, (std::map<std::string, int>{{"pages", 8}, {"staging.uri-deltas", 4}}));
  EXPECT_EQ(config.topic_config.count("staging.instances"), 1u);
  EXPECT_EQ(KafkaGroupName(config), "staging.crawl");
  ApplyAppId(&config);  // idempotent
  EXPECT_EQ(n.exports, "staging.exports");
}

TEST(AppIdTest, TheDefaultIdChangesNoName) {
  ProcessorConfig config;
  config.group = "crawl";
  const ProcessorConfig before = config;
  ApplyAppId(&config);
  EXPECT_EQ(config.topics.exports, before.topics.exports);
  EXPECT_EQ(config.runner.changelog_prefix, before.runner.changelog_prefix);
  EXPECT_EQ(KafkaGroupName(config), "crawl");
}

TEST(AppIdTest, AnIdIsATopicNamePrefix) {
  for (const char* good : {"webindex", "staging", "a", "crawl-2026.v2", "A_b"}) EXPECT_TRUE(CheckAppId(good).ok()) << good;
  for (const char* bad : {"", "-x", ".x", "_x", "a b", "a/b", "é"}) {
    const Status st = CheckAppId(bad);
    EXPECT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("--app-id"), std::string::npos) << st.message();
  }
  EXPECT_FALSE(CheckAppId(std::string(101, 'a')).ok());
}

}  // namespace
}  // namespace webindex::app
