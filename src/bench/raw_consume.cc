#include "bench/raw_consume.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/log.h"
#include "kafka/admin.h"

namespace webindex::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kTimeoutMs = 10000;
constexpr int kMinPasses = 3, kMaxPasses = 20;

struct Pass {
  double seconds = 0, records_per_s = 0, mb_per_s = 0;
};

//! Polls until every partition was read up to its end (`ends[p]`, exclusive).
Status ReadToEnds(kafka::Consumer& consumer, const std::vector<int64_t>& ends, uint64_t* bytes) {
  std::vector<int64_t> next(ends.size(), -1);
  size_t done = 0;
  for (size_t p = 0; p < ends.size(); ++p) done += ends[p] <= 0 ? 1 : 0;
  kafka::MessageBatch batch;
  auto last_progress = Clock::now();
  while (done < ends.size()) {
    RETURN_IF_ERROR(consumer.PollBatch(10000, 100, &batch));
    if (batch.empty() && Clock::now() - last_progress > std::chrono::milliseconds(kTimeoutMs)) {
      return Status::Aborted("raw consume stalled");
    }
    if (!batch.empty()) last_progress = Clock::now();
    for (const auto& r : batch.records()) {
      *bytes += r.key.size() + r.value.size();
      const auto p = static_cast<size_t>(r.partition);
      if (p >= ends.size() || r.offset < next[p]) continue;
      next[p] = r.offset + 1;
      if (next[p] == ends[p]) ++done;
    }
  }
  return Status::Ok();
}

//! One pass of a fresh consumer: a first read connects it and learns the partition leaders;
//! then it is assigned the same offsets again and the full read is timed.
Result<Pass> ConsumeOnce(const kafka::ClientConfig& kafka, const std::vector<kafka::TopicPartitionOffset>& start,
                         const std::vector<int64_t>& ends, uint64_t total, int pass) {
  ASSIGN_OR_RETURN(auto consumer, kafka::Consumer::Create(kafka, fmt::format("webindex-bench-raw-{}", pass)));
  RETURN_IF_ERROR(consumer->Assign(start));
  kafka::MessageBatch warm;
  for (auto t0 = Clock::now(); warm.empty();) {
    RETURN_IF_ERROR(consumer->PollBatch(1, 100, &warm));
    if (Clock::now() - t0 > std::chrono::milliseconds(kTimeoutMs)) return Status::Aborted("raw consume: no records");
  }
  warm.Clear();
  const auto assigned = Clock::now();
  RETURN_IF_ERROR(consumer->Assign(start));
  uint64_t bytes = 0;
  RETURN_IF_ERROR(ReadToEnds(*consumer, ends, &bytes));
  Pass p;
  p.seconds = std::max(1e-9, std::chrono::duration<double>(Clock::now() - assigned).count());
  p.records_per_s = static_cast<double>(total) / p.seconds;
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
  std::vector<int64_t> ends;
  RawConsumeResult out;
  for (int p = 0; p < partitions; ++p) {
    ASSIGN_OR_RETURN(auto marks, admin->Watermarks(topic, p, kTimeoutMs));
    start.push_back({topic, p, marks.first});
    ends.push_back(marks.second > marks.first ? marks.second : 0);
    out.records += static_cast<uint64_t>(marks.second - marks.first);
  }
  if (out.records == 0) return out;
  std::vector<double> rates, mbs;
  double spent = 0;
  while (out.passes < kMaxPasses && (out.passes < kMinPasses || spent < min_seconds)) {
    ASSIGN_OR_RETURN(Pass pass, ConsumeOnce(kafka, start, ends, out.records, out.passes));
    rates.push_back(pass.records_per_s);
    mbs.push_back(pass.mb_per_s);
    spent += pass.seconds;
    ++out.passes;
  }
  LOG_INFO("raw consume of {} records of {}: {} passes, records/s {}", out.records, topic, out.passes,
           fmt::join(rates, " "));
  out.records_per_s = Median(rates);
  out.mb_per_s = Median(mbs);
  return out;
}

}  // namespace webindex::bench
