// The query forms over the solutions: SELECT's rows, ASK, CONSTRUCT's instantiated template
// and DESCRIBE's concise bounded descriptions; Execute ties parsing's output to the evaluator.
#include <set>

#include "sparql/eval.h"
#include "sparql/scope.h"

namespace webindex::sparql {

namespace {

//! SERVICE anywhere in the query: the evaluator refuses it, naming its position.
Status CheckService(const GroupPattern& group) {
  for (const PatternElement& e : group.elements) {
    if (e.kind == PatternElement::Kind::kService) {
      return Status::InvalidArgument("line " + std::to_string(e.position.line) + ", column " +
                                     std::to_string(e.position.column) + ": SERVICE is not supported");
    }
    for (const GroupPattern& g : e.groups) RETURN_IF_ERROR(CheckService(g));
    if (e.subquery && e.subquery->where) RETURN_IF_ERROR(CheckService(*e.subquery->where));
  }
  return Status::Ok();
}

Status TooMany(uint64_t cap) {
  return Status::Aborted("the result has more than max_rows (" + std::to_string(cap) + ") rows");
}

std::optional<graph::Term> Instantiate(const VarOrTerm& node, const Solution& row, const Evaluator& ev,
                                       uint64_t serial) {
  if (const Var* v = std::get_if<Var>(&node)) {
    int slot = ev.Slot(*v);
    return slot < 0 ? std::nullopt : row[slot];
  }
  const graph::Term& t = std::get<graph::Term>(node);
  if (t.is_blank()) return graph::Term::Blank(t.value() + "_" + std::to_string(serial));
  return t;
}

Status Construct(const Query& query, const Solutions& rows, const Evaluator& ev, uint64_t cap, QueryResult* out) {
  std::set<graph::Statement> seen;
  uint64_t serial = 0;
  for (const Solution& row : rows) {
    ++serial;
    for (const TriplePattern& t : query.construct_template) {
      auto s = Instantiate(t.subject, row, ev, serial), p = Instantiate(t.predicate, row, ev, serial),
           o = Instantiate(t.object, row, ev, serial);
      if (!s || !p || !o || s->is_literal() || !p->is_iri()) continue;
      graph::Statement st{std::move(*s), std::move(*p), std::move(*o), std::nullopt};
      if (!seen.insert(st).second) continue;
      if (out->statements.size() >= cap) return TooMany(cap);
      out->statements.push_back(std::move(st));
    }
  }
  return Status::Ok();
}

Status Describe(const Query& query, const Solutions& rows, Evaluator& ev, uint64_t cap, QueryResult* out) {
  std::vector<graph::Term> todo;
  std::vector<int> slots;
  if (query.describe_all) {
    for (const std::string& v : ProjectedVars(query)) slots.push_back(ev.vars().Find(v));
  }
  for (const VarOrTerm& d : query.describe) {
    if (const Var* v = std::get_if<Var>(&d)) {
      slots.push_back(ev.Slot(*v));
    } else {
      todo.push_back(std::get<graph::Term>(d));
    }
  }
  for (const Solution& row : rows) {
    for (int s : slots) {
      if (s >= 0 && row[s] && !row[s]->is_literal()) todo.push_back(*row[s]);
    }
  }
  std::set<graph::Term> described;
  std::set<graph::Statement> seen;
  while (!todo.empty()) {
    graph::Term r = std::move(todo.back());
    todo.pop_back();
    if (!described.insert(r).second) continue;
    Status status;
    RETURN_IF_ERROR(ev.ScanActive(r, std::nullopt, std::nullopt, [&](const graph::Statement& st) {
      graph::Statement plain{st.subject, st.predicate, st.object, std::nullopt};
      if (!seen.insert(plain).second) return true;
      if (out->statements.size() >= cap) {
        status = TooMany(cap);
        return false;
      }
      if (st.object.is_blank()) todo.push_back(st.object);  // the blank node's own description
      out->statements.push_back(std::move(plain));
      return true;
    }));
    RETURN_IF_ERROR(status);
  }
  return Status::Ok();
}

}  // namespace

Result<QueryResult> Execute(const Query& query, Dataset& dataset, const ExecuteOptions& options) {
  if (query.where) RETURN_IF_ERROR(CheckService(*query.where));
  Evaluator ev(dataset, options);
  Op op = ev.Prepare(TranslateQuery(query));
  RETURN_IF_ERROR(ev.SetDataset(query));
  if (query.form == Query::Form::kAsk) ev.LimitRows(op, 1);
  ASSIGN_OR_RETURN(Solutions rows, ev.Eval(op, ev.Empty()));
  QueryResult result;
  result.form = query.form;
  result.ordered = !query.order_by.empty();
  switch (query.form) {
    case Query::Form::kSelect: {
      if (query.select_all) {
        for (const std::string& v : ProjectedVars(query)) result.vars.push_back(v);
      } else {
        for (const Projection& p : query.projection) result.vars.push_back(p.var.name);
      }
      if (rows.size() > options.max_rows) return TooMany(options.max_rows);
      std::vector<int> slots;
      for (const std::string& v : result.vars) slots.push_back(ev.vars().Find(v));
      result.rows.reserve(rows.size());
      for (Solution& r : rows) {
        std::vector<std::optional<graph::Term>> row;
        row.reserve(slots.size());
        for (int s : slots) row.push_back(s < 0 ? std::nullopt : std::move(r[s]));
        result.rows.push_back(std::move(row));
      }
      return result;
    }
    case Query::Form::kAsk:
      result.boolean = !rows.empty();
      return result;
    case Query::Form::kConstruct:
      RETURN_IF_ERROR(Construct(query, rows, ev, options.max_rows, &result));
      return result;
    case Query::Form::kDescribe:
      RETURN_IF_ERROR(Describe(query, rows, ev, options.max_rows, &result));
      return result;
  }
  return result;
}

}  // namespace webindex::sparql
