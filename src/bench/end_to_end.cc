#include "bench/end_to_end.h"

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "bench/feeder.h"
#include "bench/latency_probe.h"
#include "bench/raw_consume.h"
#include "common/log.h"
#include "kafka/embedded_broker.h"
#include "model/url.h"
#include "state/data_dir.h"

namespace webindex::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kStallTimeout = std::chrono::seconds(120);

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

//! An app::Processor whose Run loop is on its own thread, so the bench thread can feed it.
class RunningProcessor {
 public:
  explicit RunningProcessor(app::ProcessorConfig config) : processor_(std::move(config)) {}
  ~RunningProcessor() { Stop().PermitUncheckedError(); }

  Status Start() {
    RETURN_IF_ERROR(processor_.Start());
    thread_ = std::thread([this] {
      result_ = processor_.Run(/*exit_when_idle=*/false, stop_);
      done_ = true;
    });
    return Status::Ok();
  }
  //! Not OK once the processor ended on its own (a stage failed).
  Status Health() const {
    if (!done_ || stop_) return Status::Ok();
    return result_.ok() ? Status::Aborted("the processor stopped unexpectedly") : result_;
  }
  Status Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    Status stopped = processor_.Stop();
    return result_.ok() ? stopped : result_;
  }
  app::Processor& processor() { return processor_; }

 private:
  app::Processor processor_;
  std::thread thread_;
  std::atomic<bool> stop_{false}, done_{false};
  Status result_;
};

class BenchRun {
 public:
  BenchRun(const BenchConfig& config, BenchReport* report)
      : config_(config), report_(*report), crawl_(config.crawl, config.crawl.pages + LatencyPages(config)) {
    report_.latency_pages = LatencyPages(config);
    report_.uri_space = crawl_.uri_space();
  }
  ~BenchRun() {
    feeder_.reset();
    running_.reset();
    if (remove_dir_) std::filesystem::remove_all(config_.data_dir);
  }
  Status Execute();

 private:
  static uint64_t LatencyPages(const BenchConfig& c) {
    return c.latency_pages ? c.latency_pages : std::max<uint64_t>(100, c.crawl.pages / 4);
  }
  Status Setup();
  Status ThroughputPhase();
  Status LatencyPhase();
  Status Finish();
  Status RawConsumePhase();
  Status MeasureStore();
  //! Waits until `events` were consumed and every stage is idle; notes when each happened.
  Status WaitDrained(uint64_t events, Clock::time_point* consumed_at, Clock::time_point* idle_at);
  void ObserveFirst();
  Result<std::string> UriOf(const std::string& url) const;

  BenchConfig config_;
  BenchReport& report_;
  SyntheticCrawl crawl_;
  bool remove_dir_ = false;
  std::unique_ptr<kafka::EmbeddedBroker> broker_;
  app::ProcessorConfig processor_config_;
  std::unique_ptr<RunningProcessor> running_;
  std::unique_ptr<Feeder> feeder_;
  Clock::time_point first_consumed_{};
  double first_cpu_ = 0;
  std::vector<app::Processor::StageTiming> first_timings_;  //!< when the first event was consumed
};

Status BenchRun::Setup() {
  namespace fs = std::filesystem;
  if (config_.data_dir.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "webindex-bench-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) return Status::IoError("cannot create a temporary data dir");
    config_.data_dir = tmpl;
    remove_dir_ = !config_.keep_data;
  } else if (fs::exists(config_.data_dir) && !fs::is_empty(config_.data_dir)) {
    return Status::InvalidArgument("bench needs an empty data dir: " + config_.data_dir);
  }
  ASSIGN_OR_RETURN(broker_, kafka::EmbeddedBroker::Start());
  processor_config_ = config_.processor;
  processor_config_.kafka.brokers = broker_->bootstrap_servers();
  processor_config_.data_dir = config_.data_dir;
  const auto& t = processor_config_.topics;
  for (const std::string* name : {&t.pages, &t.uri_deltas, &t.exports}) {
    processor_config_.partitions[*name] = config_.partitions;
  }
  for (const auto& spec : app::TopicSpecs(processor_config_)) {
    RETURN_IF_ERROR(broker_->CreateTopic(spec.name, spec.partitions));
    report_.broker_retention_bytes += static_cast<uint64_t>(spec.partitions) * kBrokerRetentionBytes;
  }
  running_ = std::make_unique<RunningProcessor>(processor_config_);
  RETURN_IF_ERROR(running_->Start());
  FeederOptions fo;
  fo.topic = t.pages;
  fo.pages_partitions = fo.uri_delta_partitions = fo.export_partitions = config_.partitions;
  ASSIGN_OR_RETURN(feeder_, Feeder::Create(processor_config_.kafka, crawl_, running_->processor(), fo,
                                           [this] { return running_->Health(); }));
  LOG_INFO("bench: {} + {} pages, URI space {}, data dir {}", config_.crawl.pages, report_.latency_pages,
           crawl_.uri_space(), config_.data_dir);
  return Status::Ok();
}

