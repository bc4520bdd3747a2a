#include "rank/table_graph.h"

#include <algorithm>
#include <chrono>

#include "model/url.h"
#include "sink/table.h"

namespace webindex::rank {
namespace {

constexpr uint8_t kPage = 1;    //!< has page|cur: a current page (C = its inlinks cells as source)
constexpr uint8_t kExists = 2;  //!< has page|incount or inlinks: linked to
constexpr uint64_t kCancelCheckCells = 1024;

}  // namespace

Result<LinkGraph> ReadTableGraph(state::Store& store, const state::Snapshot* snapshot, TableGraphStats* stats,
                                 const std::atomic<bool>* cancel) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<state::Snapshot> own;
  if (!snapshot) {
    own = store.GetSnapshot();
    snapshot = own.get();
  }
  LinkGraphBuilder ids;  // URIs -> ids, in first-seen order
  std::vector<uint8_t> flags;
  std::vector<std::pair<uint32_t, uint32_t>> edges;  // (target, source)
  auto flag = [&](uint32_t id, uint8_t f) {
    if (id >= flags.size()) flags.resize(id + 1, 0);
    flags[id] |= f;
  };
  auto it = store.NewIterator(state::Family::kTable, snapshot);
  std::string row, cf, cq;
  uint64_t cells = 0;
  for (it->Seek(sink::RowPrefixKey("p:")); it->Valid(); it->Next()) {
    if (!sink::DecodeCellKey(it->key(), &row, &cf, &cq)) {
      return Status::Corruption("table: a cell key does not decode under the p: rows");
    }
    if (!row.starts_with("p:")) break;
    if (++cells % kCancelCheckCells == 0 && cancel && cancel->load(std::memory_order_relaxed)) {
      return Status::Aborted("stopping: the table was being read");
    }
    const uint32_t uri = ids.Intern(std::string_view(row).substr(2));
    if (cf == "inlinks") {
      const uint32_t source = ids.Intern(cq);
      edges.emplace_back(uri, source);
      flag(uri, kExists);
    } else if (cf == "page") {
      flag(uri, cq == "cur" ? kPage : kExists);
    }
  }
  RETURN_IF_ERROR(it->status());
  flags.resize(ids.interned(), 0);

  // Dense node ids in URI order (the table's), so equal inputs give equal graphs.
  std::vector<uint32_t> order;
  for (uint32_t id = 0; id < flags.size(); ++id) {
    if (flags[id]) order.push_back(id);
  }
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return ids.name(a) < ids.name(b); });
  std::vector<uint32_t> dense(flags.size(), LinkGraphBuilder::kNoNode);
  LinkGraph g;
  g.names.reserve(order.size());
  for (uint32_t id : order) {
    dense[id] = static_cast<uint32_t>(g.names.size());
    auto url = model::UrlFromUri(ids.name(id));
    if (!url.ok()) return Status::Corruption("table: URI '" + std::string(ids.name(id)) + "' has no URL form");
    g.names.push_back(url->ToString());
  }
  const size_t n = g.names.size();
  g.out_degree.assign(n, 0);
  g.in_begin.assign(n + 1, 0);
  for (auto& [target, source] : edges) {
    if (dense[source] == LinkGraphBuilder::kNoNode) {
      return Status::Corruption("table: inlinks from '" + std::string(ids.name(source)) + "', which is no page");
    }
    target = dense[target];
    source = dense[source];
    ++g.out_degree[source];
    ++g.in_begin[target + 1];
  }
  for (size_t u = 0; u < n; ++u) g.in_begin[u + 1] += g.in_begin[u];
  std::sort(edges.begin(), edges.end());
  g.in_sources.resize(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) g.in_sources[e] = edges[e].second;
  if (stats) {
    stats->cells = cells;
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return g;
}

}  // namespace webindex::rank
