// A replay's bulk crawl build (app/bulk_crawl.h) against the incremental stages: the same random
// crawl events (re-crawls, deletes, stale and missing dates and revisions, duplicates, invalid
// events) replayed into one data dir as a batch and into another one batch at a time (--no-bulk)
// give the same state in every family: the query table and its totals and domain index byte for
// byte, page states, link and domain counters and sink versions equal but for the version
// numbers (they count the batches that changed a key: one in a bulk build), the page stage's
// positions, the same dead letters, and exports whose newest value per key agrees. Both then go
// on incrementally and are equal again. The seed is printed (WEBINDEX_SEEDS=N replays it).
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "cli_cluster.h"
#include "seeds.h"
#include "codec/records.h"
#include "codec/state_codec.h"
#include "common/bytes.h"
#include "event_generator.h"
#include "gzip_file.h"
#include "pipeline_harness.h"
#include "sink/summary.h"
#include "state/store.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

constexpr int kPartitions = 4;

uint64_t Seed() { return OneRandomTestSeed("bulk crawl"); }

//! What one data dir's current generation holds, versions apart; `versions` keeps them to check
//! that the sink's agree with the stages'.
struct CrawlState {
  std::map<std::string, std::string> table, meta;  //!< every cell; the sink's domain index
  sink::TableTotals totals;
  std::map<std::string, std::string> pages;       //!< uri -> page state with version 0
  std::map<std::string, model::UriInfo> uris;     //!< counted (non-zero) URIs
  std::map<std::string, int64_t> domains;         //!< domains with pages
  std::map<std::string, std::string> positions;   //!< the page stage's
  std::map<std::string, uint64_t> state_versions;  //!< "P"/"U"/"D" + key -> the stages' version (live keys)
  std::map<std::string, uint64_t> sink_versions;   //!< the sink's, live keys only
};

std::string CurrentGenerationDir(const std::string& data_dir) {
  std::string gen;
  for (const auto& e : std::filesystem::directory_iterator(data_dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("gen-", 0) == 0 && (gen.empty() || std::stoi(name.substr(4)) > std::stoi(gen.substr(4)))) gen = name;
  }
  return data_dir + "/" + gen;
}

CrawlState ReadState(const std::string& data_dir) {
  CrawlState out;
  state::StoreOptions options;
  options.read_only = true;
  auto opened = state::Store::Open(CurrentGenerationDir(data_dir), options);
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  if (!opened.ok()) return out;
  state::Store& store = **opened;
  auto each = [&](state::Family family, const std::function<void(std::string_view, std::string_view)>& f) {
    auto it = store.NewIterator(family);
    for (it->SeekToFirst(); it->Valid(); it->Next()) f(it->key(), it->value());
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  };
  each(state::Family::kTable, [&](auto k, auto v) { out.table[std::string(k)] = std::string(v); });
  each(state::Family::kMeta, [&](auto k, auto v) {
    if (k.starts_with(sink::kDomainIndexPrefix)) out.meta[std::string(k)] = std::string(v);
  });
  auto totals = sink::ReadTotals(store);
  EXPECT_TRUE(totals.ok() && totals->has_value()) << "no kept totals";
  if (totals.ok() && totals->has_value()) out.totals = **totals;
  each(state::Family::kPages, [&](auto k, auto v) {
    auto s = codec::DecodePageState(v);
    ASSERT_TRUE(s.ok());
    if (s->page) out.state_versions["P" + std::string(k)] = s->version;
    s->version = 0;
    out.pages[std::string(k)] = codec::EncodePageState(*s);
  });
  each(state::Family::kUris, [&](auto k, auto v) {
    auto c = codec::DecodeCounted(v);
    ASSERT_TRUE(c.ok());
    if (!c->info.Exists()) return;
    out.uris[std::string(k)] = c->info;
    out.state_versions["U" + std::string(k)] = c->version;
  });
  each(state::Family::kDomains, [&](auto k, auto v) {
    auto c = codec::DecodeCounted(v);
    ASSERT_TRUE(c.ok());
    if (c->info.docs == 0) return;
    out.domains[std::string(k)] = c->info.docs;
    out.state_versions["D" + std::string(k)] = c->version;
  });
  each(state::Family::kVersions, [&](auto k, auto v) {
    uint64_t seq = 0;
    BytesReader r(v);
    ASSERT_TRUE(r.GetFixed64BE(&seq));
    if (out.state_versions.count(std::string(k))) out.sink_versions[std::string(k)] = seq;
  });
  each(state::Family::kOffsets, [&](auto k, auto v) {
    if (k.starts_with("page/pages/")) out.positions[std::string(k)] = std::string(v);
  });
  return out;
}

