// Expressions, built-in calls, aggregates, function calls and literals (§19.8 rules 110-137).
// Numbers and booleans become typed literals (xsd:integer, decimal, double, boolean); a sign
// written right against a number is part of the literal.
#include <cstring>

#include "sparql/iri_resolve.h"
#include "sparql/parser_impl.h"

namespace webindex::sparql::internal {
namespace {

constexpr std::string_view kXsd = "http://www.w3.org/2001/XMLSchema#";

struct Builtin {
  const char* name;
  int min_args, max_args;  // max -1: any number (an ExpressionList)
};

// EXISTS, NOT EXISTS, aggregates, REGEX's and SUBSTR's optional argument are among these too.
constexpr Builtin kBuiltins[] = {
    {"STR", 1, 1},       {"LANG", 1, 1},      {"LANGMATCHES", 2, 2}, {"DATATYPE", 1, 1},  {"BOUND", 1, 1},
    {"IRI", 1, 1},       {"URI", 1, 1},       {"BNODE", 0, 1},       {"RAND", 0, 0},      {"ABS", 1, 1},
    {"CEIL", 1, 1},      {"FLOOR", 1, 1},     {"ROUND", 1, 1},       {"CONCAT", 0, -1},   {"SUBSTR", 2, 3},
    {"STRLEN", 1, 1},    {"REPLACE", 3, 4},   {"UCASE", 1, 1},       {"LCASE", 1, 1},     {"ENCODE_FOR_URI", 1, 1},
    {"CONTAINS", 2, 2},  {"STRSTARTS", 2, 2}, {"STRENDS", 2, 2},     {"STRBEFORE", 2, 2}, {"STRAFTER", 2, 2},
    {"YEAR", 1, 1},      {"MONTH", 1, 1},     {"DAY", 1, 1},         {"HOURS", 1, 1},     {"MINUTES", 1, 1},
    {"SECONDS", 1, 1},   {"TIMEZONE", 1, 1},  {"TZ", 1, 1},          {"NOW", 0, 0},       {"UUID", 0, 0},
    {"STRUUID", 0, 0},   {"MD5", 1, 1},       {"SHA1", 1, 1},        {"SHA256", 1, 1},    {"SHA384", 1, 1},
    {"SHA512", 1, 1},    {"COALESCE", 0, -1}, {"IF", 3, 3},          {"STRLANG", 2, 2},   {"STRDT", 2, 2},
    {"SAMETERM", 2, 2},  {"ISIRI", 1, 1},     {"ISURI", 1, 1},       {"ISBLANK", 1, 1},   {"ISLITERAL", 1, 1},
    {"ISNUMERIC", 1, 1}, {"REGEX", 2, 3},
};

const Builtin* FindBuiltin(const std::string& name) {
  for (const Builtin& b : kBuiltins) {
    if (name == b.name) return &b;
  }
  return nullptr;
}

bool IsAggregateName(const std::string& n) {
  return n == "COUNT" || n == "SUM" || n == "MIN" || n == "MAX" || n == "AVG" || n == "SAMPLE" || n == "GROUP_CONCAT";
}

Expr Binary(Expr::Kind kind, Expr left, Expr right, Position at) {
  Expr e;
  e.kind = kind;
  e.position = at;
  e.args.push_back(std::move(left));
  e.args.push_back(std::move(right));
  return e;
}

}  // namespace

Expr Parser::ParseExpression() {
  const Token& start = Peek();
  DepthGuard guard(this, start);
  Expr left = ParseConditionalAnd();
  while (IsPunct("||")) {
    const Position at = Take().position;
    left = Binary(Expr::Kind::kOr, std::move(left), ParseConditionalAnd(), at);
  }
  return left;
}

Expr Parser::ParseConditionalAnd() {
  Expr left = ParseRelational();
  while (IsPunct("&&")) {
    const Position at = Take().position;
    left = Binary(Expr::Kind::kAnd, std::move(left), ParseRelational(), at);
  }
  return left;
}

Expr Parser::ParseRelational() {
  Expr left = ParseAdditive();
  static constexpr std::pair<const char*, Expr::Kind> kOps[] = {
      {"=", Expr::Kind::kEqual},   {"!=", Expr::Kind::kNotEqual},  {"<", Expr::Kind::kLess},
      {">", Expr::Kind::kGreater}, {"<=", Expr::Kind::kLessEqual}, {">=", Expr::Kind::kGreaterEqual}};
  for (const auto& [op, kind] : kOps) {
    if (IsPunct(op)) {
      const Position at = Take().position;
      return Binary(kind, std::move(left), ParseAdditive(), at);
    }
  }
  const bool negated = IsKeyword("NOT") && IsKeyword("IN", 1);
  if (negated || IsKeyword("IN")) {
    Expr e;
    e.kind = negated ? Expr::Kind::kNotIn : Expr::Kind::kIn;
    e.position = Take().position;
    if (negated) Take();
    e.args.push_back(std::move(left));
    for (Expr& item : ParseExpressionList(negated ? "after NOT IN" : "after IN")) e.args.push_back(std::move(item));
    return e;
  }
  return left;
}

Expr Parser::ParseAdditive() {
  Expr left = ParseMultiplicative();
  // "?a +1" is ?a plus the literal +1 in the grammar; the same sum either way.
  while (IsPunct("+") || IsPunct("-")) {
    const Token& op = Take();
    left = Binary(op.text == "+" ? Expr::Kind::kAdd : Expr::Kind::kSubtract, std::move(left), ParseMultiplicative(),
                  op.position);
  }
  return left;
}

Expr Parser::ParseMultiplicative() {
  Expr left = ParseUnary();
  while (IsPunct("*") || IsPunct("/")) {
    const Token& op = Take();
    left = Binary(op.text == "*" ? Expr::Kind::kMultiply : Expr::Kind::kDivide, std::move(left), ParseUnary(),
                  op.position);
  }
  return left;
}

Expr Parser::ParseUnary() {
  const Token& t = Peek();
  if (IsPunct("!") || ((IsPunct("+") || IsPunct("-")) && !StartsSignedNumber())) {
    Take();
    DepthGuard guard(this, t);
    Expr e;
    e.kind = t.text == "!" ? Expr::Kind::kNot : t.text == "+" ? Expr::Kind::kPlus : Expr::Kind::kNegate;
    e.position = t.position;
    e.args.push_back(ParseUnary());
    return e;
  }
  return ParsePrimary();
}

Expr Parser::ParsePrimary() {
  const Token& t = Peek();
  Expr e;
  e.position = t.position;
  if (IsPunct("(")) return ParseBracketted();
  if (t.kind == Token::Kind::kVar) {
    e.kind = Expr::Kind::kVar;
    e.name = Take().text;
    return e;
  }
  if (t.kind == Token::Kind::kIri || t.kind == Token::Kind::kPrefixedName) return ParseIriOrFunction(false);
  if (t.kind == Token::Kind::kString || t.kind == Token::Kind::kInteger || t.kind == Token::Kind::kDecimal ||
      t.kind == Token::Kind::kDouble || IsKeyword("TRUE") || IsKeyword("FALSE") || StartsSignedNumber()) {
    e.term = ParseLiteral();
    return e;
  }
  if (StartsBuiltin()) return ParseBuiltinCall();
  Fail(t, "an expression");
}

Expr Parser::ParseBracketted() {
  const Token& open = ExpectPunct("(", "");
  Expr e = ParseExpression();
  ExpectPunct(")", "to close the '(' opened at " + LineColumn(open.position));
  return e;
}

Expr Parser::ParseConstraint() {
  const Token& t = Peek();
  if (IsPunct("(")) return ParseBracketted();
  if (StartsBuiltin()) return ParseBuiltinCall();
  if (t.kind == Token::Kind::kIri || t.kind == Token::Kind::kPrefixedName) return ParseIriOrFunction(true);
  Fail(t, "'(' expression ')', a built-in call or a function call");
}

bool Parser::StartsBuiltin() const {
  const Token& t = Peek();
  if (t.kind != Token::Kind::kKeyword) return false;
  return FindBuiltin(t.text) != nullptr || IsAggregateName(t.text) || t.text == "EXISTS" ||
         (t.text == "NOT" && IsKeyword("EXISTS", 1));
}

Expr Parser::ParseBuiltinCall() {
  const Token& t = Take();
  Expr e;
  e.position = t.position;
  e.name = t.text;
  if (t.text == "EXISTS" || t.text == "NOT") {
    if (t.text == "NOT") Take();
    e.kind = t.text == "NOT" ? Expr::Kind::kNotExists : Expr::Kind::kExists;
    // The pattern is a new context: no aggregates of its own, and it may hold a subquery's.
    const bool saved_allowed = aggregates_allowed_, saved_inside = in_aggregate_;
    aggregates_allowed_ = in_aggregate_ = false;
    e.pattern = std::make_shared<const GroupPattern>(ParseGroupGraphPattern("group pattern after EXISTS"));
    aggregates_allowed_ = saved_allowed;
    in_aggregate_ = saved_inside;
    return e;
  }
  if (IsAggregateName(t.text)) {
    --at_;
    return ParseAggregate();
  }
  e.kind = Expr::Kind::kBuiltin;
  const Builtin* b = FindBuiltin(t.text);
  if (t.text == "BOUND") {
    ExpectPunct("(", "after BOUND");
    const Token& v = Peek();
    if (v.kind != Token::Kind::kVar) Fail(v, "a variable in BOUND()");
    Expr var;
    var.kind = Expr::Kind::kVar;
    var.position = v.position;
    var.name = Take().text;
    e.args.push_back(std::move(var));
    ExpectPunct(")", "to close BOUND(");
    return e;
  }
  e.args = ParseExpressionList("after " + t.text);
  const int n = static_cast<int>(e.args.size());
  if (n < b->min_args || (b->max_args >= 0 && n > b->max_args)) {
    const std::string want = b->min_args == b->max_args ? std::to_string(b->min_args)
                             : b->max_args < 0          ? "at least " + std::to_string(b->min_args)
                                               : std::to_string(b->min_args) + " to " + std::to_string(b->max_args);
    FailAt(t.position,
           t.text + " takes " + want + " argument" + (want == "1" ? "" : "s") + ", not " + std::to_string(n));
  }
  return e;
}

Expr Parser::ParseAggregate() {
  const Token& t = Take();
  if (!aggregates_allowed_) FailAt(t.position, "aggregate " + t.text + " outside SELECT, HAVING or ORDER BY");
  if (in_aggregate_) FailAt(t.position, "aggregate " + t.text + " inside another aggregate");
  Expr e;
  e.kind = Expr::Kind::kAggregate;
  e.position = t.position;
  e.name = t.text;
  const Token& open = ExpectPunct("(", "after " + t.text);
  e.distinct = AcceptKeyword("DISTINCT");
  in_aggregate_ = true;
  if (t.text == "COUNT" && AcceptPunct("*")) {
    // COUNT(*): no argument
  } else {
    e.args.push_back(ParseExpression());
  }
  in_aggregate_ = false;
  if (t.text == "GROUP_CONCAT" && AcceptPunct(";")) {
    ExpectKeyword("SEPARATOR", "after ';' in GROUP_CONCAT");
    ExpectPunct("=", "after SEPARATOR");
    if (Peek().kind != Token::Kind::kString) Fail(Peek(), "a string after SEPARATOR =");
    e.separator = Take().text;
  }
  ExpectPunct(")", "to close " + t.text + "( opened at " + LineColumn(open.position));
  return e;
}

Expr Parser::ParseIriOrFunction(bool require_call) {
  const Token& t = Peek();
  Expr e;
  e.position = t.position;
  std::string iri = ParseIri("");
  if (!IsPunct("(")) {
    if (require_call) Fail(Peek(), "'(' to call the function " + std::string(t.raw));
    e.term = graph::Term::Iri(std::move(iri));
    return e;
  }
  e.kind = Expr::Kind::kFunction;
  e.name = std::move(iri);
  if (IsPunct(")", 1)) {
    Take();
    Take();
    return e;
  }
  const Token& open = Take();
  e.distinct = AcceptKeyword("DISTINCT");
  e.args.push_back(ParseExpression());
  while (AcceptPunct(",")) e.args.push_back(ParseExpression());
  ExpectPunct(")", "or ',' in the arguments of " + std::string(t.raw) + "( opened at " + LineColumn(open.position));
  return e;
}

std::vector<Expr> Parser::ParseExpressionList(const std::string& what) {
  std::vector<Expr> out;
  const Token& open = ExpectPunct("(", what);
  if (AcceptPunct(")")) return out;
  out.push_back(ParseExpression());
  while (AcceptPunct(",")) out.push_back(ParseExpression());
  ExpectPunct(")", "or ',' to close the argument list opened at " + LineColumn(open.position));
  return out;
}

bool Parser::StartsSignedNumber() const {
  if (!IsPunct("+") && !IsPunct("-")) return false;
  const Token& n = Peek(1);
  return !n.space_before &&
         (n.kind == Token::Kind::kInteger || n.kind == Token::Kind::kDecimal || n.kind == Token::Kind::kDouble);
}

graph::Term Parser::ParseNumber(std::string_view sign) {
  const Token& t = Take();
  const char* type = t.kind == Token::Kind::kInteger   ? "integer"
                     : t.kind == Token::Kind::kDecimal ? "decimal"
                                                       : "double";
  return graph::Term::Literal(std::string(sign) + t.text, std::string(kXsd) + type);
}

graph::Term Parser::ParseLiteral() {
  const Token& t = Peek();
  if (StartsSignedNumber()) {
    const std::string sign = Take().text;
    return ParseNumber(sign);
  }
  if (t.kind == Token::Kind::kInteger || t.kind == Token::Kind::kDecimal || t.kind == Token::Kind::kDouble) {
    return ParseNumber("");
  }
  if (IsKeyword("TRUE") || IsKeyword("FALSE")) {
    return graph::Term::Literal(Take().text == "TRUE" ? "true" : "false", std::string(kXsd) + "boolean");
  }
  if (t.kind != Token::Kind::kString) Fail(t, "a literal");
  std::string lexical = Take().text;
  if (Peek().kind == Token::Kind::kLangTag) return graph::Term::LangLiteral(std::move(lexical), Take().text);
  if (AcceptPunct("^^")) return graph::Term::Literal(std::move(lexical), ParseIri("after '^^'"));
  return graph::Term::Literal(std::move(lexical));
}

std::string Parser::ParseIri(const std::string& why) {
  const Token& t = Peek();
  if (t.kind == Token::Kind::kIri) return ResolveIri(base_, Take().text);
  if (t.kind == Token::Kind::kPrefixedName) return ResolvePrefixed(Take());
  Fail(t, "an IRI" + (why.empty() ? "" : " " + why));
}

std::string Parser::ResolvePrefixed(const Token& t) const {
  const auto it = prefixes_.find(t.text);
  if (it == prefixes_.end()) FailAt(t.position, "undeclared prefix '" + t.text + ":'");
  return it->second + t.local;
}

}  // namespace webindex::sparql::internal
