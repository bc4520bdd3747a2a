// ExplainPlan: the operators of a query's plan, indented, with each BGP's scan order as the
// evaluator would choose it when the variables bound by the operators to its left are bound.
#include "sparql/explain.h"

#include "graph/key_codec.h"
#include "sparql/eval.h"
#include "sparql/sexpr.h"

namespace webindex::sparql {

namespace {

const char* IndexName(graph::Index index) {
  switch (index) {
    case graph::Index::kSpo:
      return "SPO";
    case graph::Index::kSop:
      return "SOP";
    case graph::Index::kPos:
      return "POS";
    case graph::Index::kOsp:
      return "OSP";
  }
  return "?";
}

std::string Node(const VarOrTerm& n) {
  if (const Var* v = std::get_if<Var>(&n)) return "?" + v->name;
  return graph::ToNTriples(std::get<graph::Term>(n));
}

class Explainer {
 public:
  explicit Explainer(Evaluator& ev) : ev_(ev) {}

  void Walk(const Op& op, std::vector<bool> bound, int depth) {
    std::string pad(2 * depth, ' ');
    using K = Op::Kind;
    if (op.kind == K::kBgp) return Bgp(op, bound, pad);
    std::string head = ToSExpr(op);
    head = head.substr(0, head.find(' '));
    if (op.kind == K::kPath) {
      out_ += pad + "path " + PatternText(op.triples[0]) + "\n";
      return;
    }
    out_ += pad + head.substr(1);
    if (op.kind == K::kJoin || op.kind == K::kLeftJoin) {
      K right = op.args[1].kind;
      bool once = right == K::kGroup || right == K::kProject || right == K::kDistinct || right == K::kReduced ||
                  right == K::kSlice || right == K::kOrderBy;
      out_ +=
          once ? " (hash join: the right side runs once)" : " (nested loop: the left side's bindings scan the right)";
    }
    for (const Expr& e : op.exprs) out_ += " " + ToSExpr(e);
    out_ += "\n";
    for (size_t i = 0; i < op.args.size(); ++i) {
      Walk(op.args[i], bound, depth + 1);
      if (op.kind == K::kJoin || op.kind == K::kLeftJoin) {
        for (int s : CertainSlots(op.args[i], ev_)) bound[s] = true;
      }
    }
  }

  std::string text() const { return out_; }

 private:
  void Bgp(const Op& op, const std::vector<bool>& bound, const std::string& pad) {
    out_ += pad + "bgp\n";
    const BgpPlan& plan = ev_.PlanBgp(op, ev_.Empty(), &bound);
    std::vector<bool> now = bound;
    for (size_t step = 0; step <= plan.order.size(); ++step) {
      for (int f : plan.filters_after[step]) out_ += pad + "  filter " + ToSExpr(op.exprs[f]) + "\n";
      if (step == plan.order.size()) break;
      const TriplePattern& t = op.triples[plan.order[step]];
      graph::Pattern p;
      std::optional<graph::Term>* cells[3] = {&p.subject, &p.predicate, &p.object};
      const VarOrTerm* nodes[3] = {&t.subject, &t.predicate, &t.object};
      for (int k = 0; k < 3; ++k) {
        int s = ev_.SlotOf(*nodes[k]);
        if (s < 0 || now[s]) *cells[k] = graph::Term::Iri("bound");
      }
      out_ += pad + "  " + std::to_string(step + 1) + ". " + PatternText(t) + "  ";
      if (!plan.access[step]) {
        out_ += "scan ";
        out_ += IndexName(graph::IndexFor(p));
      } else {
        out_ += plan.access[step]->temporal() ? "temporal index" : "free-text index";
        // A search of a known predicate reads that predicate's postings where they are kept.
        if (!plan.access[step]->temporal() && p.predicate && ev_.dataset().Indexes().freetext_by_predicate) {
          out_ += " by predicate";
        }
      }
      out_ += ", estimate " + std::to_string(plan.estimates[step]) + "\n";
      for (const VarOrTerm* n : nodes) {
        if (int s = ev_.SlotOf(*n); s >= 0) now[s] = true;
      }
    }
  }

  Evaluator& ev_;
  std::string out_;
};

}  // namespace

std::string PatternText(const TriplePattern& t) {
  return Node(t.subject) + " " + (t.path ? ToSExpr(*t.path) : Node(t.predicate)) + " " + Node(t.object);
}

Result<std::string> ExplainPlan(const Query& query, Dataset& dataset) {
  ExecuteOptions options;
  Evaluator ev(dataset, options);
  Op op = ev.Prepare(TranslateQuery(query));
  RETURN_IF_ERROR(ev.SetDataset(query));
  Explainer explainer(ev);
  explainer.Walk(op, std::vector<bool>(ev.vars().size()), 0);
  return explainer.text();
}

}  // namespace webindex::sparql
