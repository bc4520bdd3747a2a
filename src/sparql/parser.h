// The SPARQL 1.1 Query parser: query text in, syntax tree (ast.h) out, or a Status saying what
// was expected where. Includes the syntax restrictions of §18.2 the grammar cannot express
// (scope.h). Stateless function; each call is independent and thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"
#include "sparql/ast.h"

namespace webindex::sparql {

struct ParseOptions {
  //! The base IRI before any BASE (the service's or file's IRI); empty: none, relative IRIs
  //! stay relative.
  std::string base;
  //! Longer query texts are refused before lexing.
  size_t max_length = 1 << 20;
  //! Nesting of group patterns, expressions, paths, `[ ]` and `( )` beyond this is refused.
  int max_depth = 128;
};

//! InvalidArgument "line L, column C: expected X, found Y" (1-based; columns count code points)
//! for a syntax error or a broken restriction; "query too long" / "nested too deeply" for limits.
Result<Query> ParseQuery(std::string_view text, const ParseOptions& options = {});

}  // namespace webindex::sparql
