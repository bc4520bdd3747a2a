#include "rank/graph_cells.h"

#include <algorithm>
#include <unordered_map>

#include "model/url.h"
#include "sink/table.h"

namespace webindex::rank {
namespace {

constexpr uint32_t kNone = UINT32_MAX;

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

}  // namespace

uint64_t (*table_graph_hash_for_testing)(std::string_view uri) = nullptr;

uint64_t GraphUriHash(std::string_view uri) {
  const uint64_t h =
      table_graph_hash_for_testing ? table_graph_hash_for_testing(uri) : std::hash<std::string_view>()(uri);
  return h == 0 ? 1 : h;
}

bool GraphCells::FinishRow() {
  if (!node_) return true;
  auto url = model::UrlFromUri(current_);
  if (!url.ok()) {
    status_ = Status::Corruption("table: URI '" + current_ + "' has no URL form");
    return false;
  }
  const uint64_t h = GraphUriHash(current_);
  if (ambiguous_ && ambiguous_->contains(h)) ambiguous_nodes_.emplace_back(static_cast<uint32_t>(nodes()), current_);
  names_.AddName(url->ToString());
  uri_hash_.push_back(h);
  return true;
}

bool GraphCells::Add(std::string_view key) {
  std::string_view row, cf, cq;
  if (auto view = sink::ViewCellKey(key)) {
    row = view->row, cf = view->cf, cq = view->cq;
  } else if (sink::DecodeCellKey(key, &row_storage_, &cf_storage_, &cq_storage_)) {
    row = row_storage_, cf = cf_storage_, cq = cq_storage_;
  } else {
    status_ = Status::Corruption("table: a cell key does not decode under the p: rows");
    return false;
  }
  if (!row.starts_with("p:")) return false;
  ++cells_;
  row.remove_prefix(2);
  if (!started_ || row != current_) {
    if (started_ && !FinishRow()) return false;
    current_.assign(row);
    started_ = true;
    node_ = false;
  }
  if (cf == "inlinks") {
    const uint64_t h = GraphUriHash(cq);
    if (ambiguous_ && ambiguous_->contains(h)) ambiguous_sources_.emplace_back(edge_source_.size(), cq);
    edge_target_.push_back(static_cast<uint32_t>(nodes()));  // this row's, once finished
    edge_source_.push_back(h);
    node_ = true;
  } else if (cf == "page") {
    node_ = true;
  }
  return true;
}

bool GraphCells::Finish() {
  const bool ok = !started_ || FinishRow();
  started_ = false;
  return ok;
}

void GraphCells::Append(GraphCells& part) {
  const auto base = static_cast<uint32_t>(nodes());
  const bool continued = base > 0 && part.nodes() > 0 && part.uri_hash_[0] == uri_hash_.back() &&
                         part.names_.name(0) == names_.name(base - 1);
  const uint32_t first = continued ? 1 : 0;
  for (uint32_t u = first; u < part.nodes(); ++u) {
    names_.AddName(part.names_.name(u));
    uri_hash_.push_back(part.uri_hash_[u]);
  }
  for (auto& [u, uri] : part.ambiguous_nodes_) {
    if (u >= first) ambiguous_nodes_.emplace_back(base + u - first, std::move(uri));
  }
  for (auto& [e, uri] : part.ambiguous_sources_) {
    ambiguous_sources_.emplace_back(edge_target_.size() + e, std::move(uri));
  }
  for (uint32_t target : part.edge_target_) edge_target_.push_back(base + target - first);
  edge_source_.insert(edge_source_.end(), part.edge_source_.begin(), part.edge_source_.end());
  cells_ += part.cells_;
  part = GraphCells(part.ambiguous_);
}

Result<LinkGraph> BuildLinkGraph(GraphCells& all, UriHashSet* collided, bool drop_unknown_sources, uint64_t* dropped) {
  // Nodes in the table's key order, the same whatever the reads; sources from hashes to node ids
  // (ambiguous ones by URI), every source a node. (A damaged table whose inlinks cell names a URI
  // without a row, with the hash of a row's URI, would go unnoticed: the one check a hash gives up.)
  static const UriHashSet kNoHashes;
  const UriHashSet& ambiguous = all.ambiguous_ ? *all.ambiguous_ : kNoHashes;
  const size_t n = all.nodes();
  std::vector<uint32_t> targets = std::move(all.edge_target_);
  LinkGraph g;
  g.in_sources.resize(targets.size());
  size_t kept = 0;
  {
    NodeIndex index(n);
    std::unordered_map<std::string, uint32_t> by_uri;  // the nodes of ambiguous hashes
    for (auto& [u, uri] : all.ambiguous_nodes_) by_uri.emplace(std::move(uri), u);
    for (uint32_t u = 0; u < n; ++u) {
      if (!ambiguous.contains(all.uri_hash_[u]) && !index.Add(all.uri_hash_[u], u)) collided->insert(all.uri_hash_[u]);
    }
    if (!collided->empty()) return LinkGraph();
    auto next_ambiguous = all.ambiguous_sources_.begin();
    for (size_t e = 0; e < targets.size(); ++e) {
      uint32_t source = kNone;
      if (ambiguous.contains(all.edge_source_[e])) {
        if (next_ambiguous != all.ambiguous_sources_.end() && next_ambiguous->first == e) {
          if (auto it = by_uri.find(next_ambiguous->second); it != by_uri.end()) source = it->second;
          ++next_ambiguous;
        }
      } else {
        source = index.Find(all.edge_source_[e]);
      }
      if (source == kNone) {
        if (drop_unknown_sources) {
          if (dropped) ++*dropped;
          continue;
        }
        return Status::Corruption("table: an inlinks cell of '" + std::string(all.names_.name(targets[e])) +
                                  "' names a source that is no page");
      }
      g.in_sources[kept] = source;
      targets[kept++] = targets[e];
    }
  }
  targets.resize(kept);
  g.in_sources.resize(kept);
  std::vector<uint64_t>().swap(all.edge_source_);
  std::vector<uint64_t>().swap(all.uri_hash_);
  g.name_bytes = std::move(all.names_.name_bytes);
  g.name_end = std::move(all.names_.name_end);

  // In-links by target, then source: in key order they are already (a row's inlinks cells
  // are its sources' URIs, ascending).
  const size_t m = targets.size();
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
  all = GraphCells(all.ambiguous_);
  return g;
}

}  // namespace webindex::rank
