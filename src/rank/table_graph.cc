#include "rank/table_graph.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "model/url.h"
#include "sink/table.h"

namespace webindex::rank {
namespace {

constexpr uint64_t kCancelCheckCells = 1024;
constexpr int kMaxReaders = 4;
constexpr uint32_t kNone = UINT32_MAX;

//! Never 0 (NodeIndex's empty slot).
uint64_t UriHash(std::string_view uri) {
  const uint64_t h =
      table_graph_hash_for_testing ? table_graph_hash_for_testing(uri) : std::hash<std::string_view>()(uri);
  return h == 0 ? 1 : h;
}

using HashSet = std::unordered_set<uint64_t>;

//! What one reader collects from one key range of the p: rows: its nodes (rows with a page or
//! inlinks cell), in key order, named by URL, and its edges, whose sources are named by a hash of
//! their URI, resolved once every node is known. No interning table per reader, no URI kept,
//! and ranges join by appending. A URI is kept only where its hash is ambiguous (a second read,
//! after two node URIs turned out to share a hash).
struct RangeGraph {
  LinkGraph names;                    //!< the nodes' URLs (only name_bytes and name_end)
  std::vector<uint64_t> uri_hash;     //!< per node
  std::vector<uint32_t> edge_target;  //!< node of each inlinks cell, in key order
  std::vector<uint64_t> edge_source;  //!< hash of its source URI
  std::vector<std::pair<uint32_t, std::string>> ambiguous_nodes;    //!< (node, URI), ascending
  std::vector<std::pair<uint64_t, std::string>> ambiguous_sources;  //!< (edge, source URI), ascending
  uint64_t cells = 0;
  Status status;

