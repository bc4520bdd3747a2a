// The XSD numeric tower of SPARQL (§17.3): exact integers and decimals, floats and doubles,
// promotion, arithmetic, canonical forms, ABS / ROUND / CEIL / FLOOR and the casts of §17.5.
#include <charconv>
#include <cmath>
#include <cstring>

#include "sparql/expr_internal.h"

namespace webindex::sparql::expr {
namespace {

constexpr int kMaxScale = 24;  //!< digits kept after the point by decimal division
constexpr std::string_view kIntegerTypes[] = {
    "integer",  "nonPositiveInteger", "negativeInteger", "long",          "int",
    "short",    "byte",               "nonNegativeInteger", "unsignedLong", "unsignedInt",
    "unsignedShort", "unsignedByte",  "positiveInteger"};

bool IsIntegerLocal(std::string_view local) {
  for (std::string_view t : kIntegerTypes) {
    if (local == t) return true;
  }
  return false;
}

//! The value space of the derived integer types (xsd:byte holds -128..127 ...).
bool InRange(std::string_view local, __int128 v) {
  struct Range {
    std::string_view type;
    __int128 lo, hi;
  };
  constexpr __int128 kNone = static_cast<__int128>(1) << 120;
  static constexpr Range kRanges[] = {
      {"long", INT64_MIN, INT64_MAX},      {"int", INT32_MIN, INT32_MAX},
      {"short", INT16_MIN, INT16_MAX},     {"byte", INT8_MIN, INT8_MAX},
      {"unsignedLong", 0, UINT64_MAX},     {"unsignedInt", 0, UINT32_MAX},
      {"unsignedShort", 0, UINT16_MAX},    {"unsignedByte", 0, UINT8_MAX},
      {"nonNegativeInteger", 0, kNone},    {"positiveInteger", 1, kNone},
      {"nonPositiveInteger", -kNone, 0},   {"negativeInteger", -kNone, -1}};
  for (const Range& r : kRanges) {
    if (r.type == local) return v >= r.lo && v <= r.hi;
  }
  return true;
}

bool MulOverflow(__int128 a, __int128 b, __int128* out) { return __builtin_mul_overflow(a, b, out); }

bool Pow10(int n, __int128* out) {
  __int128 r = 1;
  for (int i = 0; i < n; ++i) {
    if (MulOverflow(r, 10, &r)) return false;
  }
  *out = r;
  return true;
}

//! [+-]?digits(.digits)? with at least one digit; `allow_point` false for integers.
bool ParseExact(std::string_view s, bool allow_point, Number* n) {
  // Fast path: a short integer fits an int64_t without overflow checks.
  if (!s.empty() && s.size() <= 18) {
    const bool negative = s[0] == '-';
    size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
    if (i < s.size()) {
      int64_t v = 0;
      for (; i < s.size(); ++i) {
        const unsigned digit = static_cast<unsigned char>(s[i]) - '0';
        if (digit > 9) break;
        v = v * 10 + digit;
      }
      if (i == s.size()) {
        n->mant = negative ? -v : v;
        n->scale = 0;
        return true;
      }
    }
  }
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  __int128 mant = 0;
  int scale = 0, digits = 0;
  bool point = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.' && allow_point && !point) {
      point = true;
      continue;
    }
    if (c < '0' || c > '9') return false;
    if (MulOverflow(mant, 10, &mant) || __builtin_add_overflow(mant, c - '0', &mant)) return false;
    ++digits;
    if (point) ++scale;
  }
  if (digits == 0) return false;
  n->mant = negative ? -mant : mant;
  n->scale = scale;
  return true;
}

bool ParseFloating(std::string_view s, double* d) {
  if (s == "INF" || s == "+INF") return *d = HUGE_VAL, true;
  if (s == "-INF") return *d = -HUGE_VAL, true;
  if (s == "NaN") return *d = std::nan(""), true;
  if (s.empty()) return false;
  // XSD: [+-]? (digits (. digits?)? | . digits) ([eE] [+-]? digits)?
  size_t i = s[0] == '+' || s[0] == '-' ? 1 : 0;
  size_t mantissa_digits = 0;
  for (; i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'); ++i) {
    if (s[i] != '.') ++mantissa_digits;
  }
  if (mantissa_digits == 0) return false;
  const std::string_view body = s[0] == '+' ? s.substr(1) : s;
  auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), *d);
  if (ec == std::errc::result_out_of_range) {
    *d = body[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  return ec == std::errc() && end == body.data() + body.size();
}

std::string Int128ToString(__int128 v) {
  const bool negative = v < 0;
  unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  do {
    s.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u != 0);
  if (negative) s.push_back('-');
  return {s.rbegin(), s.rend()};
}

void Normalize(Number* n) {
  while (n->scale > 0 && n->mant % 10 == 0) {
    n->mant /= 10;
    --n->scale;
  }
}

std::string FormatDecimal(const Number& n) {
  std::string digits = Int128ToString(n.mant < 0 ? -n.mant : n.mant);
  if (static_cast<int>(digits.size()) <= n.scale) digits.insert(0, n.scale - digits.size() + 1, '0');
  std::string out = n.mant < 0 ? "-" : "";
  out += digits.substr(0, digits.size() - n.scale);
  out += '.';
  out += n.scale == 0 ? "0" : digits.substr(digits.size() - n.scale);
  return out;
}

//! XSD canonical double / float: one digit before the point, "E", the exponent: 1.0E0, 2.5E-3.
std::string FormatFloating(double d, bool is_float) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d < 0 ? "-INF" : "INF";
  char buf[64];
  auto r = is_float ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(d), std::chars_format::scientific)
                    : std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view s(buf, r.ptr - buf);
  const size_t e = s.find('e');
  std::string out(s.substr(0, e));
  if (out.find('.') == std::string::npos) out += ".0";
  int exponent = 0;
  std::string_view exp = s.substr(e + 1);
  if (!exp.empty() && exp[0] == '+') exp.remove_prefix(1);
  std::from_chars(exp.data(), exp.data() + exp.size(), exponent);
  return out + "E" + std::to_string(exponent);
}

