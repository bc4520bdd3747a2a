// The syntax tree of a SPARQL 1.1 query, as the parser (parser.h) builds it: the query's text
// with prefixes expanded, IRIs resolved, abbreviations (`;` `,` `[]` collections `a`) expanded
// into triple patterns, literals typed. algebra.h translates it into the algebra (§18.2).
// Plain value types (a Query and its patterns move-only, expressions copyable); no thread affinity.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "graph/term.h"

namespace webindex::sparql {

//! Where a construct starts in the query text, 1-based; column counts code points.
struct Position {
  int line = 0;
  int column = 0;
};

//! `?name` or `$name` (one variable), without the sigil.
struct Var {
  std::string name;
  bool operator==(const Var&) const = default;
};

//! A position of a triple pattern: a variable or an RDF term. Blank nodes of a pattern are
//! terms whose label is the query's (`_:b`) or a fresh one for `[]` (never a valid query label).
using VarOrTerm = std::variant<Var, graph::Term>;

struct GroupPattern;
struct Query;

//! An expression of FILTER, BIND, SELECT, GROUP BY, HAVING, ORDER BY.
struct Expr {
  //! Binary operators and IN take args[0] and args[1] (IN: args[1..] the list); kNot, kNegate
  //! and kPlus take args[0]; kExists and kNotExists take `pattern`.
  enum class Kind {
    kTerm,  //!< term
    kVar,   //!< name
    kOr,
    kAnd,
    kEqual,
    kNotEqual,
    kLess,
    kGreater,
    kLessEqual,
    kGreaterEqual,
    kIn,
    kNotIn,
    kAdd,
    kSubtract,
    kMultiply,
    kDivide,
    kNot,
    kNegate,
    kPlus,
    kBuiltin,    //!< name: the keyword upper case (STR, REGEX, BOUND, ...), args
    kFunction,   //!< name: the function IRI, args; distinct for `f(DISTINCT ...)`
    kAggregate,  //!< name: COUNT SUM MIN MAX AVG SAMPLE GROUP_CONCAT; args empty for COUNT(*)
    kExists,
    kNotExists,
  };
  Kind kind = Kind::kTerm;
  Position position;
  graph::Term term;
  std::string name;
  std::vector<Expr> args;
  bool distinct = false;
  //! GROUP_CONCAT's SEPARATOR; nullopt when not given (the default is " ").
  std::optional<std::string> separator;
  //! Shared, not owned: copies of an expression (the algebra rewrites aggregates into
  //! variables, algebra.h) keep pointing at the one EXISTS pattern of the query.
  std::shared_ptr<const GroupPattern> pattern;
};

//! A property path (§9). An IRI alone is a plain predicate, kept as a term in TriplePattern.
struct Path {
  enum class Kind {
    kIri,          //!< iri
    kInverse,      //!< ^args[0]
    kSequence,     //!< args[0] / args[1] / ...
    kAlternative,  //!< args[0] | args[1] | ...
    kZeroOrMore,   //!< args[0]*
    kOneOrMore,    //!< args[0]+
    kZeroOrOne,    //!< args[0]?
    kNegated,      //!< !(args...), each kIri or kInverse of a kIri
  };
  Kind kind = Kind::kIri;
  std::string iri;
  std::vector<Path> args;
};

//! One triple pattern; `path` set means the predicate is a path other than a single IRI
//! (and `predicate` is then unused).
struct TriplePattern {
  VarOrTerm subject, predicate, object;
  std::optional<Path> path;
};

//! VALUES: variables and rows; nullopt is UNDEF.
struct ValuesBlock {
  std::vector<Var> vars;
  std::vector<std::vector<std::optional<graph::Term>>> rows;
};

//! One element of a group graph pattern, in the order written.
struct PatternElement {
  enum class Kind {
    kTriples,    //!< triples (one TriplesBlock)
    kGroup,      //!< groups[0]: a nested `{ }`
    kOptional,   //!< groups[0]
    kMinus,      //!< groups[0]
    kUnion,      //!< groups[0] UNION groups[1] UNION ...
    kGraph,      //!< GRAPH name groups[0]
    kService,    //!< SERVICE silent name groups[0] (parsed; the evaluator refuses it)
    kFilter,     //!< expr
    kBind,       //!< BIND(expr AS var)
    kValues,     //!< values
    kSubSelect,  //!< subquery
  };
  Kind kind = Kind::kTriples;
  Position position;
  std::vector<TriplePattern> triples;
  std::vector<GroupPattern> groups;
  VarOrTerm name;
  bool silent = false;
  Expr expr;
  Var var;
  ValuesBlock values;
  std::unique_ptr<Query> subquery;
};

//! `{ ... }`: the elements in order.
struct GroupPattern {
  Position position;
  std::vector<PatternElement> elements;
};

//! One item of a SELECT list: `?v` (expr unset) or `(expr AS ?v)`.
struct Projection {
  Var var;
  std::optional<Expr> expr;
  Position position;
};

//! GROUP BY item: an expression, possibly `(expr AS ?v)`.
struct GroupCondition {
  Expr expr;
  std::optional<Var> as;
};

struct OrderCondition {
  Expr expr;
  bool descending = false;
};

//! A whole query, or a subquery (form kSelect, no prologue or dataset).
struct Query {
  enum class Form { kSelect, kConstruct, kAsk, kDescribe };
  Form form = Form::kSelect;
  Position position;                                          //!< of the form's keyword
  std::string base;                                           //!< the last BASE, resolved; empty when none
  std::vector<std::pair<std::string, std::string>> prefixes;  //!< (prefix, IRI) in order
  bool distinct = false, reduced = false;
  bool select_all = false;  //!< SELECT *
  std::vector<Projection> projection;
  std::vector<TriplePattern> construct_template;  //!< CONSTRUCT; for CONSTRUCT WHERE the pattern's triples
  bool construct_where = false;
  bool describe_all = false;  //!< DESCRIBE *
  std::vector<VarOrTerm> describe;
  std::vector<std::string> from, from_named;
  std::optional<GroupPattern> where;  //!< unset only for a DESCRIBE without WHERE
  std::vector<GroupCondition> group_by;
  std::vector<Expr> having;
  std::vector<OrderCondition> order_by;
  std::optional<uint64_t> limit, offset;
  std::optional<ValuesBlock> values;  //!< trailing VALUES
};

}  // namespace webindex::sparql
