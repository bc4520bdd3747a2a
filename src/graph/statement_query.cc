#include "graph/statement_query.h"

#include "graph/index_set.h"

namespace webindex::graph {

std::string_view StatementQuery::name() const {
  switch (query.index()) {
    case 0:
      return "triples";
    case 1:
      return "temporal";
    default:
      return "search";
  }
}

bool StatementQuery::all_graphs() const {
  return std::visit([](const auto& q) { return q.graph.kind == GraphSelector::Kind::kAll; }, query);
}

const std::vector<std::string>& StatementQueryParams(std::string_view kind) {
  static const std::vector<std::string> kTriples = {"s", "p", "o", "graph"};
  static const std::vector<std::string> kTemporal = {"before", "after", "equals", "within", "p", "graph"};
  static const std::vector<std::string> kSearch = {"q", "p", "graph"};
  static const std::vector<std::string> kNone;
  if (kind == "triples") return kTriples;
  if (kind == "temporal") return kTemporal;
  if (kind == "search") return kSearch;
  return kNone;
}

Result<StatementQuery> ParseStatementQuery(std::string_view kind,
                                           const std::function<std::string(std::string_view)>& param) {
  if (kind == "triples") {
    ASSIGN_OR_RETURN(Pattern p, ParsePattern(param("s"), param("p"), param("o"), param("graph")));
    return StatementQuery{std::move(p)};
  }
  if (kind == "temporal") {
    ASSIGN_OR_RETURN(TemporalQuery q, ParseTemporalQuery(param("before"), param("after"), param("equals"),
                                                         param("within"), param("p"), param("graph")));
    return StatementQuery{std::move(q)};
  }
  if (kind == "search") {
    const std::string text = param("q");
    if (text.empty()) return Status::InvalidArgument("missing parameter 'q' (the words to look for)");
    ASSIGN_OR_RETURN(TextSearch s, ParseTextSearch(text, param("p"), param("graph")));
    return StatementQuery{std::move(s)};
  }
  return Status::InvalidArgument("unknown statement query '" + std::string(kind) + "' (triples, temporal, search)");
}

Status CheckIndexFor(state::Store& store, const StatementQuery& query) {
  if (query.query.index() == 0) return Status::Ok();
  ASSIGN_OR_RETURN(IndexSet indexes, RecordedIndexes(store));
  const bool temporal = query.query.index() == 1;
  if (temporal ? indexes.temporal : indexes.freetext) return Status::Ok();
  const char* index = temporal ? "temporal" : "freetext";
  return Status::Aborted(std::string("this table has no ") + (temporal ? "temporal" : "free-text") +
                         " index (it was set up without it; `webindex details` lists what it keeps). `webindex "
                         "replay --indexes +" + index + "` builds a generation with it while this one keeps answering");
}

Result<Page> QueryStatements(state::Store& store, const state::Snapshot* snapshot, const StatementQuery& query,
                             size_t limit, std::string_view cursor) {
  if (const auto* p = std::get_if<Pattern>(&query.query)) return GraphReader(store, snapshot).Query(*p, limit, cursor);
  if (const auto* t = std::get_if<TemporalQuery>(&query.query)) {
    return TemporalReader(store, snapshot).Query(*t, limit, cursor);
  }
  return TextReader(store, snapshot).Query(std::get<TextSearch>(query.query), limit, cursor);
}

Status ScanStatements(state::Store& store, const state::Snapshot* snapshot, const StatementQuery& query,
                      const GraphReader::Visitor& fn) {
  if (const auto* p = std::get_if<Pattern>(&query.query)) return GraphReader(store, snapshot).Scan(*p, "", fn);
  if (const auto* t = std::get_if<TemporalQuery>(&query.query)) {
    return TemporalReader(store, snapshot).Scan(*t, "", fn);
  }
  return TextReader(store, snapshot).Scan(std::get<TextSearch>(query.query), "", fn);
}

}  // namespace webindex::graph
