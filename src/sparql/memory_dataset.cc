#include "sparql/memory_dataset.h"

#include <algorithm>
#include <functional>
#include <string>

#include "graph/temporal_index.h"
#include "graph/text_index.h"
#include "graph/text_query.h"

namespace webindex::sparql {

namespace {
const std::vector<uint32_t> kNone;

const std::vector<uint32_t>* Find(const auto& map, const std::optional<graph::Term>& term) {
  if (!term) return nullptr;
  auto it = map.find(*term);
  return it == map.end() ? &kNone : &it->second;
}
}  // namespace

size_t MemoryDataset::TermHash::operator()(const graph::Term& t) const {
  size_t h = std::hash<std::string>()(t.value());
  h = h * 31 + std::hash<std::string>()(t.datatype());
  h = h * 31 + std::hash<std::string>()(t.language());
  return h * 31 + static_cast<size_t>(t.kind());
}

void MemoryDataset::Add(graph::Statement statement) {
  auto [it, added] = seen_.try_emplace(statement, static_cast<uint32_t>(statements_.size()));
  if (!added) return;
  uint32_t at = it->second;
  GraphIndex& index = statement.graph ? named_[*statement.graph] : default_;
  index.all.push_back(at);
  index.by_s[statement.subject].push_back(at);
  index.by_p[statement.predicate].push_back(at);
  index.by_o[statement.object].push_back(at);
  statements_.push_back(std::move(statement));
}

const std::vector<uint32_t>& MemoryDataset::Candidates(const GraphIndex& index, const graph::Pattern& pattern) const {
  const std::vector<uint32_t>* best = &index.all;
  for (const std::vector<uint32_t>* c :
       {Find(index.by_s, pattern.subject), Find(index.by_p, pattern.predicate), Find(index.by_o, pattern.object)}) {
    if (c != nullptr && c->size() < best->size()) best = c;
  }
  return *best;
}

Status MemoryDataset::ScanGraph(const GraphIndex& index, const graph::Pattern& pattern, const Visitor& fn, bool* more) {
  for (uint32_t at : Candidates(index, pattern)) {
    const graph::Statement& s = statements_[at];
    if (pattern.subject && s.subject != *pattern.subject) continue;
    if (pattern.predicate && s.predicate != *pattern.predicate) continue;
    if (pattern.object && s.object != *pattern.object) continue;
    if (!fn(s)) {
      *more = false;
      break;
    }
  }
  return Status::Ok();
}

Status MemoryDataset::Scan(const graph::Pattern& pattern, const Visitor& fn) {
  bool more = true;
  using Kind = graph::GraphSelector::Kind;
  if (pattern.graph.kind == Kind::kNamed) {
    auto it = named_.find(pattern.graph.name);
    return it == named_.end() ? Status::Ok() : ScanGraph(it->second, pattern, fn, &more);
  }
  RETURN_IF_ERROR(ScanGraph(default_, pattern, fn, &more));
  if (pattern.graph.kind == Kind::kAll) {
    for (auto& [name, index] : named_) {
      if (!more) break;
      RETURN_IF_ERROR(ScanGraph(index, pattern, fn, &more));
    }
  }
  return Status::Ok();
}

uint64_t MemoryDataset::Estimate(const graph::Pattern& pattern) {
  uint64_t n = 0;
  auto count = [&](const GraphIndex& index) {
    const std::vector<uint32_t>& c = Candidates(index, pattern);
    int bound = (pattern.subject ? 1 : 0) + (pattern.predicate ? 1 : 0) + (pattern.object ? 1 : 0);
    if (bound <= 1) return static_cast<uint64_t>(c.size());
    uint64_t exact = 0;  // candidate lists are short here; count them exactly
    for (uint32_t at : c) {
      const graph::Statement& s = statements_[at];
      if ((!pattern.subject || s.subject == *pattern.subject) &&
          (!pattern.predicate || s.predicate == *pattern.predicate) &&
          (!pattern.object || s.object == *pattern.object)) {
        ++exact;
      }
    }
    return exact;
  };
  using Kind = graph::GraphSelector::Kind;
  if (pattern.graph.kind == Kind::kNamed) {
    auto it = named_.find(pattern.graph.name);
    return it == named_.end() ? 0 : count(it->second);
  }
  n = count(default_);
  if (pattern.graph.kind == Kind::kAll) {
    for (auto& [name, index] : named_) n += count(index);
  }
  return n;
}

Status MemoryDataset::NamedGraphs(const std::function<bool(const graph::Term& name)>& fn) {
  for (auto& [name, index] : named_) {
    if (!fn(name)) break;
  }
  return Status::Ok();
}

Status MemoryDataset::ScanTemporal(const graph::TemporalQuery& query, const Visitor& fn) {
  graph::Pattern where;
  where.predicate = query.predicate;
  where.graph = query.graph;
  for (const auto& st : statements_) {
    if (!graph::Matches(where, st) || !st.object.is_literal() || st.object.datatype() != graph::kXsdDateTime) continue;
    const auto at = graph::ParseXsdDateTime(st.object.value());
    if (!at) continue;
    if (indexes_.TemporalHolds(st.predicate.value()) && graph::Satisfies(query, *at) && !fn(st)) return Status::Ok();
  }
  return Status::Ok();
}

Status MemoryDataset::ScanText(const graph::TextSearch& search, const Visitor& fn) {
  graph::Pattern where;
  where.predicate = search.predicate;
  where.graph = search.graph;
  for (const auto& st : statements_) {
    if (!graph::Matches(where, st) || !graph::IsTextLiteral(st.object)) continue;
    if (graph::Satisfies(search.query, graph::Tokenize(st.object.value())) && !fn(st)) return Status::Ok();
  }
  return Status::Ok();
}

uint64_t MemoryDataset::EstimateTemporal(const graph::TemporalQuery& query, uint64_t) {
  uint64_t n = 0;
  (void)ScanTemporal(query, [&](const graph::Statement&) { return ++n, true; });  // memory: never fails
  return n;
}

uint64_t MemoryDataset::EstimateText(const graph::TextSearch& search, uint64_t) {
  uint64_t n = 0;
  (void)ScanText(search, [&](const graph::Statement&) { return ++n, true; });  // memory: never fails
  return n;
}

}  // namespace webindex::sparql
