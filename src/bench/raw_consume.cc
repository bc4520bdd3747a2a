#include "bench/raw_consume.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include <fmt/format.h>

namespace webindex::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kTimeoutMs = 10000;
constexpr int kMinPasses = 3, kMaxPasses = 20;

struct Pass {
  double seconds = 0, records_per_s = 0, mb_per_s = 0;
};

Result<Pass> ConsumeOnce(const kafka::ClientConfig& kafka, const std::vector<kafka::TopicPartitionOffset>& start,
                         uint64_t total, int pass) {
  ASSIGN_OR_RETURN(auto consumer, kafka::Consumer::Create(kafka, fmt::format("webindex-bench-raw-{}", pass)));
  const auto assigned = Clock::now();
  RETURN_IF_ERROR(consumer->Assign(start));
  kafka::MessageBatch batch;
  uint64_t got = 0, bytes = 0;
  auto last_progress = assigned;
  while (got < total) {
    RETURN_IF_ERROR(consumer->PollBatch(10000, 100, &batch));
    if (batch.empty()) {
      if (Clock::now() - last_progress > std::chrono::milliseconds(kTimeoutMs)) {
        return Status::Aborted(fmt::format("raw consume stalled at {} of {} records", got, total));
      }
      continue;
    }
    last_progress = Clock::now();
    got += batch.records().size();
    for (const auto& r : batch.records()) bytes += r.key.size() + r.value.size();
  }
  Pass p;
  p.seconds = std::max(1e-9, std::chrono::duration<double>(Clock::now() - assigned).count());
  p.records_per_s = static_cast<double>(got) / p.seconds;
  p.mb_per_s = static_cast<double>(bytes) / p.seconds / (1 << 20);
  return p;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

Result<RawConsumeResult> MeasureRawConsume(const kafka::ClientConfig& kafka, const std::string& topic,
                                           double min_seconds) {
  ASSIGN_OR_RETURN(auto admin, kafka::Admin::Create(kafka));
  ASSIGN_OR_RETURN(int partitions, admin->PartitionCount(topic, kTimeoutMs));
  std::vector<kafka::TopicPartitionOffset> start;
  RawConsumeResult out;
  for (int p = 0; p < partitions; ++p) {
    ASSIGN_OR_RETURN(auto marks, admin->Watermarks(topic, p, kTimeoutMs));
    start.push_back({topic, p, marks.first});
    out.records += static_cast<uint64_t>(marks.second - marks.first);
  }
  if (out.records == 0) return out;
  std::vector<double> rates, mbs;
  double spent = 0;
  while (out.passes < kMaxPasses && (out.passes < kMinPasses || spent < min_seconds)) {
    ASSIGN_OR_RETURN(Pass pass, ConsumeOnce(kafka, start, out.records, out.passes));
    rates.push_back(pass.records_per_s);
    mbs.push_back(pass.mb_per_s);
    spent += pass.seconds;
    ++out.passes;
  }
  out.records_per_s = Median(rates);
  out.mb_per_s = Median(mbs);
  return out;
}

}  // namespace webindex::bench
