// Restoring a task's state from its changelog (pipeline::RestoreTask, docs/scale-out.md §4):
// how fast a member that takes a task over rebuilds its state. The changelog holds real page
// states (the page stage's, ~0.8 KB each) in commits of 1,000 changes, spread over 8 partitions
// of the embedded broker (which keeps ~5 MiB per partition); each iteration restores all of them
// into an empty store. The takeover benchmarks add what a new owner does around the restore
// (pipeline::TakeOverTask, docs/scale-out.md §5): fence markers into the 16 partitions of two
// output topics, the claim, and reading the changelog on to its end.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include "bench_fixtures.h"
#include "codec/state_codec.h"
#include "kafka/admin.h"
#include "kafka/common.h"
#include "kafka/embedded_broker.h"
#include "kafka/producer.h"
#include "pipeline/changelog.h"
#include "pipeline/fence.h"
#include "pipeline/stage_runner.h"

namespace webindex::benchmarks {
namespace {

constexpr int kPartitions = 8;
constexpr uint64_t kStatesPerPartition = 4000;
constexpr uint64_t kCommit = 1000;
const std::string kTopic = "webindex.changelog.page";
const std::string kOutputs[] = {"webindex.uri-deltas", "webindex.exports"};

void Check(const Status& st, const char* what) {
  if (!st.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, st.ToString().c_str());
    std::abort();
  }
}

struct Changelog {
  std::unique_ptr<kafka::EmbeddedBroker> broker;
  kafka::ClientConfig config;
  std::unique_ptr<kafka::Admin> admin;
  uint64_t records = 0, bytes = 0;

  Changelog() {
    auto b = kafka::EmbeddedBroker::Start();
    Check(b.status(), "broker");
    broker = std::move(b).value();
    config.brokers = broker->bootstrap_servers();
    Check(broker->CreateTopic(kTopic, kPartitions), "topic");
    for (const std::string& output : kOutputs) Check(broker->CreateTopic(output, kPartitions), "output topic");
    auto producer = kafka::Producer::Create(config, [](uint64_t, const Status& st) { Check(st, "delivery"); });
    Check(producer.status(), "producer");
    const std::vector<std::pair<std::string, std::string>> headers = {{"gen", "1"}, {"inst", "bench"}};
    const auto pages = Pages(0, kPartitions * kStatesPerPartition);
    for (size_t i = 0; i < pages.size(); ++i) {
      model::PageState state;
      state.page = pages[i];
      const int32_t p = static_cast<int32_t>(i % kPartitions);
      OutRecord r{kTopic, p, pipeline::ChangelogKey(1, state::Family::kPages, pages[i].uri),
                  codec::EncodePageState(state), headers};
      bytes += r.key.size() + r.value.size();
      Check((*producer)->Produce(r, 0), "produce");
      ++records;
      if ((i / kPartitions + 1) % kCommit == 0) {
        Check((*producer)->Produce({kTopic, p, pipeline::ChangelogCommitKey(1), "", headers}, 0), "produce");
        ++records;
      }
    }
    Check((*producer)->Flush(60000), "flush");
    auto a = kafka::Admin::Create(config);
    Check(a.status(), "admin");
    admin = std::move(a).value();
  }
};

//! The one changelog every benchmark reads (built once: it takes seconds). The takeovers append
//! their claims to tasks 0 and 1 after the restore benchmark has run.
Changelog& Shared() {
  static Changelog& changelog = *new Changelog();
  return changelog;
}

void BM_RestorePageStates(benchmark::State& state) {
  Changelog& changelog = Shared();
  uint64_t changes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    TempStore store;
    state.ResumeTiming();
    for (int32_t p = 0; p < kPartitions; ++p) {
      auto stats = pipeline::RestoreTask(changelog.config, *changelog.admin, store.store(), kTopic, p, 1, "bench");
      Check(stats.status(), "restore");
      changes += stats->changes;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(changes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * changelog.bytes));
  state.counters["changelog_MB"] = static_cast<double>(changelog.bytes) / 1e6;
}
BENCHMARK(BM_RestorePageStates)->Unit(benchmark::kMillisecond)->UseRealTime();

pipeline::ClaimSpec Spec(int32_t task) {
  pipeline::ClaimSpec spec{"page", task, 1, "bench", kTopic, {}};
  for (const std::string& output : kOutputs) spec.outputs.emplace_back(output, kPartitions);
  return spec;
}

//! A new owner's whole step for one task of 4,000 page states: restore, fence, claim, read on.
void BM_TakeOverOneTask(benchmark::State& state) {
  Changelog& changelog = Shared();
  uint64_t changes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    TempStore store;
    state.ResumeTiming();
    auto took = pipeline::TakeOverTask(changelog.config, *changelog.admin, store.store(), Spec(0));
    Check(took.status(), "take over");
    changes += took->restore.changes;
  }
  state.SetItemsProcessed(static_cast<int64_t>(changes));
  state.counters["task_MB"] = static_cast<double>(changelog.bytes) / kPartitions / 1e6;
}
BENCHMARK(BM_TakeOverOneTask)->Unit(benchmark::kMillisecond)->UseRealTime();

//! Every task of the changelog taken over one by one (what a member given them did before), and
//! all at once: one round of fence markers and one of claims for all (TakeOverTasks).
void BM_TakeOverEveryTask(benchmark::State& state) {
  Changelog& changelog = Shared();
  const bool at_once = state.range(0) != 0;
  for (auto _ : state) {
    state.PauseTiming();
    TempStore store;
    state.ResumeTiming();
    std::vector<pipeline::ClaimSpec> specs;
    for (int32_t p = 0; p < kPartitions; ++p) specs.push_back(Spec(p));
    if (at_once) {
      for (auto& took : pipeline::TakeOverTasks(changelog.config, *changelog.admin, store.store(), specs)) {
        Check(took.status(), "take over");
      }
    } else {
      for (const auto& spec : specs) {
        Check(pipeline::TakeOverTask(changelog.config, *changelog.admin, store.store(), spec).status(), "take over");
      }
    }
  }
  state.counters["tasks"] = kPartitions;
}
BENCHMARK(BM_TakeOverEveryTask)->Arg(0)->Arg(1)->ArgName("at_once")->Unit(benchmark::kMillisecond)->UseRealTime();

//! What the takeover adds to the restore: 16 fence markers and the claim, each acknowledged.
void BM_FenceAndClaim(benchmark::State& state) {
  uint64_t epoch = 1000;
  for (auto _ : state) Check(pipeline::ClaimTask(Shared().config, Spec(1), ++epoch), "claim");
}
BENCHMARK(BM_FenceAndClaim)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace webindex::benchmarks