std::optional<Number> AlignedAdd(const Number& a, const Number& b, bool subtract) {
  Number x = a, y = b;
  __int128 f;
  if (x.scale < y.scale) {
    if (!Pow10(y.scale - x.scale, &f) || MulOverflow(x.mant, f, &x.mant)) return std::nullopt;
    x.scale = y.scale;
  } else if (y.scale < x.scale) {
    if (!Pow10(x.scale - y.scale, &f) || MulOverflow(y.mant, f, &y.mant)) return std::nullopt;
    y.scale = x.scale;
  }
  Number r;
  r.type = std::max(a.type, b.type);
  r.scale = x.scale;
  if (subtract ? __builtin_sub_overflow(x.mant, y.mant, &r.mant) : __builtin_add_overflow(x.mant, y.mant, &r.mant)) {
    return std::nullopt;
  }
  Normalize(&r);
  return r;
}

std::optional<Number> ExactDivide(const Number& a, const Number& b) {
  if (b.mant == 0) return std::nullopt;
  // a/b = (a.mant * 10^k / b.mant) * 10^-(a.scale + k - b.scale)
  int k = std::max(0, kMaxScale - a.scale + b.scale);
  __int128 f, num;
  while (k > 0 && (!Pow10(k, &f) || MulOverflow(a.mant, f, &num))) --k;
  if (k == 0) num = a.mant;
  Number r;
  r.type = Number::kDecimal;
  r.mant = num / b.mant;
  r.scale = a.scale + k - b.scale;
  if (r.scale < 0) {
    if (!Pow10(-r.scale, &f) || MulOverflow(r.mant, f, &r.mant)) return std::nullopt;
    r.scale = 0;
  }
  Normalize(&r);
  return r;
}

}  // namespace

std::string Xsd(std::string_view local) { return std::string(kXsd) + std::string(local); }

std::string_view XsdLocal(const graph::Term& term) {
  std::string_view dt = term.datatype();
  if (!term.is_literal() || dt.size() <= kXsd.size() || dt.substr(0, kXsd.size()) != kXsd) return {};
  return dt.substr(kXsd.size());
}

bool IsNumericDatatype(const graph::Term& term) {
  const std::string_view local = XsdLocal(term);
  return local == "decimal" || local == "double" || local == "float" || IsIntegerLocal(local);
}

std::optional<Number> ToNumber(const graph::Term& term) {
  const std::string_view local = XsdLocal(term);
  if (local.empty()) return std::nullopt;
  Number n;
  const std::string_view v = term.value();
  if (local == "integer") return ParseExact(v, false, &n) ? std::optional(n) : std::nullopt;
  if (local == "decimal") {
    n.type = Number::kDecimal;
    if (!ParseExact(v, true, &n)) return std::nullopt;
    Normalize(&n);
    return n;
  }
  if (local == "double" || local == "float") {
    n.type = local == "double" ? Number::kDouble : Number::kFloat;
    if (!ParseFloating(v, &n.d)) return std::nullopt;
    if (n.type == Number::kFloat) n.d = static_cast<float>(n.d);
    return n;
  }
  if (!IsIntegerLocal(local) || !ParseExact(v, false, &n)) return std::nullopt;
  if (!InRange(local, n.mant)) return std::nullopt;
  return n;
}

graph::Term FromNumber(const Number& n) {
  switch (n.type) {
    case Number::kInteger:
      return graph::Term::Literal(Int128ToString(n.mant), Xsd("integer"));
    case Number::kDecimal:
      return graph::Term::Literal(FormatDecimal(n), Xsd("decimal"));
    case Number::kFloat:
      return graph::Term::Literal(FormatFloating(n.d, true), Xsd("float"));
    case Number::kDouble:
      break;
  }
  return graph::Term::Literal(FormatFloating(n.d, false), Xsd("double"));
}

