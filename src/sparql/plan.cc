// Plans: the variables' slots, FILTERs moved down to the BGP binding their variables, and each
// BGP's scan order by Dataset::Estimate with the variables bound so far treated as bound.
#include <algorithm>

#include "sparql/eval.h"
#include "sparql/expr_rya.h"

namespace webindex::sparql {

namespace {

bool HasExists(const Expr& e) {
  if (e.kind == Expr::Kind::kExists || e.kind == Expr::Kind::kNotExists) return true;
  return std::any_of(e.args.begin(), e.args.end(), HasExists);
}

std::set<int> BgpSlots(const Op& bgp, const Evaluator& ev) {
  std::set<int> out;
  for (const TriplePattern& t : bgp.triples) {
    for (const VarOrTerm* n : {&t.subject, &t.predicate, &t.object}) {
      if (int s = ev.SlotOf(*n); s >= 0) out.insert(s);
    }
  }
  return out;
}

bool Subset(const std::set<int>& a, const std::set<int>& b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

//! The BGP that Join / LeftJoin / Filter evaluate first under `op`, whose solutions all of `op`'s keep.
Op* FirstBgp(Op* op) {
  while (op->kind == Op::Kind::kJoin || op->kind == Op::Kind::kLeftJoin || op->kind == Op::Kind::kFilter) {
    op = &op->args[0];
  }
  return op->kind == Op::Kind::kBgp && !op->triples.empty() ? op : nullptr;
}

//! Moves each of `exprs` whose variables `target` binds into target's filters.
void PushInto(std::vector<Expr>* exprs, Op* target, const Evaluator& ev) {
  if (target == nullptr) return;
  std::set<int> bound = BgpSlots(*target, ev);
  std::vector<Expr> kept;
  for (Expr& e : *exprs) {
    std::set<int> slots;
    ExprSlots(e, ev, &slots);
    if (!HasExists(e) && Subset(slots, bound)) {
      target->exprs.push_back(std::move(e));
    } else {
      kept.push_back(std::move(e));
    }
  }
  *exprs = std::move(kept);
}

void PushFilters(Op* op, const Evaluator& ev) {
  for (Op& a : op->args) PushFilters(&a, ev);
  if (op->kind == Op::Kind::kLeftJoin) PushInto(&op->exprs, FirstBgp(&op->args[1]), ev);
  if (op->kind != Op::Kind::kFilter) return;
  PushInto(&op->exprs, FirstBgp(&op->args[0]), ev);
  if (op->exprs.empty()) {
    Op inner = std::move(op->args[0]);
    *op = std::move(inner);
  }
}

//! The Rya calls every row passing `e` satisfies (e itself, or conjuncts of &&) of the form
//! f(?v, constant), as index reads of ?v's values.
void RyaConjuncts(const Expr& e, const Evaluator& ev, std::vector<std::pair<int, IndexAccess>>* out) {
  if (e.kind == Expr::Kind::kAnd) {
    for (const Expr& a : e.args) RyaConjuncts(a, ev, out);
    return;
  }
  if (e.kind != Expr::Kind::kFunction || e.args.size() != 2 || e.args[0].kind != Expr::Kind::kVar ||
      e.args[1].kind != Expr::Kind::kTerm) {
    return;
  }
  const int slot = ev.vars().Find(e.args[0].name);
  if (slot < 0) return;
  const std::string_view index = RyaIndexOf(e.name);
  if (index == "temporal") {
    if (auto query = TemporalQueryOf(e.name, e.args[1].term)) out->emplace_back(slot, IndexAccess{*query});
  } else if (index == "freetext") {
    if (auto query = TextQueryOf(e.args[1].term)) out->emplace_back(slot, IndexAccess{std::move(*query)});
  }
}

//! True when the dataset's index of `access` holds every statement of `predicate` (nullopt: of
//! a predicate not known yet) the function can be true for.
bool IndexCovers(const graph::IndexSet& indexes, const IndexAccess& access,
                 const std::optional<graph::Term>& predicate) {
  if (!access.temporal()) return indexes.freetext;
  // A predicate not known yet: only an index of every predicate's date-times holds its rows.
  return predicate ? indexes.TemporalHolds(predicate->value())
                   : indexes.temporal && indexes.temporal_predicates.empty();
}

}  // namespace

void ExprSlots(const Expr& e, const Evaluator& ev, std::set<int>* out) {
  if (e.kind == Expr::Kind::kVar) {
    if (int s = ev.vars().Find(e.name); s >= 0) out->insert(s);
  }
  if (e.pattern) {
    Op op = TranslatePattern(*e.pattern);
    std::set<int> inner = MentionedSlots(op, ev);
    out->insert(inner.begin(), inner.end());
  }
  for (const Expr& a : e.args) ExprSlots(a, ev, out);
}

std::set<int> MentionedSlots(const Op& op, const Evaluator& ev) {
  std::set<int> out = BgpSlots(op, ev);
  if (int s = ev.SlotOf(op.name); s >= 0) out.insert(s);
  for (const Var& v : op.vars) {
    if (int s = ev.Slot(v); s >= 0) out.insert(s);
  }
  for (const Var& v : op.table.vars) out.insert(ev.Slot(v));
  for (const Expr& e : op.exprs) ExprSlots(e, ev, &out);
  for (const auto& [v, e] : op.aggregates) {
    out.insert(ev.Slot(v));
    ExprSlots(e, ev, &out);
  }
  for (const OrderCondition& c : op.order) ExprSlots(c.expr, ev, &out);
  for (const Op& a : op.args) {
    std::set<int> inner = MentionedSlots(a, ev);
    out.insert(inner.begin(), inner.end());
  }
  return out;
}

std::set<int> CertainSlots(const Op& op, const Evaluator& ev) {
  using K = Op::Kind;
  switch (op.kind) {
    case K::kBgp:
    case K::kPath:
      return BgpSlots(op, ev);
    case K::kJoin: {
      std::set<int> a = CertainSlots(op.args[0], ev), b = CertainSlots(op.args[1], ev);
      a.insert(b.begin(), b.end());
      return a;
    }
    case K::kLeftJoin:
    case K::kFilter:
    case K::kMinus:
    case K::kExtend:
    case K::kOrderBy:
    case K::kDistinct:
    case K::kReduced:
    case K::kSlice:
      return CertainSlots(op.args[0], ev);
    case K::kGraph: {
      std::set<int> a = CertainSlots(op.args[0], ev);
      if (int s = ev.SlotOf(op.name); s >= 0) a.insert(s);
      return a;
    }
    case K::kUnion: {
      std::set<int> a = CertainSlots(op.args[0], ev), b = CertainSlots(op.args[1], ev), both;
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(both, both.end()));
      return both;
    }
    case K::kProject: {
      std::set<int> a = CertainSlots(op.args[0], ev), kept;
      for (const Var& v : op.vars) {
        if (a.count(ev.Slot(v))) kept.insert(ev.Slot(v));
      }
      return kept;
    }
    default:
      return {};
  }
}

bool Compatible(const Solution& a, const Solution& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (a[i] && b[i] && *a[i] != *b[i]) return false;
  }
  return true;
}