void BenchRun::ObserveFirst() {
  if (first_consumed_ == Clock::time_point{} && running_->processor().metrics().events > 0) {
    first_consumed_ = Clock::now();
    first_cpu_ = CpuSeconds();
    first_timings_ = running_->processor().Timings();
  }
}

Status BenchRun::WaitDrained(uint64_t events, Clock::time_point* consumed_at, Clock::time_point* idle_at) {
  const auto& m = running_->processor().metrics();
  uint64_t last_progress = 0;
  auto last_change = Clock::now();
  for (;;) {
    RETURN_IF_ERROR(running_->Health());
    ObserveFirst();
    const uint64_t progress = m.events + m.uri_deltas + m.exports + m.commits;
    if (progress != last_progress) last_progress = progress, last_change = Clock::now();
    if (Clock::now() - last_change > kStallTimeout) {
      return Status::Aborted(fmt::format("the pipeline stalled: {} of {} events consumed", m.events.load(), events));
    }
    if (m.events >= events) {
      if (*consumed_at == Clock::time_point{}) *consumed_at = Clock::now();
      ASSIGN_OR_RETURN(bool idle, running_->processor().Idle());
      if (idle) {
        *idle_at = Clock::now();
        return Status::Ok();
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

Status BenchRun::ThroughputPhase() {
  const uint64_t n = config_.crawl.pages;
  for (uint64_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(feeder_->Produce(i, std::nullopt));
    if (i % 64 == 0) ObserveFirst();
  }
  const uint64_t links = feeder_->links();
  Clock::time_point consumed_at{}, idle_at{};
  RETURN_IF_ERROR(WaitDrained(n, &consumed_at, &idle_at));
  const double secs = std::max(1e-9, Seconds(idle_at - first_consumed_));
  report_.throughput_seconds = secs;
  report_.page_stage_seconds = Seconds(consumed_at - first_consumed_);
  report_.pages_per_s = static_cast<double>(n) / secs;
  report_.links_per_s = static_cast<double>(links) / secs;
  report_.cpu_cores = (CpuSeconds() - first_cpu_) / secs;
  const auto timings = running_->processor().Timings();
  for (size_t i = 0; i < timings.size(); ++i) {
    BenchReport::StageBusy busy{timings[i].stage, timings[i].batches, timings[i].seconds};
    if (i < first_timings_.size() && first_timings_[i].stage == timings[i].stage) {
      busy.batches -= first_timings_[i].batches;
      busy.busy_seconds -= first_timings_[i].seconds;
    }
    busy.busy_share = busy.busy_seconds / secs;
    report_.stages.push_back(std::move(busy));
  }
  report_.peak_rss_bytes = PeakRssBytes();  // before the raw consumer adds its own buffers
  report_.pagerank_computations = running_->processor().rank_stats().computations;
  LOG_INFO(
      "bench: throughput phase {:.0f} pages/s, {:.0f} links/s over {:.2f} s ({} producer pauses, {:.2f} s "
      "asking for lag)",
      report_.pages_per_s, report_.links_per_s, secs, feeder_->throttled(), feeder_->lag_check_seconds());
  return Status::Ok();
}

Result<std::string> BenchRun::UriOf(const std::string& url) const {
  ASSIGN_OR_RETURN(auto parsed, model::ParseUrl(url));
  return parsed.ToUri();
}

Status BenchRun::LatencyPhase() {
  const uint64_t n = report_.latency_pages, first = config_.crawl.pages;
  const double rate = config_.rate > 0 ? config_.rate : std::max(1.0, report_.pages_per_s / 2);
  const uint64_t samples = std::max<uint64_t>(1, config_.latency_samples);
  const uint64_t stride = std::max<uint64_t>(1, (n + samples - 1) / samples);
  report_.latency_rate = rate;
  LatencyProbes probes(*running_->processor().store());
  probes.Start();
  const auto t0 = Clock::now();
  for (uint64_t k = 0; k < n; ++k) {
    const auto due = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(k / rate));
    if (due > Clock::now()) std::this_thread::sleep_until(due);
    const std::optional<uint64_t> probe = k % stride == 0 ? std::optional<uint64_t>(k / stride) : std::nullopt;
    Clock::time_point at;
    RETURN_IF_ERROR(feeder_->Produce(first + k, probe, &at));
    if (!probe) continue;
    ASSIGN_OR_RETURN(std::string page_uri, UriOf(crawl_.PageUrl(first + k)));
    ASSIGN_OR_RETURN(std::string probe_uri, UriOf(crawl_.ProbeUrl(*probe)));
    probes.Add(page_uri, probe_uri, at);
  }
  report_.latency_achieved_rate = static_cast<double>(n) / std::max(1e-9, Seconds(Clock::now() - t0));
  const size_t unseen = probes.WaitAll(kStallTimeout);
  RETURN_IF_ERROR(probes.Stop());
  if (unseen > 0) return Status::Aborted(fmt::format("{} latency probes never became readable", unseen));
  auto results = probes.Take();
  report_.page_latency = Summarize(&results.page_ms);
  report_.count_latency = Summarize(&results.count_ms);
  report_.full_latency = Summarize(&results.full_ms);
  Clock::time_point consumed_at{}, idle_at{};
  return WaitDrained(first + n, &consumed_at, &idle_at);
}

Status BenchRun::Finish() {
  RETURN_IF_ERROR(feeder_->Flush(60000));
  const auto& m = running_->processor().metrics();
  report_.produced = feeder_->produced();
  report_.acked = feeder_->acked();
  report_.links = feeder_->links();
  report_.throttled_waits = feeder_->throttled();
  report_.avg_event_bytes = static_cast<double>(feeder_->bytes()) / std::max<uint64_t>(1, feeder_->produced());
  report_.consumed = m.events;
  report_.invalid = m.invalid_events;
  report_.lost = m.lost_records;
  RETURN_IF_ERROR(running_->Stop());
  if (report_.consumed != report_.produced || report_.acked != report_.produced || report_.lost || report_.invalid) {
    return Status::Internal(fmt::format("BENCH INVALID: produced {}, acknowledged {}, consumed {}, lost {}, invalid {}",
                                        report_.produced, report_.acked, report_.consumed, report_.lost,
                                        report_.invalid));
  }
  return Status::Ok();
}

Status BenchRun::RawConsumePhase() {
  ASSIGN_OR_RETURN(auto raw,
                   MeasureRawConsume(processor_config_.kafka, processor_config_.topics.pages, config_.min_raw_seconds));
  report_.raw_records = raw.records;
  report_.raw_passes = raw.passes;
  report_.raw_records_per_s = raw.records_per_s;
  report_.raw_mb_per_s = raw.mb_per_s;
  report_.raw_ratio = raw.records_per_s > 0 ? report_.pages_per_s / raw.records_per_s : 0;
  return Status::Ok();
}

Status BenchRun::MeasureStore() {
  report_.rocksdb_bytes = DirectoryBytes(config_.data_dir);
  if (!config_.count_uris) return Status::Ok();
  state::StoreOptions options = processor_config_.store;
  options.read_only = true;
  ASSIGN_OR_RETURN(auto store, state::OpenCurrent(config_.data_dir, options));
  auto it = store->NewIterator(state::Family::kUris);
  uint64_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  RETURN_IF_ERROR(it->status());
  report_.distinct_uris = n;
  return Status::Ok();
}

Status BenchRun::Execute() {
  const auto start = Clock::now();
  RETURN_IF_ERROR(Setup());
  RETURN_IF_ERROR(ThroughputPhase());
  // The baseline reads what the throughput phase consumed (large produce batches), while the
  // drained processor idles; the latency phase's trickle would make it slower.
  RETURN_IF_ERROR(RawConsumePhase());
  RETURN_IF_ERROR(LatencyPhase());
  RETURN_IF_ERROR(Finish());
  RETURN_IF_ERROR(MeasureStore());
  report_.total_seconds = Seconds(Clock::now() - start);
  return Status::Ok();
}

}  // namespace

Status RunEndToEnd(const BenchConfig& config, BenchReport* report) {
  *report = BenchReport{};
  report->pages = config.crawl.pages;
  report->links_per_page = config.crawl.links_per_page;
  report->domains = config.crawl.domains;
  report->zipf = config.crawl.zipf;
  report->seed = config.crawl.seed;
  report->partitions = config.partitions;
  report->cpus = static_cast<int>(std::thread::hardware_concurrency());
  report->block_cache_bytes = config.processor.store.block_cache_bytes;
  report->write_buffer_bytes = config.processor.store.write_buffer_bytes;
  BenchRun run(config, report);
  return run.Execute();
}

}  // namespace webindex::bench
