// The operators besides BGPs, paths and grouping: LeftJoin, Filter, Minus, Graph, Extend, and
// the ones evaluated once and joined with each seed through a hash index (subqueries, ORDER BY,
// projection, DISTINCT, slices).
#include <algorithm>
#include <functional>

#include "sparql/eval.h"

namespace webindex::sparql {

namespace {

size_t HashSlots(const Solution& s, const std::vector<int>& slots) {
  size_t h = 0;
  for (int slot : slots) {
    if (!s[slot]) return SIZE_MAX;
    h = h * 1000003 + std::hash<std::string>()(s[slot]->value());
  }
  return h == SIZE_MAX ? 0 : h;
}

}  // namespace

Result<Solutions> Evaluator::EvalLeftJoin(const Op& op, const Solution& seed) {
  if (!SeedSafe(seed, op.args[0], Mentioned(op))) return EvalIndependent(op, seed);
  ASSIGN_OR_RETURN(Solutions left, Eval(op.args[0], seed));
  Solutions out;
  out.reserve(left.size());
  for (Solution& a : left) {
    ASSIGN_OR_RETURN(Solutions right, Eval(op.args[1], a));
    bool any = false;
    for (Solution& r : right) {
      bool holds = true;
      for (const Expr& e : op.exprs) holds = holds && Holds(e, r);
      if (!holds) continue;
      out.push_back(std::move(r));
      any = true;
    }
    if (!any) out.push_back(std::move(a));
    RETURN_IF_ERROR(Tick());
  }
  return out;
}

Result<Solutions> Evaluator::EvalFilter(const Op& op, const Solution& seed) {
  if (!SeedSafe(seed, op.args[0], Mentioned(op))) return EvalIndependent(op, seed);
  ASSIGN_OR_RETURN(Solutions rows, Eval(op.args[0], seed));
  Solutions out;
  for (Solution& r : rows) {
    bool holds = true;
    for (const Expr& e : op.exprs) holds = holds && Holds(e, r);
    if (holds) out.push_back(std::move(r));
    RETURN_IF_ERROR(Tick());
  }
  return out;
}

Result<Solutions> Evaluator::EvalMinus(const Op& op, const Solution& seed) {
  if (!SeedSafe(seed, op.args[0], Mentioned(op))) return EvalIndependent(op, seed);
  ASSIGN_OR_RETURN(Solutions left, Eval(op.args[0], seed));
  ASSIGN_OR_RETURN(Solutions right, EvalIndependent(op.args[1], Empty()));
  Solutions out;
  for (Solution& a : left) {
    bool removed = std::any_of(right.begin(), right.end(), [&](const Solution& b) {
      bool shared = false;
      for (size_t i = 0; i < a.size() && i < b.size(); ++i) shared = shared || (a[i] && b[i]);
      return shared && Compatible(a, b);
    });
    if (!removed) out.push_back(std::move(a));
    RETURN_IF_ERROR(Tick());
  }
  return out;
}

Result<std::vector<graph::Term>> Evaluator::GraphsMatching(const Op& bgp, const Solution& seed) {
  // The BGP's most selective pattern, scanned over every graph once, names the graphs worth trying.
  graph::Pattern best;
  uint64_t best_estimate = UINT64_MAX;
  for (const TriplePattern& t : bgp.triples) {
    graph::Pattern p;
    p.graph = graph::GraphSelector::All();
    std::optional<graph::Term>* cells[3] = {&p.subject, &p.predicate, &p.object};
    const VarOrTerm* nodes[3] = {&t.subject, &t.predicate, &t.object};
    for (int k = 0; k < 3; ++k) {
      int s = SlotOf(*nodes[k]);
      *cells[k] = s < 0 ? std::optional<graph::Term>(std::get<graph::Term>(*nodes[k])) : seed[s];
    }
    uint64_t e = dataset_.Estimate(p);
    if (e < best_estimate) {
      best_estimate = e;
      best = std::move(p);
    }
  }
  std::set<graph::Term> matched;
  RETURN_IF_ERROR(dataset_.Scan(best, [&](const graph::Statement& st) {
    if (st.graph) matched.insert(*st.graph);
    return Tick().ok();
  }));
  RETURN_IF_ERROR(Tick());
  std::vector<graph::Term> names;
  for (const graph::Term& g : matched) {
    if (visible_set_.count(g)) names.push_back(g);
  }
  return names;
}

Result<Solutions> Evaluator::EvalGraph(const Op& op, const Solution& seed) {
  ActiveGraph saved = active_;
  int slot = SlotOf(op.name);
  std::vector<graph::Term> names;
  RETURN_IF_ERROR(LoadNamedGraphs());
  const std::vector<graph::Term>& visible = *visible_;
  if (slot < 0 || seed[slot]) {
    graph::Term name = slot < 0 ? std::get<graph::Term>(op.name) : *seed[slot];
    if (visible_set_.count(name)) names.push_back(name);
  } else if (op.args[0].kind == Op::Kind::kBgp && !op.args[0].triples.empty() &&
             active_.kind == ActiveGraph::Kind::kDefault) {
    ASSIGN_OR_RETURN(names, GraphsMatching(op.args[0], seed));
  } else {
    names = visible;
  }
  Solutions out;
  for (const graph::Term& name : names) {
    active_ = ActiveGraph{ActiveGraph::Kind::kNamed, {name}};
    Solution s = seed;
    if (slot >= 0) s[slot] = name;
    Result<Solutions> rows = Eval(op.args[0], s);
    active_ = saved;
    if (!rows.ok()) return rows.status();
    for (Solution& r : *rows) out.push_back(std::move(r));
  }
  return out;
}

Result<Solutions> Evaluator::EvalExtend(const Op& op, const Solution& seed) {
  // A chain of Extends (BIND after BIND, the select expressions) is one solution's: BNODE(str)
  // gives the same label throughout it.
  std::vector<const Op*> chain;
  const Op* base = &op;
  for (; base->kind == Op::Kind::kExtend; base = &base->args[0]) {
    if (seed[Slot(base->vars[0])]) return EvalIndependent(op, seed);
    chain.push_back(base);
  }
  if (!SeedSafe(seed, *base, Mentioned(op))) return EvalIndependent(op, seed);
  ASSIGN_OR_RETURN(Solutions rows, Eval(*base, seed));
  for (Solution& r : rows) {
    context_.NewSolution();
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      r[Slot((*it)->vars[0])] = Evaluate((*it)->exprs[0], r, context_);
    }
    RETURN_IF_ERROR(Tick());
  }
  return rows;
}

