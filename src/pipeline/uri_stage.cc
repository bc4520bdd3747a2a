#include "pipeline/uri_stage.h"

#include <map>

#include <fmt/format.h>

#include "codec/state_codec.h"
#include "model/url.h"

namespace webindex::pipeline {
namespace {

//! Reads the current counters of `keys` (sorted, distinct) in one MultiGet.
Result<std::vector<codec::Counted>> ReadCounters(state::Store& store, state::Family f,
                                                 const std::vector<std::string>& keys) {
  std::vector<std::optional<std::string>> stored;
  RETURN_IF_ERROR(store.MultiGet(f, keys, &stored));
  std::vector<codec::Counted> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (stored[i]) {
      ASSIGN_OR_RETURN(out[i], codec::DecodeCounted(*stored[i]));
    }
  }
  return out;
}

template <typename Map>
std::vector<std::string> KeysOf(const Map& m) {
  std::vector<std::string> keys;
  keys.reserve(m.size());
  for (const auto& [k, v] : m) keys.push_back(k);
  return keys;
}

}  // namespace

Status UriStage::Process(const std::vector<InRecord>& records, BatchContext& ctx) {
  struct Combined {
    model::UriInfo delta;
    int32_t task = 0;  // the input partition of the uri's deltas (they are keyed by uri)
  };
  std::map<std::string, Combined> combined;
  for (const auto& r : records) {
    if (!Admitted(fences_, r, ctx)) continue;
    auto d = decoder_.DecodeUriDelta(r.value);
    if (!d.ok()) {
      ++ctx.metrics().corrupt_records;
      ctx.DeadLetter(r, layout_.names.dead_letters, d.status().message());
      continue;
    }
    RETURN_IF_ERROR(CheckInstance(layout_, d->origin.inst, r));
    if (d->origin.gen != layout_.generation) {
      ++ctx.metrics().other_generation;
      continue;
    }
    if (!dedupe_.Accept(r.partition, d->origin.src, d->origin.seq)) {
      ++ctx.metrics().duplicates;
      continue;
    }
    auto& c = combined[d->uri];
    c.delta.links_to += d->delta.links_to;
    c.delta.docs += d->delta.docs;
    c.task = r.partition;
  }
  dedupe_.Flush(ctx);
  fences_.Flush(ctx);

  const auto keys = KeysOf(combined);
  ASSIGN_OR_RETURN(auto current, ReadCounters(ctx.store(), state::Family::kUris, keys));
  std::map<std::pair<int32_t, std::string>, int64_t> domain_deltas;  // per task and domain
  size_t i = 0;
  for (const auto& [uri, uri_delta] : combined) {
    const model::UriInfo& delta = uri_delta.delta;
    codec::Counted& c = current[i++];
    const model::UriInfo before = c.info;
    c.info.links_to += delta.links_to;
    c.info.docs += delta.docs;
    if (c.info == before) continue;
    if (c.info.links_to < 0 || c.info.docs < 0) {
      // Deltas from input this state never counted: another data dir's records, or damage.
      return Status::Corruption(fmt::format(
          "uri {} would get negative counts (linksTo {}, docs {}): its input holds deltas this state never counted "
          "(records of another data dir or a lost commit). Stopped before writing a wrong table; rebuild with "
          "`webindex replay` or `webindex run --reset`",
          uri, c.info.links_to, c.info.docs));
    }
    ++c.version;
    ctx.Put(uri_delta.task, state::Family::kUris, uri, codec::EncodeCounted(c));
    codec::ExportRecord exp;
    exp.type = codec::ExportRecord::Type::kUri;
    exp.key = uri;
    exp.seq = c.version;
    exp.gen = layout_.generation;
    exp.inst = layout_.instance;
    exp.info = c.info;
    ctx.Emit(uri_delta.task, {layout_.names.exports, PartitionFor(uri, layout_.export_partitions), uri, codec::Encode(exp), {}});
    if (before.Exists() != c.info.Exists()) {
      domain_deltas[{uri_delta.task, std::string(model::DomainOfUri(uri))}] += c.info.Exists() ? 1 : -1;
    }
  }
  for (const auto& [task_domain, pages] : domain_deltas) {
    if (pages == 0) continue;
    const std::string& domain = task_domain.second;
    auto origin = ctx.NextTaskOrigin(task_domain.first);
    codec::DomainDelta d{{std::move(origin.src), origin.seq, layout_.generation, layout_.instance}, domain, pages};
    ++ctx.metrics().domain_deltas;
    ctx.Emit(task_domain.first, {layout_.names.domain_deltas, PartitionFor(domain, layout_.domain_delta_partitions),
                                 domain, codec::Encode(d), {}});
  }
  return Status::Ok();
}

Status DomainStage::Process(const std::vector<InRecord>& records, BatchContext& ctx) {
  struct Combined {
    int64_t pages = 0;
    int32_t task = 0;  // the input partition of the domain's deltas (they are keyed by domain)
  };
  std::map<std::string, Combined> combined;
  for (const auto& r : records) {
    if (!Admitted(fences_, r, ctx)) continue;
    auto d = decoder_.DecodeDomainDelta(r.value);
    if (!d.ok()) {
      ++ctx.metrics().corrupt_records;
      ctx.DeadLetter(r, layout_.names.dead_letters, d.status().message());
      continue;
    }
    RETURN_IF_ERROR(CheckInstance(layout_, d->origin.inst, r));
    if (d->origin.gen != layout_.generation) {
      ++ctx.metrics().other_generation;
      continue;
    }
    if (!dedupe_.Accept(r.partition, d->origin.src, d->origin.seq)) {
      ++ctx.metrics().duplicates;
      continue;
    }
    auto& c = combined[d->domain];
    c.pages += d->pages;
    c.task = r.partition;
  }
  dedupe_.Flush(ctx);
  fences_.Flush(ctx);

  const auto keys = KeysOf(combined);
  ASSIGN_OR_RETURN(auto current, ReadCounters(ctx.store(), state::Family::kDomains, keys));
  size_t i = 0;
  for (const auto& [domain, domain_delta] : combined) {
    const int64_t delta = domain_delta.pages;
    codec::Counted& c = current[i++];
    if (delta == 0) continue;
    c.info.docs += delta;
    if (c.info.docs < 0) {
      return Status::Corruption(fmt::format(
          "domain {} would get {} pages: its input holds deltas this state never counted (records of another data "
          "dir or a lost commit). Stopped before writing a wrong table; rebuild with `webindex replay` or "
          "`webindex run --reset`",
          domain, c.info.docs));
    }
    ++c.version;
    ctx.Put(domain_delta.task, state::Family::kDomains, domain, codec::EncodeCounted(c));
    codec::ExportRecord exp;
    exp.type = codec::ExportRecord::Type::kDomain;
    exp.key = domain;
    exp.seq = c.version;
    exp.gen = layout_.generation;
    exp.inst = layout_.instance;
    exp.pagecount = c.info.docs;
    ctx.Emit(domain_delta.task,
             {layout_.names.exports, PartitionFor(domain, layout_.export_partitions), domain, codec::Encode(exp), {}});
  }
  return Status::Ok();
}

}  // namespace webindex::pipeline
