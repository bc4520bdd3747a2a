#include "app/bulk_crawl.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "app/instance_details.h"
#include "codec/event.h"
#include "codec/records.h"
#include "codec/state_codec.h"
#include "common/bytes.h"
#include "common/crash_point.h"
#include "common/log.h"
#include "model/url.h"
#include "pipeline/page_stage.h"
#include "pipeline/runner_keys.h"
#include "pipeline/stage.h"
#include "pipeline/topics.h"
#include "sink/summary.h"
#include "sink/table.h"
#include "state/bulk_load.h"
#include "state/external_sort.h"

namespace webindex::app {
namespace {

constexpr int kAdminTimeoutMs = 30000;
constexpr char kBuild[] = "bulk crawl build";
constexpr char kPageStage[] = "page";
//! Every derived value is its key's first: the stages' versions and the exports' seqs start at 1.
constexpr uint64_t kFirstVersion = 1;
using Clock = std::chrono::steady_clock;

Result<bool> FamilyEmpty(state::Store& store, state::Family family) {
  auto it = store.NewIterator(family);
  it->SeekToFirst();
  RETURN_IF_ERROR(it->status());
  return !it->Valid();
}

//! An event as the fold's sort keeps it: a page state holding the event's crawlDate, revision and
//! page (none when it deletes), so that it round-trips through the state codec.
model::PageState AsState(model::CrawlEvent ev) {
  model::PageState s;
  s.date = ev.crawl_time;
  s.date_text = ev.page.crawl_date;
  s.revision = ev.revision;
  if (!ev.deleted) s.page = std::move(ev.page);
  return s;
}

model::CrawlEvent AsEvent(model::PageState s) {
  model::CrawlEvent ev;
  ev.crawl_time = s.date;
  ev.revision = s.revision;
  ev.deleted = !s.page;
  if (s.page) {
    ev.page = std::move(*s.page);
  } else {
    ev.page.crawl_date = std::move(s.date_text);
  }
  return ev;
}

std::string Version(uint64_t v) {
  BytesWriter w;
  w.PutFixed64BE(v);
  return w.Take();
}

//! The rows of one family in key order, split over consecutive key ranges: each BulkLoad's keys
//! grow, and the ranges never overlap, so all files go into one ingest.
struct Loads {
  std::vector<std::unique_ptr<state::SortedFile>> files;
  uint64_t rows = 0;
  void Take(state::BulkLoad& load) {
    rows += load.rows();
    for (auto& f : load.TakeFiles()) files.push_back(std::move(f));
  }
};

//! The dead letters of the events the build refuses, as rows of the page stage's outbox (each
//! the records of one commit, keyed by its first record's seq; pipeline/outbox.h), written in
//! key order; Finish adds the stage's next seq to `meta`.
class DeadLetterRows {
 public:
  DeadLetterRows(state::Store& store, uint64_t generation, std::string topic, size_t budget)
      : store_(store), load_(store, state::Family::kOutbox), generation_(generation), topic_(std::move(topic)),
        budget_(budget) {}

  Status Open() {
    ASSIGN_OR_RETURN(auto seq, state::GetFixed64(store_, state::Family::kMeta, pipeline::SeqKey(kPageStage),
                                                 "seq counter of stage page"));
    if (seq) next_seq_ = *seq;
    return Status::Ok();
  }

  //! The dead letter of `in`, the one BatchContext::DeadLetter sends.
  Status Add(const InRecord& in, std::string_view reason) {
    row_.push_back(pipeline::DeadLetterOf(in, topic_, reason, generation_, budget_));
    row_bytes_ += row_.back().key.size() + row_.back().value.size();
    return row_.size() < kRowRecords && row_bytes_ < kRowBytes ? Status::Ok() : EndRow();
  }

  Status Finish() { return EndRow(); }
  uint64_t records() const { return records_; }
  uint64_t next_seq() const { return next_seq_; }
  state::BulkLoad& load() { return load_; }

 private:
  static constexpr size_t kRowRecords = 1000;
  static constexpr size_t kRowBytes = size_t{1} << 20;

  Status EndRow() {
    if (row_.empty()) return Status::Ok();
    RETURN_IF_ERROR(load_.Put(pipeline::OutboxKey(kPageStage, next_seq_), codec::EncodeOutBatch(row_)));
    next_seq_ += row_.size();
    records_ += row_.size();
    row_.clear();
    row_bytes_ = 0;
    return Status::Ok();
  }

