// The evaluator's internals (§18.5): one Evaluator per query run, owning the query's variable
// table, the active graph, caches of independent sub-results and the BGP plans. Every Eval
// returns Join({seed}, op): the solutions of `op` compatible with `seed`, merged with it, which
// lets joins substitute the left side's bindings into the right side (index nested loops).
// One thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/status.h"
#include "sparql/algebra.h"
#include "sparql/dataset.h"
#include "sparql/execute.h"
#include "sparql/expr_eval.h"
#include "sparql/solution.h"

namespace webindex::sparql {

using Solutions = std::vector<Solution>;

//! The active graph: the dataset's default graph, the merge of the FROM graphs, or one named graph.
struct ActiveGraph {
  enum class Kind { kDefault, kMerge, kNamed };
  Kind kind = Kind::kDefault;
  std::vector<graph::Term> graphs;  //!< kMerge: the FROM graphs; kNamed: the one name
  std::string Key() const;
};

//! A step that reads Rya's temporal or free-text index instead of the statement orders: a
//! FILTER of its BGP calls tempo:* or fts:text on the pattern's object variable with a constant,
//! so the object's possible values are exactly the index's matches for the function's query
//! (the FILTER still runs). The query has no predicate or graph yet: the step adds them.
struct IndexAccess {
  std::variant<graph::TemporalQuery, graph::TextQueryNode> query;
  bool temporal() const { return query.index() == 0; }
};

//! One BGP's order for a set of bound variables: the patterns' indexes in scan order, the
//! filters (indexes into Op::exprs) to test after each step (step -1: before any scan).
struct BgpPlan {
  std::vector<int> order;
  std::vector<uint64_t> estimates;
  std::vector<std::vector<int>> filters_after;  //!< size order.size() + 1; [0] before the first scan
  std::vector<std::optional<IndexAccess>> access;  //!< per step: set when it reads an index
};

class Evaluator {
 public:
  Evaluator(Dataset& dataset, const ExecuteOptions& options);

  //! Numbers the variables of `op` (its expressions, EXISTS patterns, blank nodes) and moves
  //! FILTERs down to the BGPs that bind their variables. Call once before Eval.
  Op Prepare(Op op);
  //! FROM / FROM NAMED of the query (or the dataset's graphs when it has neither).
  Status SetDataset(const Query& query);

  Result<Solutions> Eval(const Op& op, const Solution& seed);
  //! Stops the BGP that `op`'s rows come from (through Project, Extend and LeftJoin's left side)
  //! after `rows` rows: a LIMIT without ORDER BY, an ASK.
  void LimitRows(const Op& op, uint64_t rows);
  //! Deadline and cancellation, checked every few hundred rows.
  Status Tick();

  const VarTable& vars() const { return vars_; }
  int Slot(const Var& v) const { return vars_.Find(v.name); }
  //! The slot of a pattern position: a variable, or a blank node (a variable not projected); -1 for a term.
  int SlotOf(const VarOrTerm& node) const;
  Solution Empty() const { return Solution(vars_.size()); }
  ExprContext& context() { return context_; }
  Dataset& dataset() { return dataset_; }
  const ActiveGraph& active() const { return active_; }
  //! Scans the active graph; the merge of several graphs reports each triple once.
  Status ScanActive(const std::optional<graph::Term>& s, const std::optional<graph::Term>& p,
                    const std::optional<graph::Term>& o, const Dataset::Visitor& fn);
  uint64_t EstimateActive(const std::optional<graph::Term>& s, const std::optional<graph::Term>& p,
                          const std::optional<graph::Term>& o);
  //! Reads `access`'s index over the active graph for statements of `predicate` (nullopt: any).
  Status ScanIndexActive(const IndexAccess& access, const std::optional<graph::Term>& predicate,
                         const Dataset::Visitor& fn);
  //! Counted no further than `up_to` (Dataset::EstimateTemporal).
  uint64_t EstimateIndexActive(const IndexAccess& access, const std::optional<graph::Term>& predicate, uint64_t up_to);
  //! The order of a BGP for the variables bound in `seed` (and those `assumed` bound, values unknown).
  const BgpPlan& PlanBgp(const Op& bgp, const Solution& seed, const std::vector<bool>* assumed = nullptr);
  const std::map<const GroupPattern*, Op>& exists_ops() const { return exists_; }
  //! The named graphs visible to GRAPH, listed once per query.
  Status LoadNamedGraphs();

