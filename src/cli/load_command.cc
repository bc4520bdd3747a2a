// `webindex load` (~600 lines): the formats' readers feed one producer loop with its budgets,
// progress and pacing; the per-format parsing lives in ingest/ and codec/.
#include "cli/load_command.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "app/app_id.h"
#include "cli/exit_codes.h"
#include "codec/event.h"
#include "common/log.h"
#include "common/progress.h"
#include "graph/graph_stage.h"
#include "graph/ntriples.h"
#include "ingest/byte_reader.h"
#include "ingest/wikipedia.h"
#include "kafka/admin.h"
#include "kafka/common.h"
#include "kafka/consumer.h"
#include "kafka/producer.h"
#include "model/url.h"
#include "pipeline/topics.h"

namespace webindex::cli {
namespace {

constexpr size_t kMaxLineBytes = 256 << 20;  //!< a longer JSON line is an error, not a memory hog
constexpr uint64_t kReportedFailures = 20;     //!< delivery failures logged one by one
constexpr int64_t kMaxProducerMessageBytes = 1000000000;  //!< librdkafka's largest message.max.bytes

//! One input file as keyed crawl events: JSON lines, WAT records or Wikipedia revisions.
class EventSource {
 public:
  virtual ~EventSource() = default;
  //! The next event; false at the end of the file.
  virtual Result<bool> Next(ingest::KeyedEvent* event) = 0;
  virtual uint64_t records() const = 0;
  virtual uint64_t bytes_read() const = 0;
  virtual void AddTo(LoadSummary* summary) const = 0;
  //! Where the last event came from: file:line, or file:offset of its WAT record.
  virtual std::string Where() const = 0;
};

//! JSON lines, keyed by their "url"; lines without one are reported as file:line and skipped.
class JsonLinesSource : public EventSource {
 public:
  JsonLinesSource(std::unique_ptr<ingest::ByteReader> in, Progress* progress)
      : in_(std::move(in)), progress_(progress) {}

  Result<bool> Next(ingest::KeyedEvent* event) override {
    for (;;) {
      event->value.clear();
      ASSIGN_OR_RETURN(const bool got, in_->ReadLine(&event->value, kMaxLineBytes));
      if (!got) return false;
      ++lines_;
      if (event->value.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto url = codec::ExtractEventUrl(event->value);
      if (url.ok()) {
        event->key = std::move(url).value();
        return true;
      }
      progress_->Finish();
      std::cerr << in_->path() << ":" << lines_ << ": " << url.status().message() << " (line skipped)\n";
      ++bad_lines_;
    }
  }
  uint64_t records() const override { return lines_; }
  uint64_t bytes_read() const override { return in_->compressed_offset(); }
  void AddTo(LoadSummary* summary) const override { summary->bad_lines += bad_lines_; }
  std::string Where() const override { return in_->path() + ":" + std::to_string(lines_); }

 private:
  std::unique_ptr<ingest::ByteReader> in_;
  Progress* progress_;
  uint64_t lines_ = 0;
  uint64_t bad_lines_ = 0;
};

//! The response pages of a Common Crawl WAT file.
class WatSource : public EventSource {
 public:
  WatSource(std::string path, std::unique_ptr<ingest::WatEventReader> reader)
      : path_(std::move(path)), reader_(std::move(reader)) {}
  Result<bool> Next(ingest::KeyedEvent* event) override {
    offset_ = reader_->bytes_read();
    return reader_->Next(event);
  }
  uint64_t records() const override { return reader_->stats().records; }
  uint64_t bytes_read() const override { return reader_->bytes_read(); }
  void AddTo(LoadSummary* summary) const override { summary->wat.Add(reader_->stats()); }
  std::string Where() const override { return path_ + ":" + std::to_string(offset_); }

