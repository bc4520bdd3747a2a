// Group graph patterns, triples with their abbreviations, and property paths (§19.8 rules
// 53-109). Abbreviations are expanded here: `;` `,` repeat the subject / verb, `[ ]` and
// collections become fresh blank nodes with their triples (rdf:first / rdf:rest / rdf:nil).
#include "sparql/parser_impl.h"

namespace webindex::sparql::internal {
namespace {

constexpr const char* kRdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";

graph::Term RdfIri(const char* local) { return graph::Term::Iri(std::string(kRdf) + local); }

}  // namespace

graph::Term Parser::FreshBlank() {
  // '-' cannot start a label written in a query, so these never meet the query's own.
  return graph::Term::Blank("-b" + std::to_string(++blank_counter_));
}

GroupPattern Parser::ParseGroupGraphPattern(const char* what) {
  const Token& open = Peek();
  if (!IsPunct("{")) Fail(open, std::string("'{' to start the ") + what);
  DepthGuard guard(this, open);
  Take();
  GroupPattern group;
  group.position = open.position;
  if (IsKeyword("SELECT")) {
    PatternElement e;
    e.kind = PatternElement::Kind::kSubSelect;
    e.position = Peek().position;
    e.subquery = ParseSubSelect();
    group.elements.push_back(std::move(e));
    if (!IsPunct("}")) Fail(Peek(), "'}' to close the subquery's group pattern opened at " + LineColumn(open.position));
  } else {
    ParseGroupElements(&group, open, what);
  }
  Take();
  return group;
}

void Parser::ParseGroupElements(GroupPattern* group, const Token& open, const char* what) {
  const std::string closing = "'}' to close the " + std::string(what) + " opened at " + LineColumn(open.position);
  bool triples_allowed = true;  // false right after a triples block not ended by '.'
  bool dot_allowed = false;     // after a GraphPatternNotTriples
  while (!IsPunct("}")) {
    const Token& t = Peek();
    if (StartsTriples()) {
      if (!triples_allowed) Fail(t, "'.' or " + closing);
      if (group->elements.empty() || group->elements.back().kind != PatternElement::Kind::kTriples || dot_allowed) {
        PatternElement e;
        e.position = t.position;
        group->elements.push_back(std::move(e));
      }
      ParseTriplesSameSubject(true, &group->elements.back().triples);
      triples_allowed = AcceptPunct(".");
      dot_allowed = false;
      continue;
    }
    if (IsPunct(".") && dot_allowed) {
      Take();
      dot_allowed = false;
      continue;
    }
    PatternElement e;
    e.position = t.position;
    if (IsPunct("{")) {
      e.kind = PatternElement::Kind::kGroup;
      e.groups.push_back(ParseGroupGraphPattern("group pattern"));
      while (AcceptKeyword("UNION")) {
        e.kind = PatternElement::Kind::kUnion;
        e.groups.push_back(ParseGroupGraphPattern("group pattern after UNION"));
      }
    } else if (AcceptKeyword("OPTIONAL")) {
      e.kind = PatternElement::Kind::kOptional;
      e.groups.push_back(ParseGroupGraphPattern("group pattern after OPTIONAL"));
    } else if (AcceptKeyword("MINUS")) {
      e.kind = PatternElement::Kind::kMinus;
      e.groups.push_back(ParseGroupGraphPattern("group pattern after MINUS"));
    } else if (AcceptKeyword("GRAPH")) {
      e.kind = PatternElement::Kind::kGraph;
      e.name = ParseVarOrIri("after GRAPH");
      e.groups.push_back(ParseGroupGraphPattern("group pattern after GRAPH"));
    } else if (AcceptKeyword("SERVICE")) {
      e.kind = PatternElement::Kind::kService;
      e.silent = AcceptKeyword("SILENT");
      e.name = ParseVarOrIri("after SERVICE");
      e.groups.push_back(ParseGroupGraphPattern("group pattern after SERVICE"));
    } else if (AcceptKeyword("FILTER")) {
      e.kind = PatternElement::Kind::kFilter;
      e.expr = ParseConstraint();
    } else if (AcceptKeyword("BIND")) {
      e.kind = PatternElement::Kind::kBind;
      const Token& bind_open = ExpectPunct("(", "after BIND");
      e.expr = ParseExpression();
      ExpectKeyword("AS", "after the expression of BIND");
      if (Peek().kind != Token::Kind::kVar) Fail(Peek(), "a variable after AS");
      e.var = Var{Take().text};
      ExpectPunct(")", "to close BIND( opened at " + LineColumn(bind_open.position));
    } else if (AcceptKeyword("VALUES")) {
      e.kind = PatternElement::Kind::kValues;
      e.values = ParseDataBlock();
    } else {
      Fail(t, triples_allowed ? "a triple pattern, a graph pattern or " + closing : "'.' or " + closing);
    }
    group->elements.push_back(std::move(e));
    triples_allowed = true;
    dot_allowed = true;
  }
}

bool Parser::StartsTriples(size_t ahead) const {
  const Token& t = Peek(ahead);
  switch (t.kind) {
    case Token::Kind::kVar:
    case Token::Kind::kIri:
    case Token::Kind::kPrefixedName:
    case Token::Kind::kBlank:
    case Token::Kind::kString:
    case Token::Kind::kInteger:
    case Token::Kind::kDecimal:
    case Token::Kind::kDouble:
      return true;
    case Token::Kind::kKeyword:
      return t.text == "TRUE" || t.text == "FALSE";
    case Token::Kind::kPunct:
      return t.text == "(" || t.text == "[" || ((t.text == "+" || t.text == "-") && StartsSignedNumber());
    default:
      return false;
  }
}

bool Parser::StartsVerb(bool paths) const {
  const Token& t = Peek();
  if (t.kind == Token::Kind::kVar || t.kind == Token::Kind::kIri || t.kind == Token::Kind::kPrefixedName) return true;
  if (t.kind == Token::Kind::kKeyword && t.raw == "a") return true;
  return paths && (IsPunct("^") || IsPunct("!") || IsPunct("("));
}

void Parser::ParseTriplesSameSubject(bool paths, std::vector<TriplePattern>* out) {
  const bool node = IsPunct("[") || (IsPunct("(") && !IsPunct(")", 1));
  const bool anon = IsPunct("[") && IsPunct("]", 1);
  if (node && !anon) {
    // TriplesNode PropertyList: the property list may be empty.
    const VarOrTerm subject = ParseGraphNode(paths, out);
    if (StartsVerb(paths)) ParsePropertyList(subject, paths, out);
    return;
  }
  const VarOrTerm subject = ParseVarOrTerm();
  if (!StartsVerb(paths)) Fail(Peek(), "a predicate after the subject");
  ParsePropertyList(subject, paths, out);
}

void Parser::ParsePropertyList(const VarOrTerm& subject, bool paths, std::vector<TriplePattern>* out) {
  while (true) {
    TriplePattern verb;
    const Token& t = Peek();
    if (t.kind == Token::Kind::kVar) {
      verb.predicate = Var{Take().text};
    } else if (!paths) {
      if (t.kind == Token::Kind::kKeyword && t.raw == "a") {
        Take();
        verb.predicate = RdfIri("type");
      } else {
        verb.predicate = graph::Term::Iri(ParseIri("as the predicate"));
      }
    } else {
      DepthGuard guard(this, t);
      Path path = ParsePath();
      if (path.kind == Path::Kind::kIri) {
        verb.predicate = graph::Term::Iri(std::move(path.iri));
      } else {
        verb.path = std::move(path);
      }
    }
    ParseObjectList(subject, verb, paths, out);
    if (!IsPunct(";")) return;
    while (AcceptPunct(";")) {
    }
    if (!StartsVerb(paths)) return;
  }
}

void Parser::ParseObjectList(const VarOrTerm& subject, const TriplePattern& verb, bool paths,
                             std::vector<TriplePattern>* out) {
  do {
    if (!StartsTriples()) Fail(Peek(), "an object");
    TriplePattern t;
    t.subject = subject;
    t.predicate = verb.predicate;
    t.path = verb.path;
    const size_t slot = out->size();
    out->push_back(TriplePattern{});
    t.object = ParseGraphNode(paths, out);
    (*out)[slot] = std::move(t);
  } while (AcceptPunct(","));
}

VarOrTerm Parser::ParseGraphNode(bool paths, std::vector<TriplePattern>* out) {
  if (IsPunct("[") && !IsPunct("]", 1)) return ParseBlankNodePropertyList(paths, out);
  if (IsPunct("(") && !IsPunct(")", 1)) return ParseCollection(paths, out);
  return ParseVarOrTerm();
}

VarOrTerm Parser::ParseCollection(bool paths, std::vector<TriplePattern>* out) {
  const Token& open = Peek();
  DepthGuard guard(this, open);
  Take();
  const graph::Term head = FreshBlank();
  graph::Term node = head;
  bool first = true;
  while (!IsPunct(")")) {
    if (!StartsTriples()) Fail(Peek(), "a term or ')' to close the collection opened at " + LineColumn(open.position));
    if (!first) {
      const graph::Term next = FreshBlank();
      out->push_back({node, RdfIri("rest"), next, std::nullopt});
      node = next;
    }
    first = false;
    const size_t slot = out->size();
    out->push_back(TriplePattern{});
    VarOrTerm item = ParseGraphNode(paths, out);
    (*out)[slot] = {node, RdfIri("first"), std::move(item), std::nullopt};
  }
  Take();
  out->push_back({node, RdfIri("rest"), RdfIri("nil"), std::nullopt});
  return head;
}

VarOrTerm Parser::ParseBlankNodePropertyList(bool paths, std::vector<TriplePattern>* out) {
  const Token& open = Peek();
  DepthGuard guard(this, open);
  Take();
  const graph::Term node = FreshBlank();
  if (!StartsVerb(paths)) Fail(Peek(), "a predicate in the '[' opened at " + LineColumn(open.position));
  ParsePropertyList(node, paths, out);
  ExpectPunct("]", "to close the '[' opened at " + LineColumn(open.position));
  return node;
}

VarOrTerm Parser::ParseVarOrTerm() {
  const Token& t = Peek();
  switch (t.kind) {
    case Token::Kind::kVar:
      return Var{Take().text};
    case Token::Kind::kIri:
    case Token::Kind::kPrefixedName:
      return graph::Term::Iri(ParseIri(""));
    case Token::Kind::kBlank:
      return graph::Term::Blank(Take().text);
    default:
      break;
  }
  if (IsPunct("(") && IsPunct(")", 1)) {
    Take();
    Take();
    return RdfIri("nil");
  }
  if (IsPunct("[") && IsPunct("]", 1)) {
    Take();
    Take();
    return FreshBlank();
  }
  if (t.kind == Token::Kind::kString || t.kind == Token::Kind::kInteger || t.kind == Token::Kind::kDecimal ||
      t.kind == Token::Kind::kDouble || IsKeyword("TRUE") || IsKeyword("FALSE") || StartsSignedNumber()) {
    return ParseLiteral();
  }
  Fail(t, "a variable, an IRI, a blank node or a literal");
}

VarOrTerm Parser::ParseVarOrIri(const std::string& why) {
  if (Peek().kind == Token::Kind::kVar) return Var{Take().text};
  const Token& t = Peek();
  if (t.kind != Token::Kind::kIri && t.kind != Token::Kind::kPrefixedName) Fail(t, "a variable or an IRI " + why);
  return graph::Term::Iri(ParseIri(why));
}

// ---- property paths ----

Path Parser::ParsePath() {
  Path first = ParsePathSequence();
  if (!IsPunct("|")) return first;
  Path alt;
  alt.kind = Path::Kind::kAlternative;
  alt.args.push_back(std::move(first));
  while (AcceptPunct("|")) alt.args.push_back(ParsePathSequence());
  return alt;
}

Path Parser::ParsePathSequence() {
  Path first = ParsePathElt();
  if (!IsPunct("/")) return first;
  Path seq;
  seq.kind = Path::Kind::kSequence;
  seq.args.push_back(std::move(first));
  while (AcceptPunct("/")) seq.args.push_back(ParsePathElt());
  return seq;
}

Path Parser::ParsePathElt() {
  const bool inverse = AcceptPunct("^");
  Path p = ParsePathPrimary();
  Path::Kind mod = Path::Kind::kIri;
  if (IsPunct("*")) mod = Path::Kind::kZeroOrMore;
  if (IsPunct("+") && !StartsSignedNumber()) mod = Path::Kind::kOneOrMore;  // "+1" is a literal
  if (IsPunct("?")) mod = Path::Kind::kZeroOrOne;
  if (mod != Path::Kind::kIri) {
    Take();
    Path m;
    m.kind = mod;
    m.args.push_back(std::move(p));
    p = std::move(m);
  }
  if (!inverse) return p;
  Path inv;
  inv.kind = Path::Kind::kInverse;
  inv.args.push_back(std::move(p));
  return inv;
}

Path Parser::ParsePathPrimary() {
  const Token& t = Peek();
  if (t.kind == Token::Kind::kKeyword && t.raw == "a") {
    Take();
    return Path{Path::Kind::kIri, RdfIri("type").value(), {}};
  }
  if (t.kind == Token::Kind::kIri || t.kind == Token::Kind::kPrefixedName) {
    return Path{Path::Kind::kIri, ParseIri(""), {}};
  }
  if (AcceptPunct("!")) {
    Path neg;
    neg.kind = Path::Kind::kNegated;
    if (IsPunct("(")) {
      const Token& open = Take();
      if (!IsPunct(")")) {
        neg.args.push_back(ParsePathOneInSet());
        while (AcceptPunct("|")) neg.args.push_back(ParsePathOneInSet());
      }
      ExpectPunct(")", "to close the negated property set opened at " + LineColumn(open.position));
    } else {
      neg.args.push_back(ParsePathOneInSet());
    }
    return neg;
  }
  if (IsPunct("(")) {
    const Token& open = Take();
    DepthGuard guard(this, open);
    Path p = ParsePath();
    ExpectPunct(")", "to close the path group opened at " + LineColumn(open.position));
    return p;
  }
  Fail(t, "an IRI, 'a', '^', '!' or '(' in a property path");
}

Path Parser::ParsePathOneInSet() {
  const bool inverse = AcceptPunct("^");
  const Token& t = Peek();
  Path p;
  if (t.kind == Token::Kind::kKeyword && t.raw == "a") {
    Take();
    p.iri = RdfIri("type").value();
  } else if (t.kind == Token::Kind::kIri || t.kind == Token::Kind::kPrefixedName) {
    p.iri = ParseIri("");
  } else {
    Fail(t, "an IRI or 'a' in the negated property set");
  }
  if (!inverse) return p;
  Path inv;
  inv.kind = Path::Kind::kInverse;
  inv.args.push_back(std::move(p));
  return inv;
}

}  // namespace webindex::sparql::internal
