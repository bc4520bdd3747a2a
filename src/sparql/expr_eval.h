// SPARQL expressions (§17) over one solution: the operators and functions of SPARQL 1.1 with
// their type errors, effective boolean values, the XSD numeric tower, the ordering of ORDER BY
// and the aggregates' values. One evaluation context per query and thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/term.h"
#include "sparql/ast.h"
#include "sparql/solution.h"

namespace webindex::sparql {

//! What an expression needs besides the solution: the variables' slots, NOW(), the query's
//! BNODE() labels, and how to answer EXISTS (the evaluator's callback: does the pattern have a
//! solution compatible with `solution`).
struct ExprContext {
  const VarTable* vars = nullptr;
  std::chrono::system_clock::time_point now;
  std::function<bool(const GroupPattern& pattern, const Solution& solution)> exists;
  //! BNODE(): fresh labels per query; BNODE(str) the same label for the same string within one
  //! solution (the evaluator calls NewSolution between solutions).
  uint64_t next_blank = 0;
  void NewSolution();
  std::vector<std::pair<std::string, std::string>> blank_of_string;
  //! The slots of the variables met so far, by their expression: a scan of a few pointers is
  //! cheaper per row than VarTable's hash (the name is checked too: an address may be reused).
  struct CachedSlot {
    const Expr* expr;
    std::string name;
    int slot;
  };
  std::vector<CachedSlot> slot_cache;
  const VarTable* slot_cache_vars = nullptr;
  int Slot(const Expr& var);
  //! IRI() / URI() resolve a relative reference against it (the query's BASE); empty: as is.
  std::string base;
};

//! The value of `expr`, nullopt for an error (an unbound variable, a type error): FILTER
//! treats an error as false, BIND leaves the variable unbound.
std::optional<graph::Term> Evaluate(const Expr& expr, const Solution& solution, ExprContext& context);

//! The effective boolean value of `expr`'s value, what FILTER needs: the same as
//! EffectiveBooleanValue(Evaluate(...)) without building the terms of comparisons and logic.
std::optional<bool> EvaluateBoolean(const Expr& expr, const Solution& solution, ExprContext& context);

//! The effective boolean value (§17.2.2); nullopt for an error.
std::optional<bool> EffectiveBooleanValue(const graph::Term& term);

//! ORDER BY's order (§15.1): unbound < blank nodes < IRIs < literals, literals by `<` where
//! defined, else a fixed order; negative, zero, positive like strcmp.
int CompareForOrder(const std::optional<graph::Term>& a, const std::optional<graph::Term>& b);

//! One aggregate over one group (§18.5): Add each row's value (nullopt for an error: COUNT skips
//! it, SUM / AVG / MIN / MAX become an error), then Result.
class Aggregator {
 public:
  virtual ~Aggregator() = default;
  virtual void Add(const std::optional<graph::Term>& value) = 0;
  virtual std::optional<graph::Term> Result() const = 0;
};

//! For an Expr of kind kAggregate: COUNT (with or without DISTINCT, COUNT(*) is COUNT over a
//! value per row), SUM, MIN, MAX, AVG, SAMPLE, GROUP_CONCAT (its separator).
std::unique_ptr<Aggregator> MakeAggregator(const Expr& aggregate);

}  // namespace webindex::sparql
