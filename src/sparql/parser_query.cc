// Query forms, prologue, dataset clauses, solution modifiers and VALUES (§19.8 rules 1-63),
// the token helpers, and ParseQuery itself.
#include <cstring>

#include "sparql/iri_resolve.h"
#include "sparql/parser_impl.h"
#include "sparql/scope.h"

namespace webindex::sparql {
namespace internal {

Parser::Parser(std::vector<Token> tokens, const ParseOptions& options)
    : tokens_(std::move(tokens)), options_(options), base_(options.base) {}

const Token& Parser::Peek(size_t ahead) const { return tokens_[std::min(at_ + ahead, tokens_.size() - 1)]; }
const Token& Parser::Take() {
  const Token& t = tokens_[at_];
  if (at_ + 1 < tokens_.size()) ++at_;
  return t;
}
bool Parser::IsPunct(const char* p, size_t ahead) const {
  const Token& t = Peek(ahead);
  return t.kind == Token::Kind::kPunct && t.text == p;
}
bool Parser::IsKeyword(const char* k, size_t ahead) const {
  const Token& t = Peek(ahead);
  return t.kind == Token::Kind::kKeyword && t.text == k;
}
bool Parser::AcceptPunct(const char* p) {
  if (!IsPunct(p)) return false;
  Take();
  return true;
}
bool Parser::AcceptKeyword(const char* k) {
  if (!IsKeyword(k)) return false;
  Take();
  return true;
}
const Token& Parser::ExpectPunct(const char* p, const std::string& why) {
  if (!IsPunct(p)) Fail(Peek(), "'" + std::string(p) + "'" + (why.empty() ? "" : " " + why));
  return Take();
}
void Parser::ExpectKeyword(const char* k, const std::string& why) {
  if (!IsKeyword(k)) Fail(Peek(), std::string(k) + (why.empty() ? "" : " " + why));
  Take();
}
void Parser::Fail(const Token& at, const std::string& expected) const {
  throw SyntaxError{At(at.position) + "expected " + expected + ", found " + Describe(at)};
}
void Parser::FailAt(Position at, const std::string& message) const { throw SyntaxError{At(at) + message}; }

DepthGuard::DepthGuard(Parser* p, const Token& at) : p_(p) {
  if (++p_->depth_ > p_->options_.max_depth) {
    p_->FailAt(at.position, "nested too deeply (more than " + std::to_string(p_->options_.max_depth) + " levels)");
  }
}

Query Parser::ParseQueryUnit() {
  Query q;
  ParsePrologue(&q);
  const Token& form = Peek();
  q.position = form.position;
  if (AcceptKeyword("SELECT")) {
    q.form = Query::Form::kSelect;
    ParseSelectClause(&q);
    ParseDatasetClauses(&q);
    ParseWhereClause(&q);
    ParseSolutionModifiers(&q);
  } else if (AcceptKeyword("CONSTRUCT")) {
    q.form = Query::Form::kConstruct;
    ParseConstruct(&q);
  } else if (AcceptKeyword("DESCRIBE")) {
    q.form = Query::Form::kDescribe;
    ParseDescribe(&q);
  } else if (AcceptKeyword("ASK")) {
    q.form = Query::Form::kAsk;
    ParseDatasetClauses(&q);
    ParseWhereClause(&q);
    ParseSolutionModifiers(&q);
  } else {
    Fail(form, "SELECT, CONSTRUCT, DESCRIBE, ASK, BASE or PREFIX");
  }
  if (AcceptKeyword("VALUES")) q.values = ParseDataBlock();
  if (Peek().kind != Token::Kind::kEnd) Fail(Peek(), "the end of the query");
  q.base = base_;
  return q;
}

void Parser::ParsePrologue(Query* q) {
  while (true) {
    if (AcceptKeyword("BASE")) {
      const Token& t = Peek();
      if (t.kind != Token::Kind::kIri) Fail(t, "an IRI in <> after BASE");
      base_ = ResolveIri(base_, Take().text);
    } else if (AcceptKeyword("PREFIX")) {
      const Token& t = Peek();
      if (t.kind != Token::Kind::kPrefixedName || !t.local.empty()) Fail(t, "a prefix name ending in ':' after PREFIX");
      const std::string prefix = Take().text;
      const Token& iri = Peek();
      if (iri.kind != Token::Kind::kIri) Fail(iri, "an IRI in <> for prefix '" + prefix + ":'");
      prefixes_[prefix] = ResolveIri(base_, Take().text);
      q->prefixes.emplace_back(prefix, prefixes_[prefix]);
    } else {
      return;
    }
  }
}

void Parser::ParseSelectClause(Query* q) {
  if (AcceptKeyword("DISTINCT")) {
    q->distinct = true;
  } else if (AcceptKeyword("REDUCED")) {
    q->reduced = true;
  }
  if (AcceptPunct("*")) {
    q->select_all = true;
    return;
  }
  while (true) {
    const Token& t = Peek();
    if (t.kind == Token::Kind::kVar) {
      q->projection.push_back({Var{Take().text}, std::nullopt, t.position});
    } else if (IsPunct("(")) {
      const Token& open = Take();
      aggregates_allowed_ = true;
      Expr e = ParseExpression();
      aggregates_allowed_ = false;
      ExpectKeyword("AS", "after the expression of the SELECT item opened at " + LineColumn(open.position));
      const Token& v = Peek();
      if (v.kind != Token::Kind::kVar) Fail(v, "a variable after AS");
      q->projection.push_back({Var{Take().text}, std::move(e), open.position});
      ExpectPunct(")", "to close the SELECT item");
    } else {
      break;
    }
  }
  if (q->projection.empty()) Fail(Peek(), "'*', a variable or '(' expression AS ?var ')' after SELECT");
}

void Parser::ParseConstruct(Query* q) {
  if (IsPunct("{")) {
    const Token& open = Take();
    while (!IsPunct("}")) {
      if (!StartsTriples())
        Fail(Peek(), "a triple or '}' to close the CONSTRUCT template opened at " + LineColumn(open.position));
      ParseTriplesSameSubject(false, &q->construct_template);
      if (!AcceptPunct(".")) break;
    }
    ExpectPunct("}", "to close the CONSTRUCT template opened at " + LineColumn(open.position));
    ParseDatasetClauses(q);
    ParseWhereClause(q);
    ParseSolutionModifiers(q);
    return;
  }
  // CONSTRUCT DatasetClause* WHERE { TriplesTemplate? } SolutionModifier
  ParseDatasetClauses(q);
  ExpectKeyword("WHERE", "or '{' after CONSTRUCT");
  const Token& open = ExpectPunct("{", "after CONSTRUCT ... WHERE");
  std::vector<TriplePattern> triples;
  while (!IsPunct("}")) {
    if (!StartsTriples()) Fail(Peek(), "a triple or '}' (CONSTRUCT WHERE takes triples only)");
    ParseTriplesSameSubject(false, &triples);
    if (!AcceptPunct(".")) break;
  }
  ExpectPunct("}", "to close the CONSTRUCT WHERE pattern");
  q->construct_where = true;
  GroupPattern where;
  where.position = open.position;
  PatternElement bgp;
  bgp.position = open.position;
  bgp.triples = triples;
  where.elements.push_back(std::move(bgp));
  q->where = std::move(where);
  q->construct_template = std::move(triples);
  ParseSolutionModifiers(q);
}

void Parser::ParseDescribe(Query* q) {
  if (AcceptPunct("*")) {
    q->describe_all = true;
  } else {
    while (Peek().kind == Token::Kind::kVar || Peek().kind == Token::Kind::kIri ||
           Peek().kind == Token::Kind::kPrefixedName) {
      q->describe.push_back(ParseVarOrIri("after DESCRIBE"));
    }
    if (q->describe.empty()) Fail(Peek(), "'*', a variable or an IRI after DESCRIBE");
  }
  ParseDatasetClauses(q);
  if (IsKeyword("WHERE") || IsPunct("{")) ParseWhereClause(q);
  ParseSolutionModifiers(q);
}

void Parser::ParseDatasetClauses(Query* q) {
  while (AcceptKeyword("FROM")) {
    const bool named = AcceptKeyword("NAMED");
    std::string iri = ParseIri(named ? "after FROM NAMED" : "or NAMED after FROM");
    (named ? q->from_named : q->from).push_back(std::move(iri));
  }
}

void Parser::ParseWhereClause(Query* q) {
  const bool keyword = AcceptKeyword("WHERE");
  if (!IsPunct("{")) Fail(Peek(), keyword ? "'{' after WHERE" : "WHERE or '{' to start the query pattern");
  q->where = ParseGroupGraphPattern("group pattern");
}

void Parser::ParseSolutionModifiers(Query* q) {
  if (AcceptKeyword("GROUP")) {
    ExpectKeyword("BY", "after GROUP");
    while (true) {
      const Token& t = Peek();
      GroupCondition c;
      if (t.kind == Token::Kind::kVar) {
        Take();
        c.expr.kind = Expr::Kind::kVar;
        c.expr.name = t.text;
        c.expr.position = t.position;
      } else if (IsPunct("(")) {
        Take();
        c.expr = ParseExpression();
        if (AcceptKeyword("AS")) {
          if (Peek().kind != Token::Kind::kVar) Fail(Peek(), "a variable after AS");
          c.as = Var{Take().text};
        }
        ExpectPunct(")", "to close the GROUP BY expression");
      } else if (StartsBuiltin() || t.kind == Token::Kind::kIri || t.kind == Token::Kind::kPrefixedName) {
        c.expr = t.kind == Token::Kind::kKeyword ? ParseBuiltinCall() : ParseIriOrFunction(true);
      } else {
        if (!q->group_by.empty()) break;
        Fail(t, "a variable, '(' expression ')' or a function call after GROUP BY");
      }
      q->group_by.push_back(std::move(c));
    }
  }
  if (AcceptKeyword("HAVING")) {
    aggregates_allowed_ = true;
    do {
      q->having.push_back(ParseConstraint());
    } while (IsPunct("(") || StartsBuiltin() || Peek().kind == Token::Kind::kIri ||
             Peek().kind == Token::Kind::kPrefixedName);
    aggregates_allowed_ = false;
  }
  if (AcceptKeyword("ORDER")) {
    ExpectKeyword("BY", "after ORDER");
    aggregates_allowed_ = true;
    while (true) {
      OrderCondition c;
      const Token& t = Peek();
      if (IsKeyword("ASC") || IsKeyword("DESC")) {
        c.descending = Take().text == "DESC";
        c.expr = ParseBracketted();
      } else if (t.kind == Token::Kind::kVar) {
        c.expr = ParsePrimary();
      } else if (IsPunct("(") || StartsBuiltin() || t.kind == Token::Kind::kIri ||
                 t.kind == Token::Kind::kPrefixedName) {
        c.expr = ParseConstraint();
      } else {
        if (!q->order_by.empty()) break;
        Fail(t, "a variable, ASC(...), DESC(...) or '(' expression ')' after ORDER BY");
      }
      q->order_by.push_back(std::move(c));
    }
    aggregates_allowed_ = false;
  }
  auto count = [&](const char* what) -> uint64_t {
    const Token& t = Peek();
    if (t.kind != Token::Kind::kInteger) Fail(t, std::string("a non-negative integer after ") + what);
    Take();
    try {
      return std::stoull(t.text);
    } catch (const std::exception&) {
      FailAt(t.position, std::string(what) + " is too large");
    }
  };
  for (int i = 0; i < 2; ++i) {
    if (!q->limit && AcceptKeyword("LIMIT")) q->limit = count("LIMIT");
    if (!q->offset && AcceptKeyword("OFFSET")) q->offset = count("OFFSET");
  }
}

std::unique_ptr<Query> Parser::ParseSubSelect() {
  auto q = std::make_unique<Query>();
  const bool saved = aggregates_allowed_;
  aggregates_allowed_ = false;
  q->position = Peek().position;
  ExpectKeyword("SELECT", "");
  ParseSelectClause(q.get());
  ParseWhereClause(q.get());
  ParseSolutionModifiers(q.get());
  if (AcceptKeyword("VALUES")) q->values = ParseDataBlock();
  aggregates_allowed_ = saved;
  return q;
}

ValuesBlock Parser::ParseDataBlock() {
  ValuesBlock v;
  const Token& first = Peek();
  if (first.kind == Token::Kind::kVar) {
    v.vars.push_back(Var{Take().text});
    const Token& open = ExpectPunct("{", "after VALUES ?var");
    while (!IsPunct("}")) {
      if (Peek().kind == Token::Kind::kEnd)
        Fail(Peek(), "'}' to close the VALUES block opened at " + LineColumn(open.position));
      v.rows.push_back({ParseDataBlockValue()});
    }
    Take();
    return v;
  }
  const Token& vars_open = ExpectPunct("(", "or a variable after VALUES");
  while (Peek().kind == Token::Kind::kVar) v.vars.push_back(Var{Take().text});
  ExpectPunct(")", "or a variable in the VALUES variable list");
  ExpectPunct("{", "after the VALUES variable list");
  while (!IsPunct("}")) {
    const Token& open = ExpectPunct("(", "to start a VALUES row, or '}'");
    std::vector<std::optional<graph::Term>> row;
    while (!IsPunct(")")) {
      if (Peek().kind == Token::Kind::kEnd) Fail(Peek(), "')' to close the VALUES row");
      row.push_back(ParseDataBlockValue());
    }
    Take();
    if (row.size() != v.vars.size()) {
      FailAt(open.position, "the VALUES row has " + std::to_string(row.size()) + " values for the " +
                                std::to_string(v.vars.size()) + " variables listed at " +
                                LineColumn(vars_open.position));
    }
    v.rows.push_back(std::move(row));
  }
  Take();
  return v;
}

std::optional<graph::Term> Parser::ParseDataBlockValue() {
  const Token& t = Peek();
  if (AcceptKeyword("UNDEF")) return std::nullopt;
  if (t.kind == Token::Kind::kIri || t.kind == Token::Kind::kPrefixedName) return graph::Term::Iri(ParseIri(""));
  if (t.kind == Token::Kind::kString || t.kind == Token::Kind::kInteger || t.kind == Token::Kind::kDecimal ||
      t.kind == Token::Kind::kDouble || IsKeyword("TRUE") || IsKeyword("FALSE") || StartsSignedNumber()) {
    return ParseLiteral();
  }
  Fail(t, "an IRI, a literal or UNDEF in VALUES");
}

}  // namespace internal

Result<Query> ParseQuery(std::string_view text, const ParseOptions& options) {
  if (text.size() > options.max_length) {
    return Status::InvalidArgument("query too long: " + std::to_string(text.size()) + " bytes, the limit is " +
                                   std::to_string(options.max_length));
  }
  ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  try {
    internal::Parser parser(std::move(tokens), options);
    Query q = parser.ParseQueryUnit();
    RETURN_IF_ERROR(CheckRestrictions(q));
    return q;
  } catch (const internal::SyntaxError& e) {
    return Status::InvalidArgument(e.message);
  }
}

}  // namespace webindex::sparql