 private:
  std::string path_;
  std::unique_ptr<ingest::WatEventReader> reader_;
  uint64_t offset_ = 0;  // where the current record's search began (compressed bytes)
};

//! Wikipedia revision records (docs/pagerank.md, "Wikipedia through Kafka"), one event each; malformed records are
//! reported as file:line and skipped.
class WikipediaSource : public EventSource {
 public:
  WikipediaSource(std::unique_ptr<ingest::WikipediaReader> reader, Progress* progress)
      : reader_(std::move(reader)), progress_(progress) {}
  Result<bool> Next(ingest::KeyedEvent* event) override {
    for (;;) {
      auto more = reader_->Next(&rev_);
      if (more.ok()) {
        if (!*more) return false;
        *event = ingest::RevisionEvent(rev_);
        return true;
      }
      if (more.status().code() != Status::Code::kCorruption) return more.status();
      progress_->Finish();
      std::cerr << more.status().message() << " (record skipped)\n";
      ++bad_records_;
    }
  }
  uint64_t records() const override { return reader_->records(); }
  uint64_t bytes_read() const override { return reader_->file_bytes(); }
  void AddTo(LoadSummary* summary) const override { summary->bad_lines += bad_records_; }
  std::string Where() const override { return reader_->path() + ":" + std::to_string(rev_.line); }

 private:
  std::unique_ptr<ingest::WikipediaReader> reader_;
  Progress* progress_;
  ingest::Revision rev_;
  uint64_t bad_records_ = 0;
};

//! "file:line: message", or "file:line:column: rest" for the parser's "line L, column C: rest".
std::string PlaceOf(const std::string& path, uint64_t line, const std::string& message) {
  const std::string head = "line " + std::to_string(line) + ", column ";
  if (message.starts_with(head)) {
    const size_t colon = message.find(": ", head.size());
    if (colon != std::string::npos) {
      return path + ":" + std::to_string(line) + ":" + message.substr(head.size(), colon - head.size()) +
             message.substr(colon);
    }
  }
  return path + ":" + std::to_string(line) + ": " + message;
}

//! RDF statements, one per line (N-Triples, or N-Quads with graphs), checked as the graph stage
//! will check them: a bad line is reported as file:line and skipped. Consecutive lines with the
//! same subject make one record (up to kMaxStatementRecordBytes), keyed by the subject, so that
//! one subject's statements keep their order in one partition.
class TriplesSource : public EventSource {
 public:
  static constexpr size_t kMaxStatementRecordBytes = 64 << 10;

  TriplesSource(std::unique_ptr<ingest::ByteReader> in, graph::Syntax syntax, Progress* progress)
      : in_(std::move(in)), syntax_(syntax), parser_(syntax), progress_(progress) {}

  Result<bool> Next(ingest::KeyedEvent* event) override {
    event->key.clear();
    event->value.clear();
    if (!pending_.empty()) {
      event->key = std::move(pending_key_);
      event->value = std::move(pending_);
      first_line_ = pending_line_;
      pending_.clear();
    }
    for (;;) {
      line_.clear();
      ASSIGN_OR_RETURN(const bool got, in_->ReadLine(&line_, kMaxLineBytes));
      if (!got) return !event->value.empty();
      ++lines_;
      const size_t first = line_.find_first_not_of(" \t\r");
      if (first == std::string::npos || line_[first] == '#') continue;
      statements_.clear();
      Status st = parser_.Parse(line_, &statements_, lines_);
      if (!st.ok() && syntax_ == graph::Syntax::kNTriples) st = IfNQuads(std::move(st));
      if (st.ok() && !statements_.empty()) st = graph::ValidateStatement(statements_.front());
      if (st.ok() && statements_.front().graph == graph::Term::Iri(graph::kWebGraph)) {
        st = Status::InvalidArgument(std::string("graph <") + graph::kWebGraph + "> is webindex's own");
      }
      if (!st.ok()) {
        progress_->Finish();
        std::cerr << PlaceOf(in_->path(), lines_, st.message()) << " (line skipped)\n";
        ++bad_lines_;
        continue;
      }
      std::string subject = graph::ToNTriples(statements_.front().subject);
      line_.push_back('\n');
      if (event->value.empty()) {
        event->key = std::move(subject);
        event->value = line_;
        first_line_ = lines_;
      } else if (subject == event->key && event->value.size() + line_.size() <= kMaxStatementRecordBytes) {
        event->value += line_;
      } else {
        pending_key_ = std::move(subject);
        pending_ = line_;
        pending_line_ = lines_;
        return true;
      }
    }
  }
  uint64_t records() const override { return lines_; }
  uint64_t bytes_read() const override { return in_->compressed_offset(); }
  void AddTo(LoadSummary* summary) const override { summary->bad_lines += bad_lines_; }
  std::string Where() const override { return in_->path() + ":" + std::to_string(first_line_); }

