// Variable scope (§18.2.1) and the syntax restrictions of §18.2 the grammar does not express:
// BIND and SELECT ... AS must not assign a variable already in scope, a grouped query projects
// only grouped variables and aggregates (and no `*`), a blank node label belongs to one basic
// graph pattern. Pure functions over the tree; no thread affinity.
#pragma once

#include <set>
#include <string>

#include "common/status.h"
#include "sparql/ast.h"

namespace webindex::sparql {

//! Adds the variables in scope of `group` (§18.2.1): those its triples, GRAPH, BIND, VALUES,
//! nested groups, OPTIONAL, UNION and SERVICE may bind, and a subquery's projection; not
//! MINUS's or FILTER's.
void AddInScope(const GroupPattern& group, std::set<std::string>* vars);

//! The variables a query projects (SELECT *: those in scope of its pattern).
std::set<std::string> ProjectedVars(const Query& query);

//! InvalidArgument "line L, column C: ..." for the first broken restriction in the query or its
//! subqueries and EXISTS patterns.
Status CheckRestrictions(const Query& query);

}  // namespace webindex::sparql