void Merge(Solution* a, const Solution& b) {
  if (a->size() < b.size()) a->resize(b.size());
  for (size_t i = 0; i < b.size(); ++i) {
    if (b[i] && !(*a)[i]) (*a)[i] = b[i];
  }
}

Op Evaluator::Prepare(Op op) {
  AddVars(op);
  PushFilters(&op, *this);
  for (auto& [pattern, exists_op] : exists_) PushFilters(&exists_op, *this);
  return op;
}

uint64_t Evaluator::Cost(const Op& op, const Solution& seed) {
  constexpr uint64_t kUnknown = UINT64_MAX / 4;
  using K = Op::Kind;
  switch (op.kind) {
    case K::kBgp: {
      uint64_t best = op.triples.empty() ? 1 : kUnknown;
      for (const TriplePattern& t : op.triples) {
        auto term = [&](const VarOrTerm& n) -> std::optional<graph::Term> {
          int s = SlotOf(n);
          if (s < 0) return std::get<graph::Term>(n);
          return seed[s];
        };
        best = std::min(best, EstimateActive(term(t.subject), term(t.predicate), term(t.object)));
      }
      return best;
    }
    case K::kLeftJoin:
    case K::kFilter:
    case K::kMinus:
    case K::kExtend:
      return Cost(op.args[0], seed);
    case K::kJoin:
      return std::min(Cost(op.args[0], seed), Cost(op.args[1], seed));
    case K::kUnion:
      return std::min(kUnknown, Cost(op.args[0], seed) + Cost(op.args[1], seed));
    default:
      return kUnknown;
  }
}