  size_t nodes() const { return uri_hash.size(); }
};

//! Reads the cells in [begin, end) ("" = to the end of the p: rows) into `out`.
void ReadRange(state::Store& store, const state::Snapshot* snapshot, const std::string& begin, const std::string& end,
               const std::atomic<bool>* cancel, const HashSet& ambiguous, RangeGraph* out) {
  state::ScanOptions scan;
  scan.bulk = true;
  scan.upper_bound = end.empty() ? sink::RowPrefixKey("p;") : end;  // ';' follows ':'
  auto it = store.NewIterator(state::Family::kTable, snapshot, scan);
  std::string row_storage, cf_storage, cq_storage;  // for keys with escaped bytes
  std::string current;                              // the row's URI
  bool started = false, node = false;
  // A row is a node when it has a page or inlinks cell; it is added when its last cell is read.
  auto finish_row = [&]() -> bool {
    if (!node) return true;
    auto url = model::UrlFromUri(current);
    if (!url.ok()) {
      out->status = Status::Corruption("table: URI '" + current + "' has no URL form");
      return false;
    }
    const uint64_t h = UriHash(current);
    if (ambiguous.contains(h)) out->ambiguous_nodes.emplace_back(static_cast<uint32_t>(out->nodes()), current);
    out->names.AddName(url->ToString());
    out->uri_hash.push_back(h);
    return true;
  };
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
    row.remove_prefix(2);
    if (!started || row != current) {
      if (started && !finish_row()) return;
      current.assign(row);
      started = true;
      node = false;
    }
    if (cf == "inlinks") {
      const uint64_t h = UriHash(cq);
      if (ambiguous.contains(h)) out->ambiguous_sources.emplace_back(out->edge_source.size(), cq);
      out->edge_target.push_back(static_cast<uint32_t>(out->nodes()));  // this row's, once finished
      out->edge_source.push_back(h);
      node = true;
    } else if (cf == "page") {
      node = true;
    }
  }
  if (!it->status().ok()) {
    out->status = it->status();
    return;
  }
  if (started) finish_row();
}

//! Appends `part` to `into` and empties it. A node cut in two by the range border continues
//! `into`'s last node.
void Append(RangeGraph& into, RangeGraph& part) {
  const auto base = static_cast<uint32_t>(into.nodes());
  const bool continued = base > 0 && part.nodes() > 0 && part.uri_hash[0] == into.uri_hash.back() &&
                         part.names.name(0) == into.names.name(base - 1);
  const uint32_t first = continued ? 1 : 0;
  for (uint32_t u = first; u < part.nodes(); ++u) {
    into.names.AddName(part.names.name(u));
    into.uri_hash.push_back(part.uri_hash[u]);
  }
  for (auto& [u, uri] : part.ambiguous_nodes) {
    if (u >= first) into.ambiguous_nodes.emplace_back(base + u - first, std::move(uri));
  }
  for (auto& [e, uri] : part.ambiguous_sources) {
    into.ambiguous_sources.emplace_back(into.edge_target.size() + e, std::move(uri));
  }
  for (uint32_t target : part.edge_target) into.edge_target.push_back(base + target - first);
  into.edge_source.insert(into.edge_source.end(), part.edge_source.begin(), part.edge_source.end());
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

//! Node ids by the hash of their URI (never 0): open addressing, 0 is an empty slot.
class NodeIndex {
 public:
  explicit NodeIndex(size_t nodes) {
    size_t size = 1024;
    while (size < nodes + nodes / 2) size *= 2;
    keys_.assign(size, 0);
    ids_.assign(size, kNone);
  }
  //! false when another node has the same hash.
  bool Add(uint64_t h, uint32_t id) {
    const size_t i = Probe(h);
    if (keys_[i] != 0) return false;
    keys_[i] = h;
    ids_[i] = id;
    return true;
  }
  uint32_t Find(uint64_t h) const { return ids_[Probe(h)]; }

 private:
  size_t Probe(uint64_t h) const {
    const size_t mask = keys_.size() - 1;
    size_t i = (h * 0x9e3779b97f4a7c15ull) >> 20 & mask;
    while (keys_[i] != 0 && keys_[i] != h) i = (i + 1) & mask;
    return i;
  }
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> ids_;
};

//! Reads the p: rows. Node URIs whose hashes are in `ambiguous` are told apart by the URIs
//! themselves. When two node URIs outside it share a hash, returns an empty graph with their
//! hashes in `*collided`, for a read that treats them as ambiguous.
Result<LinkGraph> ReadGraph(state::Store& store, const state::Snapshot* snapshot, const std::atomic<bool>* cancel,
                            int readers, const HashSet& ambiguous, HashSet* collided, TableGraphStats* stats) {
  const auto start = std::chrono::steady_clock::now();
  // The p: rows in key ranges of about equal size on disk, one reader each.
  const std::string begin = sink::RowPrefixKey("p:"), end = sink::RowPrefixKey("p;");
  std::vector<std::string> bounds = {begin};
  for (auto& cut : store.SplitKeys(state::Family::kTable, begin, end, readers)) bounds.push_back(std::move(cut));
  bounds.push_back("");
  std::vector<RangeGraph> parts(bounds.size() - 1);
  OnThreads(parts.size(), [&](size_t i) {
    ReadRange(store, snapshot, bounds[i], bounds[i + 1], cancel, ambiguous, &parts[i]);
  });
  for (auto& part : parts) RETURN_IF_ERROR(part.status);
  RangeGraph& all = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) Append(all, parts[i]);
  const auto read = std::chrono::steady_clock::now();

  // Nodes in the table's key order, the same whatever the number of readers; sources from
  // hashes to node ids (ambiguous ones by URI), every source a node. (A damaged table whose
  // inlinks cell names a URI without a row, with the hash of a row's URI, would go unnoticed:
  // the one check a hash gives up.)
  const size_t n = all.nodes();
  const size_t m = all.edge_target.size();
  LinkGraph g;
  g.in_sources.resize(m);
  {
    NodeIndex index(n);
    std::unordered_map<std::string, uint32_t> by_uri;  // the nodes of ambiguous hashes
    for (auto& [u, uri] : all.ambiguous_nodes) by_uri.emplace(std::move(uri), u);
    for (uint32_t u = 0; u < n; ++u) {
      if (!ambiguous.contains(all.uri_hash[u]) && !index.Add(all.uri_hash[u], u)) collided->insert(all.uri_hash[u]);
    }
    if (!collided->empty()) return LinkGraph();
    auto next_ambiguous = all.ambiguous_sources.begin();
    for (size_t e = 0; e < m; ++e) {
      uint32_t source = kNone;
      if (ambiguous.contains(all.edge_source[e])) {
        if (next_ambiguous != all.ambiguous_sources.end() && next_ambiguous->first == e) {
          if (auto it = by_uri.find(next_ambiguous->second); it != by_uri.end()) source = it->second;
          ++next_ambiguous;
        }
      } else {
        source = index.Find(all.edge_source[e]);
      }
      if (source == kNone) {
        return Status::Corruption("table: an inlinks cell of '" + std::string(all.names.name(all.edge_target[e])) +
                                  "' names a source that is no page");
      }
      g.in_sources[e] = source;
    }
  }
  std::vector<uint64_t>().swap(all.edge_source);
  std::vector<uint64_t>().swap(all.uri_hash);
  g.name_bytes = std::move(all.names.name_bytes);
  g.name_end = std::move(all.names.name_end);

  // In-links by target, then source: in key order they are already (a row's inlinks cells
  // are its sources' URIs, ascending).
  auto& targets = all.edge_target;
  bool sorted = true;
  for (size_t e = 1; e < m && sorted; ++e) {
    sorted = targets[e - 1] < targets[e] || (targets[e - 1] == targets[e] && g.in_sources[e - 1] < g.in_sources[e]);
  }
  if (!sorted) {
    std::vector<std::pair<uint32_t, uint32_t>> edges(m);
    for (size_t e = 0; e < m; ++e) edges[e] = {targets[e], g.in_sources[e]};
    std::sort(edges.begin(), edges.end());
    for (size_t e = 0; e < m; ++e) targets[e] = edges[e].first, g.in_sources[e] = edges[e].second;
  }
  g.out_degree.assign(n, 0);
  g.in_begin.assign(n + 1, 0);
  for (size_t e = 0; e < m; ++e) {
    ++g.out_degree[g.in_sources[e]];
    ++g.in_begin[targets[e] + 1];
  }
  for (size_t u = 0; u < n; ++u) g.in_begin[u + 1] += g.in_begin[u];
  if (stats) {
    const auto done = std::chrono::steady_clock::now();
    stats->cells = all.cells;
    stats->readers = static_cast<int>(parts.size());
    stats->read_seconds = std::chrono::duration<double>(read - start).count();
    stats->seconds = std::chrono::duration<double>(done - start).count();
  }
  return g;
}

}  // namespace

uint64_t (*table_graph_hash_for_testing)(std::string_view uri) = nullptr;

Result<LinkGraph> ReadTableGraph(state::Store& store, const state::Snapshot* snapshot, TableGraphStats* stats,
                                 const std::atomic<bool>* cancel, int readers) {
  std::unique_ptr<state::Snapshot> own;
  if (!snapshot) {
    own = store.GetSnapshot();
    snapshot = own.get();
  }
  if (readers <= 0) readers = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxReaders);
  // Node URIs that share a hash (by chance: about one read in 4 million at 3M nodes; or made to)
  // are read again, told apart by their URIs.
  HashSet collided;
  if (stats) stats->attempts = 1;
  ASSIGN_OR_RETURN(LinkGraph g, ReadGraph(store, snapshot, cancel, readers, {}, &collided, stats));
  if (collided.empty()) return g;
  if (stats) stats->attempts = 2;
  HashSet none;
  ASSIGN_OR_RETURN(g, ReadGraph(store, snapshot, cancel, readers, collided, &none, stats));
  return g;
}

}  // namespace webindex::rank
