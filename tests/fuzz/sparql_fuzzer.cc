// libFuzzer target: the SPARQL parser. Invariants: it returns (no crash, no stack exhaustion:
// the nesting limit holds), a refusal names a position (or the length limit), and an accepted
// query prints as an S-expression and translates into the algebra.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sparql/algebra.h"
#include "sparql/parser.h"
#include "sparql/sexpr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto q = webindex::sparql::ParseQuery(input);
  if (q.ok()) {
    if (webindex::sparql::ToSExpr(*q).empty()) __builtin_trap();
    if (webindex::sparql::ToSExpr(webindex::sparql::TranslateQuery(*q)).empty()) __builtin_trap();
  } else if (!q.status().message().starts_with("line ") && !q.status().message().starts_with("query too long")) {
    __builtin_trap();
  }
  return 0;
}
