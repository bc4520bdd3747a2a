// The plan Execute would run for a query, as text: each BGP's patterns in scan order with the
// index order they scan and their estimates, where FILTERs sit, and the operators around them.
// For `webindex query sparql --explain`. One thread per call.
#pragma once

#include <string>

#include "common/status.h"
#include "sparql/ast.h"
#include "sparql/dataset.h"

namespace webindex::sparql {

Result<std::string> ExplainPlan(const Query& query, Dataset& dataset);

}  // namespace webindex::sparql
