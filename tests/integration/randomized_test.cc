// Randomized incremental-versus-batch: random event streams through the real pipeline, in
// chunks with a processor restart between them, compared after every chunk with the batch
// computation of the whole table. WEBINDEX_SEEDS="1,2,3" picks seeds; WEBINDEX_RANDOM_RUNS=N
// adds N fresh random seeds. Every seed is printed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <sstream>

#include "batch_model.h"
#include "event_generator.h"
#include "pipeline_harness.h"
#include "seeds.h"
#include "sink/summary.h"

namespace webindex::testing {
namespace {

//! The first line where two sorted tables differ, for a readable failure.
std::string FirstDifference(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  return "first difference at line " + std::to_string(i) + ":\n  got:  " + (i < got.size() ? got[i] : "<end>") +
         "\n  want: " + (i < want.size() ? want[i] : "<end>");
}

void RunSeed(uint64_t seed) {
  constexpr int kPartitions = 3;
  constexpr size_t kChunks = 4, kEventsPerChunk = 150;
  PipelineHarness h(kPartitions);
  h.config().runner.max_batch = 1 + seed % 64;  // vary how events fall into batches
  EventGenerator gen(seed, kPartitions);
  BatchModel model;
  for (size_t chunk = 0; chunk < kChunks; ++chunk) {
    std::vector<std::tuple<int, std::string, std::string>> records;
    for (auto& ev : gen.Next(kEventsPerChunk)) {
      model.Apply(ev.value);
      records.emplace_back(ev.partition_hint, ev.key, ev.value);
    }
    h.ProduceTo(records);
    const std::string metrics = h.RunUntilIdle();
    const auto got = h.Dump();
    const auto want = model.TableLines();
    ASSERT_EQ(got, want) << "seed " << seed << ", after chunk " << chunk << ": " << FirstDifference(got, want)
                         << "\nmetrics: " << metrics;
    // What the sink keeps beside the table (totals, domain index) equals a count over it.
    auto store = h.OpenReadOnly();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto kept = sink::ReadTotals(**store);
    auto counted = sink::CountTotals(**store);
    ASSERT_TRUE(kept.ok() && kept->has_value() && counted.ok()) << "seed " << seed;
    ASSERT_EQ(**kept, *counted) << "seed " << seed << ", after chunk " << chunk;
    EXPECT_EQ((*kept)->crawled, model.current_pages()) << "seed " << seed;
  }
  std::cout << "seed " << seed << ": " << model.current_pages() << " current pages, " << model.invalid_events()
            << " invalid events, " << model.TableLines().size() << " table cells\n";
}

TEST(RandomizedTest, IncrementalEqualsBatch) {
  for (uint64_t seed : RandomTestSeeds({1, 2, 3})) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::cout << "randomized incremental-versus-batch, seed " << seed << std::endl;
    RunSeed(seed);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace webindex::testing
