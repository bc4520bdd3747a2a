// A replay's bulk graph build (app/bulk_graph.h) against the incremental graph stage: the same
// random statement records (adds, removes, re-adds, records of several statements, named
// graphs, date-times and words, a few refused records) replayed into one data dir as a batch
// and into another one batch at a time (--no-bulk) give the same statement rows, index rows and
// positions; both then go on with more records incrementally and are equal again. The seed is
// printed (WEBINDEX_SEEDS=N replays it).
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "cli_cluster.h"
#include "seeds.h"
#include "graph/index_set.h"
#include "graph/key_codec.h"
#include "state/store.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

constexpr int kPartitions = 4;
constexpr int kSubjects = 60;

uint64_t Seed() { return OneRandomTestSeed("bulk graph"); }

const char* const kWords[] = {"kafka", "stream", "table", "graph", "rocks", "sort", "merge", "spill"};

//! Records of statements of one subject each (keyed and partitioned by it, as `load` does);
//! one in `refused_one_in` (0: none) a record the graph stage refuses.
std::vector<OutRecord> RandomRecords(std::mt19937_64& rng, int count, int refused_one_in = 300) {
  std::vector<OutRecord> out;
  for (int i = 0; i < count; ++i) {
    const int s = static_cast<int>(rng() % kSubjects);
    const std::string subject = "<http://e.example/s" + std::to_string(s) + ">";
    OutRecord r;
    r.topic = "triples";
    r.partition = s % kPartitions;
    r.key = subject;
    if (refused_one_in > 0 && rng() % refused_one_in == 0) {
      r.value = subject + " <http://e.example/p> \"unterminated .\n";  // refused: a dead letter
      out.push_back(std::move(r));
      continue;
    }
    for (int n = 1 + static_cast<int>(rng() % 3); n > 0; --n) {
      const int p = static_cast<int>(rng() % 4);
      std::string object;
      switch (rng() % 3) {
        case 0:
          object = "<http://e.example/o" + std::to_string(rng() % 20) + ">";
          break;
        case 1:
          object = "\"" + std::string(kWords[rng() % 8]) + " " + kWords[rng() % 8] + "\"";
          break;
        default:
          object = "\"20" + std::to_string(10 + rng() % 10) + "-0" + std::to_string(1 + rng() % 9) +
                   "-11T10:00:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime>";
      }
      const std::string graph = rng() % 4 == 0 ? " <http://e.example/g" + std::to_string(rng() % 2) + ">" : "";
      r.value += subject + " <http://e.example/p" + std::to_string(p) + "> " + object + graph + " .\n";
    }
    if (rng() % 3 == 0) r.headers.push_back({"op", "remove"});
    out.push_back(std::move(r));
  }
  return out;
}

//! The graph's rows of a data dir's current generation (the free-text word list apart), its
//! word list, and the graph stage's positions.
struct GraphState {
  std::map<std::string, std::string> rows;
  std::set<std::string> words;
  std::map<std::string, std::string> positions;
};

