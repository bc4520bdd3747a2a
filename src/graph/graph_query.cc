#include "graph/graph_query.h"

#include "common/base64url.h"

namespace webindex::graph {
namespace {

//! A cursor names one row key; keys hold at most a few terms.
constexpr size_t kMaxCursorChars = 1 << 20;

}  // namespace

Result<Pattern> ParsePattern(std::string_view subject, std::string_view predicate, std::string_view object,
                             std::string_view graph) {
  Pattern p;
  auto term = [](std::string_view name, std::string_view text, std::optional<Term>* out) -> Status {
    if (text.empty()) return Status::Ok();
    auto t = ParseTerm(text);
    if (!t.ok()) return t.status().WithContext(std::string(name));
    *out = std::move(t).value();
    return Status::Ok();
  };
  RETURN_IF_ERROR(term("s", subject, &p.subject));
  if (!predicate.empty()) {
    // Always an IRI, so it may be given bare (http://a/p) as well as <http://a/p>.
    if (predicate.starts_with("\"") || predicate.starts_with("_:")) {
      return Status::InvalidArgument("p: a predicate is an IRI");
    }
    auto iri = ParseIri(predicate);
    if (!iri.ok()) return iri.status().WithContext("p");
    p.predicate = std::move(iri).value();
  }
  RETURN_IF_ERROR(term("o", object, &p.object));
  if (p.subject && p.subject->is_literal()) return Status::InvalidArgument("s: a subject is never a literal");
  if (p.predicate && !p.predicate->is_iri()) return Status::InvalidArgument("p: a predicate is an IRI");
  if (graph.empty() || graph == "default") return p;
  if (graph == "all") {
    p.graph = GraphSelector::All();
    return p;
  }
  if (graph.starts_with("_:")) {
    auto t = ParseTerm(graph);
    if (!t.ok()) return t.status().WithContext("graph");
    p.graph = GraphSelector::Named(std::move(t).value());
    return p;
  }
  auto iri = ParseIri(graph);
  if (!iri.ok()) return iri.status().WithContext("graph");
  p.graph = GraphSelector::Named(std::move(iri).value());
  return p;
}

Index IndexFor(const Pattern& p) {
  if (p.subject) return p.object && !p.predicate ? Index::kSop : Index::kSpo;
  if (p.predicate) return Index::kPos;
  return p.object ? Index::kOsp : Index::kSpo;
}

bool Matches(const Pattern& p, const Statement& st) {
  switch (p.graph.kind) {
    case GraphSelector::Kind::kDefault:
      if (st.graph) return false;
      break;
    case GraphSelector::Kind::kNamed:
      if (!st.graph || *st.graph != p.graph.name) return false;
      break;
    case GraphSelector::Kind::kAll:
      break;
  }
  return (!p.subject || *p.subject == st.subject) && (!p.predicate || *p.predicate == st.predicate) &&
         (!p.object || *p.object == st.object);
}

Status GraphReader::Scan(const Pattern& pattern, std::string_view cursor, const Visitor& fn) {
  const Index index = IndexFor(pattern);
  const std::optional<Term>* bound_by_pos[3] = {&pattern.subject, &pattern.predicate, &pattern.object};
  std::string bound;  // the bound terms, in index order: always a leading run of it
  for (int pos : IndexOrder(index)) {
    if (!*bound_by_pos[pos]) break;
    AppendTerm(**bound_by_pos[pos], &bound);
  }
  std::string base = space_.prefix;
  base.push_back(static_cast<char>(index));
  std::optional<std::string> fixed_graph;  // base + graph, when one graph is read
  if (pattern.graph.kind != GraphSelector::Kind::kAll) {
    fixed_graph = base;
    AppendGraph(
        pattern.graph.kind == GraphSelector::Kind::kNamed ? std::optional<Term>(pattern.graph.name) : std::nullopt,
        &*fixed_graph);
  }

  std::string start = fixed_graph ? *fixed_graph + bound : base;
  std::string after;  // the cursor's key: the scan resumes strictly after it
  if (!cursor.empty()) {
    std::string rest;
    Statement at;
    if (cursor.size() <= kMaxCursorChars) {
      auto decoded = Base64UrlDecode(cursor);
      if (decoded.ok()) rest = std::move(decoded).value();
    }
    if (rest.empty() || rest.front() != static_cast<char>(index) ||
        !DecodeRowKey(std::string_view(rest).substr(1), index, &at)) {
      return Status::InvalidArgument("bad cursor");
    }
    if (!Matches(pattern, at)) return Status::InvalidArgument("cursor does not belong to this query");
    start = after = space_.prefix + rest;
  }

  auto it = store_.NewIterator(space_.family, snapshot_);
  it->Seek(start);
  Statement st;
  std::string want;  // graph prefix + bound: the matches' prefix in the graph of the current row
  size_t want_graph = std::string::npos;  // the length of want's graph prefix (npos: none yet)
  while (it->Valid()) {
    const std::string_view key = it->key();
    if (!key.starts_with(base)) break;
    if (!after.empty() && key == after) {
      it->Next();
      continue;
    }
    std::string_view rest = key.substr(base.size());
    std::optional<Term> graph;
    if (!ReadGraph(&rest, &graph)) return Status::Corruption("undecodable graph row key");
    const std::string_view graph_prefix = key.substr(0, key.size() - rest.size());
    if (fixed_graph && graph_prefix != *fixed_graph) break;
    if (want_graph != graph_prefix.size() || std::string_view(want).substr(0, want_graph) != graph_prefix) {
      want.assign(graph_prefix);
      want += bound;
      want_graph = graph_prefix.size();
    }
    if (key < want) {
      it->Seek(want);
      continue;
    }
    if (!key.starts_with(want)) {  // past this graph's matches
      if (fixed_graph) break;
      it->Seek(PrefixEnd(graph_prefix));
      continue;
    }
    if (!DecodeRowKey(key.substr(base.size()), index, &st)) return Status::Corruption("undecodable graph row key");
    if (!fn(st)) return Status::Ok();
    it->Next();
  }
  return it->status();
}

Result<bool> FillPage(size_t limit, Page* page, const std::function<Status(const GraphReader::Visitor&)>& scan) {
  if (limit == 0) return Status::InvalidArgument("limit must be at least 1");
  bool more = false;
  RETURN_IF_ERROR(scan([&](const Statement& st) {
    if (page->statements.size() == limit) {
      more = true;
      return false;
    }
    page->statements.push_back(st);
    return true;
  }));
  return more;
}

Result<Page> GraphReader::Query(const Pattern& pattern, size_t limit, std::string_view cursor) {
  Page page;
  ASSIGN_OR_RETURN(const bool more, FillPage(limit, &page, [&](const GraphReader::Visitor& fn) {
    return Scan(pattern, cursor, fn);
  }));
  if (more) {
    const std::string key = RowKey(space_, IndexFor(pattern), page.statements.back());
    page.next = Base64UrlEncode(std::string_view(key).substr(space_.prefix.size()));
  }
  return page;
}

}  // namespace webindex::graph
