#include "rank/table_graph.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "model/url.h"
#include "sink/table.h"

namespace webindex::rank {
namespace {

constexpr uint8_t kPage = 1;    //!< has page|cur: a current page (C = its inlinks cells as source)
constexpr uint8_t kExists = 2;  //!< has page|incount or inlinks: linked to
constexpr uint64_t kCancelCheckCells = 1024;
constexpr int kMaxReaders = 4;

//! What one reader collects from one key range of the p: rows, in ids of its own.
struct RangeGraph {
  LinkGraphBuilder ids;
  std::vector<uint8_t> flags;
  std::vector<uint32_t> rows;                        //!< the rows' URIs, in key order
  std::vector<std::pair<uint32_t, uint32_t>> edges;  //!< (target, source), in key order
  uint64_t cells = 0;
  Status status;
};

//! Reads the cells in [begin, end) ("" = to the end of the p: rows) into `out`.
void ReadRange(state::Store& store, const state::Snapshot* snapshot, const std::string& begin, const std::string& end,
               const std::atomic<bool>* cancel, RangeGraph* out) {
  auto flag = [&](uint32_t id, uint8_t f) {
    if (id >= out->flags.size()) out->flags.resize(id + 1, 0);
    out->flags[id] |= f;
  };
  state::ScanOptions scan;
  scan.bulk = true;
  scan.upper_bound = end.empty() ? sink::RowPrefixKey("p;") : end;  // ';' follows ':'
  auto it = store.NewIterator(state::Family::kTable, snapshot, scan);
  std::string row_storage, cf_storage, cq_storage;  // for keys with escaped bytes
  std::string current_row;                          // of `current`
  uint32_t current = LinkGraphBuilder::kNoNode;
  for (it->Seek(begin); it->Valid(); it->Next()) {
    std::string_view row, cf, cq;
    if (auto view = sink::ViewCellKey(it->key())) {
      row = view->row, cf = view->cf, cq = view->cq;
    } else if (sink::DecodeCellKey(it->key(), &row_storage, &cf_storage, &cq_storage)) {
      row = row_storage, cf = cf_storage, cq = cq_storage;
    } else {
      out->status = Status::Corruption("table: a cell key does not decode under the p: rows");
      return;
    }
    if (!row.starts_with("p:")) break;
    if (++out->cells % kCancelCheckCells == 0 && cancel && cancel->load(std::memory_order_relaxed)) {
      out->status = Status::Aborted("stopping: the table was being read");
      return;
    }
    if (current == LinkGraphBuilder::kNoNode || row != current_row) {
      current_row.assign(row);
      current = out->ids.Intern(row.substr(2));
      out->rows.push_back(current);
    }
    if (cf == "inlinks") {
      out->edges.emplace_back(current, out->ids.Intern(cq));
      flag(current, kExists);
    } else if (cf == "page") {
      flag(current, cq == "cur" ? kPage : kExists);
    }
  }
  out->status = it->status();
  out->flags.resize(out->ids.interned(), 0);
}

//! Adds `part`'s rows, flags and edges to `into`, in ids of `into`. A row cut in two by the
//! range border continues `into`'s last row.
void Merge(RangeGraph& into, RangeGraph& part) {
  std::vector<uint32_t> id(part.ids.interned());
  for (uint32_t local = 0; local < id.size(); ++local) id[local] = into.ids.Intern(part.ids.name(local));
  into.flags.resize(into.ids.interned(), 0);
  for (uint32_t local = 0; local < id.size(); ++local) into.flags[id[local]] |= part.flags[local];
  for (uint32_t row : part.rows) {
    if (into.rows.empty() || into.rows.back() != id[row]) into.rows.push_back(id[row]);
  }
  into.edges.reserve(into.edges.size() + part.edges.size());
  for (const auto& [target, source] : part.edges) into.edges.emplace_back(id[target], id[source]);
  into.cells += part.cells;
  part = RangeGraph();
}

//! Runs fn(0) .. fn(n - 1), n - 1 of them on threads of their own.
template <typename Fn>
void OnThreads(size_t n, const Fn& fn) {
  std::vector<std::thread> threads;
  for (size_t i = 1; i < n; ++i) threads.emplace_back(fn, i);
  fn(0);
  for (auto& t : threads) t.join();
}

}  // namespace

Result<LinkGraph> ReadTableGraph(state::Store& store, const state::Snapshot* snapshot, TableGraphStats* stats,
                                 const std::atomic<bool>* cancel, int readers) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<state::Snapshot> own;
  if (!snapshot) {
    own = store.GetSnapshot();
    snapshot = own.get();
  }
  // The p: rows in key ranges of about equal size on disk, one reader each.
  if (readers <= 0) readers = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxReaders);
  const std::string begin = sink::RowPrefixKey("p:"), end = sink::RowPrefixKey("p;");
  std::vector<std::string> bounds = {begin};
  for (auto& cut : store.SplitKeys(state::Family::kTable, begin, end, readers)) bounds.push_back(std::move(cut));
  bounds.push_back("");
  std::vector<RangeGraph> parts(bounds.size() - 1);
  OnThreads(parts.size(), [&](size_t i) { ReadRange(store, snapshot, bounds[i], bounds[i + 1], cancel, &parts[i]); });
  for (auto& part : parts) RETURN_IF_ERROR(part.status);
  RangeGraph& all = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) Merge(all, parts[i]);
  const auto read = std::chrono::steady_clock::now();

  // Dense node ids in URI order (the table's): the rows' key order is their URIs' byte order,
  // so equal inputs give equal graphs.
  const LinkGraphBuilder& ids = all.ids;
  std::vector<uint32_t> order;
  order.reserve(all.rows.size());
  for (uint32_t id : all.rows) {
    if (all.flags[id]) order.push_back(id);
  }
  auto by_name = [&](uint32_t a, uint32_t b) { return ids.name(a) < ids.name(b); };
  if (!std::is_sorted(order.begin(), order.end(), by_name)) std::sort(order.begin(), order.end(), by_name);
  std::vector<uint32_t> dense(all.flags.size(), LinkGraphBuilder::kNoNode);
  for (uint32_t d = 0; d < order.size(); ++d) dense[order[d]] = d;
  LinkGraph g;
  const size_t n = order.size();
  // The nodes' URLs, each thread a slice of them in a buffer of its own; then one buffer.
  std::vector<LinkGraph> slices(parts.size());
  std::vector<Status> url_status(parts.size());
  OnThreads(parts.size(), [&](size_t i) {
    for (size_t d = n * i / parts.size(); d < n * (i + 1) / parts.size(); ++d) {
      auto url = model::UrlFromUri(ids.name(order[d]));
      if (!url.ok()) {
        url_status[i] = Status::Corruption("table: URI '" + std::string(ids.name(order[d])) + "' has no URL form");
        return;
      }
      slices[i].AddName(url->ToString());
    }
  });
  for (const auto& st : url_status) RETURN_IF_ERROR(st);
  size_t name_bytes = 0;
  for (const auto& slice : slices) name_bytes += slice.name_bytes.size();
  g.name_bytes.reserve(name_bytes);
  g.name_end.reserve(n);
  for (auto& slice : slices) {
    const uint64_t base = g.name_bytes.size();
    g.name_bytes.append(slice.name_bytes);
    for (uint64_t end : slice.name_end) g.name_end.push_back(base + end);
    slice = LinkGraph();
  }
  // From here on the edges need only the dense ids: the interned URIs go (the largest part of
  // the memory after the edges) once no error needs to name one.
  for (const auto& [target, source] : all.edges) {
    if (dense[source] == LinkGraphBuilder::kNoNode) {
      return Status::Corruption("table: inlinks from '" + std::string(ids.name(source)) + "', which is no page");
    }
  }
  all.ids = LinkGraphBuilder();
  std::vector<uint8_t>().swap(all.flags);
  std::vector<uint32_t>().swap(all.rows);
  std::vector<uint32_t>().swap(order);

  g.out_degree.assign(n, 0);
  g.in_begin.assign(n + 1, 0);
  auto& edges = all.edges;
  for (auto& [target, source] : edges) {
    target = dense[target];
    source = dense[source];
    ++g.out_degree[source];
    ++g.in_begin[target + 1];
  }
  std::vector<uint32_t>().swap(dense);
  for (size_t u = 0; u < n; ++u) g.in_begin[u + 1] += g.in_begin[u];
  // In key order the edges are already by target, then source.
  if (!std::is_sorted(edges.begin(), edges.end())) std::sort(edges.begin(), edges.end());
  g.in_sources.resize(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) g.in_sources[e] = edges[e].second;
  std::vector<std::pair<uint32_t, uint32_t>>().swap(edges);
  if (stats) {
    const auto done = std::chrono::steady_clock::now();
    stats->cells = all.cells;
    stats->readers = static_cast<int>(parts.size());
    stats->read_seconds = std::chrono::duration<double>(read - start).count();
    stats->seconds = std::chrono::duration<double>(done - start).count();
  }
  return g;
}

}  // namespace webindex::rank
