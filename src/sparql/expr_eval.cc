// Evaluation of SPARQL expressions (§17): the dispatch over the syntax tree, the logical and
// comparison operators with their error semantics, arithmetic, effective boolean values and the
// order of ORDER BY. Terms are passed by pointer (into the solution, the expression or a scratch
// term) so variable lookups and comparisons copy nothing.
#include "sparql/expr_eval.h"

#include <cmath>
#include <random>

#include "sparql/expr_internal.h"
#include "sparql/expr_rya.h"
#include "sparql/iri_resolve.h"

namespace webindex::sparql {
namespace {

using graph::Term;
using expr::Arith;
using expr::ArithOp;
using expr::CompareDateTimes;
using expr::CompareNumbers;
using expr::Cast;
using expr::DateTimeFunction;
using expr::NowTerm;
using expr::NumericFunction;
using expr::ParseDate;
using expr::ParseDateTime;
using expr::StringFunction;
using expr::DateTime;
using expr::FromNumber;
using expr::IsNumericDatatype;
using expr::IsSimpleString;
using expr::kXsd;
using expr::Number;
using expr::ParseBoolean;
using expr::ToNumber;
using expr::Xsd;
using expr::XsdLocal;

const Term* Eval(const Expr& e, const Solution& s, ExprContext& c, Term& scratch);

const Term* Put(std::optional<Term> value, Term& scratch) {
  if (!value) return nullptr;
  scratch = std::move(*value);
  return &scratch;
}

//! Booleans are shared constants: FILTERs create one per row and comparison.
const Term* BoolTerm(bool v) {
  static const Term kTrue = Term::Literal("true", Xsd("boolean"));
  static const Term kFalse = Term::Literal("false", Xsd("boolean"));
  return v ? &kTrue : &kFalse;
}

const Term* PutBool(bool v, Term& /*scratch*/) { return BoolTerm(v); }

std::optional<bool> EbvOf(const Term* t) {
  if (t == nullptr) return std::nullopt;
  if (t == BoolTerm(true)) return true;
  if (t == BoolTerm(false)) return false;
  return EffectiveBooleanValue(*t);
}

std::optional<bool> Ebv(const Expr& e, const Solution& s, ExprContext& c) {
  Term scratch;
  return EbvOf(Eval(e, s, c, scratch));
}

//! A literal's kind of value for comparisons; kOther for unknown datatypes and invalid forms.
enum class ValueClass { kNumeric, kString, kLangString, kBoolean, kDateTime, kDate, kOther };

struct Classified {
  ValueClass cls = ValueClass::kOther;
  std::optional<Number> number;
  bool boolean = false;
  std::optional<DateTime> time;
};

Classified Classify(const Term& t) {
  Classified c;
  if (!t.is_literal()) return c;
  if (t.datatype() == graph::kXsdString) return c.cls = ValueClass::kString, c;
  if (!t.language().empty()) return c.cls = ValueClass::kLangString, c;
  const std::string_view local = XsdLocal(t);
  if (local.empty()) return c;
  if (local == "boolean") {
    const std::optional<bool> b = ParseBoolean(t.value());
    if (b) c.cls = ValueClass::kBoolean, c.boolean = *b;
  } else if (local == "dateTime") {
    if ((c.time = ParseDateTime(t.value()))) c.cls = ValueClass::kDateTime;
  } else if (local == "date") {
    if ((c.time = ParseDate(t.value()))) c.cls = ValueClass::kDate;
  } else if ((c.number = ToNumber(t))) {
    c.cls = ValueClass::kNumeric;
  }
  return c;
}

//! `<`-style comparison of two literals of one comparable class; nullopt when not comparable.
std::optional<std::partial_ordering> CompareValues(const Term& a, const Classified& x, const Term& b,
                                                   const Classified& y) {
  if (x.cls != y.cls) return std::nullopt;
  switch (x.cls) {
    case ValueClass::kNumeric: return CompareNumbers(*x.number, *y.number);
    case ValueClass::kString: return a.value().compare(b.value()) <=> 0;
    case ValueClass::kBoolean: return x.boolean <=> y.boolean;
    case ValueClass::kDateTime:
    case ValueClass::kDate: return CompareDateTimes(*x.time, *y.time);
    case ValueClass::kLangString:
    case ValueClass::kOther: break;
  }
  return std::nullopt;
}

//! `=` (§17.4.1.7 RDFterm-equal and the operator table's typed equalities); nullopt: error.
std::optional<bool> Equal(const Term& a, const Term& b) {
  if (!a.is_literal() || !b.is_literal()) return a == b;
  const Classified x = Classify(a), y = Classify(b);
  if (x.cls == y.cls && x.cls != ValueClass::kOther && x.cls != ValueClass::kLangString) {
    const std::optional<std::partial_ordering> o = CompareValues(a, x, b, y);
    if (!o) return std::nullopt;
    return *o == std::partial_ordering::equivalent;
  }
  if (a == b) return true;
  // A language-tagged string differs from every other literal; a literal of an unknown datatype
  // (or an invalid lexical form) might have the value of another one.
  if (x.cls == ValueClass::kLangString || y.cls == ValueClass::kLangString) return false;
  if (x.cls == ValueClass::kOther || y.cls == ValueClass::kOther) return std::nullopt;
  return false;
}

//! Two xsd:integer literals, the common case of FILTERs over numbers: compared without classifying.
std::optional<std::partial_ordering> CompareIntegers(const Term& a, const Term& b) {
  static const std::string kInteger = Xsd("integer");
  if (a.datatype() != kInteger || b.datatype() != kInteger) return std::nullopt;
  const std::optional<Number> x = ToNumber(a), y = ToNumber(b);
  if (!x || !y) return std::nullopt;
  return x->mant <=> y->mant;
}

const Term* Compare(Expr::Kind kind, const Term& a, const Term& b, Term& scratch) {
  if (const std::optional<std::partial_ordering> o = CompareIntegers(a, b)) {
    switch (kind) {
      case Expr::Kind::kEqual: return PutBool(*o == 0, scratch);
      case Expr::Kind::kNotEqual: return PutBool(*o != 0, scratch);
      case Expr::Kind::kLess: return PutBool(*o < 0, scratch);
      case Expr::Kind::kGreater: return PutBool(*o > 0, scratch);
      case Expr::Kind::kLessEqual: return PutBool(*o <= 0, scratch);
      default: return PutBool(*o >= 0, scratch);
    }
  }
  if (kind == Expr::Kind::kEqual || kind == Expr::Kind::kNotEqual) {
    const std::optional<bool> eq = Equal(a, b);
    if (!eq) return nullptr;
    return PutBool(*eq == (kind == Expr::Kind::kEqual), scratch);
  }
  const std::optional<std::partial_ordering> o = CompareValues(a, Classify(a), b, Classify(b));
  if (!o) return nullptr;
  switch (kind) {
    case Expr::Kind::kLess: return PutBool(*o < 0, scratch);
    case Expr::Kind::kGreater: return PutBool(*o > 0, scratch);
    case Expr::Kind::kLessEqual: return PutBool(*o <= 0, scratch);
    default: return PutBool(*o >= 0, scratch);
  }
}

const Term* Logical(const Expr& e, const Solution& s, ExprContext& c, Term& scratch) {
  const bool is_or = e.kind == Expr::Kind::kOr;
  const std::optional<bool> left = Ebv(e.args[0], s, c);
  // true || x and false && x need not evaluate x; error || true is true, error && false false.
  if (left && *left == is_or) return PutBool(is_or, scratch);
  const std::optional<bool> right = Ebv(e.args[1], s, c);
  if (right && *right == is_or) return PutBool(is_or, scratch);
  if (!left || !right) return nullptr;
  return PutBool(!is_or, scratch);
}

const Term* In(const Expr& e, const Solution& s, ExprContext& c, Term& scratch) {
  Term left_scratch, item_scratch;
  const Term* left = Eval(e.args[0], s, c, left_scratch);
  if (left == nullptr) return nullptr;
  bool error = false;
  for (size_t i = 1; i < e.args.size(); ++i) {
    const Term* item = Eval(e.args[i], s, c, item_scratch);
    const std::optional<bool> eq = item ? Equal(*left, *item) : std::nullopt;
    if (eq && *eq) return PutBool(e.kind == Expr::Kind::kIn, scratch);
    if (!eq) error = true;
  }
  if (error) return nullptr;
  return PutBool(e.kind != Expr::Kind::kIn, scratch);
}

const Term* Arithmetic(const Expr& e, const Term& a, const Term& b, Term& scratch) {
  const std::optional<Number> x = ToNumber(a), y = ToNumber(b);
  if (!x || !y) return nullptr;
  static constexpr ArithOp kOps[] = {ArithOp::kAdd, ArithOp::kSubtract, ArithOp::kMultiply, ArithOp::kDivide};
  const std::optional<Number> r = Arith(kOps[static_cast<int>(e.kind) - static_cast<int>(Expr::Kind::kAdd)], *x, *y);
  return r ? Put(FromNumber(*r), scratch) : nullptr;
}

std::mt19937_64& Random() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

std::string Uuid() {
  const uint64_t hi = (Random()() & ~0xF000ULL) | 0x4000ULL;
  const uint64_t lo = (Random()() & ~(3ULL << 62)) | (2ULL << 62);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx", static_cast<unsigned long long>(hi >> 32),
                static_cast<unsigned long long>((hi >> 16) & 0xFFFF), static_cast<unsigned long long>(hi & 0xFFFF),
                static_cast<unsigned long long>(lo >> 48), static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

//! A fresh blank node label: a per-process random prefix keeps BNODE()'s nodes apart from the
//! data's labels, the context's counter apart from each other.
std::string FreshLabel(ExprContext& c) {
  static const std::string kPrefix = [] {
    char buf[16];
    std::snprintf(buf, sizeof buf, "g%06llx", static_cast<unsigned long long>(std::random_device{}() & 0xFFFFFF));
    return std::string(buf);
  }();
  return kPrefix + "_" + std::to_string(c.next_blank++);
}

std::optional<Term> Bnode(const Term* arg, ExprContext& c) {
  if (arg == nullptr) return Term::Blank(FreshLabel(c));
  if (!IsSimpleString(*arg)) return std::nullopt;
  for (const auto& [text, label] : c.blank_of_string) {
    if (text == arg->value()) return Term::Blank(label);
  }
  std::string label = FreshLabel(c);
  c.blank_of_string.emplace_back(arg->value(), label);
  return Term::Blank(std::move(label));
}

//! Built-ins over already evaluated arguments.
std::optional<Term> Strict(const std::string& name, const Term* const* args, size_t n, ExprContext& c) {
  const Term* a = n > 0 ? args[0] : nullptr;
  auto boolean = [](bool v) { return Term::Literal(v ? "true" : "false", Xsd("boolean")); };
  if (name == "STR") {
    if (a->is_blank()) return std::nullopt;
    return Term::Literal(a->value());
  }
  if (name == "LANG") return a->is_literal() ? std::optional(Term::Literal(a->language())) : std::nullopt;
  if (name == "DATATYPE") return a->is_literal() ? std::optional(Term::Iri(a->datatype())) : std::nullopt;
  if (name == "ISIRI" || name == "ISURI") return boolean(a->is_iri());
  if (name == "ISBLANK") return boolean(a->is_blank());
  if (name == "ISLITERAL") return boolean(a->is_literal());
  if (name == "ISNUMERIC") return boolean(IsNumericDatatype(*a) && ToNumber(*a).has_value());
  if (name == "SAMETERM") return boolean(*a == *args[1]);
  if (name == "IRI" || name == "URI") {
    if (a->is_iri()) return *a;
    if (!IsSimpleString(*a)) return std::nullopt;
    return Term::Iri(ResolveIri(c.base, a->value()));
  }
  if (name == "BNODE") return Bnode(a, c);
  if (name == "STRDT") {
    if (!IsSimpleString(*a) || !args[1]->is_iri()) return std::nullopt;
    return Term::Literal(a->value(), args[1]->value());
  }
  if (name == "STRLANG") {
    if (!IsSimpleString(*a) || !IsSimpleString(*args[1]) || args[1]->value().empty()) return std::nullopt;
    return Term::LangLiteral(a->value(), args[1]->value());
  }
  if (name == "ABS" || name == "ROUND" || name == "CEIL" || name == "FLOOR") return NumericFunction(name, *a);
  if (name == "YEAR" || name == "MONTH" || name == "DAY" || name == "HOURS" || name == "MINUTES" ||
      name == "SECONDS" || name == "TIMEZONE" || name == "TZ") {
    return DateTimeFunction(name, *a);
  }
  if (name == "RAND") {
    Number r;
    r.type = Number::kDouble;
    r.d = std::uniform_real_distribution<double>(0, 1)(Random());
    return FromNumber(r);
  }
  if (name == "NOW") return NowTerm(c.now);
  if (name == "UUID") return Term::Iri("urn:uuid:" + Uuid());
  if (name == "STRUUID") return Term::Literal(Uuid());
  bool found = false;
  return StringFunction(name, args, n, &found);
}

const Term* Builtin(const Expr& e, const Solution& s, ExprContext& c, Term& scratch) {
  const std::string& name = e.name;
  if (name == "BOUND") {
    const int slot = c.Slot(e.args[0]);
    return PutBool(slot >= 0 && slot < static_cast<int>(s.size()) && s[slot].has_value(), scratch);
  }
  if (name == "IF") {
    const std::optional<bool> cond = Ebv(e.args[0], s, c);
    if (!cond) return nullptr;
    return Eval(e.args[*cond ? 1 : 2], s, c, scratch);
  }
  if (name == "COALESCE") {
    for (const Expr& arg : e.args) {
      if (const Term* t = Eval(arg, s, c, scratch)) return t;
    }
    return nullptr;
  }
  constexpr size_t kInline = 4;
  Term inline_scratch[kInline];
  std::vector<Term> more(e.args.size() > kInline ? e.args.size() : 0);
  const Term* inline_args[kInline];
  std::vector<const Term*> more_args(more.size());
  const Term** args = more.empty() ? inline_args : more_args.data();
  for (size_t i = 0; i < e.args.size(); ++i) {
    args[i] = Eval(e.args[i], s, c, more.empty() ? inline_scratch[i] : more[i]);
    if (args[i] == nullptr) return nullptr;
  }
  return Put(Strict(name, args, e.args.size(), c), scratch);
}

const Term* Function(const Expr& e, const Solution& s, ExprContext& c, Term& scratch) {
  if (IsRyaFunction(e.name)) {
    if (e.args.size() != 2) return nullptr;
    Term a_scratch, b_scratch;
    const Term* args[2] = {Eval(e.args[0], s, c, a_scratch), Eval(e.args[1], s, c, b_scratch)};
    const auto value = CallRyaFunction(e.name, args, 2);
    if (!value) return nullptr;
    return PutBool(*value, scratch);
  }
  if (e.args.size() != 1 || !e.name.starts_with(kXsd)) return nullptr;
  Term arg_scratch;
  const Term* arg = Eval(e.args[0], s, c, arg_scratch);
  if (arg == nullptr) return nullptr;
  return Put(Cast(std::string_view(e.name).substr(kXsd.size()), *arg), scratch);
}

const Term* Eval(const Expr& e, const Solution& s, ExprContext& c, Term& scratch) {
  switch (e.kind) {
    case Expr::Kind::kTerm: return &e.term;
    case Expr::Kind::kVar: {
      const int slot = c.Slot(e);
      if (slot < 0 || slot >= static_cast<int>(s.size()) || !s[slot]) return nullptr;
      return &*s[slot];
    }
    case Expr::Kind::kOr:
    case Expr::Kind::kAnd: return Logical(e, s, c, scratch);
    case Expr::Kind::kIn:
    case Expr::Kind::kNotIn: return In(e, s, c, scratch);
    case Expr::Kind::kNot: {
      const std::optional<bool> v = Ebv(e.args[0], s, c);
      return v ? PutBool(!*v, scratch) : nullptr;
    }
    case Expr::Kind::kNegate:
    case Expr::Kind::kPlus: {
      const Term* t = Eval(e.args[0], s, c, scratch);
      const std::optional<Number> n = t ? ToNumber(*t) : std::nullopt;
      if (!n) return nullptr;
      return Put(FromNumber(e.kind == Expr::Kind::kNegate ? Negate(*n) : *n), scratch);
    }
    case Expr::Kind::kBuiltin: return Builtin(e, s, c, scratch);
    case Expr::Kind::kFunction: return Function(e, s, c, scratch);
    case Expr::Kind::kExists:
    case Expr::Kind::kNotExists: {
      if (!c.exists || !e.pattern) return nullptr;
      return PutBool(c.exists(*e.pattern, s) == (e.kind == Expr::Kind::kExists), scratch);
    }
    case Expr::Kind::kAggregate: return nullptr;
    default: break;
  }
  // The binary operators: comparisons and arithmetic.
  Term left_scratch, right_scratch;
  const Term* a = Eval(e.args[0], s, c, left_scratch);
  if (a == nullptr) return nullptr;
  const Term* b = Eval(e.args[1], s, c, right_scratch);
  if (b == nullptr) return nullptr;
  if (e.kind >= Expr::Kind::kAdd && e.kind <= Expr::Kind::kDivide) return Arithmetic(e, *a, *b, scratch);
  return Compare(e.kind, *a, *b, scratch);
}

bool IsNaN(const Number& n) { return n.type >= Number::kFloat && std::isnan(n.d); }

int LiteralClassRank(ValueClass c) { return static_cast<int>(c); }

}  // namespace

void ExprContext::NewSolution() { blank_of_string.clear(); }

int ExprContext::Slot(const Expr& var) {
  if (slot_cache_vars != vars) {
    slot_cache.clear();
    slot_cache_vars = vars;
  }
  for (const CachedSlot& cached : slot_cache) {
    if (cached.expr == &var && cached.name == var.name) return cached.slot;
  }
  const int slot = vars ? vars->Find(var.name) : -1;
  if (slot_cache.size() >= 64) slot_cache.erase(slot_cache.begin());
  slot_cache.push_back({&var, var.name, slot});
  return slot;
}

std::optional<Term> Evaluate(const Expr& expr, const Solution& solution, ExprContext& context) {
  Term scratch;
  const Term* t = Eval(expr, solution, context, scratch);
  if (t == nullptr) return std::nullopt;
  if (t == &scratch) return scratch;
  return *t;
}

std::optional<bool> EvaluateBoolean(const Expr& expr, const Solution& solution, ExprContext& context) {
  return Ebv(expr, solution, context);
}

std::optional<bool> EffectiveBooleanValue(const Term& term) {
  if (!term.is_literal()) return std::nullopt;
  // Plain literals, with or without a language tag, and xsd:string: true unless empty.
  if (term.datatype() == graph::kXsdString || !term.language().empty()) return !term.value().empty();
  const std::string_view local = XsdLocal(term);
  if (local == "boolean") return ParseBoolean(term.value()).value_or(false);
  if (!IsNumericDatatype(term)) return std::nullopt;
  const std::optional<Number> n = ToNumber(term);
  if (!n) return false;
  return n->type >= Number::kFloat ? !(n->d == 0 || n->d != n->d) : n->mant != 0;
}

int CompareForOrder(const std::optional<Term>& a, const std::optional<Term>& b) {
  if (!a || !b) return a.has_value() - b.has_value();
  // Blank nodes < IRIs < literals: TermKind orders IRIs first.
  static constexpr int kRank[] = {1, 0, 2};
  const int ra = kRank[static_cast<int>(a->kind())], rb = kRank[static_cast<int>(b->kind())];
  if (ra != rb) return ra < rb ? -1 : 1;
  if (a->is_literal()) {
    const Classified x = Classify(*a), y = Classify(*b);
    if (x.cls != y.cls) return LiteralClassRank(x.cls) < LiteralClassRank(y.cls) ? -1 : 1;
    std::partial_ordering o = std::partial_ordering::equivalent;
    if (x.cls == ValueClass::kDateTime || x.cls == ValueClass::kDate) {
      o = OrderDateTimes(*x.time, *y.time);  // total, unlike XPath's comparison
    } else if (x.cls == ValueClass::kNumeric && (IsNaN(*x.number) || IsNaN(*y.number))) {
      o = IsNaN(*x.number) <=> IsNaN(*y.number);  // NaN after every number
    } else {
      o = CompareValues(*a, x, *b, y).value_or(std::partial_ordering::equivalent);
    }
    if (o < 0) return -1;
    if (o > 0) return 1;
  }
  const std::strong_ordering o = *a <=> *b;
  return o < 0 ? -1 : (o > 0 ? 1 : 0);
}

}  // namespace webindex::sparql
