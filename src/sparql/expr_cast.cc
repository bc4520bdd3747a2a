// The casts of SPARQL (§17.5): the XSD constructor functions xsd:string, xsd:boolean,
// xsd:integer, xsd:decimal, xsd:float, xsd:double and xsd:dateTime, following XPath's rules.
#include <charconv>
#include <cmath>

#include "sparql/expr_internal.h"

namespace webindex::sparql::expr {
namespace {

using graph::Term;

Term Boolean(bool v) { return Term::Literal(v ? "true" : "false", Xsd("boolean")); }

std::string CastToString(const Term& arg) {
  if (XsdLocal(arg) == "boolean") {
    const std::optional<bool> b = ParseBoolean(arg.value());
    if (b) return *b ? "true" : "false";
  }
  const std::optional<Number> n = IsNumericDatatype(arg) ? ToNumber(arg) : std::nullopt;
  return n ? NumberToString(*n) : arg.value();
}

//! A number to integer (truncated) or decimal; floats and doubles must be finite.
std::optional<Term> ToExact(const Number& v, bool integer) {
  Number r = v;
  if (v.type >= Number::kFloat) {
    if (!std::isfinite(v.d)) return std::nullopt;
    char buf[400];
    auto res = std::to_chars(buf, buf + sizeof buf, integer ? std::trunc(v.d) : v.d, std::chars_format::fixed);
    if (res.ec != std::errc()) return std::nullopt;
    const std::optional<Number> parsed = ToNumber(Term::Literal(std::string(buf, res.ptr), Xsd("decimal")));
    if (!parsed) return std::nullopt;
    r = *parsed;
  }
  if (integer) {
    for (; r.scale > 0; --r.scale) r.mant /= 10;
  }
  r.type = integer ? Number::kInteger : Number::kDecimal;
  return FromNumber(r);
}

}  // namespace

std::optional<Term> Cast(std::string_view local, const Term& arg) {
  if (arg.is_blank() || !arg.language().empty()) return std::nullopt;
  if (local == "string") return Term::Literal(arg.is_iri() ? arg.value() : CastToString(arg));
  if (arg.is_iri()) return std::nullopt;
  const std::string_view from = XsdLocal(arg);
  if (from == "string") {
    // From a string: the lexical form must be one of the target's.
    if (local == "boolean") {
      const std::optional<bool> b = ParseBoolean(arg.value());
      return b ? std::optional(Boolean(*b)) : std::nullopt;
    }
    if (local == "dateTime") {
      return ParseDateTime(arg.value()) ? std::optional(Term::Literal(arg.value(), Xsd("dateTime"))) : std::nullopt;
    }
    if (local != "integer" && local != "decimal" && local != "float" && local != "double") return std::nullopt;
    const std::optional<Number> n = ToNumber(Term::Literal(arg.value(), Xsd(local)));
    return n ? std::optional(FromNumber(*n)) : std::nullopt;
  }
  if (from == "dateTime") {
    return local == "dateTime" && ParseDateTime(arg.value()) ? std::optional(arg) : std::nullopt;
  }
  Number v;
  if (from == "boolean") {
    const std::optional<bool> b = ParseBoolean(arg.value());
    if (!b) return std::nullopt;
    if (local == "boolean") return Boolean(*b);
    v.mant = *b ? 1 : 0;
  } else {
    const std::optional<Number> n = IsNumericDatatype(arg) ? ToNumber(arg) : std::nullopt;
    if (!n) return std::nullopt;
    v = *n;
    if (local == "boolean") return Boolean(v.type >= Number::kFloat ? !(v.d == 0 || std::isnan(v.d)) : v.mant != 0);
  }
  if (local == "float" || local == "double") {
    Number r;
    r.type = local == "float" ? Number::kFloat : Number::kDouble;
    r.d = ToDouble(v);
    if (r.type == Number::kFloat) r.d = static_cast<float>(r.d);
    return FromNumber(r);
  }
  if (local == "integer" || local == "decimal") return ToExact(v, local == "integer");
  return std::nullopt;
}

}  // namespace webindex::sparql::expr