 private:
  //! `st`, the error of line_ as N-Triples, or the fix when the line is N-Quads with a graph: a
  //! file of N-Quads loaded without --format nquads otherwise gives one puzzling error per line.
  Status IfNQuads(Status st) {
    if (!quads_) quads_ = std::make_unique<graph::StatementParser>(graph::Syntax::kNQuads);
    std::vector<graph::Statement> quad;
    if (!quads_->Parse(line_, &quad, lines_).ok() || quad.size() != 1 || !quad.front().graph) return st;
    const std::string& message = st.message();
    const size_t colon = message.find(": ");  // after "line L" or "line L, column C"
    return Status::InvalidArgument(message.substr(0, colon == std::string::npos ? 0 : colon + 2) +
                                   "a fourth term, a graph: this line is N-Quads; load the file with --format nquads");
  }

  std::unique_ptr<ingest::ByteReader> in_;
  graph::Syntax syntax_;
  graph::StatementParser parser_;
  std::unique_ptr<graph::StatementParser> quads_;  //!< made at the first bad N-Triples line
  Progress* progress_;
  std::string line_, pending_, pending_key_;
  std::vector<graph::Statement> statements_;
  uint64_t lines_ = 0, first_line_ = 0, pending_line_ = 0, bad_lines_ = 0;
};

Result<std::unique_ptr<EventSource>> OpenSource(const std::string& file, const LoadOptions& options,
                                                Progress* progress) {
  if (options.format == "wat") {
    ingest::WatOptions wat;
    wat.all_links = options.all_links;
    ASSIGN_OR_RETURN(auto reader, ingest::WatEventReader::Open(file, wat));
    return std::unique_ptr<EventSource>(std::make_unique<WatSource>(file, std::move(reader)));
  }
  if (options.format == "wikipedia") {
    ASSIGN_OR_RETURN(auto reader, ingest::WikipediaReader::Open(file));
    return std::unique_ptr<EventSource>(std::make_unique<WikipediaSource>(std::move(reader), progress));
  }
  if (options.format == "ntriples" || options.format == "nquads") {
    ASSIGN_OR_RETURN(auto in, ingest::ByteReader::Open(file));
    const auto syntax = options.format == "nquads" ? graph::Syntax::kNQuads : graph::Syntax::kNTriples;
    return std::unique_ptr<EventSource>(std::make_unique<TriplesSource>(std::move(in), syntax, progress));
  }
  if (options.format != "json") return Status::InvalidArgument("unknown input format '" + options.format + "'");
  ASSIGN_OR_RETURN(auto in, ingest::ByteReader::Open(file));
  return std::unique_ptr<EventSource>(std::make_unique<JsonLinesSource>(std::move(in), progress));
}

//! The format a file's first line gives away: "json" (an object), "wat" (a WARC record),
//! "wikipedia" (a REVISION line), or "" when it tells nothing (empty, stdin, unreadable: the
//! reader reports those itself). Gzip is looked through.
std::string SniffFormat(const std::string& file) {
  if (file == "-") return "";
  auto in = ingest::ByteReader::Open(file);
  if (!in.ok()) return "";
  std::string line;
  for (int i = 0; i < 100; ++i) {  // the first non-blank of the first lines
    line.clear();
    auto got = (*in)->ReadLine(&line, 1 << 20);
    if (!got.ok() || !*got) return "";
    const size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos) continue;
    const std::string_view first = std::string_view(line).substr(start);
    if (first.starts_with("{")) return "json";
    if (first.starts_with("WARC/")) return "wat";
    if (first.starts_with("REVISION ")) return "wikipedia";
    if (first.starts_with("<") || first.starts_with("_:")) return "ntriples";
    if (first.starts_with("#")) continue;  // an N-Triples comment
    return "";
  }
  return "";
}

//! Reads every file and hands its events to the producer, counting into `summary`. An event
//! over `max_event_bytes` (0: no limit), larger than `budget` bytes, or one the producer
//! rejects, is reported and skipped.
//! Crawl events go to the partition of their page's task (pipeline::PageTaskOf: the normalized
//! URI's hash), so that the page stage folds them where they arrive instead of forwarding them
//! (docs/scale-out.md §9); statements, and keys that are no URL, to the partition of their key.
int32_t PartitionOf(const std::string& key, const LoadOptions& options, int32_t partitions) {
  if (options.format == "ntriples" || options.format == "nquads" || partitions <= 1) return -1;
  auto url = model::ParseUrl(key);
  return url.ok() ? pipeline::PartitionFor(url->ToUri(), partitions) : -1;
}

//! The embedded broker keeps about 5 MiB per partition and deletes the oldest records beyond it.
//! A load into it keeps each partition's unread records (after the position its reader, a lone
//! `webindex run`, reports as its group's committed offset; the partition's start before it
//! reports one) under kPaceBudget, so that nothing is deleted before it is read. A partition
//! whose reader has not moved for kStalledAfter (none runs) is not waited for until it moves.
class Pacer {
 public:
  static constexpr uint64_t kPaceBudget = 3ull << 20;
  static constexpr auto kCheckEvery = std::chrono::milliseconds(50);
  static constexpr uint64_t kCheckBytes = 512 << 10;
  static constexpr auto kStalledAfter = std::chrono::seconds(10);
  //! How long a load waits for the acknowledgement of records still in the producer.
  static constexpr auto kDeliveryWait = std::chrono::milliseconds(1);