GraphState ReadState(const std::string& data_dir) {
  GraphState out;
  std::string gen;
  for (const auto& e : std::filesystem::directory_iterator(data_dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("gen-", 0) == 0 && (gen.empty() || std::stoi(name.substr(4)) > std::stoi(gen.substr(4)))) gen = name;
  }
  state::StoreOptions options;
  options.read_only = true;
  auto store = state::Store::Open(data_dir + "/" + gen, options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return out;
  const graph::KeySpace space;
  auto it = (*store)->NewIterator(space.family);
  for (it->Seek(space.prefix); it->Valid() && it->key().starts_with(space.prefix); it->Next()) {
    const std::string key(it->key());
    if (key.size() > space.prefix.size() && key[space.prefix.size()] == graph::kTextReversedRows) {
      out.words.insert(key);
    } else {
      out.rows[key] = std::string(it->value());
    }
  }
  auto pos = (*store)->NewIterator(state::Family::kOffsets);
  for (pos->Seek("graph/"); pos->Valid() && pos->key().starts_with("graph/"); pos->Next()) {
    out.positions[std::string(pos->key())] = std::string(pos->value());
  }
  return out;
}

//! Equal rows and positions; the batch's word list holds every word of the incremental one's
//! (it keeps the words of statements added and removed within one incremental batch too).
void ExpectSameState(const std::string& bulk_dir, const std::string& incremental_dir, const std::string& when) {
  const GraphState bulk = ReadState(bulk_dir), incremental = ReadState(incremental_dir);
  EXPECT_GT(incremental.rows.size(), 100u) << when;
  EXPECT_EQ(bulk.positions, incremental.positions) << when;
  EXPECT_EQ(bulk.rows.size(), incremental.rows.size()) << when;
  if (bulk.rows != incremental.rows) {
    // Which kind of row (the byte after the key space's prefix) differs, with examples.
    std::string diff;
    int shown = 0;
    for (const auto* side : {&bulk, &incremental}) {
      const auto& other = side == &bulk ? incremental : bulk;
      for (const auto& [key, value] : side->rows) {
        auto it = other.rows.find(key);
        if (it != other.rows.end() && it->second == value) continue;
        if (++shown > 6) break;
        diff += std::string(side == &bulk ? "only in the bulk build" : "only in the incremental one") + ": kind " +
                std::to_string(static_cast<int>(key[2])) + " " + ::testing::PrintToString(key) + "\n";
      }
    }
    ADD_FAILURE() << when << ": the statement and index rows differ\n" << diff;
  }
  EXPECT_TRUE(std::includes(bulk.words.begin(), bulk.words.end(), incremental.words.begin(), incremental.words.end()))
      << when << ": the bulk build's word list lacks words";
}

TEST(BulkGraphTest, ABulkReplayEqualsTheIncrementalStageAndGoesOnFromIt) {
  const uint64_t seed = Seed();
  std::mt19937_64 rng(seed);
  CliCluster cluster(WEBINDEX_BINARY, "webindex-bulk-graph", kPartitions);
  ASSERT_TRUE(cluster.ok()) << cluster.LogTail();
  ASSERT_TRUE(cluster.ProduceRecords(RandomRecords(rng, 1500)));
  const std::string bulk_dir = cluster.dir() + "/bulk", incremental_dir = cluster.dir() + "/incremental";
  auto replay = [&](const std::string& dir, const std::string& app, bool bulk) {
    std::vector<std::string> args = {"--app-id", app, "replay", "--brokers", cluster.brokers(), "--data-dir", dir,
                                     "--switch-lag", "0"};
    if (bulk) {
      args.insert(args.end(), {"--bulk-min-records", "0", "--bulk-memory-mb", "16"});
    } else {
      args.push_back("--no-bulk");
    }
    return cluster.Run(args);
  };
  const size_t log_from = cluster.LogSize();
  ASSERT_EQ(replay(bulk_dir, "bulk", true), 0) << cluster.LogTail();
  ASSERT_TRUE(cluster.WaitForLog("bulk graph build: ", 0, log_from)) << "no bulk build ran; " << cluster.LogTail();
  ASSERT_EQ(replay(incremental_dir, "incremental", false), 0) << cluster.LogTail();
  ExpectSameState(bulk_dir, incremental_dir, "after the replays (seed " + std::to_string(seed) + ")");

  // Both go on incrementally from there.
  ASSERT_TRUE(cluster.ProduceRecords(RandomRecords(rng, 500)));
  for (const auto& [dir, app] : {std::pair{bulk_dir, "bulk"}, std::pair{incremental_dir, "incremental"}}) {
    ASSERT_EQ(cluster.Run({"--app-id", app, "run", "--brokers", cluster.brokers(), "--data-dir", dir,
                           "--exit-when-idle"}),
              0)
        << cluster.LogTail();
  }
  ExpectSameState(bulk_dir, incremental_dir, "after more records (seed " + std::to_string(seed) + ")");
}


// Killed at random instants of the bulk build (and right after its ingest), the same command
// starts it again or goes on from it: the table ends as the incremental stage's.
TEST(BulkGraphTest, AKilledBulkBuildRecoversToTheSameState) {
  const uint64_t seed = Seed();
  std::mt19937_64 rng(seed);
  CliCluster cluster(WEBINDEX_BINARY, "webindex-bulk-graph-kill", kPartitions);
  ASSERT_TRUE(cluster.ok()) << cluster.LogTail();
  ASSERT_TRUE(cluster.ProduceRecords(RandomRecords(rng, 60000, 0)));
  const std::string bulk_dir = cluster.dir() + "/bulk", incremental_dir = cluster.dir() + "/incremental";
  auto replay = [&](const std::string& dir, const std::string& app, bool bulk) {
    std::vector<std::string> args = {"--app-id", app, "replay", "--brokers", cluster.brokers(), "--data-dir", dir,
                                     "--switch-lag", "0"};
    if (bulk) {
      args.insert(args.end(), {"--bulk-min-records", "0", "--bulk-memory-mb", "4"});  // spilled runs too
    } else {
      args.push_back("--no-bulk");
    }
    return args;
  };
  int killed = 0;
  for (int round = 0; round < 4; ++round) {
    const size_t from = cluster.LogSize();
    auto child = cluster.Start(replay(bulk_dir, "bulk", true), round == 3 ? "WEBINDEX_CRASH_AT=replay-after-bulk" : "");
    if (round < 3) {
      // "replay from earliest into generation N", or "resuming the replay of generation N" (a
      // kill before the first setup was committed rolls it back: the next one is N + 1).
      ASSERT_TRUE(cluster.WaitForLog("generation", 30000, from)) << cluster.LogTail();
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 500));
      if (child->Running()) {
        child->Signal(SIGKILL);
        ++killed;
      }
    }
    child->Wait();  // the last round kills itself right after the bulk build's ingest
  }
  EXPECT_GE(killed, 1) << "the bulk build ended before any kill";
  ASSERT_EQ(cluster.Run(replay(bulk_dir, "bulk", true)), 0) << cluster.LogTail();
  ASSERT_EQ(cluster.Run(replay(incremental_dir, "incremental", false)), 0) << cluster.LogTail();
  ExpectSameState(bulk_dir, incremental_dir, "after the kills (seed " + std::to_string(seed) + ")");
}

}  // namespace
}  // namespace webindex::testing