bool Evaluator::RightFirst(const Op& join, const Solution& seed) {
  const Op& right = join.args[1];
  if (right.kind != Op::Kind::kBgp || right.triples.empty() || join.args[0].kind == Op::Kind::kBgp) return false;
  std::vector<bool> mask(seed.size());
  for (size_t i = 0; i < seed.size(); ++i) mask[i] = seed[i].has_value();
  auto key = std::make_pair(&join, std::move(mask));
  auto it = right_first_.find(key);
  if (it == right_first_.end()) {
    uint64_t r = Cost(right, seed), l = Cost(join.args[0], seed);
    it = right_first_.emplace(key, r < UINT64_MAX / 64 && r * 10 < l).first;
  }
  return it->second;
}

const std::set<int>& Evaluator::Mentioned(const Op& op) {
  auto it = mentioned_.find(&op);
  if (it == mentioned_.end()) it = mentioned_.emplace(&op, MentionedSlots(op, *this)).first;
  return it->second;
}

bool Evaluator::SeedSafe(const Solution& seed, const Op& first, const std::set<int>& mentioned) {
  if (substitute_all_) return true;
  auto it = certain_.find(&first);
  if (it == certain_.end()) it = certain_.emplace(&first, CertainSlots(first, *this)).first;
  for (int s : mentioned) {
    if (s < static_cast<int>(seed.size()) && seed[s] && !it->second.count(s)) return false;
  }
  return true;
}

