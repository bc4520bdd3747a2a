#include "pipeline/page_stage.h"

#include <map>
#include <unordered_map>

#include "codec/records.h"
#include "codec/state_codec.h"

namespace webindex::pipeline {
namespace {

struct Working {
  std::optional<std::string> original_bytes;  // as stored before this batch
  model::PageState original;
  model::PageState current;
  int32_t task = 0;  // the page's task (PageTaskOf): its state, deltas and exports belong to it
};

//! Adds the link-count and docs changes between two versions of one page to `deltas`.
void Diff(const std::string& uri, const std::optional<model::Page>& before, const std::optional<model::Page>& after,
          std::map<std::string, model::UriInfo>* deltas) {
  if (before.has_value() != after.has_value()) (*deltas)[uri].docs += after ? 1 : -1;
  std::unordered_map<std::string_view, int> targets;
  if (before) {
    for (const auto& l : before->links) targets[l.uri] -= 1;
  }
  if (after) {
    for (const auto& l : after->links) targets[l.uri] += 1;
  }
  for (const auto& [target, d] : targets) {
    if (d != 0) (*deltas)[std::string(target)].links_to += d;
  }
}

}  // namespace

bool FoldEvent(model::CrawlEvent ev, model::PageState* s) {
  // Revisions decide when both sides have one (a lower one is stale); otherwise crawlDates do.
  const bool by_revision = ev.revision && s->revision;
  if (by_revision && *ev.revision < *s->revision) return false;
  if (ev.crawl_time) {
    if (!by_revision && s->date && *ev.crawl_time < *s->date) return false;
    s->date = ev.crawl_time;
    s->date_text = ev.page.crawl_date;
  } else if (s->date) {
    ev.page.crawl_date = s->date_text;  // takes the recorded date, wins by position
  }
  if (ev.revision) s->revision = ev.revision;  // an event without one keeps the recorded one
  if (ev.deleted) {
    s->page.reset();
  } else {
    s->page = std::move(ev.page);
  }
  return true;
}

Status PageStage::Process(const std::vector<InRecord>& records, BatchContext& ctx) {
  // Decode; bad events become dead letters and change nothing.
  struct Decoded {
    std::string uri;
    model::CrawlEvent event;
    int32_t partition;
  };
  std::vector<Decoded> events;
  events.reserve(records.size());
  for (const auto& r : records) {
    // Records of pages are producers' events, whatever their headers say; forwarded events and
    // fence markers come from this instance's page tasks, on their internal topic only.
    const bool copy = r.topic == layout_.names.page_forwards;
    if (copy) {
      if (r.Header(kFenceHeader)) {
        if (r.Header("of") == layout_.instance) Admitted(fences_, r, ctx);  // notes the marker
        continue;
      }
      if (!Admitted(fences_, r, ctx)) continue;
      const auto forwarder = r.Header(kForwardHeader);
      const auto copy_of = r.Header("inst");
      const auto seq = ParseUint(r.Header(kForwardSeqHeader).value_or(""));
      const auto gen = ParseUint(r.Header("gen").value_or(""));
      if (!forwarder || !copy_of || !seq || !gen) {
        ++ctx.metrics().corrupt_records;
        ctx.DeadLetter(r, layout_.names.dead_letters,
                       "a record of " + layout_.names.page_forwards +
                           " without the fwd, seq, gen and inst headers of a forwarded event: only webindex's page "
                           "tasks write that topic");
        continue;
      }
      RETURN_IF_ERROR(CheckInstance(layout_, *copy_of, r));
      if (*gen != layout_.generation) {
        ++ctx.metrics().other_generation;
        continue;
      }
      if (!dedupe_.Accept(r.partition, std::string(*forwarder), *seq)) {  // a copy already applied
        ++ctx.metrics().duplicates;
        continue;
      }
    } else {
      if (from_ms_ >= 0 && r.timestamp_ms < from_ms_) {
        ++ctx.metrics().before_from;
        continue;
      }
      ++ctx.metrics().events;
    }
    auto ev = decoder_.Decode(r.value);
    if (!ev.ok()) {
      ++ctx.metrics().invalid_events;
      ctx.DeadLetter(r, layout_.names.dead_letters, ev.status().message());
      continue;
    }
    auto bounded = codec::BoundPage(&ev->page);  // so that every export part fits its record
    if (!bounded.ok()) {
      ++ctx.metrics().invalid_events;
      ctx.DeadLetter(r, layout_.names.dead_letters, bounded.status().message());
      continue;
    }
    if (!copy) {
      ctx.metrics().dropped_links += ev->dropped_links;
      ctx.metrics().truncated_links += ev->truncated_links;
      ctx.metrics().dropped_long_urls += bounded->dropped_links;
      ctx.metrics().truncated_texts += bounded->cut_texts;
    }
    const int32_t task = PageTaskOf(ev->page.uri, layout_);
    if (task != r.partition && ctx.tasks_move()) {
      // Folded here, the event would change task `task`'s state in a commit of this task's
      // position: a takeover of one of them between the two could tear it apart.
      auto origin = ctx.NextTaskOrigin(r.partition);
      ctx.Emit(r.partition, {layout_.names.page_forwards,
                             task,
                             std::string(r.key),
                             std::string(r.value),
                             {{kForwardHeader, std::move(origin.src)},
                              {kForwardSeqHeader, std::to_string(origin.seq)},
                              {"gen", std::to_string(layout_.generation)},
                              {"inst", layout_.instance}}});
      ++ctx.metrics().forwarded_events;
      continue;
    }
    std::string uri = ev->page.uri;
    events.push_back({std::move(uri), std::move(ev).value(), task});
  }
  dedupe_.Flush(ctx);
  fences_.Flush(ctx);

  // Read the states of every page this batch touches, in one MultiGet.
  std::unordered_map<std::string, Working> pages;
  std::vector<std::string> order;
  for (const auto& e : events) {
    if (pages.try_emplace(e.uri).second) order.push_back(e.uri);
  }
  std::vector<std::optional<std::string>> stored;
  RETURN_IF_ERROR(ctx.store().MultiGet(state::Family::kPages, order, &stored));
  for (size_t i = 0; i < order.size(); ++i) {
    Working& w = pages[order[i]];
    if (stored[i]) {
      ASSIGN_OR_RETURN(w.original, codec::DecodePageState(*stored[i]));
      w.original_bytes = std::move(stored[i]);
    }
    w.current = w.original;
  }

  for (auto& e : events) {
    Working& w = pages[e.uri];
    w.task = e.partition;
    if (!FoldEvent(std::move(e.event), &w.current)) ++ctx.metrics().stale_events;
  }

  // Diff each page's state before and after the batch; combine deltas per task and target.
  std::map<int32_t, std::map<std::string, model::UriInfo>> deltas;
  for (const auto& uri : order) {
    Working& w = pages[uri];
    if (w.current.page != w.original.page) {
      w.current.version = w.original.version + 1;
      Diff(uri, w.original.page, w.current.page, &deltas[w.task]);
      codec::ExportRecord exp;
      exp.type = codec::ExportRecord::Type::kPage;
      exp.key = uri;
      exp.seq = w.current.version;
      exp.gen = layout_.generation;
      exp.inst = layout_.instance;
      exp.page = w.current.page;
      // Too large for one record: parts, in order, to the one partition of the key.
      const size_t budget = ctx.BudgetOf(layout_.names.exports);
      auto parts = codec::EncodeParts(exp, budget > uri.size() ? budget - uri.size() : 0);
      if (parts.size() > 1) ctx.metrics().export_parts += parts.size();
      for (auto& value : parts) {
        ctx.Emit(w.task, {layout_.names.exports, PartitionFor(uri, layout_.export_partitions), uri, std::move(value), {}});
      }
    }
    std::string bytes = codec::EncodePageState(w.current);
    if (bytes != w.original_bytes) ctx.Put(w.task, state::Family::kPages, uri, bytes);
  }
  for (const auto& [task, task_deltas] : deltas) {
    for (const auto& [uri, delta] : task_deltas) {
      if (delta == model::UriInfo{}) continue;
      auto origin = ctx.NextTaskOrigin(task);
      codec::UriDelta d{{std::move(origin.src), origin.seq, layout_.generation, layout_.instance}, uri, delta};
      ++ctx.metrics().uri_deltas;
      ctx.Emit(task, {layout_.names.uri_deltas, PartitionFor(uri, layout_.uri_delta_partitions), uri, codec::Encode(d), {}});
    }
  }
  return Status::Ok();
}

}  // namespace webindex::pipeline
