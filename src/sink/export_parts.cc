#include "sink/export_parts.h"

#include <optional>

#include "common/bytes.h"

namespace webindex::sink {

std::string PendingKey(std::string_view uri) { return "Q" + std::string(uri); }

std::string EncodePending(const PendingParts& p) {
  BytesWriter w;
  w.PutFixed64BE(p.seq);
  w.PutVarint(p.parts);
  w.PutVarint(p.values.size());
  for (const auto& [part, value] : p.values) {
    w.PutVarint(part);
    w.PutString(value);
  }
  return w.Take();
}

Result<PendingParts> DecodePending(std::string_view bytes) {
  BytesReader r(bytes);
  PendingParts p;
  uint64_t parts = 0, n = 0;
  if (!r.GetFixed64BE(&p.seq) || !r.GetVarint(&parts) || !r.GetVarint(&n) || n > parts) {
    return Status::Corruption("pending export parts");
  }
  p.parts = static_cast<uint32_t>(parts);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t part = 0;
    std::string value;
    if (!r.GetVarint(&part) || !r.GetString(&value) || part >= parts) return Status::Corruption("pending export part");
    p.values.emplace(static_cast<uint32_t>(part), std::move(value));
  }
  return p;
}

PartOutcome AddPart(const codec::ExportRecord& part, std::string_view value, uint64_t applied_seq,
                    PendingParts* pending) {
  if (part.seq <= applied_seq || part.seq < pending->seq) return PartOutcome::kStale;
  if (part.seq > pending->seq || part.parts != pending->parts) {
    *pending = PendingParts{part.seq, part.parts, {}};
  }
  return pending->values.emplace(part.part, std::string(value)).second ? PartOutcome::kAdded
                                                                       : PartOutcome::kDuplicate;
}

Result<codec::ExportRecord> Assemble(const PendingParts& pending, codec::RecordDecoder& decoder) {
  if (!pending.complete()) return Status::Internal("assembling an incomplete page export");
  ASSIGN_OR_RETURN(codec::ExportRecord whole, decoder.DecodeExport(pending.values.begin()->second));
  if (whole.part != 0 || !whole.page) return Status::Corruption("page export part 0 carries no page");
  for (auto it = std::next(pending.values.begin()); it != pending.values.end(); ++it) {
    ASSIGN_OR_RETURN(codec::ExportRecord part, decoder.DecodeExport(it->second));
    for (auto& l : part.links) whole.page->links.push_back(std::move(l));
  }
  if (whole.page->links.size() != whole.num_outbound) {
    return Status::Corruption("page export parts of " + whole.key + " carry " +
                              std::to_string(whole.page->links.size()) + " links, numOutbound says " +
                              std::to_string(whole.num_outbound));
  }
  whole.part = 0;
  whole.parts = 1;
  return whole;
}

Status AddParts(std::vector<Part> parts, pipeline::BatchContext& ctx, codec::RecordDecoder& decoder,
                const std::function<void(codec::ExportRecord)>& complete) {
  // Per key: what is pending, whether the store has it, the seq the table has.
  struct Key {
    PendingParts pending;
    bool stored = false, changed = false;
    uint64_t applied = 0;
  };
  std::map<std::string, Key> keys;
  for (const auto& [part, value] : parts) keys.try_emplace(part.key);
  std::vector<std::string> lookups;
  for (const auto& [key, k] : keys) {
    lookups.push_back(PendingKey(key));
    lookups.push_back("P" + key);
  }
  std::vector<std::optional<std::string>> found;
  RETURN_IF_ERROR(ctx.store().MultiGet(state::Family::kVersions, lookups, &found));
  size_t i = 0;
  for (auto& [key, k] : keys) {
    if (const auto& pending = found[i++]) {
      ASSIGN_OR_RETURN(k.pending, DecodePending(*pending));
      k.stored = true;
    }
    if (const auto& applied = found[i++]) {
      BytesReader r(*applied);
      if (!r.GetFixed64BE(&k.applied)) return Status::Corruption("sink version of P" + key);
    }
  }
  for (auto& [part, value] : parts) {
    Key& k = keys[part.key];
    switch (AddPart(part, value, k.applied, &k.pending)) {
      case PartOutcome::kStale: ++ctx.metrics().stale_exports; continue;
      case PartOutcome::kDuplicate: ++ctx.metrics().duplicates; continue;
      case PartOutcome::kAdded: k.changed = true; break;
    }
    if (!k.pending.complete()) continue;
    ASSIGN_OR_RETURN(codec::ExportRecord whole, Assemble(k.pending, decoder));
    k.applied = whole.seq;  // later duplicates of these parts in this batch are stale
    k.pending = PendingParts{};
    complete(std::move(whole));
  }
  for (const auto& [key, k] : keys) {
    if (!k.changed) continue;
    if (!k.pending.values.empty()) {
      ctx.batch().Put(state::Family::kVersions, PendingKey(key), EncodePending(k.pending));
    } else if (k.stored) {
      ctx.batch().Delete(state::Family::kVersions, PendingKey(key));
    }
  }
  return Status::Ok();
}

}  // namespace webindex::sink
