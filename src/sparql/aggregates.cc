// The set functions of SPARQL (§18.5): COUNT, SUM, AVG, MIN, MAX, SAMPLE and GROUP_CONCAT, with
// DISTINCT. One aggregator per aggregate and group, fed one row at a time.
#include <set>

#include "sparql/expr_eval.h"
#include "sparql/expr_internal.h"

namespace webindex::sparql {
namespace {

using graph::Term;
using expr::Number;

//! DISTINCT and errors for every aggregate: a repeated value is skipped, an error reported once.
class AggregatorBase : public Aggregator {
 public:
  explicit AggregatorBase(bool distinct) : distinct_(distinct) {}
  void Add(const std::optional<Term>& value) final {
    if (!value) {
      OnError();
      return;
    }
    if (distinct_ && !seen_.insert(*value).second) return;
    OnValue(*value);
  }

 protected:
  virtual void OnValue(const Term& value) = 0;
  virtual void OnError() { error_ = true; }
  bool error_ = false;

 private:
  bool distinct_;
  std::set<Term> seen_;
};

class Count final : public AggregatorBase {
 public:
  using AggregatorBase::AggregatorBase;
  std::optional<Term> Result() const override {
    return Term::Literal(std::to_string(count_), expr::Xsd("integer"));
  }

 private:
  void OnValue(const Term&) override { ++count_; }
  void OnError() override {}
  uint64_t count_ = 0;
};

//! SUM and AVG: numeric addition from integer 0; AVG divides by the count (0 for no rows).
class Sum final : public AggregatorBase {
 public:
  Sum(bool distinct, bool average) : AggregatorBase(distinct), average_(average) {}
  std::optional<Term> Result() const override {
    if (error_) return std::nullopt;
    if (!average_ || count_ == 0) return expr::FromNumber(sum_);
    Number count;
    count.mant = count_;
    const std::optional<Number> avg = expr::Arith(expr::ArithOp::kDivide, sum_, count);
    return avg ? std::optional(expr::FromNumber(*avg)) : std::nullopt;
  }

 private:
  void OnValue(const Term& value) override {
    const std::optional<Number> n = expr::ToNumber(value);
    std::optional<Number> sum = n ? expr::Arith(expr::ArithOp::kAdd, sum_, *n) : std::nullopt;
    if (!sum) {
      error_ = true;
      return;
    }
    sum_ = *sum;
    ++count_;
  }
  bool average_;
  Number sum_;
  uint64_t count_ = 0;
};

class MinMax final : public AggregatorBase {
 public:
  MinMax(bool distinct, bool max) : AggregatorBase(distinct), max_(max) {}
  std::optional<Term> Result() const override { return error_ ? std::nullopt : best_; }

 private:
  void OnValue(const Term& value) override {
    const int c = CompareForOrder(value, best_);
    if (!best_ || (max_ ? c > 0 : c < 0)) best_ = value;
  }
  bool max_;
  std::optional<Term> best_;
};

class Sample final : public AggregatorBase {
 public:
  using AggregatorBase::AggregatorBase;
  std::optional<Term> Result() const override { return value_; }

 private:
  void OnValue(const Term& value) override {
    if (!value_) value_ = value;
  }
  void OnError() override {}
  std::optional<Term> value_;
};

//! GROUP_CONCAT: the values' lexical forms joined, a simple literal even when every value shares a
//! language tag (§18.5.1.7; the W3C tests agg-groupconcat-04 and -06).
class GroupConcat final : public AggregatorBase {
 public:
  GroupConcat(bool distinct, std::string separator) : AggregatorBase(distinct), separator_(std::move(separator)) {}
  std::optional<Term> Result() const override {
    if (error_) return std::nullopt;
    return Term::Literal(text_);
  }

 private:
  void OnValue(const Term& value) override {
    if (value.is_blank()) {
      error_ = true;
      return;
    }
    if (!first_) text_ += separator_;
    first_ = false;
    text_ += value.value();
  }
  std::string separator_, text_;
  bool first_ = true;
};

}  // namespace

std::unique_ptr<Aggregator> MakeAggregator(const Expr& aggregate) {
  const std::string& name = aggregate.name;
  const bool distinct = aggregate.distinct;
  if (name == "COUNT") return std::make_unique<Count>(distinct);
  if (name == "SUM" || name == "AVG") return std::make_unique<Sum>(distinct, name == "AVG");
  if (name == "MIN" || name == "MAX") return std::make_unique<MinMax>(distinct, name == "MAX");
  if (name == "SAMPLE") return std::make_unique<Sample>(distinct);
  return std::make_unique<GroupConcat>(distinct, aggregate.separator.value_or(" "));
}

}  // namespace webindex::sparql
