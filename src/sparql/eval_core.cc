// The evaluator's frame: variables, the dataset of FROM / FROM NAMED, scans of the active graph,
// the limits, and the dispatch of Eval over the operators.
#include <algorithm>
#include <set>
#include <tuple>

#include "sparql/eval.h"

namespace webindex::sparql {

std::string ActiveGraph::Key() const {
  std::string key(1, static_cast<char>('0' + static_cast<int>(kind)));
  for (const graph::Term& g : graphs) key += graph::ToNTriples(g);
  return key;
}

Evaluator::Evaluator(Dataset& dataset, const ExecuteOptions& options) : dataset_(dataset), options_(options) {
  context_.vars = &vars_;
  context_.now = options.now.value_or(std::chrono::system_clock::now());
  context_.exists = [this](const GroupPattern& pattern, const Solution& solution) {
    auto it = exists_.find(&pattern);
    if (it == exists_.end()) it = exists_.emplace(&pattern, TranslatePattern(pattern)).first;
    bool saved = substitute_all_;
    substitute_all_ = true;
    Result<Solutions> rows = Eval(it->second, solution);
    substitute_all_ = saved;
    return rows.ok() && !rows->empty();
  };
}

int Evaluator::SlotOf(const VarOrTerm& node) const {
  if (const Var* v = std::get_if<Var>(&node)) return vars_.Find(v->name);
  const graph::Term& t = std::get<graph::Term>(node);
  return t.is_blank() ? vars_.Find("_:" + t.value()) : -1;
}

void Evaluator::AddVars(const Expr& e) {
  if (e.kind == Expr::Kind::kVar) vars_.Add(e.name);
  if (e.pattern && !exists_.count(e.pattern.get())) {
    Op op = TranslatePattern(*e.pattern);
    AddVars(op);
    exists_.emplace(e.pattern.get(), std::move(op));
  }
  for (const Expr& a : e.args) AddVars(a);
}

void Evaluator::AddVars(const Op& op) {
  auto node = [&](const VarOrTerm& n) {
    if (const Var* v = std::get_if<Var>(&n)) {
      if (!v->name.empty()) vars_.Add(v->name);
    } else if (std::get<graph::Term>(n).is_blank() && op.kind != Op::Kind::kGraph) {
      vars_.Add("_:" + std::get<graph::Term>(n).value());
    }
  };
  for (const TriplePattern& t : op.triples) {
    node(t.subject);
    node(t.predicate);
    node(t.object);
  }
  node(op.name);
  for (const Var& v : op.vars) {
    if (!v.name.empty()) vars_.Add(v.name);
  }
  for (const Var& v : op.table.vars) vars_.Add(v.name);
  for (const Expr& e : op.exprs) AddVars(e);
  for (const auto& [v, e] : op.aggregates) {
    vars_.Add(v.name);
    AddVars(e);
  }
  for (const OrderCondition& c : op.order) AddVars(c.expr);
  for (const Op& a : op.args) AddVars(a);
}

Status Evaluator::SetDataset(const Query& query) {
  context_.base = query.base;
  if (query.from.empty() && query.from_named.empty()) return Status::Ok();
  active_.kind = ActiveGraph::Kind::kMerge;
  for (const std::string& g : query.from) active_.graphs.push_back(graph::Term::Iri(g));
  named_.emplace();
  std::set<std::string> seen;
  for (const std::string& g : query.from_named) {
    if (seen.insert(g).second) named_->push_back(graph::Term::Iri(g));
  }
  return Status::Ok();
}

Status Evaluator::LoadNamedGraphs() {
  if (visible_) return Status::Ok();
  std::vector<graph::Term> out;
  if (named_) {
    out = *named_;
  } else {
    RETURN_IF_ERROR(dataset_.NamedGraphs([&](const graph::Term& g) {
      out.push_back(g);
      return true;
    }));
  }
  visible_set_.insert(out.begin(), out.end());
  visible_ = std::move(out);
  return Status::Ok();
}

Status Evaluator::Tick() {
  if (++ticks_ % 256 != 0) return Status::Ok();
  if (options_.cancelled != nullptr && options_.cancelled->load(std::memory_order_relaxed)) {
    return Status::Aborted("cancelled");
  }
  if (options_.deadline && std::chrono::steady_clock::now() > *options_.deadline) {
    return Status::Aborted("the query ran longer than its timeout");
  }
  return Status::Ok();
}

namespace {

//! Calls `fn` with the graph selector of each graph the active graph reads (the default graph,
//! or each graph of the merge, or the one named graph) while it returns true.
template <typename Fn>
void ForEachActiveGraph(const ActiveGraph& active, Fn fn) {
  if (active.kind == ActiveGraph::Kind::kDefault) {
    fn(graph::GraphSelector{});
    return;
  }
  for (const graph::Term& g : active.graphs) {
    if (!fn(graph::GraphSelector::Named(g))) return;
  }
}

//! Calls `scan(selector, visitor)` for each graph the active graph reads; a merge of several
//! graphs reports each triple once.
template <typename ScanGraph>
Status ScanEachActiveGraph(const ActiveGraph& active, ScanGraph scan, const Dataset::Visitor& fn) {
  if (active.graphs.size() <= 1) {
    Status status;
    ForEachActiveGraph(active, [&](const graph::GraphSelector& g) { return (status = scan(g, fn)).ok(); });
    return status;
  }
  std::set<std::tuple<graph::Term, graph::Term, graph::Term>> seen;  // a merge holds each triple once
  bool more = true;
  const Dataset::Visitor once = [&](const graph::Statement& st) {
    if (!seen.emplace(st.subject, st.predicate, st.object).second) return true;
    more = fn(st);
    return more;
  };
  Status status;
  ForEachActiveGraph(active, [&](const graph::GraphSelector& g) { return (status = scan(g, once)).ok() && more; });
  return status;
}

}  // namespace

Status Evaluator::ScanActive(const std::optional<graph::Term>& s, const std::optional<graph::Term>& p,
                             const std::optional<graph::Term>& o, const Dataset::Visitor& fn) {
  graph::Pattern pattern{s, p, o, {}};
  return ScanEachActiveGraph(
      active_,
      [&](const graph::GraphSelector& g, const Dataset::Visitor& visit) {
        pattern.graph = g;
        return dataset_.Scan(pattern, visit);
      },
      fn);
}

uint64_t Evaluator::EstimateActive(const std::optional<graph::Term>& s, const std::optional<graph::Term>& p,
                                   const std::optional<graph::Term>& o) {
  graph::Pattern pattern{s, p, o, {}};
  uint64_t n = 0;
  ForEachActiveGraph(active_, [&](const graph::GraphSelector& g) {
    pattern.graph = g;
    n += dataset_.Estimate(pattern);
    return true;
  });
  return n;
}

Status Evaluator::ScanIndexActive(const IndexAccess& access, const std::optional<graph::Term>& predicate,
                                  const Dataset::Visitor& fn) {
  return ScanEachActiveGraph(
      active_,
      [&](const graph::GraphSelector& g, const Dataset::Visitor& visit) {
        if (access.temporal()) {
          graph::TemporalQuery query = std::get<graph::TemporalQuery>(access.query);
          query.predicate = predicate;
          query.graph = g;
          return dataset_.ScanTemporal(query, visit);
        }
        return dataset_.ScanText({std::get<graph::TextQueryNode>(access.query), predicate, g}, visit);
      },
      fn);
}

uint64_t Evaluator::EstimateIndexActive(const IndexAccess& access, const std::optional<graph::Term>& predicate,
                                        uint64_t up_to) {
  uint64_t n = 0;
  ForEachActiveGraph(active_, [&](const graph::GraphSelector& g) {
    const uint64_t left = up_to - n;
    if (access.temporal()) {
      graph::TemporalQuery query = std::get<graph::TemporalQuery>(access.query);
      query.predicate = predicate;
      query.graph = g;
      n += std::min(left, dataset_.EstimateTemporal(query, left));
    } else {
      n += std::min(left, dataset_.EstimateText({std::get<graph::TextQueryNode>(access.query), predicate, g}, left));
    }
    return n < up_to;
  });
  return n;
}

bool Evaluator::Holds(const Expr& e, const Solution& s) { return EvaluateBoolean(e, s, context_).value_or(false); }

Result<Solutions> Evaluator::Eval(const Op& op, const Solution& seed) {
  using K = Op::Kind;
  switch (op.kind) {
    case K::kBgp:
      return EvalBgp(op, seed);
    case K::kPath:
      return EvalPath(op, seed);
    case K::kJoin: {
      if (!substitute_all_ && RightFirst(op, seed)) {  // a selective BGP on the right binds the left's scans
        ASSIGN_OR_RETURN(Solutions first, Eval(op.args[1], seed));
        Solutions out;
        for (const Solution& b : first) {
          ASSIGN_OR_RETURN(Solutions rows, Eval(op.args[0], b));
          for (Solution& r : rows) out.push_back(std::move(r));
          RETURN_IF_ERROR(Tick());
        }
        return out;
      }
      ASSIGN_OR_RETURN(Solutions left, Eval(op.args[0], seed));
      Solutions out;
      // A right side sharing no variable with the left runs once (a cross product), not per row.
      const std::set<int>& l = Mentioned(op.args[0]);
      const std::set<int>& r = Mentioned(op.args[1]);
      bool disjoint = std::none_of(r.begin(), r.end(), [&](int s) { return l.count(s) > 0; });
      for (const Solution& a : left) {
        Result<Solutions> rows = disjoint && !substitute_all_ ? EvalIndependent(op.args[1], a) : Eval(op.args[1], a);
        if (!rows.ok()) return rows.status();
        Solutions right = std::move(rows).value();
        if (out.empty()) {
          out = std::move(right);
        } else {
          for (Solution& r : right) out.push_back(std::move(r));
        }
        RETURN_IF_ERROR(Tick());
      }
      return out;
    }
    case K::kLeftJoin:
      return EvalLeftJoin(op, seed);
    case K::kFilter:
      return EvalFilter(op, seed);
    case K::kUnion: {
      ASSIGN_OR_RETURN(Solutions out, Eval(op.args[0], seed));
      ASSIGN_OR_RETURN(Solutions right, Eval(op.args[1], seed));
      for (Solution& r : right) out.push_back(std::move(r));
      return out;
    }
    case K::kMinus:
      return EvalMinus(op, seed);
    case K::kGraph:
      return EvalGraph(op, seed);
    case K::kService:
      return Status::InvalidArgument("SERVICE is not supported");
    case K::kExtend:
      return EvalExtend(op, seed);
    case K::kTable: {
      Solutions out;
      for (const auto& row : op.table.rows) {
        Solution s = seed;
        bool ok = true;
        for (size_t i = 0; i < row.size() && ok; ++i) {
          if (!row[i]) continue;
          int slot = Slot(op.table.vars[i]);
          if (s[slot] && *s[slot] != *row[i]) ok = false;
          s[slot] = row[i];
        }
        if (ok) out.push_back(std::move(s));
      }
      return out;
    }
    default:
      return EvalIndependent(op, seed);
  }
}

}  // namespace webindex::sparql