double ToDouble(const Number& n) {
  if (n.type >= Number::kFloat) return n.d;
  if (n.scale == 0) return static_cast<double>(n.mant);
  const std::string s = FormatDecimal(n);
  double d = 0;
  std::from_chars(s.data(), s.data() + s.size(), d);
  return d;
}

std::optional<Number> Arith(ArithOp op, const Number& a, const Number& b) {
  const Number::Type type = std::max(a.type, b.type);
  if (type >= Number::kFloat) {
    const double x = ToDouble(a), y = ToDouble(b);
    Number r;
    r.type = type;
    switch (op) {
      case ArithOp::kAdd: r.d = x + y; break;
      case ArithOp::kSubtract: r.d = x - y; break;
      case ArithOp::kMultiply: r.d = x * y; break;
      case ArithOp::kDivide: r.d = x / y; break;
    }
    if (type == Number::kFloat) r.d = static_cast<float>(r.d);
    return r;
  }
  switch (op) {
    case ArithOp::kAdd: return AlignedAdd(a, b, false);
    case ArithOp::kSubtract: return AlignedAdd(a, b, true);
    case ArithOp::kDivide: return ExactDivide(a, b);
    case ArithOp::kMultiply: break;
  }
  Number r;
  r.type = type;
  if (MulOverflow(a.mant, b.mant, &r.mant)) return std::nullopt;
  r.scale = a.scale + b.scale;
  Normalize(&r);
  while (r.scale > kMaxScale) {
    r.mant /= 10;
    --r.scale;
  }
  return r;
}

std::partial_ordering CompareNumbers(const Number& a, const Number& b) {
  if (a.type >= Number::kFloat || b.type >= Number::kFloat) return ToDouble(a) <=> ToDouble(b);
  const std::optional<Number> diff = AlignedAdd(a, b, true);
  if (!diff) return ToDouble(a) <=> ToDouble(b);
  return diff->mant <=> static_cast<__int128>(0);
}

Number Negate(const Number& n) {
  Number r = n;
  r.mant = -n.mant;
  r.d = -n.d;
  return r;
}

std::optional<graph::Term> NumericFunction(std::string_view name, const graph::Term& arg) {
  std::optional<Number> n = ToNumber(arg);
  if (!n) return std::nullopt;
  Number r = *n;
  if (n->type >= Number::kFloat) {
    if (name == "ABS") r.d = std::fabs(n->d);
    else if (name == "CEIL") r.d = std::ceil(n->d);
    else if (name == "FLOOR") r.d = std::floor(n->d);
    else if (name == "ROUND") r.d = std::isfinite(n->d) ? std::floor(n->d + 0.5) : n->d;
    else return std::nullopt;
    if (name == "ROUND" && n->d < 0 && r.d == 0) r.d = -0.0;
  } else {
    if (name == "ABS") {
      if (r.mant < 0) r.mant = -r.mant;
    } else if (name == "CEIL" || name == "FLOOR" || name == "ROUND") {
      __int128 f = 1;
      Pow10(n->scale, &f);
      __int128 q = n->mant / f, rem = n->mant % f;
      if (name == "CEIL" && rem > 0) ++q;
      if (name == "FLOOR" && rem < 0) --q;
      if (name == "ROUND") {
        if (rem < 0 && -rem * 2 > f) --q;        // -2.6 -> -3; -2.5 -> -2
        if (rem > 0 && rem * 2 >= f) ++q;        // 2.5 -> 3
      }
      r.mant = q;
      r.scale = 0;
    } else {
      return std::nullopt;
    }
  }
  return FromNumber(r);
}

std::string NumberToString(const Number& n) {
  if (n.type == Number::kInteger) return Int128ToString(n.mant);
  if (n.type == Number::kDecimal) {
    std::string s = FormatDecimal(n);
    if (s.ends_with(".0")) s.resize(s.size() - 2);
    return s == "-0" ? "0" : s;
  }
  const double a = std::fabs(n.d);
  if (!std::isfinite(n.d) || (a != 0 && (a < 1e-6 || a >= 1e6))) return FormatFloating(n.d, n.type == Number::kFloat);
  if (a == 0) return std::signbit(n.d) ? "-0" : "0";
  char buf[64];
  auto r = n.type == Number::kFloat ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(n.d), std::chars_format::fixed)
                                    : std::to_chars(buf, buf + sizeof buf, n.d, std::chars_format::fixed);
  return std::string(buf, r.ptr);
}

std::optional<bool> ParseBoolean(std::string_view lexical) {
  if (lexical == "true" || lexical == "1") return true;
  if (lexical == "false" || lexical == "0") return false;
  return std::nullopt;
}

}  // namespace webindex::sparql::expr
