#include "sink/sink_stage.h"

#include <map>

#include "common/bytes.h"
#include "graph/graph_stage.h"
#include "pipeline/runner_keys.h"
#include "sink/export_parts.h"
#include "sink/summary.h"
#include "sink/table.h"

namespace webindex::sink {
namespace {

using Type = codec::ExportRecord::Type;

std::string VersionKey(const codec::ExportRecord& r) {
  const char tag = r.type == Type::kPage ? 'P' : r.type == Type::kUri ? 'U' : 'D';
  return std::string(1, tag) + r.key;
}

}  // namespace

Status SinkStage::Open(state::Store& store) {
  RETURN_IF_ERROR(fences_.Load(store));
  return OpenSummary(store, pipeline::OffsetPrefix(name(), input_topic()));
}

Status SinkStage::Process(const std::vector<InRecord>& records, pipeline::BatchContext& ctx) {
  // Keep only the newest export per key: later ones carry the full value.
  std::map<std::string, codec::ExportRecord> newest;
  auto keep = [&](codec::ExportRecord e) {
    std::string vkey = VersionKey(e);
    auto it = newest.find(vkey);
    if (it == newest.end()) {
      newest.emplace(std::move(vkey), std::move(e));
    } else {
      ++ctx.metrics().stale_exports;
      if (e.seq > it->second.seq) it->second = std::move(e);
    }
  };
  std::vector<Part> parts;  // of page exports too large for one record
  SummaryUpdate summary;
  for (const auto& r : records) {
    summary.Consumed(r);
    if (!pipeline::Admitted(fences_, r, ctx)) continue;
    auto e = decoder_.DecodeExport(r.value);
    if (!e.ok()) {
      ++ctx.metrics().corrupt_records;
      ctx.DeadLetter(r, layout_.names.dead_letters, e.status().message());
      continue;
    }
    RETURN_IF_ERROR(pipeline::CheckInstance(layout_, e->inst, r));
    if (e->gen != layout_.generation) {
      ++ctx.metrics().other_generation;
      continue;
    }
    if (e->type == Type::kGeneration) continue;  // for consumers that follow one generation
    if (e->parts > 1) {
      parts.emplace_back(std::move(e).value(), r.value);
    } else {
      keep(std::move(e).value());
    }
  }
  fences_.Flush(ctx);
  if (!parts.empty()) RETURN_IF_ERROR(AddParts(std::move(parts), ctx, decoder_, keep));
  std::vector<std::string> keys;
  keys.reserve(newest.size());
  for (const auto& [k, v] : newest) keys.push_back(k);
  std::vector<std::optional<std::string>> applied;
  RETURN_IF_ERROR(ctx.store().MultiGet(state::Family::kVersions, keys, &applied));

  // The exports newer than the table, and the old values their table writes replace, read
  // for the whole batch in one MultiGet.
  std::vector<std::pair<const std::string*, const codec::ExportRecord*>> fresh;  // (version key, export)
  std::vector<std::string> old_keys;
  size_t i = 0;
  for (const auto& [vkey, e] : newest) {
    const auto& seen = applied[i++];
    if (seen) {
      uint64_t last = 0;
      BytesReader r(*seen);
      if (!r.GetFixed64BE(&last)) return Status::Corruption("sink version of " + vkey);
      if (e.seq <= last) {
        ++ctx.metrics().stale_exports;
        continue;
      }
    }
    fresh.emplace_back(&vkey, &e);
    if (e.type == Type::kPage) old_keys.push_back(TableWriter::PageCurKey(e.key));
    if (e.type == Type::kUri) old_keys.push_back(TableWriter::IncountKey(e.key));
    if (e.type == Type::kDomain) old_keys.push_back(TableWriter::PagecountKey(e.key));
  }
  std::vector<std::optional<std::string>> old_values;
  RETURN_IF_ERROR(ctx.store().MultiGet(state::Family::kTable, old_keys, &old_values));

  TableWriter table(ctx.store(), ctx.batch());
  size_t next_old = 0;
  for (const auto& [vkey, export_record] : fresh) {
    const codec::ExportRecord& e = *export_record;
    switch (e.type) {
      case Type::kPage: {
        const auto& old = old_values[next_old++];
        if (web_) {
          std::optional<model::Page> before;
          if (old) {
            ASSIGN_OR_RETURN(before, decoder_.DecodePageJson(*old));
          }
          web_->Change(before, e.page);
        }
        RETURN_IF_ERROR(table.SetPage(e.key, e.page, e.page ? codec::EncodePageJson(*e.page) : std::string(), old));
        summary.Page(old.has_value(), e.page.has_value());
        break;
      }
      case Type::kUri: {
        const auto& old = old_values[next_old++];
        table.SetUriInfo(e.key, e.info, old);
        summary.Uri(old, e.info);
        break;
      }
      case Type::kDomain:
        summary.Domain(e.key, old_values[next_old++], e.pagecount);
        table.SetDomainCount(e.key, e.pagecount);
        break;
      case Type::kGeneration:
        break;
    }
    BytesWriter w;
    w.PutFixed64BE(e.seq);
    ctx.batch().Put(state::Family::kVersions, *vkey, w.str());
    ++ctx.metrics().exports;
  }
  table.Flush();
  RETURN_IF_ERROR(summary.Write(ctx.store(), ctx.batch()));
  if (web_) {
    const uint64_t skipped = web_->skipped();
    ASSIGN_OR_RETURN(const graph::ApplyResult applied, web_->Apply(ctx.store(), ctx.batch()));
    ctx.metrics().web_statements_added += applied.added.size();
    ctx.metrics().web_statements_removed += applied.removed.size();
    ctx.metrics().web_statements_skipped += web_->skipped() - skipped;
    graph::NoteUnparsedDates(applied.notes, ctx.metrics());
  }
  return Status::Ok();
}

}  // namespace webindex::sink