//! The newest export of generation 2 per (type, key) in `app`'s exports topic, as a consumer that
//! follows the generation folds them; keys gone (no page, zero counts) are left out.
std::map<std::string, std::string> FoldedExports(const CliCluster& cluster, const std::string& app) {
  codec::RecordDecoder decoder;
  std::map<std::string, std::pair<uint64_t, std::string>> newest;
  for (const auto& r : ReadTopic({cluster.brokers(), {}}, app + ".exports")) {
    auto e = decoder.DecodeExport(r.value);
    EXPECT_TRUE(e.ok()) << r.value;
    if (!e.ok() || e->gen != 2 || e->type == codec::ExportRecord::Type::kGeneration) continue;
    EXPECT_EQ(e->parts, 1u) << "a test page too large for one export record";
    std::string key, value;
    switch (e->type) {
      case codec::ExportRecord::Type::kPage:
        key = "P" + e->key;
        value = e->page ? codec::EncodePageJson(*e->page) : "";
        break;
      case codec::ExportRecord::Type::kUri:
        key = "U" + e->key;
        value = e->info.Exists() ? std::to_string(e->info.links_to) + "/" + std::to_string(e->info.docs) : "";
        break;
      default:
        key = "D" + e->key;
        value = e->pagecount > 0 ? std::to_string(e->pagecount) : "";
    }
    auto& slot = newest[key];
    if (e->seq >= slot.first) slot = {e->seq, value};
  }
  std::map<std::string, std::string> out;
  for (const auto& [key, v] : newest) {
    if (!v.second.empty()) out[key] = v.second;
  }
  return out;
}

//! (source partition, offset) of each dead letter of data dir `dir`'s current generation in
//! `app`'s topic.
std::set<std::pair<std::string, std::string>> DeadLetters(const CliCluster& cluster, const std::string& app,
                                                          const std::string& dir) {
  const std::vector<std::string> generation = ReadLines(dir + "/GENERATION");
  EXPECT_EQ(generation.size(), 1u);
  std::set<std::pair<std::string, std::string>> out;
  for (const auto& r : ReadTopic({cluster.brokers(), {}}, app + ".dead-letters")) {
    std::map<std::string, std::string> h(r.headers.begin(), r.headers.end());
    if (!generation.empty() && h["generation"] == generation[0]) {
      out.insert({h["source.partition"], h["source.offset"]});
    }
  }
  return out;
}

template <typename Map>
std::string FirstDifference(const Map& a, const Map& b) {
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) return "only in the bulk build: " + ::testing::PrintToString(k);
    if (!(it->second == v)) return "differs: " + ::testing::PrintToString(k);
  }
  for (const auto& [k, v] : b) {
    if (!a.count(k)) return "only in the incremental one: " + ::testing::PrintToString(k);
  }
  return "";
}

void ExpectSameState(const std::string& bulk_dir, const std::string& incremental_dir, const std::string& when,
                     bool bulk_versions_are_first) {
  const CrawlState bulk = ReadState(bulk_dir), incremental = ReadState(incremental_dir);
  EXPECT_GT(incremental.table.size(), 100u) << when;
  EXPECT_EQ(FirstDifference(bulk.table, incremental.table), "") << when << ": the query table";
  EXPECT_EQ(bulk.totals, incremental.totals) << when << ": the kept totals";
  EXPECT_EQ(FirstDifference(bulk.meta, incremental.meta), "") << when << ": the domain index";
  EXPECT_EQ(FirstDifference(bulk.pages, incremental.pages), "") << when << ": page states";
  EXPECT_EQ(FirstDifference(bulk.uris, incremental.uris), "") << when << ": URI counters";
  EXPECT_EQ(bulk.domains, incremental.domains) << when << ": domain counters";
  EXPECT_EQ(bulk.positions, incremental.positions) << when << ": the page stage's positions";
  for (const CrawlState* s : {&bulk, &incremental}) {
    EXPECT_EQ(s->sink_versions, s->state_versions) << when << ": the sink's versions are the stages'";
  }
  if (bulk_versions_are_first) {
    for (const auto& [key, version] : bulk.state_versions) {
      ASSERT_EQ(version, 1u) << when << ": " << key;
    }
  }
}

