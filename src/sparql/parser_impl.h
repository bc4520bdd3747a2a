// The recursive-descent parser behind ParseQuery (parser.h), one method per production of
// §19.8, split over parser_query.cc (query forms, prologue, modifiers), parser_pattern.cc
// (group patterns, triples, paths) and parser_expr.cc (expressions). Internal to src/sparql/.
// One Parser per call. A syntax error throws SyntaxError, caught in ParseQuery: an LL(1) descent
// over ~80 productions stays readable that way, and nothing is thrown past the module.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sparql/ast.h"
#include "sparql/lexer.h"
#include "sparql/parser.h"

namespace webindex::sparql::internal {

struct SyntaxError {
  std::string message;
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, const ParseOptions& options);
  Query ParseQueryUnit();

 private:
  friend class DepthGuard;
  // ---- tokens (parser_query.cc) ----
  const Token& Peek(size_t ahead = 0) const;
  const Token& Take();
  bool IsPunct(const char* p, size_t ahead = 0) const;
  bool IsKeyword(const char* k, size_t ahead = 0) const;
  bool AcceptPunct(const char* p);
  bool AcceptKeyword(const char* k);
  const Token& ExpectPunct(const char* p, const std::string& why);
  void ExpectKeyword(const char* k, const std::string& why);
  [[noreturn]] void Fail(const Token& at, const std::string& expected) const;
  [[noreturn]] void FailAt(Position at, const std::string& message) const;

  // ---- query forms (parser_query.cc) ----
  void ParsePrologue(Query* q);
  void ParseSelectClause(Query* q);
  void ParseConstruct(Query* q);
  void ParseDescribe(Query* q);
  void ParseDatasetClauses(Query* q);
  void ParseWhereClause(Query* q);
  void ParseSolutionModifiers(Query* q);
  std::unique_ptr<Query> ParseSubSelect();
  ValuesBlock ParseDataBlock();
  std::optional<graph::Term> ParseDataBlockValue();

  // ---- patterns (parser_pattern.cc) ----
  GroupPattern ParseGroupGraphPattern(const char* what);
  void ParseGroupElements(GroupPattern* group, const Token& open, const char* what);
  bool StartsTriples(size_t ahead = 0) const;
  bool StartsVerb(bool paths) const;
  //! TriplesSameSubject(Path): appends the expanded patterns.
  void ParseTriplesSameSubject(bool paths, std::vector<TriplePattern>* out);
  void ParsePropertyList(const VarOrTerm& subject, bool paths, std::vector<TriplePattern>* out);
  void ParseObjectList(const VarOrTerm& subject, const TriplePattern& verb, bool paths,
                       std::vector<TriplePattern>* out);
  VarOrTerm ParseGraphNode(bool paths, std::vector<TriplePattern>* out);
  VarOrTerm ParseCollection(bool paths, std::vector<TriplePattern>* out);
  VarOrTerm ParseBlankNodePropertyList(bool paths, std::vector<TriplePattern>* out);
  VarOrTerm ParseVarOrTerm();
  VarOrTerm ParseVarOrIri(const std::string& why);
  Path ParsePath();
  Path ParsePathSequence();
  Path ParsePathElt();
  Path ParsePathPrimary();
  Path ParsePathOneInSet();
  graph::Term FreshBlank();

  // ---- expressions (parser_expr.cc) ----
  Expr ParseExpression();
  Expr ParseConditionalAnd();
  Expr ParseRelational();
  Expr ParseAdditive();
  Expr ParseMultiplicative();
  Expr ParseUnary();
  Expr ParsePrimary();
  Expr ParseBracketted();
  Expr ParseConstraint();
  Expr ParseBuiltinCall();
  Expr ParseAggregate();
  Expr ParseIriOrFunction(bool require_call);
  std::vector<Expr> ParseExpressionList(const std::string& what);
  bool StartsBuiltin() const;
  graph::Term ParseLiteral();
  std::string ParseIri(const std::string& why);
  std::string ResolvePrefixed(const Token& t) const;
  bool StartsSignedNumber() const;
  graph::Term ParseNumber(std::string_view sign);

  std::vector<Token> tokens_;
  size_t at_ = 0;
  ParseOptions options_;
  std::string base_;
  std::map<std::string, std::string> prefixes_;
  int depth_ = 0;
  int blank_counter_ = 0;
  bool aggregates_allowed_ = false;
  bool in_aggregate_ = false;
};

//! Counts one level of nesting for the life of a production; refuses beyond options.max_depth.
class DepthGuard {
 public:
  DepthGuard(Parser* p, const Token& at);
  ~DepthGuard() { --p_->depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  Parser* p_;
};

}  // namespace webindex::sparql::internal