 private:
  void AddVars(const Op& op);
  void AddVars(const Expr& e);
  Result<Solutions> EvalBgp(const Op& op, const Solution& seed);
  Result<Solutions> EvalPath(const Op& op, const Solution& seed);
  Result<Solutions> EvalLeftJoin(const Op& op, const Solution& seed);
  Result<Solutions> EvalFilter(const Op& op, const Solution& seed);
  Result<Solutions> EvalMinus(const Op& op, const Solution& seed);
  Result<Solutions> EvalGraph(const Op& op, const Solution& seed);
  //! The visible graphs in which the BGP's most selective pattern matches.
  Result<std::vector<graph::Term>> GraphsMatching(const Op& bgp, const Solution& seed);
  Result<Solutions> EvalExtend(const Op& op, const Solution& seed);
  Result<Solutions> EvalGroup(const Op& op);
  Result<Solutions> EvalModifier(const Op& op);
  //! Join({seed}, op) through op's solutions evaluated once without the seed (cached).
  Result<Solutions> EvalIndependent(const Op& op, const Solution& seed);
  //! Whether substituting `seed` into `op` gives Join({seed}, op): the seed binds none of
  //! `mentioned`'s variables that `op`'s first argument may leave unbound.
  bool SeedSafe(const Solution& seed, const Op& first, const std::set<int>& mentioned);
  bool Holds(const Expr& e, const Solution& s);
  //! About how many solutions `op` starts from under `seed` (its first scan's estimate).
  uint64_t Cost(const Op& op, const Solution& seed);
  //! Whether a Join evaluates its right side first: a BGP much cheaper than the left.
  bool RightFirst(const Op& join, const Solution& seed);
  //! MentionedSlots of `op`, computed once.
  const std::set<int>& Mentioned(const Op& op);

  struct Cached {
    Solutions rows;
    std::vector<bool> always;                                         //!< the slots every row binds: the hash keys
    std::map<std::vector<int>, std::multimap<size_t, size_t>> index;  //!< by the keys a seed binds
  };

  Dataset& dataset_;
  const ExecuteOptions& options_;
  VarTable vars_;
  ExprContext context_;
  ActiveGraph active_;
  std::optional<std::vector<graph::Term>> named_;    //!< FROM NAMED; unset: the dataset's
  std::optional<std::vector<graph::Term>> visible_;  //!< named_ or the dataset's, once listed
  std::set<graph::Term> visible_set_;
  std::map<const GroupPattern*, Op> exists_;
  std::map<std::pair<const Op*, std::string>, Cached> cache_;
  std::map<std::pair<const Op*, std::vector<bool>>, BgpPlan> plans_;
  std::map<const Op*, std::set<int>> certain_, mentioned_;
  std::map<std::pair<const Op*, std::vector<bool>>, bool> right_first_;
  //! BGPs whose first rows are a LIMIT's whole answer (under Slice, Project, Extend, LeftJoin's left).
  std::map<const Op*, uint64_t> row_limits_;
  bool substitute_all_ = false;  //!< inside EXISTS: substitute the solution everywhere (§18.6)
  uint64_t ticks_ = 0;
  friend class PathEvaluator;
};

//! The variables `op` binds in every solution; those it mentions anywhere.
std::set<int> CertainSlots(const Op& op, const Evaluator& ev);
std::set<int> MentionedSlots(const Op& op, const Evaluator& ev);
void ExprSlots(const Expr& e, const Evaluator& ev, std::set<int>* out);

//! Whether `a` and `b` agree on the variables both bind; Merge puts b's bindings into a.
bool Compatible(const Solution& a, const Solution& b);
void Merge(Solution* a, const Solution& b);

//! `a` `b` ... of a BGP pattern for the explain text.
std::string PatternText(const TriplePattern& t);

}  // namespace webindex::sparql
