// Pieces shared by the expression evaluator's files: the XSD numeric tower, xsd:dateTime values,
// string literal checks and the built-in functions. Internal to wi_sparql; plain functions.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

#include "graph/term.h"
#include "sparql/expr_eval.h"

namespace webindex::sparql::expr {

inline constexpr std::string_view kXsd = "http://www.w3.org/2001/XMLSchema#";
std::string Xsd(std::string_view local);
//! The datatype's local name when it is in the XSD namespace, else empty.
std::string_view XsdLocal(const graph::Term& term);

//! A value of the numeric tower. Integers and decimals are exact (mant / 10^scale); floats and
//! doubles are in `d` (a float rounded to float precision).
struct Number {
  enum Type { kInteger = 0, kDecimal = 1, kFloat = 2, kDouble = 3 };
  Type type = kInteger;
  __int128 mant = 0;
  int scale = 0;
  double d = 0;
};

//! True for xsd:integer and its derived types, decimal, float and double.
bool IsNumericDatatype(const graph::Term& term);
//! The number a literal holds; nullopt when it is not numeric or its lexical form is invalid.
std::optional<Number> ToNumber(const graph::Term& term);
graph::Term FromNumber(const Number& n);
double ToDouble(const Number& n);
enum class ArithOp { kAdd, kSubtract, kMultiply, kDivide };
//! nullopt: division of integers / decimals by zero, overflow.
std::optional<Number> Arith(ArithOp op, const Number& a, const Number& b);
//! Unordered when a NaN is involved.
std::partial_ordering CompareNumbers(const Number& a, const Number& b);
Number Negate(const Number& n);
//! ABS, ROUND, CEIL, FLOOR.
std::optional<graph::Term> NumericFunction(std::string_view name, const graph::Term& arg);
//! XPath's cast of a number to xsd:string: integral decimals without ".0", floats and doubles
//! from 1e-6 to 1e6 in decimal notation, others in the canonical "1.0E7" form.
std::string NumberToString(const Number& n);
//! xsd:boolean("true"), "1"... nullopt when invalid.
std::optional<bool> ParseBoolean(std::string_view lexical);
//! A cast to the XSD datatype `local` (string, boolean, integer, decimal, float, double,
//! dateTime) per §17.5; nullopt for an error or an unknown target.
std::optional<graph::Term> Cast(std::string_view local, const graph::Term& arg);

//! xsd:dateTime: seconds since 0001-01-01T00:00:00 in its own time, the fraction in nanoseconds,
//! the timezone offset in minutes when it has one.
struct DateTime {
  int64_t year = 0;
  int month = 0, day = 0, hour = 0, minute = 0, second = 0;
  int64_t nanos = 0;
  std::string fraction;  //!< the fraction digits as written, without the point
  std::optional<int> tz_minutes;
};
std::optional<DateTime> ParseDateTime(std::string_view lexical);
//! xsd:date as the dateTime of its midnight.
std::optional<DateTime> ParseDate(std::string_view lexical);
//! XPath's op:dateTime-less-than / equal: nullopt when indeterminate (one has a timezone and
//! the other not, and they are within 14 hours).
std::optional<std::partial_ordering> CompareDateTimes(const DateTime& a, const DateTime& b);
//! A total order for ORDER BY, consistent with CompareDateTimes where that is determinate: a
//! value without a timezone is taken as UTC.
std::strong_ordering OrderDateTimes(const DateTime& a, const DateTime& b);
//! YEAR MONTH DAY HOURS MINUTES SECONDS TIMEZONE TZ.
std::optional<graph::Term> DateTimeFunction(std::string_view name, const graph::Term& arg);
graph::Term NowTerm(std::chrono::system_clock::time_point now);

//! A simple literal or xsd:string, or a language-tagged string.
bool IsStringLiteral(const graph::Term& term);
bool IsSimpleString(const graph::Term& term);
//! Strict built-ins over strings (§17.4.3, hashes, REGEX, REPLACE); `args` evaluated already.
//! Sets `found` false when `name` is not one of them.
std::optional<graph::Term> StringFunction(std::string_view name, const graph::Term* const* args, size_t count,
                                          bool* found);

}  // namespace webindex::sparql::expr
