#include "sparql/endpoint.h"

#include <set>

#include "graph/index_set.h"
#include "sparql/execute.h"
#include "sparql/expr_rya.h"
#include "sparql/explain.h"
#include "sparql/store_dataset.h"

namespace webindex::sparql {
namespace {

struct FormatName {
  ResultFormat format;
  std::string_view name;
};
constexpr FormatName kNames[] = {{ResultFormat::kJson, "json"},
                                 {ResultFormat::kXml, "xml"},
                                 {ResultFormat::kCsv, "csv"},
                                 {ResultFormat::kTsv, "tsv"},
                                 {ResultFormat::kNTriples, "ntriples"}};

bool AnswersGraphs(Query::Form form) { return form == Query::Form::kConstruct || form == Query::Form::kDescribe; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

//! The indexes ("temporal", "freetext") that Rya's functions in `query` read.
void IndexesUsed(const Expr& e, std::set<std::string_view>* out);
void IndexesUsed(const GroupPattern& g, std::set<std::string_view>* out);
void IndexesUsed(const Query& q, std::set<std::string_view>* out) {
  if (q.where) IndexesUsed(*q.where, out);
  for (const auto& p : q.projection) {
    if (p.expr) IndexesUsed(*p.expr, out);
  }
  for (const auto& g : q.group_by) IndexesUsed(g.expr, out);
  for (const auto& e : q.having) IndexesUsed(e, out);
  for (const auto& o : q.order_by) IndexesUsed(o.expr, out);
}
void IndexesUsed(const Expr& e, std::set<std::string_view>* out) {
  if (e.kind == Expr::Kind::kFunction) {
    if (const std::string_view index = RyaIndexOf(e.name); !index.empty()) out->insert(index);
  }
  for (const auto& a : e.args) IndexesUsed(a, out);
  if (e.pattern) IndexesUsed(*e.pattern, out);
}
void IndexesUsed(const GroupPattern& g, std::set<std::string_view>* out) {
  for (const auto& el : g.elements) {
    for (const auto& sub : el.groups) IndexesUsed(sub, out);
    if (el.kind == PatternElement::Kind::kFilter || el.kind == PatternElement::Kind::kBind) IndexesUsed(el.expr, out);
    if (el.subquery) IndexesUsed(*el.subquery, out);
  }
}

//! Aborted, naming how to build it, when `query` calls a Rya function whose index the store's
//! generation does not keep (as `query temporal` and `query search` are refused).
Status CheckIndexes(state::Store& store, const Query& query) {
  std::set<std::string_view> used;
  IndexesUsed(query, &used);
  if (used.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(const graph::IndexSet kept, graph::RecordedIndexes(store));
  for (const std::string_view index : used) {
    if (index == "temporal" ? kept.temporal : kept.freetext) continue;
    return Status::Aborted(std::string("the query calls ") + (index == "temporal" ? "tempo:" : "fts:") +
                           " functions, but this table has no " + (index == "temporal" ? "temporal" : "free-text") +
                           " index (`webindex details` lists what it keeps). `webindex replay --indexes +" +
                           std::string(index) + "` builds a generation with it while this one keeps answering");
  }
  return Status::Ok();
}

}  // namespace

Result<ResultFormat> ResultFormatNamed(std::string_view name) {
  for (const auto& f : kNames) {
    if (f.name == name) return f.format;
  }
  return Status::InvalidArgument("unknown format '" + std::string(name) +
                                 "': json, xml, csv or tsv for SELECT (json or xml for ASK), ntriples for CONSTRUCT "
                                 "and DESCRIBE");
}

ResultFormat DefaultFormat(Query::Form form) {
  return AnswersGraphs(form) ? ResultFormat::kNTriples : ResultFormat::kJson;
}

Status CheckFormat(ResultFormat format, Query::Form form) {
  if (FormatFits(format, form)) return Status::Ok();
  switch (form) {
    case Query::Form::kSelect:
      return Status::InvalidArgument("SELECT answers json, xml, csv or tsv; ntriples is for CONSTRUCT and DESCRIBE");
    case Query::Form::kAsk:
      return Status::InvalidArgument("ASK answers json or xml");
    default:
      return Status::InvalidArgument("CONSTRUCT and DESCRIBE answer statements: the format is ntriples");
  }
}

std::optional<ResultFormat> ResultFormatAccepted(std::string_view accept, Query::Form form) {
  if (Trim(accept).empty()) return DefaultFormat(form);
  bool any = false;
  while (!accept.empty()) {
    const size_t comma = accept.find(',');
    std::string_view item = Trim(accept.substr(0, comma));
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    const std::string_view type = Trim(item.substr(0, item.find(';')));
    if (type == "*/*" || type == "application/*" || type == "text/*") {
      any = true;
      continue;
    }
    if (auto format = FormatForMediaType(type); format && FormatFits(*format, form)) return format;
    if (AnswersGraphs(form) && (type == "text/plain" || type == "application/n-quads")) return ResultFormat::kNTriples;
    if (!AnswersGraphs(form) && type == "application/json") return ResultFormat::kJson;
  }
  if (any) return DefaultFormat(form);
  return std::nullopt;
}

Result<Answer> AnswerQuery(state::Store& store, const Query& query, ResultFormat format, const QueryLimits& limits) {
  RETURN_IF_ERROR(CheckFormat(format, query.form));
  RETURN_IF_ERROR(CheckIndexes(store, query));
  auto snapshot = store.GetSnapshot();
  StoreDataset dataset(store, snapshot.get());
  ExecuteOptions options;
  const auto start = std::chrono::steady_clock::now();
  options.deadline = start + limits.timeout;
  options.max_rows = limits.max_rows;
  options.cancelled = limits.cancelled;
  auto result = Execute(query, dataset, options);
  if (!result.ok()) {
    const Status& st = result.status();
    if (st.code() != Status::Code::kAborted) return st;
    if (limits.cancelled && limits.cancelled->load()) return st;
    if (std::chrono::steady_clock::now() >= *options.deadline) {
      return Status::Unavailable("the query ran longer than its time budget of " +
                                 std::to_string(limits.timeout.count()) +
                                 " ms and was stopped: bind more terms, add LIMIT, or raise the budget (timeout=)");
    }
    return Status::InvalidArgument("the answer has more than " + std::to_string(limits.max_rows) +
                                   (AnswersGraphs(query.form) ? " statements" : " rows") +
                                   ", the most one answer holds: add LIMIT (and OFFSET to page through it)");
  }
  Answer answer;
  answer.media_type = std::string(MediaType(format));
  answer.media_type += "; charset=utf-8";
  RETURN_IF_ERROR(WriteResult(*result, format, [&](std::string_view text) { answer.body.append(text); }));
  return answer;
}

Result<std::string> ExplainQuery(state::Store& store, const Query& query) {
  auto snapshot = store.GetSnapshot();
  StoreDataset dataset(store, snapshot.get());
  return ExplainPlan(query, dataset);
}

}  // namespace webindex::sparql
