// The SPARQL algebra of a parsed query (§18.2): group patterns into BGP, Join, LeftJoin,
// Filter, Union, Minus, Graph, Extend and tables; then Group / Aggregation, Having, select
// expressions, OrderBy, Project, Distinct / Reduced and Slice. Property-path triples stay one
// `path` operator each; EXISTS keeps its group pattern (Expr::pattern), translated with
// TranslatePattern when evaluated. Plain values; no thread affinity.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sparql/ast.h"

namespace webindex::sparql {

struct Op {
  enum class Kind {
    kBgp,       //!< triples (none: the empty pattern Z)
    kPath,      //!< triples[0], its path set
    kJoin,      //!< args[0], args[1]
    kLeftJoin,  //!< args[0], args[1], exprs: the OPTIONAL's filters (none: true)
    kFilter,    //!< exprs (all must hold) over args[0]
    kUnion,     //!< args[0], args[1]
    kMinus,     //!< args[0], args[1]
    kGraph,     //!< name, args[0]
    kService,   //!< silent, name, args[0]
    kExtend,    //!< args[0] with vars[0] := exprs[0]
    kTable,     //!< table
    kGroup,     //!< args[0] grouped by exprs (none: one group), vars[i] the AS name of exprs[i] or
                //!< empty; aggregates computed per group
    kOrderBy,   //!< order over args[0]
    kProject,   //!< vars of args[0]
    kDistinct,  //!< args[0]
    kReduced,   //!< args[0]
    kSlice,     //!< offset, limit over args[0]
  };
  Kind kind = Kind::kBgp;
  std::vector<Op> args;
  std::vector<TriplePattern> triples;
  std::vector<Expr> exprs;
  std::vector<Var> vars;
  VarOrTerm name;
  bool silent = false;
  ValuesBlock table;
  //! kGroup: each aggregate of the query, bound to a variable `.0`, `.1`, ... (names no query
  //! can write); the expressions above refer to these variables instead of the aggregates.
  std::vector<std::pair<Var, Expr>> aggregates;
  std::vector<OrderCondition> order;
  std::optional<uint64_t> offset, limit;
};

//! A group graph pattern (§18.2.2.6).
Op TranslatePattern(const GroupPattern& group);

//! The whole query (§18.2.4, 18.2.5): its pattern, grouping, aggregates, HAVING, the trailing
//! VALUES, select expressions, ORDER BY, projection (the in-scope variables for `*`), DISTINCT / REDUCED,
//! OFFSET / LIMIT. CONSTRUCT, ASK and DESCRIBE stop before the projection.
Op TranslateQuery(const Query& query);

//! `(join (bgp (triple ?s <p> ?o)) (table ...))`, in the manner of the W3C algebra examples.
std::string ToSExpr(const Op& op);

}  // namespace webindex::sparql
