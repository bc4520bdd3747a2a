#include "rank/rank_service.h"

#include "common/bytes.h"
#include "common/log.h"
#include "common/time.h"
#include "rank/pagerank.h"
#include "rank/table_graph.h"

namespace webindex::rank {
namespace {

constexpr size_t kCancelCheckRows = 50000;  // rows stored between checks of cancel_

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

RankService::RankService(state::Store& store, RankServiceOptions options)
    : store_(store), options_(std::move(options)) {}

RankService::~RankService() { Stop(); }

void RankService::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void RankService::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cancel_ = true;
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

RankService::Stats RankService::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void RankService::Loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (wake_.wait_for(lock, options_.interval, [this] { return stop_; })) break;
    lock.unlock();
    auto done = RunOnce();
    if (!done.ok() && !cancel_) LOG_WARN("pagerank: {} (trying again in the next interval)", done.status().ToString());
    if (options_.after_check && !cancel_) options_.after_check();
    lock.lock();
    if (!done.ok() && !cancel_) ++stats_.failures;
  }
}

Result<std::vector<int64_t>> RankService::Positions(const state::Snapshot* snap) {
  std::vector<int64_t> positions;
  for (int32_t p = 0; p < options_.exports_partitions; ++p) {
    const std::string key = std::string(options_.sink_stage) + "/" + options_.exports_topic + "/" + std::to_string(p);
    ASSIGN_OR_RETURN(auto value, store_.Get(state::Family::kOffsets, key, snap));
    uint64_t next = 0;
    BytesReader r(value ? std::string_view(*value) : std::string_view());  // views the stored value
    positions.push_back(value && r.GetFixed64BE(&next) ? static_cast<int64_t>(next) : -1);
  }
  return positions;
}

Result<bool> RankService::RunOnce() {
  const auto start = std::chrono::steady_clock::now();
  auto snap = store_.GetSnapshot();
  ASSIGN_OR_RETURN(auto positions, Positions(snap.get()));
  ASSIGN_OR_RETURN(auto current, CurrentRankResult(store_, snap.get()));
  if (current && current->positions == positions && current->exports_topic == options_.exports_topic &&
      current->iterations == options_.iterations) {
    std::lock_guard lock(mu_);
    ++stats_.unchanged;
    return false;
  }
  {
    std::lock_guard lock(mu_);
    stats_.running = true;
  }
  RankResultInfo info;
  info.computed_at_ms = NowMs();
  info.iterations = options_.iterations;
  info.exports_topic = options_.exports_topic;
  info.positions = std::move(positions);
  auto finish = [this](bool ok, double seconds) {
    std::lock_guard lock(mu_);
    stats_.running = false;
    if (ok) {
      ++stats_.computations;
      stats_.last_seconds = seconds;
    }
  };
  TableGraphStats read;
  auto graph = ReadTableGraph(store_, snap.get(), &read, &cancel_);
  snap.reset();  // the stored result names its positions; the snapshot need not pin the table longer
  if (!graph.ok() || cancel_) {
    finish(false, 0);
    return graph.ok() ? Status::Aborted("stopping") : graph.status();
  }
  if (options_.after_snapshot) options_.after_snapshot();
  const auto scores = ComputePageRank(*graph, {options_.iterations, options_.threads});
  if (cancel_) {
    finish(false, 0);
    return Status::Aborted("stopping");
  }
  info.seconds = Since(start);
  auto stored = StoreRankResult(store_, *graph, scores, info, kCancelCheckRows, &cancel_);
  const double total = Since(start);
  finish(stored.ok(), total);
  if (!stored.ok()) return stored.status();
  LOG_INFO("pagerank: result {} over {} pages and {} links in {:.2f} s (table read {:.2f} s on {} threads, "
           "iterations {:.2f} s, stored {:.2f} s)",
           stored->id, stored->nodes, stored->edges, total, read.seconds, read.readers,
           stored->seconds - read.seconds, total - stored->seconds);
  return true;
}

}  // namespace webindex::rank
