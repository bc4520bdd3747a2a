#include "rank/rank_service.h"

#include <fmt/format.h>

#include "common/log.h"
#include "common/time.h"
#include "rank/pagerank.h"
#include "rank/source_graph.h"
#include "rank/table_graph.h"

namespace webindex::rank {
namespace {

constexpr size_t kCancelCheckRows = 50000;  // rows stored between checks of cancel_
constexpr auto kActivePoll = std::chrono::seconds(1);

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

RankService::RankService(state::Store& store, RankServiceOptions options)
    : store_(store), options_(std::move(options)) {}

RankService::RankService(state::Store& results, std::shared_ptr<query::TableSource> table, RankServiceOptions options)
    : store_(results), table_(std::move(table)), options_(std::move(options)) {}

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
  // Without `active` one check every interval; with it, a look every second (at most the
  // interval) whether to check: at once when it turned true, else once the interval passed.
  const auto tick =
      options_.active ? std::min<std::chrono::milliseconds>(options_.interval, kActivePoll) : options_.interval;
  auto checked = std::chrono::steady_clock::now();
  bool was_active = false;
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (wake_.wait_for(lock, tick, [this] { return stop_; })) break;
    const bool active = !options_.active || options_.active();
    const bool due = std::chrono::steady_clock::now() - checked >= options_.interval - tick / 2;
    const bool run = active && (due || !was_active);
    was_active = active;
    if (!run) continue;
    checked = std::chrono::steady_clock::now();
    lock.unlock();
    auto done = RunOnce();
    if (!done.ok() && !cancel_) LOG_WARN("pagerank: {} (trying again in the next interval)", done.status().ToString());
    if (options_.after_check && !cancel_) options_.after_check();
    lock.lock();
    if (!done.ok() && !cancel_) ++stats_.failures;
  }
}

std::string RankService::PositionKey(int32_t p) const {
  return options_.sink_stage + "/" + options_.exports_topic + "/" + std::to_string(p);
}

Result<RankService::Input> RankService::TakeInput() {
  Input input;
  if (table_) {
    input.read = table_->Read();
  } else {
    input.snap = store_.GetSnapshot();
  }
  for (int32_t p = 0; p < options_.exports_partitions; ++p) {
    auto position = input.read ? input.read->Position(p, PositionKey(p))
                               : query::StorePosition(store_, input.snap.get(), PositionKey(p));
    RETURN_IF_ERROR(position.status());
    input.positions.push_back(*position);
  }
  return input;
}

Result<LinkGraph> RankService::ReadGraph(Input& input, double* seconds, std::string* how) {
  if (input.read) {
    SourceGraphStats read;
    SourceGraphOptions options;
    options.cancel = &cancel_;
    auto graph = ReadSourceGraph(*input.read, &read, options);
    input.read.reset();
    *seconds = read.seconds;
    *how = fmt::format("table read {:.2f} s in {} scans of its shards{}", read.seconds, read.scans,
                       read.dropped ? fmt::format(", {} links changing under the read left out", read.dropped) : "");
    return graph;
  }
  TableGraphStats read;
  auto graph = ReadTableGraph(store_, input.snap.get(), &read, &cancel_);
  input.snap.reset();  // the stored result names its positions; the snapshot need not pin the table longer
  *seconds = read.seconds;
  *how = fmt::format("table read {:.2f} s on {} threads", read.seconds, read.readers);
  return graph;
}

Result<bool> RankService::RunOnce() {
  const auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(Input input, TakeInput());
  ASSIGN_OR_RETURN(auto current, CurrentRankResult(store_, input.snap.get()));
  if (current && current->positions == input.positions && current->exports_topic == options_.exports_topic &&
      current->iterations == options_.iterations) {
    std::lock_guard lock(mu_);
    ++stats_.unchanged;
    return false;
  }
  return Compute(std::move(input), start);
}

Result<bool> RankService::Compute(Input input, std::chrono::steady_clock::time_point start) {
  {
    std::lock_guard lock(mu_);
    stats_.running = true;
  }
  RankResultInfo info;
  info.computed_at_ms = NowMs();
  info.iterations = options_.iterations;
  info.exports_topic = options_.exports_topic;
  info.positions = input.positions;
  if (options_.first_id) info.id = options_.first_id();
  auto finish = [this](bool ok, double seconds) {
    std::lock_guard lock(mu_);
    stats_.running = false;
    if (ok) {
      ++stats_.computations;
      stats_.last_seconds = seconds;
    }
  };
  std::string how;
  double read_seconds = 0;
  auto graph = ReadGraph(input, &read_seconds, &how);
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
  LOG_INFO("pagerank: result {} over {} pages and {} links in {:.2f} s ({}, iterations {:.2f} s, stored {:.2f} s)",
           stored->id, stored->nodes, stored->edges, total, how, stored->seconds - read_seconds,
           total - stored->seconds);
  return true;
}

}  // namespace webindex::rank
