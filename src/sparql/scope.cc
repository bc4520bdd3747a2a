// The checks run once the whole tree is built, so each can see the complete group or query.
#include "sparql/scope.h"

#include <map>

#include "sparql/lexer.h"

namespace webindex::sparql {
namespace {

void AddNode(const VarOrTerm& node, std::set<std::string>* vars) {
  if (const Var* v = std::get_if<Var>(&node)) vars->insert(v->name);
}

void AddElement(const PatternElement& e, std::set<std::string>* vars) {
  using K = PatternElement::Kind;
  switch (e.kind) {
    case K::kTriples:
      for (const TriplePattern& t : e.triples) {
        AddNode(t.subject, vars);
        if (!t.path) AddNode(t.predicate, vars);
        AddNode(t.object, vars);
      }
      break;
    case K::kGraph:
    case K::kService:
      AddNode(e.name, vars);
      [[fallthrough]];
    case K::kGroup:
    case K::kOptional:
    case K::kUnion:
      for (const GroupPattern& g : e.groups) AddInScope(g, vars);
      break;
    case K::kBind:
      vars->insert(e.var.name);
      break;
    case K::kValues:
      for (const Var& v : e.values.vars) vars->insert(v.name);
      break;
    case K::kSubSelect: {
      const std::set<std::string> projected = ProjectedVars(*e.subquery);
      vars->insert(projected.begin(), projected.end());
      break;
    }
    case K::kMinus:
    case K::kFilter:
      break;
  }
}

//! Variables of `e` outside aggregates.
void FreeVars(const Expr& e, std::set<std::string>* vars, Position* first_at, std::string* first) {
  if (e.kind == Expr::Kind::kAggregate || e.kind == Expr::Kind::kExists || e.kind == Expr::Kind::kNotExists) return;
  if (e.kind == Expr::Kind::kVar && !vars->count(e.name) && first->empty()) {
    *first = e.name;
    *first_at = e.position;
  }
  for (const Expr& a : e.args) FreeVars(a, vars, first_at, first);
}

bool HasAggregate(const Expr& e) {
  if (e.kind == Expr::Kind::kAggregate) return true;
  for (const Expr& a : e.args) {
    if (HasAggregate(a)) return true;
  }
  return false;
}

class Checker {
 public:
  Status CheckQuery(const sparql::Query& q) {
    if (q.where) RETURN_IF_ERROR(CheckGroup(*q.where));
    RETURN_IF_ERROR(CheckProjection(q));
    for (const Expr& e : q.having) RETURN_IF_ERROR(CheckExpr(e));
    for (const OrderCondition& c : q.order_by) RETURN_IF_ERROR(CheckExpr(c.expr));
    for (const sparql::Projection& p : q.projection) {
      if (p.expr) RETURN_IF_ERROR(CheckExpr(*p.expr));
    }
    return Status::Ok();
  }

 private:
  Status CheckProjection(const sparql::Query& q) {
    std::set<std::string> in_scope;
    if (q.where) AddInScope(*q.where, &in_scope);
    bool grouped = !q.group_by.empty();
    for (const sparql::Projection& p : q.projection) grouped = grouped || (p.expr && HasAggregate(*p.expr));
    for (const Expr& e : q.having) grouped = grouped || HasAggregate(e);
    for (const OrderCondition& c : q.order_by) grouped = grouped || HasAggregate(c.expr);
    if (grouped && q.select_all && q.form == sparql::Query::Form::kSelect) {
      return Status::InvalidArgument(At(q.position) + "SELECT * cannot be used with GROUP BY or aggregates");
    }
    std::set<std::string> groups;
    for (const GroupCondition& c : q.group_by) {
      if (c.as)
        groups.insert(c.as->name);
      else if (c.expr.kind == Expr::Kind::kVar)
        groups.insert(c.expr.name);
    }
    std::set<std::string> assigned;
    for (const sparql::Projection& p : q.projection) {
      if (p.expr) {
        if (in_scope.count(p.var.name) || assigned.count(p.var.name)) {
          return Status::InvalidArgument(At(p.position) + "SELECT ... AS ?" + p.var.name +
                                         " assigns a variable already in scope");
        }
        if (grouped) {
          std::set<std::string> allowed = groups;
          allowed.insert(assigned.begin(), assigned.end());
          Position at;
          std::string bad;
          FreeVars(*p.expr, &allowed, &at, &bad);
          if (!bad.empty()) {
            return Status::InvalidArgument(At(at) + "?" + bad + " is neither grouped nor inside an aggregate");
          }
        }
        assigned.insert(p.var.name);
      } else if (grouped && !groups.count(p.var.name) && !assigned.count(p.var.name)) {
        return Status::InvalidArgument(At(p.position) + "?" + p.var.name +
                                       " is projected but neither grouped nor assigned from an aggregate");
      } else {
        assigned.insert(p.var.name);
      }
    }
    return Status::Ok();
  }

  Status CheckExpr(const Expr& e) {
    if (e.pattern) RETURN_IF_ERROR(CheckGroup(*e.pattern));
    for (const Expr& a : e.args) RETURN_IF_ERROR(CheckExpr(a));
    return Status::Ok();
  }

  //! Blank node labels: each basic graph pattern gets a number; FILTER does not end one.
  Status Labels(const PatternElement& e, int bgp) {
    for (const TriplePattern& t : e.triples) {
      for (const VarOrTerm* node : {&t.subject, &t.predicate, &t.object}) {
        const graph::Term* term = std::get_if<graph::Term>(node);
        if (term == nullptr || !term->is_blank() || term->value().starts_with("-")) continue;
        const auto [it, fresh] = label_bgp_.emplace(term->value(), bgp);
        if (!fresh && it->second != bgp) {
          return Status::InvalidArgument(At(e.position) + "blank node _:" + term->value() +
                                         " is used in two basic graph patterns");
        }
      }
    }
    return Status::Ok();
  }

  Status CheckGroup(const GroupPattern& g) {
    std::set<std::string> in_scope;
    int bgp = ++bgp_counter_;
    for (const PatternElement& e : g.elements) {
      using K = PatternElement::Kind;
      if (e.kind == K::kTriples) {
        RETURN_IF_ERROR(Labels(e, bgp));
      } else if (e.kind != K::kFilter) {
        bgp = ++bgp_counter_;
      }
      if (e.kind == K::kBind && in_scope.count(e.var.name)) {
        return Status::InvalidArgument(At(e.position) + "BIND assigns ?" + e.var.name +
                                       ", which is already in scope in its group");
      }
      if (e.kind == K::kFilter || e.kind == K::kBind) RETURN_IF_ERROR(CheckExpr(e.expr));
      for (const GroupPattern& inner : e.groups) RETURN_IF_ERROR(CheckGroup(inner));
      if (e.subquery) RETURN_IF_ERROR(CheckQuery(*e.subquery));
      AddElement(e, &in_scope);
    }
    return Status::Ok();
  }

  std::map<std::string, int> label_bgp_;
  int bgp_counter_ = 0;
};

}  // namespace

void AddInScope(const GroupPattern& group, std::set<std::string>* vars) {
  for (const PatternElement& e : group.elements) AddElement(e, vars);
}

std::set<std::string> ProjectedVars(const Query& query) {
  std::set<std::string> vars;
  if (query.select_all) {
    if (query.where) AddInScope(*query.where, &vars);
  } else {
    for (const sparql::Projection& p : query.projection) vars.insert(p.var.name);
  }
  return vars;
}

Status CheckRestrictions(const Query& query) { return Checker().CheckQuery(query); }

}  // namespace webindex::sparql