std::vector<std::string> ReplayArgs(const CliCluster& cluster, const std::string& dir, const std::string& app,
                                    bool bulk, const std::string& memory_mb = "16") {
  std::vector<std::string> args = {"--app-id", app, "replay", "--brokers", cluster.brokers(), "--data-dir", dir,
                                   "--switch-lag", "0"};
  if (bulk) {
    args.insert(args.end(), {"--bulk-min-records", "0", "--bulk-memory-mb", memory_mb});
  } else {
    args.push_back("--no-bulk");
  }
  return args;
}

TEST(BulkCrawlTest, ABulkReplayEqualsTheIncrementalStagesAndGoesOnFromThem) {
  const uint64_t seed = Seed();
  CliCluster cluster(WEBINDEX_BINARY, "webindex-bulk-crawl", kPartitions);
  ASSERT_TRUE(cluster.ok()) << cluster.LogTail();
  EventGenerator events(seed, kPartitions, 300);  // ten events a page: re-crawls, deletes, stale ones
  ASSERT_TRUE(cluster.Produce(events.Next(3000)));
  const std::string bulk_dir = cluster.dir() + "/bulk", incremental_dir = cluster.dir() + "/incremental";
  const size_t log_from = cluster.LogSize();
  // The bulk build's settings from the configuration file ([bulk]; the flags are the other way).
  const std::string config = cluster.dir() + "/bulk.toml";
  WriteFileBytes(config, "[bulk]\nmemory_mb = 16\nmin_records = 0\n");
  ASSERT_EQ(cluster.Run({"--config", config, "--app-id", "bulk", "replay", "--brokers", cluster.brokers(), "--data-dir",
                         bulk_dir, "--switch-lag", "0"}),
            0)
      << cluster.LogTail();
  ASSERT_TRUE(cluster.WaitForLog("bulk crawl build: 3000 records of pages to read, sorting within 16 MB", 0, log_from))
      << "no bulk build ran; " << cluster.LogTail();
  ASSERT_EQ(cluster.Run(ReplayArgs(cluster, incremental_dir, "incremental", false)), 0) << cluster.LogTail();
  const std::string when = "after the replays (seed " + std::to_string(seed) + ")";
  ExpectSameState(bulk_dir, incremental_dir, when, true);
  const auto dead = DeadLetters(cluster, "incremental", incremental_dir);
  EXPECT_GT(dead.size(), 50u) << when;
  EXPECT_EQ(DeadLetters(cluster, "bulk", bulk_dir), dead) << when << ": the dead letters";
  EXPECT_EQ(FirstDifference(FoldedExports(cluster, "bulk"), FoldedExports(cluster, "incremental")), "")
      << when << ": the newest export per key";

  // Both go on incrementally from there.
  ASSERT_TRUE(cluster.Produce(events.Next(1000)));
  for (const auto& [dir, app] : {std::pair{bulk_dir, "bulk"}, std::pair{incremental_dir, "incremental"}}) {
    ASSERT_EQ(cluster.Run({"--app-id", app, "run", "--brokers", cluster.brokers(), "--data-dir", dir,
                           "--exit-when-idle"}),
              0)
        << cluster.LogTail();
  }
  const std::string later = "after more events (seed " + std::to_string(seed) + ")";
  ExpectSameState(bulk_dir, incremental_dir, later, false);
  EXPECT_EQ(DeadLetters(cluster, "bulk", bulk_dir), DeadLetters(cluster, "incremental", incremental_dir)) << later;
  EXPECT_EQ(FirstDifference(FoldedExports(cluster, "bulk"), FoldedExports(cluster, "incremental")), "") << later;
}