const BgpPlan& Evaluator::PlanBgp(const Op& bgp, const Solution& seed, const std::vector<bool>* assumed) {
  std::vector<bool> mask(vars_.size());
  for (size_t i = 0; i < seed.size() && i < mask.size(); ++i) mask[i] = seed[i].has_value();
  std::vector<bool> key_mask = mask;
  for (size_t i = 0; i < mask.size(); ++i) {
    bool a = assumed != nullptr && i < assumed->size() && (*assumed)[i];
    key_mask.push_back(a);
    if (a) mask[i] = true;
  }
  auto key = std::make_pair(&bgp, key_mask);
  if (auto it = plans_.find(key); it != plans_.end()) return it->second;
  BgpPlan plan;
  std::vector<std::pair<int, IndexAccess>> rya;  // index reads the BGP's FILTERs allow
  for (const Expr& e : bgp.exprs) RyaConjuncts(e, *this, &rya);
  const graph::IndexSet indexes = rya.empty() ? graph::IndexSet{} : dataset_.Indexes();
  std::vector<bool> bound = mask;  // by the seed or by an earlier step
  std::vector<bool> used(bgp.triples.size());
  auto term = [&](const VarOrTerm& n, int* bound_here) -> std::optional<graph::Term> {
    int s = SlotOf(n);
    if (s < 0) return std::get<graph::Term>(n);
    if (s < static_cast<int>(seed.size()) && seed[s]) return seed[s];
    if (bound[s]) ++*bound_here;
    return std::nullopt;
  };
  struct Candidate {
    double cost = 0;
    bool connected = false;
    std::optional<graph::Term> predicate;
    bool object_free = false;  //!< an unbound object variable: an index read may bind it
  };
  std::vector<Candidate> candidates(bgp.triples.size());
  for (size_t step = 0; step < bgp.triples.size(); ++step) {
    int best = -1;
    double best_cost = 0;
    bool best_connected = false;
    const IndexAccess* best_access = nullptr;
    for (size_t i = 0; i < bgp.triples.size(); ++i) {
      if (used[i]) continue;
      const TriplePattern& t = bgp.triples[i];
      int bs = 0, bp = 0, bo = 0;
      std::optional<graph::Term> s = term(t.subject, &bs), p = term(t.predicate, &bp), o = term(t.object, &bo);
      Candidate& c = candidates[i];
      c.cost = static_cast<double>(EstimateActive(s, p, o));
      if (bs) c.cost = std::min(c.cost, 1 + c.cost / 1000);  // a bound subject has few statements
      if (bo) c.cost = std::min(c.cost, 1 + c.cost / 100);
      if (bp) c.cost = std::min(c.cost, 1 + c.cost / 10);
      c.connected = bs + bp + bo > 0 || (s && p && o) || step == 0;
      c.predicate = p;
      c.object_free = SlotOf(t.object) >= 0 && !o && bo == 0;
      if (best < 0 || (c.connected && !best_connected) || (c.connected == best_connected && c.cost < best_cost)) {
        best = static_cast<int>(i);
        best_cost = c.cost;
        best_connected = c.connected;
      }
    }
    // An unbound object that a Rya FILTER restricts may have fewer index matches than its
    // pattern has rows: they are counted only up to the best cost so far, the one to beat (the
    // pattern's own when it is the best). A pattern less connected than the best cannot win.
    for (size_t i = 0; i < bgp.triples.size() && !rya.empty(); ++i) {
      const Candidate& c = candidates[i];
      if (used[i] || !c.object_free || c.connected != best_connected || best_cost < 1) continue;
      const int object_slot = SlotOf(bgp.triples[i].object);
      for (const auto& [slot, candidate] : rya) {
        if (slot != object_slot || !IndexCovers(indexes, candidate, c.predicate)) continue;
        const uint64_t up_to = best_cost < 1e18 ? static_cast<uint64_t>(best_cost) : UINT64_MAX;
        // A count of up_to means "up_to or more": only a smaller one wins.
        if (const uint64_t count = EstimateIndexActive(candidate, c.predicate, up_to); count < up_to) {
          best = static_cast<int>(i);
          best_cost = static_cast<double>(count);
          best_access = &candidate;
        }
      }
    }
    used[best] = true;
    plan.order.push_back(best);
    plan.estimates.push_back(static_cast<uint64_t>(best_cost));
    plan.access.push_back(best_access ? std::optional<IndexAccess>(*best_access) : std::nullopt);
    const TriplePattern& t = bgp.triples[best];
    for (const VarOrTerm* n : {&t.subject, &t.predicate, &t.object}) {
      if (int s = SlotOf(*n); s >= 0) bound[s] = true;
    }
  }
  plan.filters_after.resize(bgp.triples.size() + 1);
  for (size_t f = 0; f < bgp.exprs.size(); ++f) {
    std::set<int> slots;
    ExprSlots(bgp.exprs[f], *this, &slots);
    std::vector<bool> now = mask;
    size_t at = 0;
    for (;; ++at) {
      bool all = std::all_of(slots.begin(), slots.end(), [&](int s) { return now[s]; });
      if (all || at == plan.order.size()) break;
      const TriplePattern& t = bgp.triples[plan.order[at]];
      for (const VarOrTerm* n : {&t.subject, &t.predicate, &t.object}) {
        if (int s = SlotOf(*n); s >= 0) now[s] = true;
      }
    }
    plan.filters_after[at].push_back(static_cast<int>(f));
  }
  return plans_.emplace(key, std::move(plan)).first->second;
}

}  // namespace webindex::sparql
