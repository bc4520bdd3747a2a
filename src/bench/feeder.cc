#include "bench/feeder.h"

#include <algorithm>
#include <thread>

#include "codec/event.h"
#include "codec/records.h"
#include "common/log.h"

namespace webindex::bench {
namespace {
// Asking for lag costs a broker round trip per partition: at most this often, and more
// rarely while the backlog is full (it takes the sink about a second to drain the cap).
constexpr auto kLagCheckEvery = std::chrono::milliseconds(10);
constexpr auto kFullBacklogWait = std::chrono::milliseconds(50);
constexpr uint64_t kMaxBudget = 5000;   // events between lag checks at most
constexpr size_t kRecordOverhead = 24;  // per-record framing in a Kafka record batch
constexpr int kSampleEvents = 32;
}  // namespace

Feeder::Feeder(const SyntheticCrawl& crawl, app::Processor& processor, FeederOptions options,
               std::function<Status()> health)
    : crawl_(crawl), processor_(processor), options_(std::move(options)), health_(std::move(health)) {}

Feeder::~Feeder() { producer_.reset(); }  // no delivery report may outlive the counters

Result<std::unique_ptr<Feeder>> Feeder::Create(const kafka::ClientConfig& kafka, const SyntheticCrawl& crawl,
                                               app::Processor& processor, FeederOptions options,
                                               std::function<Status()> health) {
  std::unique_ptr<Feeder> f(new Feeder(crawl, processor, std::move(options), std::move(health)));
  Feeder* raw = f.get();
  ASSIGN_OR_RETURN(f->producer_, kafka::Producer::Create(kafka, [raw](uint64_t, const Status& st) {
                     if (st.ok()) {
                       ++raw->acked_;
                     } else if (raw->failed_++ == 0) {
                       LOG_ERROR("bench producer: {}", st.ToString());
                     }
                   }));
  RETURN_IF_ERROR(f->producer_->WarmUp({f->options_.topic}, 10000));
  f->EstimateSizes();
  return f;
}

//! Sizes of what one event becomes downstream, from a sample of events run through the codecs.
void Feeder::EstimateSizes() {
  codec::EventDecoder decoder;
  double events = 0, event_bytes = 0, links = 0, page_export = 0, delta = 0, uri_export = 0;
  for (int i = 0; i < kSampleEvents; ++i) {
    const SyntheticEvent ev = crawl_.Event(i);
    auto decoded = decoder.Decode(ev.value);
    if (!decoded.ok()) continue;
    const model::Page& page = decoded->page;
    events += 1;
    event_bytes += static_cast<double>(ev.key.size() + ev.value.size() + kRecordOverhead);
    codec::ExportRecord exp{codec::ExportRecord::Type::kPage, page.uri, 1, page, {}, 0};
    page_export += static_cast<double>(codec::Encode(exp).size() + page.uri.size() + kRecordOverhead);
    for (const auto& link : page.links) {
      links += 1;
      codec::UriDelta d;
      d.origin.src = "page";
      d.origin.seq = 1000000;
      d.uri = link.uri;
      d.delta.links_to = 1;
      delta += static_cast<double>(codec::Encode(d).size() + link.uri.size() + kRecordOverhead);
      codec::ExportRecord ue{codec::ExportRecord::Type::kUri, link.uri, 10, std::nullopt, {100, 1}, 0};
      uri_export += static_cast<double>(codec::Encode(ue).size() + link.uri.size() + kRecordOverhead);
    }
  }
  if (events == 0 || links == 0) return;
  event_bytes_ = event_bytes / events;
  page_export_bytes_ = page_export / events;
  links_per_event_ = links / events;
  delta_bytes_ = delta / links;
  uri_export_bytes_ = uri_export / links;
}

Result<uint64_t> Feeder::Headroom() {
  const auto start = Clock::now();
  auto lag = processor_.Lag();
  lag_check_seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
  if (!lag.ok()) return lag.status();
  const FeederOptions& o = options_;
  const double in_flight = static_cast<double>(produced_ - acked_);  // not in the topic yet
  double pages_total = in_flight, pages_max = 0;
  double deltas_total = 0, deltas_max = 0, exports_max = 0, other_max = 0;
  for (const auto& s : *lag) {
    const auto n = static_cast<double>(s.lag);
    if (s.topic == o.topic) {
      pages_total += n, pages_max = std::max(pages_max, n);
    } else if (s.topic.find("uri-deltas") != std::string::npos) {
      deltas_total += n, deltas_max = std::max(deltas_max, n);
    } else if (s.topic.find("exports") != std::string::npos) {
      exports_max = std::max(exports_max, n);
    } else {
      other_max = std::max(other_max, n);
    }
  }
  // Per event, bytes each topic gains per partition; per topic, the projected fullest partition.
  const double event_exports = page_export_bytes_ + links_per_event_ * uri_export_bytes_;
  const double export_record = event_exports / (1 + links_per_event_);
  const double gain_pages = event_bytes_ / o.pages_partitions;
  const double gain_deltas = links_per_event_ * delta_bytes_ / o.uri_delta_partitions;
  const double gain_exports = event_exports / o.export_partitions;
  const double fill_pages = pages_max * event_bytes_ + in_flight * gain_pages;
  const double fill_deltas = deltas_max * delta_bytes_ + pages_total * gain_deltas;
  const double fill_exports = exports_max * export_record +
                              (deltas_total * uri_export_bytes_ + pages_total * event_exports) / o.export_partitions;
  const double cap = static_cast<double>(o.backlog_cap_bytes);
  if (other_max * 200 > cap) return 0;
  const double room = std::min(
      {(cap - fill_pages) / gain_pages, (cap - fill_deltas) / gain_deltas, (cap - fill_exports) / gain_exports});
  return room <= 0 ? 0 : std::min<uint64_t>(static_cast<uint64_t>(room), kMaxBudget);
}

Status Feeder::WaitForRoom() {
  while (budget_ == 0) {
    RETURN_IF_ERROR(health_());
    RETURN_IF_ERROR(producer_->FatalError());
    const auto since = Clock::now() - last_lag_check_;
    const auto wait = backlog_full_ ? kFullBacklogWait : kLagCheckEvery;
    if (since < wait) std::this_thread::sleep_for(wait - since);
    ASSIGN_OR_RETURN(budget_, Headroom());
    last_lag_check_ = Clock::now();
    backlog_full_ = budget_ == 0;
    if (backlog_full_) ++throttled_;
  }
  --budget_;
  return Status::Ok();
}

Status Feeder::Produce(uint64_t i, std::optional<uint64_t> probe, Clock::time_point* at) {
  RETURN_IF_ERROR(WaitForRoom());
  SyntheticEvent ev = crawl_.Event(i, probe);
  links_ += ev.links;
  bytes_ += ev.key.size() + ev.value.size();
  if (at) *at = Clock::now();
  RETURN_IF_ERROR(producer_->Produce({options_.topic, -1, std::move(ev.key), std::move(ev.value), {}}, i));
  ++produced_;
  return Status::Ok();
}

Status Feeder::Flush(int timeout_ms) {
  RETURN_IF_ERROR(producer_->Flush(timeout_ms).WithContext("bench producer"));
  if (failed_ > 0) return Status::Unavailable(std::to_string(failed_) + " bench events were not acknowledged");
  return Status::Ok();
}

}  // namespace webindex::bench
