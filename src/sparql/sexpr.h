// The syntax tree printed as one S-expression, in the manner of the W3C algebra examples:
// `(select (vars ?x) (where (bgp (triple ?x <p> 1))))`. For tests and `--explain`.
// Pure functions; no thread affinity.
#pragma once

#include <string>

#include "sparql/ast.h"

namespace webindex::sparql {

//! Terms: `<iri>`, `_:label`, literals as N-Triples except xsd:integer, decimal, double and
//! boolean, printed bare (`1`, `1.5`, `1e0`, `true`) when their form is the shorthand's.
std::string ToSExpr(const graph::Term& term);
std::string ToSExpr(const Expr& expr);
std::string ToSExpr(const Path& path);
//! `(table (vars ?a ?b) (row [?a 1]) ...)`, UNDEF left out of its row.
std::string ToSExpr(const ValuesBlock& values);
std::string ToSExpr(const GroupPattern& group);
std::string ToSExpr(const Query& query);

}  // namespace webindex::sparql