  //! `sent`: records handed to the producer; `delivered`: of them, acknowledged or failed.
  Pacer(kafka::Admin& admin, std::unique_ptr<kafka::Consumer> reader, std::string topic, std::string group,
        int32_t partitions, const uint64_t& sent, const std::atomic<uint64_t>& delivered)
      : sent_(sent),
        delivered_(delivered),
        admin_(admin),
        reader_(std::move(reader)),
        topic_(std::move(topic)),
        group_(std::move(group)),
        last_(static_cast<size_t>(partitions), -1),
        moved_(static_cast<size_t>(partitions), Clock::now()),
        stalled_(static_cast<size_t>(partitions), false) {}

  //! Before producing a record of `bytes`: returns once its partitions have room.
  Status Wait(uint64_t bytes, Progress* progress) {
    bytes_ += bytes + 24;
    since_check_ += bytes + 24;
    ++records_;
    // Between two checks a load adds at most kCheckBytes, all to one partition at worst.
    if (since_check_ < kCheckBytes && Clock::now() - checked_ < kCheckEvery) return Status::Ok();
    since_check_ = 0;
    for (;;) {
      checked_ = Clock::now();
      ASSIGN_OR_RETURN(const Room room, CheckRoom());
      if (room == Room::kYes) return Status::Ok();
      if (room == Room::kInFlight) {  // the broker acknowledges within a millisecond or so
        std::this_thread::sleep_for(kDeliveryWait);
        continue;
      }
      if (!waited_) {
        progress->Finish();
        LOG_INFO("waiting for {} to read {} (the embedded broker keeps about 5 MiB per partition; start `webindex "
                 "run` if none runs)",
                 group_, topic_);
        waited_ = true;
      }
      std::this_thread::sleep_for(kCheckEvery);
    }
  }
  //! The reader's positions (-1: none reported).
  Result<std::vector<int64_t>> Positions() { return reader_->Committed(topic_, static_cast<int32_t>(last_.size()), 10000); }

 private:
  using Clock = std::chrono::steady_clock;
  //! kInFlight: more than kCheckBytes still in the producer; kNo: a partition holds
  //! kPaceBudget unread.
  enum class Room { kYes, kInFlight, kNo };
  Result<Room> CheckRoom() {
    const uint64_t average = bytes_ / records_;
    // Records still in the producer are not in the partitions yet: they go first (unless the
    // producer is stuck: then Flush reports it at the end).
    const uint64_t delivered = delivered_.load();
    if (delivered != delivered_seen_) delivered_seen_ = delivered, delivered_at_ = Clock::now();
    if ((sent_ - delivered) * average > kCheckBytes && Clock::now() - delivered_at_ < kStalledAfter) {
      return Room::kInFlight;
    }
    ASSIGN_OR_RETURN(auto committed, Positions());
    for (size_t p = 0; p < last_.size(); ++p) {
      if (committed[p] != last_[p]) {  // -1: no position reported yet (the reader may be starting)
        last_[p] = committed[p], moved_[p] = Clock::now();
        if (stalled_[p]) LOG_INFO("{} reads {}[{}] again: waiting for it as it goes", group_, topic_, p);
        stalled_[p] = false;
      }
      if (stalled_[p]) continue;
      ASSIGN_OR_RETURN(auto marks, admin_.Watermarks(topic_, static_cast<int32_t>(p), 10000));
      const int64_t unread = marks.second - std::max(committed[p], marks.first);
      if (static_cast<uint64_t>(std::max<int64_t>(unread, 0)) * average < kPaceBudget) continue;
      if (Clock::now() - moved_[p] > kStalledAfter) {
        LOG_WARN("{} has not read on in {}[{}] for {} s: loading on without waiting for it; what its partition "
                 "cannot keep is deleted before it reads it",
                 group_, topic_, p, std::chrono::duration_cast<std::chrono::seconds>(kStalledAfter).count());
        stalled_[p] = true;
        continue;
      }
      return Room::kNo;
    }
    return Room::kYes;
  }

