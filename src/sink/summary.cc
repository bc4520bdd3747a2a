#include "sink/summary.h"

#include <charconv>
#include <functional>

#include "common/bytes.h"
#include "common/log.h"
#include "model/url.h"
#include "sink/table.h"

namespace webindex::sink {
namespace {

constexpr uint64_t kSummaryVersion = 1;
constexpr size_t kRebuildBatchKeys = 100000;  // domain index entries per write while counting again

//! The kept summary: the totals and the sink's input positions they reflect.
struct Summary {
  TableTotals totals;
  std::map<int32_t, int64_t> positions;
};

std::string EncodeSummary(const Summary& s) { return EncodeSummaryValue(s.totals, s.positions); }

Result<Summary> DecodeSummary(std::string_view value) {
  BytesReader r(value);
  Summary s;
  uint64_t version = 0, count = 0;
  auto& t = s.totals;
  bool ok = r.GetVarint(&version) && version == kSummaryVersion && r.GetVarint(&t.pages) && r.GetVarint(&t.crawled) &&
            r.GetVarint(&t.linked) && r.GetVarint(&t.links) && r.GetVarint(&t.domains) && r.GetVarint(&count);
  for (uint64_t i = 0; ok && i < count; ++i) {
    uint64_t partition = 0;
    int64_t next = 0;
    ok = r.GetVarint(&partition) && r.GetSigned(&next);
    s.positions[static_cast<int32_t>(partition)] = next;
  }
  if (!ok) return Status::Corruption("undecodable table summary (meta key sink/summary)");
  return s;
}

Result<std::optional<Summary>> ReadSummary(state::Store& store, const state::Snapshot* snap) {
  ASSIGN_OR_RETURN(auto value, store.Get(state::Family::kMeta, kSummaryKey, snap));
  if (!value) return std::optional<Summary>();
  ASSIGN_OR_RETURN(Summary s, DecodeSummary(*value));
  return std::optional<Summary>(std::move(s));
}

uint64_t ParseCount(std::string_view text) {
  uint64_t n = 0;
  std::from_chars(text.data(), text.data() + text.size(), n);
  return n;
}

//! The first key after every cell of `row` (a row extending it sorts after its cells).
std::string AfterRow(std::string_view row) { return RowPrefixKey(row) + std::string("\0\x02", 2); }

//! Counts the rows; calls `domain` with each domain key and its pagecount.
Status CountRows(state::Store& store, const state::Snapshot* snap, TableTotals* t,
                 const std::function<Status(std::string_view, uint64_t)>& domain) {
  auto it = store.NewIterator(state::Family::kTable, snap);
  Cell c;
  auto decode = [&] {
    return DecodeCellKey(it->key(), &c.row, &c.cf, &c.cq) ? Status::Ok() : Status::Corruption("undecodable table key");
  };
  for (it->Seek(RowPrefixKey("t:")); it->Valid(); it->Next()) {
    RETURN_IF_ERROR(decode());
    if (!c.row.starts_with("t:")) break;
    const uint64_t n = ParseCount(it->value());
    ++t->pages;
    t->linked += n > 0;
    t->links += n;
  }
  // d:<domain>, then its rank rows d:<domain>:...; a domain's name never holds ':'.
  it->Seek(RowPrefixKey("d:"));
  while (it->Valid()) {
    RETURN_IF_ERROR(decode());
    if (!c.row.starts_with("d:")) break;
    const size_t colon = c.row.find(':', 2);
    if (colon != std::string::npos) {
      it->Seek(RowPrefixKey(c.row.substr(0, colon) + ";"));  // past the rank rows
      continue;
    }
    if (c.cf == "domain" && c.cq == "pagecount") {
      ++t->domains;
      RETURN_IF_ERROR(domain(std::string_view(c.row).substr(2), ParseCount(it->value())));
    }
    it->Next();
  }
  // p:<uri> rows: inlinks cells, then page|cur and page|incount.
  it->Seek(RowPrefixKey("p:"));
  while (it->Valid()) {
    RETURN_IF_ERROR(decode());
    if (!c.row.starts_with("p:")) break;
    const std::string row = c.row;
    const std::string cur = EncodeCellKey(row, "page", "cur");
    it->Seek(cur);
    if (it->Valid() && it->key() == cur) ++t->crawled;
    it->Seek(AfterRow(row));
  }
  return it->status();
}

}  // namespace

std::string EncodeSummaryValue(const TableTotals& totals, const std::map<int32_t, int64_t>& positions) {
  BytesWriter w;
  w.PutVarint(kSummaryVersion);
  for (uint64_t n : {totals.pages, totals.crawled, totals.linked, totals.links, totals.domains}) w.PutVarint(n);
  w.PutVarint(positions.size());
  for (const auto& [partition, next] : positions) {
    w.PutVarint(static_cast<uint64_t>(partition));
    w.PutSigned(next);
  }
  return w.Take();
}

std::string DomainIndexKey(std::string_view name) { return std::string(kDomainIndexPrefix) + std::string(name); }

Result<std::optional<TableTotals>> ReadTotals(state::Store& store, const state::Snapshot* snap) {
  ASSIGN_OR_RETURN(auto s, ReadSummary(store, snap));
  if (!s) return std::optional<TableTotals>();
  return std::optional<TableTotals>(s->totals);
}

Result<TableTotals> CountTotals(state::Store& store, const state::Snapshot* snap) {
  TableTotals t;
  RETURN_IF_ERROR(CountRows(store, snap, &t, [](std::string_view, uint64_t) { return Status::Ok(); }));
  return t;
}

void SummaryUpdate::Consumed(const InRecord& record) {
  auto [it, added] = positions_.emplace(record.partition, record.offset + 1);
  if (!added) it->second = std::max(it->second, record.offset + 1);
}

void SummaryUpdate::Uri(const std::optional<std::string>& old_incount, const model::UriInfo& info) {
  const bool had = old_incount.has_value(), has = info.Exists();
  const int64_t before = had ? static_cast<int64_t>(ParseCount(*old_incount)) : 0;
  const int64_t after = has ? info.links_to : 0;
  pages_ += static_cast<int64_t>(has) - static_cast<int64_t>(had);
  linked_ += static_cast<int64_t>(after > 0) - static_cast<int64_t>(before > 0);
  links_ += after - before;
}

void SummaryUpdate::Domain(std::string_view key, const std::optional<std::string>& old_pagecount, int64_t pagecount) {
  const bool had = old_pagecount.has_value(), has = pagecount > 0;
  domains_ += static_cast<int64_t>(has) - static_cast<int64_t>(had);
  if (has) {
    names_[model::HostName(key)] = pagecount;
  } else if (had) {
    names_[model::HostName(key)] = std::nullopt;
  }
}

Status SummaryUpdate::Write(state::Store& store, state::WriteBatch& batch) {
  ASSIGN_OR_RETURN(auto kept, ReadSummary(store, nullptr));
  if (!kept) return Status::Ok();  // dropped after a mismatch below: the next start counts again
  auto add = [](uint64_t* total, int64_t delta) {
    if (delta < 0 && static_cast<uint64_t>(-delta) > *total) return false;
    *total = static_cast<uint64_t>(static_cast<int64_t>(*total) + delta);
    return true;
  };
  TableTotals& t = kept->totals;
  if (!(add(&t.pages, pages_) && add(&t.crawled, crawled_) && add(&t.linked, linked_) && add(&t.links, links_) &&
        add(&t.domains, domains_))) {
    // Cannot happen while the summary matches the table; never stop the sink for it.
    LOG_WARN("sink: the table's totals would go below zero; dropping them until the next start counts them again");
    batch.Delete(state::Family::kMeta, kSummaryKey);
    return Status::Ok();
  }
  for (const auto& [partition, next] : positions_) {
    auto [it, added] = kept->positions.emplace(partition, next);
    if (!added) it->second = std::max(it->second, next);
  }
  batch.Put(state::Family::kMeta, kSummaryKey, EncodeSummary(*kept));
  for (const auto& [name, pagecount] : names_) {
    if (pagecount) {
      batch.Put(state::Family::kMeta, DomainIndexKey(name), std::to_string(*pagecount));
    } else {
      batch.Delete(state::Family::kMeta, DomainIndexKey(name));
    }
  }
  return Status::Ok();
}

Status OpenSummary(state::Store& store, std::string_view offsets_prefix) {
  std::map<int32_t, int64_t> committed;
  {
    auto it = store.NewIterator(state::Family::kOffsets);
    for (it->Seek(offsets_prefix); it->Valid() && it->key().starts_with(offsets_prefix); it->Next()) {
      const std::string_view p = it->key().substr(offsets_prefix.size());
      int32_t partition = 0;
      uint64_t next = 0;
      BytesReader r(it->value());
      const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), partition);
      if (ec != std::errc() || end != p.data() + p.size() || !r.GetFixed64BE(&next)) {
        return Status::Corruption("offset key " + std::string(it->key()));
      }
      committed[partition] = static_cast<int64_t>(next);
    }
    RETURN_IF_ERROR(it->status());
  }
  ASSIGN_OR_RETURN(auto kept, ReadSummary(store, nullptr));
  if (kept && kept->positions == committed) return Status::Ok();
  LOG_INFO("sink: counting the table's totals and indexing its domains by name ({}); once, before the first batch",
           kept ? "the table changed since they were kept" : "none kept yet");
  // The summary goes first and comes back last: a stop in between leaves none, counted next time.
  std::optional<state::WriteBatch> batch;
  batch.emplace(store);
  batch->Delete(state::Family::kMeta, kSummaryKey);
  const std::string end = std::string(kDomainIndexPrefix.substr(0, kDomainIndexPrefix.size() - 1)) + "0";  // '/' + 1
  batch->DeleteRange(state::Family::kMeta, kDomainIndexPrefix, end);
  Summary s;
  s.positions = std::move(committed);
  auto snap = store.GetSnapshot();
  RETURN_IF_ERROR(CountRows(store, snap.get(), &s.totals, [&](std::string_view key, uint64_t pagecount) -> Status {
    batch->Put(state::Family::kMeta, DomainIndexKey(model::HostName(key)), std::to_string(pagecount));
    if (batch->Count() < kRebuildBatchKeys) return Status::Ok();
    RETURN_IF_ERROR(store.Write(*batch));
    batch.emplace(store);
    return Status::Ok();
  }));
  batch->Put(state::Family::kMeta, kSummaryKey, EncodeSummary(s));
  RETURN_IF_ERROR(store.Write(*batch));
  LOG_INFO("sink: the table has {} pages ({} crawled, {} linked to), {} links, {} domains", s.totals.pages,
           s.totals.crawled, s.totals.linked, s.totals.links, s.totals.domains);
  return Status::Ok();
}

}  // namespace webindex::sink
