// One line, single spaces; each construct is (name args...), operators by their symbol.
#include "sparql/sexpr.h"

#include <cctype>

namespace webindex::sparql {
namespace {

constexpr std::string_view kXsd = "http://www.w3.org/2001/XMLSchema#";

std::string Node(const VarOrTerm& node) {
  if (const Var* v = std::get_if<Var>(&node)) return "?" + v->name;
  return ToSExpr(std::get<graph::Term>(node));
}

bool Bare(const graph::Term& t) {
  const std::string& v = t.value();
  if (v.empty() || !t.datatype().starts_with(kXsd)) return false;
  const std::string_view type = std::string_view(t.datatype()).substr(kXsd.size());
  if (type == "boolean") return v == "true" || v == "false";
  size_t i = (v[0] == '+' || v[0] == '-') ? 1 : 0;
  bool digits = false, dot = false, exp = false;
  for (; i < v.size(); ++i) {
    const char c = v[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits = true;
    } else if (c == '.' && !dot && !exp) {
      dot = true;
    } else if ((c == 'e' || c == 'E') && !exp && digits) {
      exp = true;
      if (i + 1 < v.size() && (v[i + 1] == '+' || v[i + 1] == '-')) ++i;
      if (i + 1 >= v.size()) return false;
    } else {
      return false;
    }
  }
  if (!digits) return false;
  if (type == "integer") return !dot && !exp;
  if (type == "decimal") return dot && !exp && v.back() != '.';
  if (type == "double") return exp;
  return false;
}

const char* OperatorName(Expr::Kind k) {
  using K = Expr::Kind;
  switch (k) {
    case K::kOr:
      return "||";
    case K::kAnd:
      return "&&";
    case K::kEqual:
      return "=";
    case K::kNotEqual:
      return "!=";
    case K::kLess:
      return "<";
    case K::kGreater:
      return ">";
    case K::kLessEqual:
      return "<=";
    case K::kGreaterEqual:
      return ">=";
    case K::kIn:
      return "in";
    case K::kNotIn:
      return "notin";
    case K::kAdd:
      return "+";
    case K::kSubtract:
      return "-";
    case K::kMultiply:
      return "*";
    case K::kDivide:
      return "/";
    case K::kNot:
      return "!";
    case K::kNegate:
      return "-";
    case K::kPlus:
      return "+";
    case K::kExists:
      return "exists";
    case K::kNotExists:
      return "notexists";
    default:
      return "";
  }
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Triples(const std::vector<TriplePattern>& triples) {
  std::string out = "(bgp";
  for (const TriplePattern& t : triples) {
    out += t.path ? " (path " : " (triple ";
    out += Node(t.subject) + " " + (t.path ? ToSExpr(*t.path) : Node(t.predicate)) + " " + Node(t.object) + ")";
  }
  return out + ")";
}

std::string Element(const PatternElement& e) {
  using K = PatternElement::Kind;
  switch (e.kind) {
    case K::kTriples:
      return Triples(e.triples);
    case K::kGroup:
      return ToSExpr(e.groups[0]);
    case K::kOptional:
      return "(optional " + ToSExpr(e.groups[0]) + ")";
    case K::kMinus:
      return "(minus " + ToSExpr(e.groups[0]) + ")";
    case K::kUnion: {
      std::string out = "(union";
      for (const GroupPattern& g : e.groups) out += " " + ToSExpr(g);
      return out + ")";
    }
    case K::kGraph:
      return "(graph " + Node(e.name) + " " + ToSExpr(e.groups[0]) + ")";
    case K::kService:
      return std::string("(service ") + (e.silent ? "silent " : "") + Node(e.name) + " " + ToSExpr(e.groups[0]) + ")";
    case K::kFilter:
      return "(filter " + ToSExpr(e.expr) + ")";
    case K::kBind:
      return "(extend ?" + e.var.name + " " + ToSExpr(e.expr) + ")";
    case K::kValues:
      return ToSExpr(e.values);
    case K::kSubSelect:
      return ToSExpr(*e.subquery);
  }
  return "";
}

const char* FormName(Query::Form f) {
  switch (f) {
    case Query::Form::kSelect:
      return "select";
    case Query::Form::kConstruct:
      return "construct";
    case Query::Form::kAsk:
      return "ask";
    case Query::Form::kDescribe:
      return "describe";
  }
  return "";
}

}  // namespace

std::string ToSExpr(const graph::Term& term) {
  if (term.is_iri()) return "<" + term.value() + ">";
  if (term.is_blank()) return "_:" + term.value();
  if (Bare(term)) return term.value();
  return graph::ToNTriples(term);
}

std::string ToSExpr(const ValuesBlock& v) {
  std::string out = "(table (vars";
  for (const Var& var : v.vars) out += " ?" + var.name;
  out += ")";
  for (const auto& row : v.rows) {
    out += " (row";
    for (size_t i = 0; i < row.size(); ++i) {
      if (row[i]) out += " [?" + v.vars[i].name + " " + ToSExpr(*row[i]) + "]";
    }
    out += ")";
  }
  return out + ")";
}

std::string ToSExpr(const Expr& e) {
  using K = Expr::Kind;
  if (e.kind == K::kTerm) return ToSExpr(e.term);
  if (e.kind == K::kVar) return "?" + e.name;
  std::string out = "(";
  if (e.kind == K::kBuiltin) {
    out += Lower(e.name);
  } else if (e.kind == K::kFunction) {
    out += "<" + e.name + ">";
  } else if (e.kind == K::kAggregate) {
    out += Lower(e.name);
  } else {
    out += OperatorName(e.kind);
  }
  if (e.distinct) out += " distinct";
  if (e.kind == K::kAggregate && e.name == "COUNT" && e.args.empty()) out += " *";
  for (const Expr& a : e.args) out += " " + ToSExpr(a);
  if (e.separator) out += " (separator " + graph::ToNTriples(graph::Term::Literal(*e.separator)) + ")";
  if (e.pattern) out += " " + ToSExpr(*e.pattern);
  return out + ")";
}

std::string ToSExpr(const Path& p) {
  using K = Path::Kind;
  auto args = [&](const char* name) {
    std::string out = std::string("(") + name;
    for (const Path& a : p.args) out += " " + ToSExpr(a);
    return out + ")";
  };
  switch (p.kind) {
    case K::kIri:
      return "<" + p.iri + ">";
    case K::kInverse:
      return args("reverse");
    case K::kSequence:
      return args("seq");
    case K::kAlternative:
      return args("alt");
    case K::kZeroOrMore:
      return args("path*");
    case K::kOneOrMore:
      return args("path+");
    case K::kZeroOrOne:
      return args("path?");
    case K::kNegated:
      return args("notoneof");
  }
  return "";
}

std::string ToSExpr(const GroupPattern& group) {
  std::string out = "(group";
  for (const PatternElement& e : group.elements) out += " " + Element(e);
  return out + ")";
}

std::string ToSExpr(const Query& q) {
  std::string out = std::string("(") + FormName(q.form);
  if (!q.base.empty()) out += " (base <" + q.base + ">)";
  if (q.distinct) out += " distinct";
  if (q.reduced) out += " reduced";
  if (q.form == Query::Form::kSelect) {
    if (q.select_all) {
      out += " *";
    } else {
      out += " (vars";
      for (const Projection& p : q.projection) {
        out += p.expr ? " (as ?" + p.var.name + " " + ToSExpr(*p.expr) + ")" : " ?" + p.var.name;
      }
      out += ")";
    }
  }
  if (q.form == Query::Form::kConstruct) out += " (template " + Triples(q.construct_template) + ")";
  if (q.form == Query::Form::kDescribe) {
    out += " (describe";
    if (q.describe_all) out += " *";
    for (const VarOrTerm& d : q.describe) out += " " + Node(d);
    out += ")";
  }
  for (const std::string& g : q.from) out += " (from <" + g + ">)";
  for (const std::string& g : q.from_named) out += " (from-named <" + g + ">)";
  if (q.where) out += " (where " + ToSExpr(*q.where) + ")";
  if (!q.group_by.empty()) {
    out += " (group-by";
    for (const GroupCondition& c : q.group_by) {
      out += c.as ? " (as ?" + c.as->name + " " + ToSExpr(c.expr) + ")" : " " + ToSExpr(c.expr);
    }
    out += ")";
  }
  for (const Expr& h : q.having) out += " (having " + ToSExpr(h) + ")";
  if (!q.order_by.empty()) {
    out += " (order-by";
    for (const OrderCondition& c : q.order_by)
      out += c.descending ? " (desc " + ToSExpr(c.expr) + ")" : " " + ToSExpr(c.expr);
    out += ")";
  }
  if (q.limit) out += " (limit " + std::to_string(*q.limit) + ")";
  if (q.offset) out += " (offset " + std::to_string(*q.offset) + ")";
  if (q.values) out += " " + ToSExpr(*q.values);
  return out + ")";
}

}  // namespace webindex::sparql
