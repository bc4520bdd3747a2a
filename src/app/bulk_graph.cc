#include "app/bulk_graph.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "common/log.h"
#include "common/progress.h"
#include "graph/graph_stage.h"
#include "graph/index_set.h"
#include "graph/key_codec.h"
#include "graph/ntriples.h"
#include "pipeline/runner_keys.h"
#include "state/bulk_load.h"
#include "state/external_sort.h"
#include "state/sorted_writes.h"

namespace webindex::app {
namespace {

constexpr char kBuild[] = "bulk graph build";
constexpr char kStage[] = "graph";

//! An op's value in the fold's sort: what the record said of the statement.
constexpr char kAdd = 'a', kRemove = 'r';
using Clock = std::chrono::steady_clock;

Result<bool> HoldsStatements(state::Store& store, const graph::KeySpace& space) {
  state::ScanOptions scan;
  scan.upper_bound = graph::PrefixEnd(space.prefix);
  auto it = store.NewIterator(space.family, nullptr, scan);
  it->Seek(space.prefix);
  RETURN_IF_ERROR(it->status());
  return it->Valid();
}

}  // namespace

Result<BulkGraphStats> BulkBuildGraph(const ProcessorConfig& config, state::Store& store, kafka::Admin& admin,
                                      int64_t from_ms, const BulkOptions& options, const std::atomic<bool>& stop) {
  const auto started = Clock::now();
  BulkGraphStats stats;
  const std::string& topic = config.topics.triples;
  const graph::KeySpace space;
  ASSIGN_OR_RETURN(const graph::IndexSet indexes, graph::RecordedIndexes(store));

  // Where the stage stands (set at the generation's set-up) and where the partitions end now.
  ASSIGN_OR_RETURN(BulkRange range, UnreadRange(store, admin, kStage, topic, &stats.skipped_because));
  if (!stats.skipped_because.empty()) return stats;
  const auto partitions = static_cast<int32_t>(range.start.size());
  const int64_t unread = range.unread;
  ASSIGN_OR_RETURN(const bool holds, HoldsStatements(store, space));
  if (holds) {
    stats.skipped_because = "the generation already holds statements (the stage has run)";
    return stats;
  }
  if (unread < options.min_records) {
    stats.skipped_because = fmt::format("{} records to read, fewer than the bulk threshold {}", unread,
                                        options.min_records);
    return stats;
  }
  stats.ran = true;
  LOG_INFO("bulk graph build: {} records of {} to read, sorting within {} MB", unread, topic,
           options.memory_bytes >> 20);

  // 1. Read: every statement op, keyed by its SPO row, in the order read (a partition's in
  //    offset order); the sort keeps the order of one key's ops.
  state::ExternalSortOptions sort_options;
  sort_options.budget_bytes = SortBudget(options);
  sort_options.temp_dir = options.temp_dir;
  state::ExternalSorter ops(sort_options);
  {
    graph::StatementParser parser(graph::Syntax::kNQuads);
    graph::GraphStage::Parsed parsed;
    std::string key;
    Progress progress(PhaseProgress(kBuild, "read", static_cast<uint64_t>(unread), "records"));
    RETURN_IF_ERROR(ReadRange(
        config, &range,
        [&](const InRecord& r) -> Result<Take> {
          parsed.statements.clear();
          const bool outside = from_ms >= 0 && r.timestamp_ms < from_ms;  // skipped, as the stage does
          if (!outside && !graph::GraphStage::Parse(r, parser, &parsed).ok()) {
            return Take::kLeftToStage;  // the stage dead-letters it
          }
          ++stats.records;
          stats.bytes += r.value.size();
          for (const graph::Statement& st : parsed.statements) {
            key.clear();
            graph::AppendRowKey(space, graph::Index::kSpo, st, &key);
            RETURN_IF_ERROR(ops.Add(key, std::string_view(parsed.add ? &kAdd : &kRemove, 1)));
            ++stats.ops;
          }
          return Take::kTaken;
        },
        [&](uint64_t records, uint64_t bytes) {
          progress.Update(records, bytes, [&] { return OnDisk(ops.stats().disk_bytes); });
        },
        stop));
  }

  // 2. Fold: the last op of a statement wins; a present statement's rows, and the free-text
  //    word list of every statement ever added (the incremental stage never deletes a word).
  //    Statements come in SPO order: their SPO rows are written as they come, their SOP rows
  //    after sorting one subject's (graph and subject lead both orders); the other rows go
  //    through a second sort.
  state::ExternalSorter rows(sort_options);
  std::vector<std::unique_ptr<state::SortedFile>> files;
  {
    ASSIGN_OR_RETURN(auto sorted, ops.Finish());
    state::BulkLoad spo_rows(store, space.family), sop_rows(store, space.family);
    std::vector<std::string> subject_sop;  // the SOP rows of the current graph and subject
    std::string subject_head;              // their key up to the subject's end
    auto flush_subject = [&]() -> Status {
      std::sort(subject_sop.begin(), subject_sop.end());
      for (const auto& k : subject_sop) RETURN_IF_ERROR(sop_rows.Put(k, {}));
      subject_sop.clear();
      return Status::Ok();
    };
    // Words met already (bounded): their rows are sorted once, not once per literal.
    std::unordered_set<std::string> words;
    constexpr size_t kMaxWordsRemembered = 1 << 20;
    state::SortedWrites scratch;
    graph::IndexNotes notes, ignored;  // of the statements present; of the others (only their words stay)
    graph::Statement st;
    std::string key, head;
    Progress progress(PhaseProgress(kBuild, "fold", stats.ops, "statement ops"));
    uint64_t folded = 0;
    const size_t prefix = space.prefix.size() + 1;
    const size_t kind_at = space.prefix.size();
    while (sorted->Valid()) {
      if (stop) return Status::Aborted("bulk graph build interrupted");
      key.assign(sorted->key());
      bool present = false, added = false;
      for (; sorted->Valid() && sorted->key() == key; sorted->Next()) {
        present = sorted->value() == std::string_view(&kAdd, 1);
        added = added || present;
        ++folded;
      }
      if (!added) continue;
      if (!graph::DecodeRowKey(std::string_view(key).substr(prefix), graph::Index::kSpo, &st)) {
        return Status::Corruption("bulk graph build: a statement key does not decode");
      }
      scratch.Clear();
      if (present) {
        RETURN_IF_ERROR(spo_rows.Put(key, {}));
        head.assign(space.prefix);
        head.push_back(static_cast<char>(graph::Index::kSop));
        graph::AppendGraph(st.graph, &head);
        graph::AppendTerm(st.subject, &head);
        if (head != subject_head) {
          RETURN_IF_ERROR(flush_subject());
          subject_head = head;
        }
        subject_sop.emplace_back();
        graph::AppendRowKey(space, graph::Index::kSop, st, &subject_sop.back());
        for (const graph::Index index : {graph::Index::kPos, graph::Index::kOsp}) {
          graph::AppendRowKey(space, index, st, &scratch.BeginKey());
          graph::EndRow(&scratch, true);
        }
        stats.row_writes += 2;
      }
      graph::AppendIndexRows(indexes, space, st, true, &scratch, present ? &notes : &ignored);
      for (size_t i = 0; i < scratch.size(); ++i) {
        const std::string_view row = scratch.key(i);
        const bool word = row.size() > kind_at && row[kind_at] == graph::kTextReversedRows;
        if (!present && !word) continue;  // removed again: only its words stay
        if (word) {  // one lookup: inserted when there is room, else only looked for
          std::string w(row);
          if (words.size() < kMaxWordsRemembered ? !words.insert(std::move(w)).second : words.count(w) > 0) continue;
        }
        RETURN_IF_ERROR(rows.Add(row, scratch.value(i)));
      }
      stats.statements += present;
      stats.row_writes += scratch.size();
      progress.Update(folded, 0, [&] { return OnDisk(ops.stats().disk_bytes + rows.stats().disk_bytes); });
    }
    RETURN_IF_ERROR(sorted->status());
    RETURN_IF_ERROR(flush_subject());
    stats.peak_disk_bytes = sorted->stats().peak_disk_bytes;
    stats.rows = spo_rows.rows() + sop_rows.rows();
    for (auto* load : {&spo_rows, &sop_rows}) {
      for (auto& f : load->TakeFiles()) files.push_back(std::move(f));
    }
    if (notes.unparsed_dates > 0) {
      LOG_WARN("temporal index: {} object(s) typed xsd:dateTime do not parse (e.g. \"{}\"); kept as statements, not "
               "indexed",
               notes.unparsed_dates, notes.last_unparsed.substr(0, 100));
    }
  }

  // 3. Write: the other rows in key order (a word of several statements once) into sorted
  //    files, the positions into one more, all ingested in one step.
  {
    ASSIGN_OR_RETURN(auto sorted, rows.Finish());
    state::BulkLoad load(store, space.family);
    Progress progress(PhaseProgress(kBuild, "write", 0, "rows"));
    std::string last;
    bool first = true;
    uint64_t bytes = 0;
    for (; sorted->Valid(); sorted->Next()) {
      if (stop) return Status::Aborted("bulk graph build interrupted");
      if (!first && sorted->key() == last) continue;
      first = false;
      last.assign(sorted->key());
      RETURN_IF_ERROR(load.Put(sorted->key(), sorted->value()));
      bytes += sorted->key().size() + sorted->value().size();
      progress.Update(load.rows(), bytes, [&] { return OnDisk(rows.stats().disk_bytes); });
    }
    RETURN_IF_ERROR(sorted->status());
    stats.peak_disk_bytes = std::max(stats.peak_disk_bytes, sorted->stats().peak_disk_bytes);
    stats.rows += load.rows();
    for (auto& f : load.TakeFiles()) files.push_back(std::move(f));
  }
  {
    std::map<std::string, std::string> positions;  // the file's keys must grow
    for (int32_t p = 0; p < partitions; ++p) {
      positions[pipeline::OffsetKey(kStage, topic, p)] = state::Fixed64(static_cast<uint64_t>(range.end[p]));
    }
    state::BulkLoad load(store, state::Family::kOffsets);
    for (const auto& [k, v] : positions) RETURN_IF_ERROR(load.Put(k, v));
    for (auto& f : load.TakeFiles()) files.push_back(std::move(f));
  }
  if (stop) return Status::Aborted("bulk graph build interrupted");
  RETURN_IF_ERROR(store.Ingest(std::move(files)));
  stats.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  LOG_INFO("bulk graph build: {} records, {} statement ops, {} statements, {} rows ({} row writes) in {:.1f} s "
           "({:.0f} statement ops/s); sort runs peaked at {:.1f} MB on disk",
           stats.records, stats.ops, stats.statements, stats.rows, stats.row_writes, stats.seconds,
           stats.seconds > 0 ? static_cast<double>(stats.ops) / stats.seconds : 0.0,
           static_cast<double>(stats.peak_disk_bytes) / 1e6);
  return stats;
}

}  // namespace webindex::app