  state::Store& store_;
  state::BulkLoad load_;
  uint64_t generation_;
  std::string topic_;
  size_t budget_;
  uint64_t next_seq_ = 1;  //!< the outbox's first seq (Outbox::next_seq) when the stage has none
  std::vector<OutRecord> row_;
  size_t row_bytes_ = 0;
  uint64_t records_ = 0;
};

}  // namespace

Result<BulkCrawlStats> BulkBuildCrawl(const ProcessorConfig& config, state::Store& store, kafka::Admin& admin,
                                      uint64_t generation, const std::string& instance, int64_t from_ms,
                                      const BulkOptions& options, const std::atomic<bool>& stop) {
  const auto started = Clock::now();
  BulkCrawlStats stats;
  const auto& names = config.topics;
  if (config.runner.changelog) {
    stats.skipped_because = "the stages keep changelogs (pipeline.changelog): their state is built incrementally";
    return stats;
  }
  if (!config.stages || !config.table) {
    stats.skipped_because = "this process runs the stages or the table only";
    return stats;
  }
  ASSIGN_OR_RETURN(const InstanceDetails details, ReadDetails(store));
  if (details.web_triples) {
    stats.skipped_because = "the web graph is kept as statements (indexes.web_triples): built incrementally";
    return stats;
  }
  ASSIGN_OR_RETURN(BulkRange range, UnreadRange(store, admin, kPageStage, names.pages, &stats.skipped_because));
  if (!stats.skipped_because.empty()) return stats;
  for (const state::Family family :
       {state::Family::kPages, state::Family::kUris, state::Family::kDomains, state::Family::kVersions}) {
    ASSIGN_OR_RETURN(const bool empty, FamilyEmpty(store, family));
    if (!empty) {
      stats.skipped_because = "the generation's stages hold state already (they have run)";
      return stats;
    }
  }
  if (range.unread < options.min_records) {
    stats.skipped_because = fmt::format("{} records to read, fewer than the bulk threshold {}", range.unread,
                                        options.min_records);
    return stats;
  }
  stats.ran = true;
  LOG_INFO("bulk crawl build: {} records of {} to read, sorting within {} MB", range.unread, names.pages,
           options.memory_bytes >> 20);

  ASSIGN_OR_RETURN(const int export_partitions, admin.PartitionCount(names.exports, kAdminTimeoutMs));
  // Export records are cut to the same budget as the stages' (Processor::Start asks the same).
  const kafka::RecordLimits limits = admin.LimitsOf(
      {names.uri_deltas, names.domain_deltas, names.exports, names.dead_letters, names.pagerank}, config.kafka,
      kAdminTimeoutMs);
  const size_t export_budget = limits.BudgetOf(names.exports);
  ASSIGN_OR_RETURN(auto exports, BulkSender::Create(config, limits.producer_max_message_bytes, "an export of the bulk build"));
  auto send_export = [&](const codec::ExportRecord& e) -> Status {
    const int32_t partition = pipeline::PartitionFor(e.key, export_partitions);
    if (e.type != codec::ExportRecord::Type::kPage) {
      return exports->Send({names.exports, partition, e.key, codec::Encode(e), {}});
    }
    for (auto& value : codec::EncodeParts(e, export_budget > e.key.size() ? export_budget - e.key.size() : 0)) {
      RETURN_IF_ERROR(exports->Send({names.exports, partition, e.key, std::move(value), {}}));
    }
    return Status::Ok();
  };
  auto new_export = [&](codec::ExportRecord::Type type, std::string_view key) {
    codec::ExportRecord e;
    e.type = type;
    e.key = std::string(key);
    e.seq = kFirstVersion;
    e.gen = generation;
    e.inst = instance;
    return e;
  };

  // Two sorts hold memory in each phase but the third (cells read while t:/d: rows and domains
  // fill theirs), where each of those holds a quarter.
  state::ExternalSortOptions half, quarter;
  half.budget_bytes = SortBudget(options, 2);
  quarter.budget_bytes = SortBudget(options, 4);
  half.temp_dir = quarter.temp_dir = options.temp_dir;
  auto peak = [&](const state::SortedRecords& sorted) {
    stats.peak_disk_bytes = std::max(stats.peak_disk_bytes, sorted.stats().peak_disk_bytes);
  };
  Loads loads;
  sink::TableTotals totals;
  std::string phases;  // "read 1.2 s, fold 0.8 s, ..." for the log
  auto phase_ended = [&, last = Clock::now()](std::string_view name) mutable {
    const auto now = Clock::now();
    phases += fmt::format("{}{} {:.1f} s", phases.empty() ? "" : ", ", name,
                          std::chrono::duration<double>(now - last).count());
    last = now;
  };

  // 1. Read: every event the page stage would fold, keyed by its URI in the order read (a
  //    partition's in offset order); the sort keeps the order of one URI's events. An event the
  //    stage refuses becomes the dead letter the stage would send, in rows of its outbox: the
  //    page stage's runner sends them when it starts, as it sends any committed record.
  state::ExternalSorter events(half);
  DeadLetterRows dead_letters(store, generation, names.dead_letters, limits.BudgetOf(names.dead_letters));
  RETURN_IF_ERROR(dead_letters.Open());
  {
    codec::EventDecoder decoder(config.limits);
    Progress progress(PhaseProgress(kBuild, "read", static_cast<uint64_t>(range.unread), "records"));
    RETURN_IF_ERROR(ReadRange(
        config, &range,
        [&](const InRecord& r) -> Result<Take> {
          ++stats.records;
          stats.bytes += r.value.size();
          if (from_ms >= 0 && r.timestamp_ms < from_ms) return Take::kTaken;  // outside the generation, as the stage skips it
          auto ev = decoder.Decode(r.value);
          Status refused = ev.status();
          if (ev.ok()) refused = codec::BoundPage(&ev->page).status();
          if (!refused.ok()) {
            RETURN_IF_ERROR(dead_letters.Add(r, refused.message()));
            return Take::kTaken;
          }
          std::string uri = ev->page.uri;
          RETURN_IF_ERROR(events.Add(uri, codec::EncodePageState(AsState(std::move(ev).value()))));
          ++stats.events;
          return Take::kTaken;
        },
        [&](uint64_t records, uint64_t bytes) {
          progress.Update(records, bytes, [&] { return OnDisk(events.stats().disk_bytes); });
        },
        stop));
    RETURN_IF_ERROR(dead_letters.Finish());
    stats.dead_letters = dead_letters.records();
  }

  phase_ended("read");

  // 2. Fold: each URI's events in order give its page state (every URI with an event has one,
  //    as the stage writes it); a current page gives its page|cur cell, an inlinks cell in each
  //    target's row, its sink version and its export.
  state::ExternalSorter cells(half);
  {
    ASSIGN_OR_RETURN(auto sorted, events.Finish());
    state::BulkLoad pages(store, state::Family::kPages), page_versions(store, state::Family::kVersions);
    Progress progress(PhaseProgress(kBuild, "fold", stats.events, "events"));
    uint64_t folded = 0;
    std::string uri;
    const std::string version = Version(kFirstVersion);
    while (sorted->Valid()) {
      if (stop) return Status::Aborted("bulk build interrupted");
      uri.assign(sorted->key());
      model::PageState state;
      for (; sorted->Valid() && sorted->key() == uri; sorted->Next()) {
        ASSIGN_OR_RETURN(model::PageState event, codec::DecodePageState(sorted->value()));
        pipeline::FoldEvent(AsEvent(std::move(event)), &state);
        ++folded;
      }
      if (state.page) {
        state.version = kFirstVersion;
        ++totals.crawled;
        RETURN_IF_ERROR(page_versions.Put("P" + uri, version));
        RETURN_IF_ERROR(cells.Add(sink::TableWriter::PageCurKey(uri), codec::EncodePageJson(*state.page)));
        for (const model::Link& l : state.page->links) {
          RETURN_IF_ERROR(cells.Add(sink::TableWriter::InlinkKey(l.uri, uri), l.anchor_text));
        }
        codec::ExportRecord e = new_export(codec::ExportRecord::Type::kPage, uri);
        e.page = state.page;
        RETURN_IF_ERROR(send_export(e));
      }
      RETURN_IF_ERROR(pages.Put(uri, codec::EncodePageState(state)));
      progress.Update(folded, 0, [&] { return OnDisk(events.stats().disk_bytes + cells.stats().disk_bytes); });
    }
    RETURN_IF_ERROR(sorted->status());
    peak(*sorted);
    stats.pages = totals.crawled;
    loads.Take(pages);
    loads.Take(page_versions);
  }

  phase_ended("fold");

  // 3. The p: rows in key order: a row's inlinks cells count its links, page|cur says it is a
  //    page; page|incount ends the row. Each such URI gets its counter, version, export, t: row
  //    and rank row in its domain; its domain one page more.
  state::ExternalSorter domain_rows(quarter), domains(quarter);
  {
    ASSIGN_OR_RETURN(auto sorted, cells.Finish());
    state::BulkLoad rows(store, state::Family::kTable), counters(store, state::Family::kUris),
        uri_versions(store, state::Family::kVersions);
    Progress progress(PhaseProgress(kBuild, "count", 0, "cells"));
    const std::string version = Version(kFirstVersion);
    std::string row, cf, cq;
    // The cell's row, column family and qualifier: views of the key, or copies when a part
    // holds an escaped '\0'.
    auto parts = [&](std::string_view key) -> Result<sink::CellKeyView> {
      if (auto view = sink::ViewCellKey(key)) return *view;
      if (!sink::DecodeCellKey(key, &row, &cf, &cq)) return Status::Corruption("bulk crawl build: a cell key");
      return sink::CellKeyView{row, cf, cq};
    };
    uint64_t written = 0;
    while (sorted->Valid()) {
      if (stop) return Status::Aborted("bulk build interrupted");
      ASSIGN_OR_RETURN(const sink::CellKeyView first, parts(sorted->key()));
      if (!first.row.starts_with("p:")) return Status::Corruption("bulk crawl build: a cell outside the p: rows");
      const std::string uri(first.row.substr(2));
      model::UriInfo info;
      for (; sorted->Valid(); sorted->Next()) {
        const std::string_view key = sorted->key();
        ASSIGN_OR_RETURN(const sink::CellKeyView cell, parts(key));
        if (cell.row.substr(2) != uri) break;
        info.links_to += cell.cf == "inlinks";
        info.docs += cell.cf == "page" && cell.cq == "cur";
        RETURN_IF_ERROR(rows.Put(key, sorted->value()));
        ++written;
      }
      const auto n = static_cast<uint64_t>(info.links_to);
      const std::string count = std::to_string(n);
      RETURN_IF_ERROR(rows.Put(sink::TableWriter::IncountKey(uri), count));
      RETURN_IF_ERROR(counters.Put(uri, codec::EncodeCounted({info, kFirstVersion})));
      RETURN_IF_ERROR(uri_versions.Put("U" + uri, version));
      const std::string_view domain = model::DomainOfUri(uri);
      RETURN_IF_ERROR(domain_rows.Add(sink::TableWriter::TotalKey(n, uri), count));
      RETURN_IF_ERROR(domain_rows.Add(sink::TableWriter::RankKey(domain, n, uri), count));
      RETURN_IF_ERROR(domains.Add(domain, {}));
      ++totals.pages;
      totals.linked += n > 0;
      totals.links += n;
      codec::ExportRecord e = new_export(codec::ExportRecord::Type::kUri, uri);
      e.info = info;
      RETURN_IF_ERROR(send_export(e));
      progress.Update(written, 0, [&] { return OnDisk(cells.stats().disk_bytes + domain_rows.stats().disk_bytes); });
    }
    RETURN_IF_ERROR(sorted->status());
    peak(*sorted);
    stats.uris = totals.pages;
    stats.links = totals.links;
    loads.Take(rows);
    loads.Take(counters);
    loads.Take(uri_versions);
  }

  phase_ended("count");

  // 4. Domains in key order: each one's page count, counter, version, export, d: row and its
  //    entry in the sink's index of domains by plain name.
  state::ExternalSorter plain_names(quarter);
  {
    ASSIGN_OR_RETURN(auto sorted, domains.Finish());
    state::BulkLoad counters(store, state::Family::kDomains), domain_versions(store, state::Family::kVersions);
    const std::string version = Version(kFirstVersion);
    std::string domain;
    while (sorted->Valid()) {
      if (stop) return Status::Aborted("bulk build interrupted");
      domain.assign(sorted->key());
      int64_t pages = 0;
      for (; sorted->Valid() && sorted->key() == domain; sorted->Next()) ++pages;
      model::UriInfo info;
      info.docs = pages;
      RETURN_IF_ERROR(counters.Put(domain, codec::EncodeCounted({info, kFirstVersion})));
      RETURN_IF_ERROR(domain_versions.Put("D" + domain, version));
      const std::string count = std::to_string(pages);
      RETURN_IF_ERROR(domain_rows.Add(sink::TableWriter::PagecountKey(domain), count));
      RETURN_IF_ERROR(plain_names.Add(sink::DomainIndexKey(model::HostName(domain)), count));
      ++totals.domains;
      codec::ExportRecord e = new_export(codec::ExportRecord::Type::kDomain, domain);
      e.pagecount = pages;
      RETURN_IF_ERROR(send_export(e));
    }
    RETURN_IF_ERROR(sorted->status());
    peak(*sorted);
    stats.domains = totals.domains;
    loads.Take(counters);
    loads.Take(domain_versions);
  }

  phase_ended("domains");

  // 5. The d: rows, then the t: rows (two files, around the p: rows' range).
  {
    ASSIGN_OR_RETURN(auto sorted, domain_rows.Finish());
    state::BulkLoad d_rows(store, state::Family::kTable), t_rows(store, state::Family::kTable);
    Progress progress(PhaseProgress(kBuild, "write", 2 * totals.pages + totals.domains, "rows"));
    uint64_t written = 0;
    for (; sorted->Valid(); sorted->Next()) {
      if (stop) return Status::Aborted("bulk build interrupted");
      const std::string_view key = sorted->key();
      RETURN_IF_ERROR((key.starts_with("d:") ? d_rows : t_rows).Put(key, sorted->value()));
      progress.Update(++written, 0, [&] { return OnDisk(domain_rows.stats().disk_bytes); });
    }
    RETURN_IF_ERROR(sorted->status());
    peak(*sorted);
    loads.Take(d_rows);
    loads.Take(t_rows);
  }

  phase_ended("write");

  // 6. The exports acknowledged, the sink starts after them: its position and the summary's are
  //    the ends of webindex.exports now (records of other generations before them are not its).
  {
    LOG_INFO("bulk crawl build: waiting for {} export records to be acknowledged", exports->sent());
    RETURN_IF_ERROR(exports->Wait(stop));
    stats.exports = exports->sent();
    std::map<int32_t, int64_t> sink_positions;
    for (int32_t p = 0; p < export_partitions; ++p) {
      ASSIGN_OR_RETURN(auto marks, admin.Watermarks(names.exports, p, kAdminTimeoutMs));
      sink_positions[p] = marks.second;
    }
    {
      ASSIGN_OR_RETURN(auto sorted, plain_names.Finish());
      state::BulkLoad meta(store, state::Family::kMeta);
      if (dead_letters.records() > 0) {  // "seq/page" sorts before the sink's keys
        RETURN_IF_ERROR(meta.Put(pipeline::SeqKey(kPageStage), state::Fixed64(dead_letters.next_seq())));
        loads.Take(dead_letters.load());
      }
      while (sorted->Valid()) {  // one name of several domains keeps the last one's count, as a recount does
        const std::string key(sorted->key());
        std::string value(sorted->value());
        for (sorted->Next(); sorted->Valid() && sorted->key() == key; sorted->Next()) value.assign(sorted->value());
        RETURN_IF_ERROR(meta.Put(key, value));
      }
      RETURN_IF_ERROR(sorted->status());
      RETURN_IF_ERROR(meta.Put(sink::kSummaryKey, sink::EncodeSummaryValue(totals, sink_positions)));
      loads.Take(meta);
    }
    std::map<std::string, std::string> positions;  // the file's keys must grow
    for (int32_t p = 0; p < static_cast<int32_t>(range.end.size()); ++p) {
      positions[pipeline::OffsetKey(kPageStage, names.pages, p)] = state::Fixed64(static_cast<uint64_t>(range.end[p]));
    }
    for (const auto& [p, next] : sink_positions) {
      positions[pipeline::OffsetKey("sink", names.exports, p)] = state::Fixed64(static_cast<uint64_t>(next));
    }
    state::BulkLoad offsets(store, state::Family::kOffsets);
    for (const auto& [k, v] : positions) RETURN_IF_ERROR(offsets.Put(k, v));
    loads.Take(offsets);
  }
  phase_ended("acknowledge");

  if (stop) return Status::Aborted("bulk build interrupted");
  CrashPoint("bulk-crawl-before-ingest");  // the exports sent, nothing ingested
  stats.rows = loads.rows;
  RETURN_IF_ERROR(store.Ingest(std::move(loads.files)));
  phase_ended("ingest");
  stats.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  LOG_INFO("bulk crawl build: {}", phases);
  LOG_INFO("bulk crawl build: {} records, {} events ({} dead letters), {} pages, {} URIs counted, {} links, {} "
           "domains, {} rows, {} exports in {:.1f} s ({:.0f} events/s); sort runs peaked at {:.1f} MB on disk",
           stats.records, stats.events, stats.dead_letters, stats.pages, stats.uris, stats.links, stats.domains, stats.rows, stats.exports,
           stats.seconds, stats.seconds > 0 ? static_cast<double>(stats.events) / stats.seconds : 0.0,
           static_cast<double>(stats.peak_disk_bytes) / 1e6);
  return stats;
}

}  // namespace webindex::app
