// GROUP BY and the aggregates (§18.5: Group, Aggregation): rows keyed by the group expressions'
// values, each aggregate fed one value per row into the variable the algebra named for it.
#include <map>

#include "sparql/eval.h"

namespace webindex::sparql {

namespace {

//! COUNT(DISTINCT *): one literal standing for the whole row.
graph::Term RowLiteral(const Solution& row) {
  std::string text;
  for (const auto& v : row) {
    text += v ? graph::ToNTriples(*v) : std::string("UNDEF");
    text += '\x1f';
  }
  return graph::Term::Literal(std::move(text));
}

}  // namespace

Result<Solutions> Evaluator::EvalGroup(const Op& op) {
  ASSIGN_OR_RETURN(Solutions rows, Eval(op.args[0], Empty()));
  using Key = std::vector<std::optional<graph::Term>>;
  std::map<Key, std::vector<std::unique_ptr<Aggregator>>> groups;
  std::vector<Key> order;  // the groups in first-seen order
  if (op.exprs.empty()) {  // one group, even over no rows
    groups[Key{}];
    order.emplace_back();
  }
  auto fresh = [&] {
    std::vector<std::unique_ptr<Aggregator>> aggs;
    for (const auto& [var, e] : op.aggregates) aggs.push_back(MakeAggregator(e));
    return aggs;
  };
  if (op.exprs.empty()) groups[Key{}] = fresh();
  const graph::Term one = graph::Term::Literal("1");
  for (const Solution& row : rows) {
    Key key;
    for (const Expr& e : op.exprs) key.push_back(Evaluate(e, row, context_));
    auto it = groups.find(key);
    if (it == groups.end()) {
      it = groups.emplace(key, fresh()).first;
      order.push_back(key);
    }
    for (size_t a = 0; a < op.aggregates.size(); ++a) {
      const Expr& agg = op.aggregates[a].second;
      if (agg.args.empty()) {
        it->second[a]->Add(agg.distinct ? RowLiteral(row) : one);
      } else {
        it->second[a]->Add(Evaluate(agg.args[0], row, context_));
      }
    }
    RETURN_IF_ERROR(Tick());
  }
  Solutions out;
  for (const Key& key : order) {
    Solution s = Empty();
    for (size_t i = 0; i < op.exprs.size(); ++i) {
      int slot = !op.vars[i].name.empty()               ? Slot(op.vars[i])
                 : op.exprs[i].kind == Expr::Kind::kVar ? vars_.Find(op.exprs[i].name)
                                                        : -1;
      if (slot >= 0) s[slot] = key[i];
    }
    const auto& aggs = groups[key];
    for (size_t a = 0; a < op.aggregates.size(); ++a) s[Slot(op.aggregates[a].first)] = aggs[a]->Result();
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace webindex::sparql