  const uint64_t& sent_;
  const std::atomic<uint64_t>& delivered_;
  uint64_t delivered_seen_ = 0;
  Clock::time_point delivered_at_ = Clock::now();
  kafka::Admin& admin_;
  std::unique_ptr<kafka::Consumer> reader_;
  std::string topic_, group_;
  std::vector<int64_t> last_;
  std::vector<Clock::time_point> moved_;
  std::vector<bool> stalled_;
  Clock::time_point checked_{};
  uint64_t bytes_ = 0, records_ = 0, since_check_ = 0;
  bool waited_ = false;
};

Status ProduceFiles(kafka::Producer* producer, const std::string& topic, size_t budget, size_t max_event_bytes,
                    int32_t partitions, const LoadOptions& options, Progress* progress, LoadSummary* summary,
                    uint64_t* sent, Pacer* pacer) {
  uint64_t bytes_before = 0;
  for (const auto& file : options.files) {
    ASSIGN_OR_RETURN(auto source, OpenSource(file, options, progress));
    ingest::KeyedEvent event;
    Status st;
    for (;;) {
      auto got = source->Next(&event);
      if (!got.ok()) st = got.status();
      if (!got.ok() || !*got) break;
      const int32_t partition = PartitionOf(event.key, options, partitions);
      OutRecord record{topic, partition, std::move(event.key), std::move(event.value), {}};
      if (options.remove) record.headers.emplace_back("op", "remove");
      if (max_event_bytes > 0 && record.value.size() > max_event_bytes) {
        st = Status::InvalidArgument(fmt::format("event of {} bytes, over limits.max_event_bytes ({}), which `run` "
                                                 "would dead-letter",
                                                 record.value.size(), max_event_bytes));
      } else if (kafka::RecordBytes(record) > budget) {
        st = Status::InvalidArgument(fmt::format("event of {} bytes (key and value), topic {} takes at most {}",
                                                 kafka::RecordBytes(record), topic, budget));
      } else {
        if (pacer) st = pacer->Wait(kafka::RecordBytes(record), progress);
        if (st.ok()) st = producer->Produce(record, *sent);
      }
      if (kafka::IsRecordRejected(st)) {
        progress->Finish();
        std::cerr << source->Where() << ": " << st.message() << " (event skipped)\n";
        ++summary->oversized;
        st = Status::Ok();
        continue;
      }
      if (!st.ok()) break;
      ++*sent;
      progress->Update(summary->records + source->records(), bytes_before + source->bytes_read());
    }
    summary->records += source->records();
    bytes_before += source->bytes_read();
    source->AddTo(summary);
    RETURN_IF_ERROR(st);
  }
  return Status::Ok();
}

//! An option of some input formats given with another is refused, not ignored.
Status CheckFormatOptions(const LoadOptions& o) {
  const bool statements = o.format == "ntriples" || o.format == "nquads";
  if (o.remove && !statements) {
    return Status::InvalidArgument(
        "--remove applies to --format ntriples and nquads; crawl events delete a page with \"deleted\": true");
  }
  if (o.all_links && o.format != "wat") {
    return Status::InvalidArgument("--all-links applies to --format wat; events of --format " + o.format +
                                   " keep every link they list");
  }
  return Status::Ok();
}

}  // namespace

std::string LoadSummary::ToString(const std::string& format) const {
  const bool one = records == 1;
  const char* unit = format == "wat" ? (one ? "record" : "records")
                     : format == "wikipedia" ? (one ? "revision" : "revisions")
                                             : (one ? "line" : "lines");
  const bool statements = format == "ntriples" || format == "nquads";
  std::string out = fmt::format("loaded {} {}: {} {} produced", records, unit, events,
                                statements ? "records of statements" : "events");
  if (format == "wikipedia") {
    out += fmt::format(", {} malformed records skipped", bad_lines);
  } else if (format == "wat") {
    out += fmt::format(", skipped {}; {} links kept, {} dropped (unresolvable), {} within the page's domain left out",
                       wat.SkippedSummary(), wat.links, wat.dropped_links, wat.internal_links);
  } else {
    out += fmt::format(", {} {} skipped", bad_lines, bad_lines == 1 ? "line" : "lines");
  }
  if (oversized) out += fmt::format(", {} events too large skipped", oversized);
  return out + fmt::format("; {:.1f} s", seconds);
}

Status LoadFiles(const Settings& settings, const std::string& topic, const LoadOptions& options, LoadSummary* summary) {
  ASSIGN_OR_RETURN(auto admin, kafka::Admin::Create(settings.processor.kafka));
  kafka::TopicSpec spec{topic, 1, 1, {}};
  if (auto it = settings.processor.partitions.find(topic); it != settings.processor.partitions.end()) {
    spec.partitions = it->second;
  }
  if (auto it = settings.processor.topic_config.find(topic); it != settings.processor.topic_config.end()) {
    spec.config = it->second;
  }
  RETURN_IF_ERROR(
      admin->EnsureTopics({spec}, 10000).WithContext("cannot reach Kafka at " + settings.processor.kafka.brokers));
  kafka::ClientConfig producer_config = settings.processor.kafka;
  // librdkafka's default message.max.bytes (1,000,000) is less than an event of max_event_bytes
  // with its key: a load takes what the topic takes, unless told less.
  producer_config.properties.try_emplace("message.max.bytes", std::to_string(kMaxProducerMessageBytes));
  const kafka::RecordLimits limits = admin->LimitsOf({topic}, producer_config, 10000);
  producer_config.properties["message.max.bytes"] = std::to_string(limits.producer_max_message_bytes);
  std::atomic<uint64_t> failed{0}, delivered{0};
  // Each failure is reported (the first ones in full), and the others go on.
  ASSIGN_OR_RETURN(auto producer, kafka::Producer::Create(producer_config, [&](uint64_t n, const Status& st) {
                     ++delivered;
                     if (st.ok()) return;
                     if (const uint64_t count = ++failed; count <= kReportedFailures) {
                       LOG_ERROR("event #{} was not delivered: {}", n + 1, st.ToString());
                     } else if (count == kReportedFailures + 1) {
                       LOG_ERROR("more events were not delivered; the summary counts them");
                     }
                   }));
  Progress::Options progress_options;
  progress_options.total_bytes = TotalFileBytes(options.files);
  Progress progress(progress_options);
  uint64_t sent = 0;
  ASSIGN_OR_RETURN(const int32_t partitions, admin->PartitionCount(topic, 10000));
  std::vector<int64_t> first(static_cast<size_t>(partitions), -1);  // per partition: where this load's records begin
  for (int32_t p = 0; p < partitions; ++p) {
    if (auto marks = admin->Watermarks(topic, p, 10000); marks.ok()) first[static_cast<size_t>(p)] = marks->second;
  }
  std::unique_ptr<Pacer> pacer;
  if (admin->IsEmbedded(10000)) {
    // The readers report their positions under these groups: a lone `webindex run`'s, or those of
    // group [group] id's page stage.
    const bool triples = topic == settings.processor.topics.triples;
    const std::string& app = settings.processor.app_id;
    const std::string group = triples                              ? app + "-graph"
                              : settings.processor.group.empty() ? app + "-page"
                                                                 : app::KafkaGroupName(settings.processor) + ".page";
    ASSIGN_OR_RETURN(auto reader, kafka::Consumer::Create(settings.processor.kafka, group));
    pacer = std::make_unique<Pacer>(*admin, std::move(reader), topic, group, partitions, sent, delivered);
    LOG_DEBUG("load: pacing {} by the positions of group {}", topic, group);
  }
  const bool statements = options.format == "ntriples" || options.format == "nquads";
  const size_t max_event_bytes = statements ? 0 : settings.processor.limits.max_event_bytes;
  const Status read = ProduceFiles(producer.get(), topic, limits.BudgetOf(topic), max_event_bytes, partitions, options,
                                   &progress, summary, &sent, pacer.get());
  progress.Finish();
  // Events read before a failure are produced all the same: wait for them either way.
  const Status flushed = producer->Flush(60000).WithContext("waiting for acknowledgements");
  summary->events = sent - failed;
  summary->seconds = progress.elapsed_seconds();
  LOG_INFO("{} (topic {})", summary->ToString(options.format), topic);
  // A broker with little room per partition (the embedded one keeps ~5 MiB) deletes the oldest
  // records as new ones arrive: say so now, not when a reader finds the hole.
  std::string deleted;
  std::vector<int64_t> read_to(static_cast<size_t>(partitions), -1);  // the reader's positions, where known
  if (pacer) {
    if (auto at = pacer->Positions(); at.ok()) read_to = *at;
  }
  for (int32_t p = 0; p < partitions; ++p) {
    const int64_t from = std::max(first[static_cast<size_t>(p)], read_to[static_cast<size_t>(p)]);
    auto marks = from < 0 ? Result<std::pair<int64_t, int64_t>>(Status::Unavailable("")) : admin->Watermarks(topic, p, 10000);
    if (!marks.ok() || marks->first <= from) continue;
    summary->deleted_early += static_cast<uint64_t>(marks->first - from);
    if (deleted.size() < 200) deleted += fmt::format("{}{}[{}] [{}, {})", deleted.empty() ? "" : ", ", topic, p, from, marks->first);
  }
  if (summary->deleted_early > 0) {
    LOG_WARN("the broker already deleted {} records this load wrote, before they were read, to make room for newer "
             "ones ({}): a reader that was not running while they arrived never sees them. The embedded broker keeps about 5 MiB "
             "per partition: start `webindex run` first so that it reads while you load, or spread the input over "
             "more partitions (`webindex broker --partitions N`), or use a Kafka cluster",
             summary->deleted_early, deleted);
  }
  RETURN_IF_ERROR(read);
  RETURN_IF_ERROR(flushed);
  if (failed) return Status::Unavailable(std::to_string(failed) + " events were not acknowledged");
  return Status::Ok();
}

int RunLoad(const Settings& settings, const LoadOptions& options) {
  if (Status st = CheckFormatOptions(options); !st.ok()) {
    LOG_ERROR("{}", st.message());
    return kExitUsage;
  }
  // A file of another format would give a line of errors per record: say which --format to use.
  for (const auto& file : options.files) {
    const std::string format = SniffFormat(file);
    if (format.empty() || format == options.format) continue;
    if (format == "ntriples" && options.format == "nquads") continue;  // N-Quads lines may have no graph
    static const std::map<std::string, std::string> kWhat = {
        {"json", "JSON lines (crawl events)"},
        {"wat", "WARC records (a Common Crawl WAT file)"},
        {"wikipedia", "Wikipedia revision records"},
        {"ntriples", "RDF statements"},
        {"nquads", "RDF statements"}};
    LOG_ERROR("{} holds {}, not {}: load it with --format {}{}", file, kWhat.at(format), kWhat.at(options.format),
              format == "ntriples" ? "ntriples (or nquads)" : format, format == "json" ? " (the default)" : "");
    return kExitUsage;
  }
  const bool statements = options.format == "ntriples" || options.format == "nquads";
  const std::string& input = statements ? settings.processor.topics.triples : settings.processor.topics.pages;
  const std::string topic = options.topic.empty() ? input : options.topic;
  LoadSummary summary;
  if (Status st = LoadFiles(settings, topic, options, &summary); !st.ok()) {
    LOG_ERROR("{}", st.ToString());
    return kExitFailure;
  }
  if (summary.deleted_early > 0) return kExitDataLoss;
  return summary.bad_lines == 0 && summary.oversized == 0 ? kExitOk : kExitSkipped;
}

}  // namespace webindex::cli