Result<Solutions> Evaluator::EvalIndependent(const Op& op, const Solution& seed) {
  auto compute = [&]() -> Result<Solutions> {
    switch (op.kind) {
      case Op::Kind::kGroup:
        return EvalGroup(op);
      case Op::Kind::kOrderBy:
      case Op::Kind::kProject:
      case Op::Kind::kDistinct:
      case Op::Kind::kReduced:
      case Op::Kind::kSlice:
        return EvalModifier(op);
      default: {
        bool saved = substitute_all_;
        substitute_all_ = false;
        Result<Solutions> rows = Eval(op, Empty());
        substitute_all_ = saved;
        return rows;
      }
    }
  };
  std::vector<int> bound;
  for (size_t i = 0; i < seed.size(); ++i) {
    if (seed[i]) bound.push_back(static_cast<int>(i));
  }
  auto key = std::make_pair(&op, active_.Key());
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    if (bound.empty()) return compute();  // evaluated once (the query's top)
    ASSIGN_OR_RETURN(Solutions rows, compute());
    std::vector<bool> always(vars_.size(), true);
    for (const Solution& r : rows) {
      for (size_t i = 0; i < always.size(); ++i) always[i] = always[i] && r[i].has_value();
    }
    it = cache_.emplace(key, Cached{std::move(rows), std::move(always), {}}).first;
  }
  Cached& cached = it->second;
  Solutions out;
  if (bound.empty()) return cached.rows;
  std::erase_if(bound, [&](int s) { return !cached.always[s]; });
  auto& index = cached.index[bound];
  if (index.empty()) {
    for (size_t i = 0; i < cached.rows.size(); ++i) index.emplace(HashSlots(cached.rows[i], bound), i);
  }
  for (size_t h : {HashSlots(seed, bound), SIZE_MAX}) {
    auto [lo, hi] = index.equal_range(h);
    for (auto j = lo; j != hi; ++j) {
      const Solution& r = cached.rows[j->second];
      if (!Compatible(seed, r)) continue;
      Solution s = seed;
      Merge(&s, r);
      out.push_back(std::move(s));
    }
  }
  return out;
}

void Evaluator::LimitRows(const Op& op, uint64_t rows) {
  const Op* below = &op;  // each row of the BGP below gives at least one row
  while (below->kind == Op::Kind::kProject || below->kind == Op::Kind::kExtend || below->kind == Op::Kind::kLeftJoin) {
    below = &below->args[0];
  }
  if (below->kind == Op::Kind::kBgp) row_limits_[below] = rows;
}

Result<Solutions> Evaluator::EvalModifier(const Op& op) {
  if (op.kind == Op::Kind::kSlice && op.limit) LimitRows(op.args[0], op.offset.value_or(0) + *op.limit);
  ASSIGN_OR_RETURN(Solutions rows, Eval(op.args[0], Empty()));
  switch (op.kind) {
    case Op::Kind::kOrderBy: {
      std::vector<std::pair<std::vector<std::optional<graph::Term>>, size_t>> keys(rows.size());
      for (size_t i = 0; i < rows.size(); ++i) {
        keys[i].second = i;
        for (const OrderCondition& c : op.order) keys[i].first.push_back(Evaluate(c.expr, rows[i], context_));
        RETURN_IF_ERROR(Tick());
      }
      std::stable_sort(keys.begin(), keys.end(), [&](const auto& a, const auto& b) {
        for (size_t k = 0; k < op.order.size(); ++k) {
          int c = CompareForOrder(a.first[k], b.first[k]);
          if (c != 0) return op.order[k].descending ? c > 0 : c < 0;
        }
        return false;
      });
      Solutions out;
      out.reserve(rows.size());
      for (auto& k : keys) out.push_back(std::move(rows[k.second]));
      return out;
    }
    case Op::Kind::kProject: {
      std::vector<int> keep;
      for (const Var& v : op.vars) keep.push_back(Slot(v));
      for (Solution& r : rows) {
        Solution p(vars_.size());
        for (int s : keep) p[s] = std::move(r[s]);
        r = std::move(p);
      }
      return rows;
    }
    case Op::Kind::kDistinct:
    case Op::Kind::kReduced: {
      std::set<Solution> seen;
      Solutions out;
      for (Solution& r : rows) {
        if (seen.insert(r).second) out.push_back(std::move(r));
      }
      return out;
    }
    default: {  // kSlice
      uint64_t from = std::min<uint64_t>(op.offset.value_or(0), rows.size());
      uint64_t to = op.limit ? std::min<uint64_t>(rows.size(), from + *op.limit) : rows.size();
      return Solutions(std::make_move_iterator(rows.begin() + from), std::make_move_iterator(rows.begin() + to));
    }
  }
}

}  // namespace webindex::sparql
