// Basic graph patterns as index nested loops: each step substitutes the bindings so far into
// its pattern and scans only the matches; pushed-down FILTERs prune as soon as they can.
#include "sparql/eval.h"

namespace webindex::sparql {

namespace {

class BgpRun {
 public:
  BgpRun(Evaluator& ev, const Op& op, const BgpPlan& plan, Solution seed, Solutions* out, uint64_t limit)
      : ev_(ev), op_(op), plan_(plan), cur_(std::move(seed)), out_(out), limit_(limit) {}

  Status Step(size_t i) {
    if (out_->size() >= limit_) return Status::Ok();
    for (int f : plan_.filters_after[i]) {
      if (!EvaluateBoolean(op_.exprs[f], cur_, ev_.context()).value_or(false)) return Status::Ok();
    }
    if (i == plan_.order.size()) {
      out_->push_back(cur_);
      return ev_.Tick();
    }
    const TriplePattern& t = op_.triples[plan_.order[i]];
    int slots[3];
    std::optional<graph::Term> terms[3];
    const VarOrTerm* nodes[3] = {&t.subject, &t.predicate, &t.object};
    for (int k = 0; k < 3; ++k) {
      slots[k] = ev_.SlotOf(*nodes[k]);
      if (slots[k] < 0) {
        terms[k] = std::get<graph::Term>(*nodes[k]);
      } else if (cur_[slots[k]]) {
        terms[k] = cur_[slots[k]];
        slots[k] = -1;
      }
    }
    const std::optional<IndexAccess>& access = plan_.access[i];
    Status status;
    const Dataset::Visitor visit = [&](const graph::Statement& st) {
      status = ev_.Tick();
      if (!status.ok()) return false;
      const graph::Term* values[3] = {&st.subject, &st.predicate, &st.object};
      // An index read matches on the object's value only: the pattern's terms are checked here.
      if (access && ((terms[0] && *terms[0] != st.subject) || (terms[1] && *terms[1] != st.predicate))) return true;
      int set[3];
      int n = 0;
      bool ok = true;
      for (int k = 0; k < 3 && ok; ++k) {
        if (slots[k] < 0) continue;
        auto& cell = cur_[slots[k]];
        if (cell) {
          ok = *cell == *values[k];  // the same variable twice in one pattern
        } else {
          cell = *values[k];
          set[n++] = slots[k];
        }
      }
      if (ok) status = Step(i + 1);
      for (int k = 0; k < n; ++k) cur_[set[k]].reset();
      return status.ok() && out_->size() < limit_;
    };
    Status scan = access ? ev_.ScanIndexActive(*access, terms[1], visit) : ev_.ScanActive(terms[0], terms[1], terms[2], visit);
    RETURN_IF_ERROR(scan);
    return status;
  }

 private:
  Evaluator& ev_;
  const Op& op_;
  const BgpPlan& plan_;
  Solution cur_;
  Solutions* out_;
  uint64_t limit_;
};

}  // namespace

Result<Solutions> Evaluator::EvalBgp(const Op& op, const Solution& seed) {
  Solutions out;
  if (op.triples.empty()) {
    for (const Expr& e : op.exprs) {
      if (!Holds(e, seed)) return out;
    }
    out.push_back(seed);
    return out;
  }
  Solution start = seed;
  start.resize(vars_.size());
  // FILTER(?v = <iri>) binds ?v: only that IRI passes, so the scans can use it (the filter still runs).
  for (const Expr& e : op.exprs) {
    if (e.kind != Expr::Kind::kEqual) continue;
    const Expr* var = &e.args[0];
    const Expr* term = &e.args[1];
    if (var->kind != Expr::Kind::kVar) std::swap(var, term);
    if (var->kind != Expr::Kind::kVar || term->kind != Expr::Kind::kTerm || !term->term.is_iri()) continue;
    int slot = vars_.Find(var->name);
    if (slot < 0) continue;
    if (start[slot] && *start[slot] != term->term) return out;
    start[slot] = term->term;
  }
  const BgpPlan& plan = PlanBgp(op, start);
  auto limit = row_limits_.find(&op);
  BgpRun run(*this, op, plan, std::move(start), &out, limit == row_limits_.end() ? UINT64_MAX : limit->second);
  RETURN_IF_ERROR(run.Step(0));
  return out;
}

}  // namespace webindex::sparql
