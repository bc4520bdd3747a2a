#include "sparql/store_dataset.h"

#include <algorithm>
#include <vector>

#include "graph/statement_query.h"

namespace webindex::sparql {
namespace {

//! Above this many named graphs, a pattern over all graphs is estimated from its first rows only.
constexpr size_t kGraphsEstimatedOneByOne = 64;

}  // namespace

Status StoreDataset::Scan(const graph::Pattern& pattern, const Visitor& fn) {
  graph::GraphReader reader(store_, snapshot_, space_);
  return reader.Scan(pattern, {}, fn);
}

uint64_t StoreDataset::EstimateIn(const graph::Pattern& pattern, const std::optional<graph::Term>& graph) {
  const graph::Index index = graph::IndexFor(pattern);
  const std::optional<graph::Term>* by_position[3] = {&pattern.subject, &pattern.predicate, &pattern.object};
  std::string start = space_.prefix;
  start.push_back(static_cast<char>(index));
  graph::AppendGraph(graph, &start);
  for (int position : graph::IndexOrder(index)) {
    if (!*by_position[position]) break;
    graph::AppendTerm(**by_position[position], &start);
  }
  if (auto known = estimates_.find(start); known != estimates_.end()) return known->second;
  const uint64_t estimate = Count(start);
  estimates_.emplace(std::move(start), estimate);
  return estimate;
}

uint64_t StoreDataset::Count(const std::string& start) {
  const std::string end = graph::PrefixEnd(start);
  state::ScanOptions scan;
  scan.upper_bound = end;
  auto it = store_.NewIterator(space_.family, snapshot_, scan);
  uint64_t count = 0;
  std::string last;
  for (it->Seek(start); it->Valid() && count < kExactUpTo; it->Next()) ++count;
  if (count < kExactUpTo || !it->Valid()) return count;
  last = std::string(it->key());
  // The first kExactUpTo rows are [start, last): their share of the files' bytes sizes the rest
  // of the range in files; memtables count their entries.
  const auto sampled = store_.ApproximateSize(space_.family, start, last);
  const auto total = store_.ApproximateSize(space_.family, start, end);
  const uint64_t sampled_in_files = kExactUpTo - std::min(kExactUpTo, sampled.memtable_entries);
  uint64_t in_files = 0;
  if (total.file_bytes > 0) {
    in_files = sampled_in_files > 0 && sampled.file_bytes > 0
                   ? static_cast<uint64_t>(static_cast<double>(total.file_bytes) / sampled.file_bytes * sampled_in_files)
                   : total.file_bytes / 64;  // no row of the sample in files: ~64 bytes a row
  }
  const uint64_t estimate = total.memtable_entries + in_files;
  if (estimate > kCountedUpTo) return estimate;
  // RocksDB's memtable counts come from samples of its skip list and can miss a range whole:
  // an estimate that says "small" is checked by counting on, up to kCountedUpTo rows.
  for (; it->Valid() && count < kCountedUpTo; it->Next()) ++count;
  return it->Valid() ? std::max(estimate, kCountedUpTo + 1) : count;
}

uint64_t StoreDataset::Estimate(const graph::Pattern& pattern) {
  switch (pattern.graph.kind) {
    case graph::GraphSelector::Kind::kDefault:
      return EstimateIn(pattern, std::nullopt);
    case graph::GraphSelector::Kind::kNamed:
      return EstimateIn(pattern, pattern.graph.name);
    case graph::GraphSelector::Kind::kAll:
      break;
  }
  std::vector<graph::Term> graphs;
  bool many = false;
  Status listed = NamedGraphs([&](const graph::Term& name) {
    if (graphs.size() == kGraphsEstimatedOneByOne) {
      many = true;
      return false;
    }
    graphs.push_back(name);
    return true;
  });
  uint64_t sum = EstimateIn(pattern, std::nullopt);
  if (!listed.ok() || many) {  // count the first rows across graphs: a lower bound
    uint64_t count = 0;
    Status st = Scan(pattern, [&](const graph::Statement&) { return ++count < kExactUpTo; });
    return std::max(sum, count);
  }
  for (const auto& g : graphs) sum += EstimateIn(pattern, g);
  return sum;
}

Status StoreDataset::NamedGraphs(const std::function<bool(const graph::Term& name)>& fn) {
  std::string base = space_.prefix;
  base.push_back(static_cast<char>(graph::Index::kSpo));
  state::ScanOptions scan;
  scan.upper_bound = graph::PrefixEnd(base);
  auto it = store_.NewIterator(space_.family, snapshot_, scan);
  for (it->Seek(base); it->Valid();) {
    const std::string_view key = it->key();
    if (!key.starts_with(base)) break;
    std::string_view rest = key.substr(base.size());
    std::optional<graph::Term> graph;
    if (!graph::ReadGraph(&rest, &graph)) return Status::Corruption("undecodable graph row key");
    const std::string graph_prefix(key.substr(0, key.size() - rest.size()));
    if (graph && !fn(*graph)) return Status::Ok();
    it->Seek(graph::PrefixEnd(graph_prefix));  // the next graph's first row
  }
  return it->status();
}

Status StoreDataset::ScanTemporal(const graph::TemporalQuery& query, const Visitor& fn) {
  RETURN_IF_ERROR(graph::CheckIndexFor(store_, graph::StatementQuery{query}));
  graph::TemporalReader reader(store_, snapshot_, space_);
  return reader.Scan(query, {}, fn);
}

Status StoreDataset::ScanText(const graph::TextSearch& search, const Visitor& fn) {
  RETURN_IF_ERROR(graph::CheckIndexFor(store_, graph::StatementQuery{search}));
  graph::TextReader reader(store_, snapshot_, space_);
  return reader.Scan(search, {}, fn);
}

graph::IndexSet StoreDataset::Indexes() {
  if (!indexes_) {
    auto recorded = graph::RecordedIndexes(store_);
    indexes_ = recorded.ok() ? std::move(recorded).value() : graph::IndexSet{};
  }
  return *indexes_;
}

uint64_t StoreDataset::CountIndexMatches(const std::string& key, uint64_t up_to,
                                         const std::function<Status(const Visitor&)>& scan) {
  const uint64_t limit = std::min(std::max<uint64_t>(up_to, 1), kCountedUpTo + 1);
  IndexCount& known = index_estimates_[key];
  if (!known.complete && known.count < limit) {
    uint64_t count = 0;
    // A scan that fails (a wildcard matching too many words) is never chosen: the FILTER then
    // runs on each row's value, which has no such limit.
    const Status counted = scan([&](const graph::Statement&) { return ++count < limit; });
    if (!counted.ok()) return UINT64_MAX;
    known.count = count;
    known.complete = count < limit;
  }
  return known.complete || known.count <= kCountedUpTo ? known.count : kManyIndexMatches;
}

namespace {

//! A memo key for an index scan: which index, the predicate, the graph, the query.
std::string IndexScanKey(char kind, const std::optional<graph::Term>& predicate, const graph::GraphSelector& graph,
                         std::string_view query) {
  std::string key(1, kind);
  key.push_back(predicate ? '1' : '0');
  if (predicate) graph::AppendTerm(*predicate, &key);
  key.push_back(static_cast<char>('0' + static_cast<int>(graph.kind)));
  if (graph.kind == graph::GraphSelector::Kind::kNamed) graph::AppendTerm(graph.name, &key);
  key.append(query);
  return key;
}

}  // namespace

uint64_t StoreDataset::EstimateTemporal(const graph::TemporalQuery& query, uint64_t up_to) {
  const std::string times = std::to_string(static_cast<int>(query.op)) + ' ' + std::to_string(query.t1) + ' ' +
                            std::to_string(query.t2);
  return CountIndexMatches(IndexScanKey('\x01', query.predicate, query.graph, times), up_to,
                           [&](const Visitor& fn) { return ScanTemporal(query, fn); });
}

uint64_t StoreDataset::EstimateText(const graph::TextSearch& search, uint64_t up_to) {
  return CountIndexMatches(IndexScanKey('\x02', search.predicate, search.graph, graph::ToString(search.query)),
                           up_to, [&](const Visitor& fn) { return ScanText(search, fn); });
}

}  // namespace webindex::sparql
