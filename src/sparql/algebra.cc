// §18.2.2.6 (groups) and §18.2.4-5 (the query). Adjacent basic graph patterns (triples split
// only by FILTERs) are merged into one BGP, which is what joining them means; Join with the
// empty pattern is dropped.
#include "sparql/algebra.h"

#include "sparql/sexpr.h"

namespace webindex::sparql {
namespace {

using K = Op::Kind;

Op Make(K kind) {
  Op op;
  op.kind = kind;
  return op;
}

bool IsEmptyBgp(const Op& op) { return op.kind == K::kBgp && op.triples.empty(); }

Op Join(Op left, Op right) {
  if (IsEmptyBgp(left)) return right;
  if (IsEmptyBgp(right)) return left;
  if (left.kind == K::kBgp && right.kind == K::kBgp) {
    for (TriplePattern& t : right.triples) left.triples.push_back(std::move(t));
    return left;
  }
  Op j = Make(K::kJoin);
  j.args.push_back(std::move(left));
  j.args.push_back(std::move(right));
  return j;
}

Op Binary(K kind, Op left, Op right) {
  Op op = Make(kind);
  op.args.push_back(std::move(left));
  op.args.push_back(std::move(right));
  return op;
}

Op Unary(K kind, Op arg) {
  Op op = Make(kind);
  op.args.push_back(std::move(arg));
  return op;
}

//! Plain triples gather into BGPs; each path triple is its own operator, in written order.
Op Triples(const std::vector<TriplePattern>& triples) {
  Op out = Make(K::kBgp);
  Op bgp = Make(K::kBgp);
  for (const TriplePattern& t : triples) {
    if (!t.path) {
      bgp.triples.push_back(t);
      continue;
    }
    out = Join(std::move(out), std::move(bgp));
    bgp = Make(K::kBgp);
    Op path = Make(K::kPath);
    path.triples.push_back(t);
    out = Join(std::move(out), std::move(path));
  }
  return Join(std::move(out), std::move(bgp));
}

Op Element(const PatternElement& e, Op g, std::vector<Expr>* filters);

//! Replaces each aggregate by a variable `.N`, recording it in `aggregates`.
Expr Rewrite(const Expr& e, std::vector<std::pair<Var, Expr>>* aggregates) {
  if (e.kind == Expr::Kind::kAggregate) {
    Var v{"." + std::to_string(aggregates->size())};
    aggregates->emplace_back(v, e);
    Expr ref;
    ref.kind = Expr::Kind::kVar;
    ref.position = e.position;
    ref.name = v.name;
    return ref;
  }
  Expr out = e;
  out.args.clear();
  for (const Expr& a : e.args) out.args.push_back(Rewrite(a, aggregates));
  return out;
}

bool HasAggregate(const Expr& e) {
  if (e.kind == Expr::Kind::kAggregate) return true;
  for (const Expr& a : e.args) {
    if (HasAggregate(a)) return true;
  }
  return false;
}

Op Element(const PatternElement& e, Op g, std::vector<Expr>* filters) {
  using EK = PatternElement::Kind;
  switch (e.kind) {
    case EK::kTriples:
      return Join(std::move(g), Triples(e.triples));
    case EK::kFilter:
      filters->push_back(e.expr);
      return g;
    case EK::kOptional: {
      Op a = TranslatePattern(e.groups[0]);
      Op lj = Make(K::kLeftJoin);
      // Only the OPTIONAL group's own FILTERs become the LeftJoin's condition, not a nested group's.
      bool own_filter = false;
      for (const PatternElement& x : e.groups[0].elements) own_filter = own_filter || x.kind == EK::kFilter;
      if (a.kind == K::kFilter && own_filter) {
        lj.exprs = std::move(a.exprs);
        Op inner = std::move(a.args[0]);
        a = std::move(inner);
      }
      lj.args.push_back(std::move(g));
      lj.args.push_back(std::move(a));
      return lj;
    }
    case EK::kMinus:
      return Binary(K::kMinus, std::move(g), TranslatePattern(e.groups[0]));
    case EK::kBind: {
      Op ext = Unary(K::kExtend, std::move(g));
      ext.vars.push_back(e.var);
      ext.exprs.push_back(e.expr);
      return ext;
    }
    case EK::kGroup:
      return Join(std::move(g), TranslatePattern(e.groups[0]));
    case EK::kUnion: {
      Op u = TranslatePattern(e.groups[0]);
      for (size_t i = 1; i < e.groups.size(); ++i) u = Binary(K::kUnion, std::move(u), TranslatePattern(e.groups[i]));
      return Join(std::move(g), std::move(u));
    }
    case EK::kGraph:
    case EK::kService: {
      Op named = Unary(e.kind == EK::kGraph ? K::kGraph : K::kService, TranslatePattern(e.groups[0]));
      named.name = e.name;
      named.silent = e.silent;
      return Join(std::move(g), std::move(named));
    }
    case EK::kValues: {
      Op table = Make(K::kTable);
      table.table = e.values;
      return Join(std::move(g), std::move(table));
    }
    case EK::kSubSelect:
      return Join(std::move(g), TranslateQuery(*e.subquery));
  }
  return g;
}

std::string Node(const VarOrTerm& node) {
  if (const Var* v = std::get_if<Var>(&node)) return "?" + v->name;
  return ToSExpr(std::get<graph::Term>(node));
}

std::string Exprs(const std::vector<Expr>& exprs) {
  if (exprs.size() == 1) return ToSExpr(exprs[0]);
  std::string out = "(exprlist";
  for (const Expr& e : exprs) out += " " + ToSExpr(e);
  return out + ")";
}

}  // namespace

Op TranslatePattern(const GroupPattern& group) {
  Op g = Make(K::kBgp);
  std::vector<Expr> filters;
  for (const PatternElement& e : group.elements) g = Element(e, std::move(g), &filters);
  if (filters.empty()) return g;
  Op f = Unary(K::kFilter, std::move(g));
  f.exprs = std::move(filters);
  return f;
}

Op TranslateQuery(const Query& q) {
  Op p = q.where ? TranslatePattern(*q.where) : Make(K::kBgp);
  bool grouped = !q.group_by.empty();
  for (const Projection& pr : q.projection) grouped = grouped || (pr.expr && HasAggregate(*pr.expr));
  for (const Expr& h : q.having) grouped = grouped || HasAggregate(h);
  for (const OrderCondition& c : q.order_by) grouped = grouped || HasAggregate(c.expr);
  std::vector<std::pair<Var, Expr>> aggregates;
  std::vector<Expr> having;
  std::vector<OrderCondition> order;
  std::vector<std::pair<Var, Expr>> extends;
  for (const Projection& pr : q.projection) {
    if (pr.expr) extends.emplace_back(pr.var, Rewrite(*pr.expr, &aggregates));
  }
  for (const Expr& h : q.having) having.push_back(Rewrite(h, &aggregates));
  for (const OrderCondition& c : q.order_by) order.push_back({Rewrite(c.expr, &aggregates), c.descending});
  if (grouped) {
    Op group = Unary(K::kGroup, std::move(p));
    for (const GroupCondition& c : q.group_by) {
      group.exprs.push_back(c.expr);
      group.vars.push_back(c.as.value_or(Var{}));
    }
    group.aggregates = std::move(aggregates);
    p = std::move(group);
  }
  if (!having.empty()) {
    p = Unary(K::kFilter, std::move(p));
    p.exprs = std::move(having);
  }
  if (q.values) {  // after HAVING, before the select expressions (18.2.4.3)
    Op table = Make(K::kTable);
    table.table = *q.values;
    p = Join(std::move(p), std::move(table));
  }
  for (auto& [var, expr] : extends) {
    p = Unary(K::kExtend, std::move(p));
    p.vars.push_back(var);
    p.exprs.push_back(std::move(expr));
  }
  if (!order.empty()) {
    p = Unary(K::kOrderBy, std::move(p));
    p.order = std::move(order);
  }
  if (q.form != Query::Form::kSelect) return p;
  if (!q.select_all) {
    p = Unary(K::kProject, std::move(p));
    for (const Projection& pr : q.projection) p.vars.push_back(pr.var);
  }
  if (q.distinct) p = Unary(K::kDistinct, std::move(p));
  if (q.reduced) p = Unary(K::kReduced, std::move(p));
  if (q.offset || q.limit) {
    p = Unary(K::kSlice, std::move(p));
    p.offset = q.offset;
    p.limit = q.limit;
  }
  return p;
}

std::string ToSExpr(const Op& op) {
  auto args = [&] {
    std::string out;
    for (const Op& a : op.args) out += " " + ToSExpr(a);
    return out + ")";
  };
  auto triple = [](const TriplePattern& t) {
    return Node(t.subject) + " " + (t.path ? ToSExpr(*t.path) : Node(t.predicate)) + " " + Node(t.object);
  };
  switch (op.kind) {
    case K::kBgp: {
      std::string out = "(bgp";
      for (const TriplePattern& t : op.triples) out += " (triple " + triple(t) + ")";
      return out + ")";
    }
    case K::kPath:
      return "(path " + triple(op.triples[0]) + ")";
    case K::kJoin:
      return "(join" + args();
    case K::kLeftJoin: {
      std::string out = "(leftjoin " + ToSExpr(op.args[0]) + " " + ToSExpr(op.args[1]);
      return out + (op.exprs.empty() ? "" : " " + Exprs(op.exprs)) + ")";
    }
    case K::kFilter:
      return "(filter " + Exprs(op.exprs) + args();
    case K::kUnion:
      return "(union" + args();
    case K::kMinus:
      return "(minus" + args();
    case K::kGraph:
      return "(graph " + Node(op.name) + args();
    case K::kService:
      return std::string("(service ") + (op.silent ? "silent " : "") + Node(op.name) + args();
    case K::kExtend:
      return "(extend ((?" + op.vars[0].name + " " + ToSExpr(op.exprs[0]) + "))" + args();
    case K::kTable:
      return ToSExpr(op.table);
    case K::kGroup: {
      std::string out = "(group (";
      for (size_t i = 0; i < op.exprs.size(); ++i) {
        if (i > 0) out += " ";
        out +=
            op.vars[i].name.empty() ? ToSExpr(op.exprs[i]) : "(?" + op.vars[i].name + " " + ToSExpr(op.exprs[i]) + ")";
      }
      out += ") (";
      for (size_t i = 0; i < op.aggregates.size(); ++i) {
        out += (i > 0 ? " (?" : "(?") + op.aggregates[i].first.name + " " + ToSExpr(op.aggregates[i].second) + ")";
      }
      return out + ")" + args();
    }
    case K::kOrderBy: {
      std::string out = "(order (";
      for (size_t i = 0; i < op.order.size(); ++i) {
        if (i > 0) out += " ";
        out += op.order[i].descending ? "(desc " + ToSExpr(op.order[i].expr) + ")" : ToSExpr(op.order[i].expr);
      }
      return out + ")" + args();
    }
    case K::kProject: {
      std::string out = "(project (";
      for (size_t i = 0; i < op.vars.size(); ++i) out += (i > 0 ? " ?" : "?") + op.vars[i].name;
      return out + ")" + args();
    }
    case K::kDistinct:
      return "(distinct" + args();
    case K::kReduced:
      return "(reduced" + args();
    case K::kSlice: {
      auto n = [](const std::optional<uint64_t>& v) { return v ? std::to_string(*v) : std::string("_"); };
      return "(slice " + n(op.offset) + " " + n(op.limit) + args();
    }
  }
  return "";
}

}  // namespace webindex::sparql