// Killed at random instants of the bulk build (and right after its ingest), the same command
// starts it again or goes on from it: the state ends as the incremental stages'.
TEST(BulkCrawlTest, AKilledBulkBuildRecoversToTheSameState) {
  const uint64_t seed = Seed();
  std::mt19937_64 rng(seed);
  CliCluster cluster(WEBINDEX_BINARY, "webindex-bulk-crawl-kill", kPartitions);
  ASSERT_TRUE(cluster.ok()) << cluster.LogTail();
  EventGenerator events(seed, kPartitions, 5000);
  ASSERT_TRUE(cluster.Produce(events.Next(20000)));
  const std::string bulk_dir = cluster.dir() + "/bulk", incremental_dir = cluster.dir() + "/incremental";
  // Round 0 dies after the exports went out, before the ingest; rounds 1 and 2 are killed at
  // random instants; round 3 dies right after the ingest.
  int killed = 0;
  for (int round = 0; round < 4; ++round) {
    const size_t from = cluster.LogSize();
    const char* crash = round == 0 ? "WEBINDEX_CRASH_AT=bulk-crawl-before-ingest"
                        : round == 3 ? "WEBINDEX_CRASH_AT=replay-after-bulk"
                                     : "";
    auto child = cluster.Start(ReplayArgs(cluster, bulk_dir, "bulk", true, "4"), crash);  // spilled runs too
    if (round == 1 || round == 2) {
      // "replay from earliest into generation N", or "resuming the replay of generation N".
      ASSERT_TRUE(cluster.WaitForLog("generation", 30000, from)) << cluster.LogTail();
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 600));
      if (child->Running()) {
        child->Signal(SIGKILL);
        ++killed;
      }
    }
    const int exit_code = child->Wait();
    if (round == 0 || round == 3) EXPECT_NE(exit_code, 0) << "round " << round << " did not die at its crash point";
    if (round == 0) {
      ASSERT_TRUE(cluster.WaitForLog("bulk crawl build: waiting for", 0, from)) << cluster.LogTail();
    }
  }
  EXPECT_GE(killed, 1) << "the replay ended before any kill";
  ASSERT_EQ(cluster.Run(ReplayArgs(cluster, bulk_dir, "bulk", true)), 0) << cluster.LogTail();
  ASSERT_EQ(cluster.Run(ReplayArgs(cluster, incremental_dir, "incremental", false)), 0) << cluster.LogTail();
  const std::string when = "after the kills (seed " + std::to_string(seed) + ")";
  ExpectSameState(bulk_dir, incremental_dir, when, true);
  EXPECT_EQ(DeadLetters(cluster, "bulk", bulk_dir), DeadLetters(cluster, "incremental", incremental_dir)) << when;
}

// A new data dir's first `run` over a backlog builds in bulk too; later runs, whose stages hold
// state, read one batch at a time. Equal to runs with --no-bulk throughout.
TEST(BulkCrawlTest, AFirstRunOverABacklogBuildsInBulk) {
  const uint64_t seed = Seed();
  CliCluster cluster(WEBINDEX_BINARY, "webindex-bulk-crawl-run", kPartitions);
  ASSERT_TRUE(cluster.ok()) << cluster.LogTail();
  EventGenerator events(seed, kPartitions, 300);
  ASSERT_TRUE(cluster.Produce(events.Next(3000)));
  const std::string bulk_dir = cluster.dir() + "/bulk", incremental_dir = cluster.dir() + "/incremental";
  const std::string config = cluster.dir() + "/bulk.toml";
  WriteFileBytes(config, "[bulk]\nmin_records = 0\n");
  auto run = [&](const std::string& dir, const std::string& app, bool bulk) {
    std::vector<std::string> args = {"--config", config, "--app-id", app, "run", "--brokers", cluster.brokers(),
                                     "--data-dir", dir, "--exit-when-idle"};
    if (!bulk) args.push_back("--no-bulk");
    return cluster.Run(args);
  };
  size_t from = cluster.LogSize();
  ASSERT_EQ(run(bulk_dir, "bulk", true), 0) << cluster.LogTail();
  ASSERT_TRUE(cluster.WaitForLog("bulk crawl build: 3000 records of pages to read", 0, from)) << cluster.LogTail();
  ASSERT_EQ(run(incremental_dir, "incremental", false), 0) << cluster.LogTail();
  const std::string when = "after the first runs (seed " + std::to_string(seed) + ")";
  ExpectSameState(bulk_dir, incremental_dir, when, true);
  EXPECT_EQ(DeadLetters(cluster, "bulk", bulk_dir), DeadLetters(cluster, "incremental", incremental_dir)) << when;

  ASSERT_TRUE(cluster.Produce(events.Next(1000)));
  from = cluster.LogSize();
  ASSERT_EQ(run(bulk_dir, "bulk", true), 0) << cluster.LogTail();
  EXPECT_TRUE(cluster.WaitForLog("no bulk crawl build: the generation's stages hold state already", 0, from))
      << cluster.LogTail();
  ASSERT_EQ(run(incremental_dir, "incremental", false), 0) << cluster.LogTail();
  ExpectSameState(bulk_dir, incremental_dir, "after more events (seed " + std::to_string(seed) + ")", false);
}

}  // namespace
}  // namespace webindex::testing
