// Property paths (§18.4, §9.3): pairs of nodes a path connects. Sequences and alternatives keep
// duplicates; `*`, `+` and `?` are node sets (each end pair once), zero-length steps match every
// node of the active graph when both ends are variables, and a constant end matches itself.
#include <deque>
#include <set>

#include "sparql/eval.h"

namespace webindex::sparql {

using Term = graph::Term;
using Pairs = std::vector<std::pair<Term, Term>>;

class PathEvaluator {
 public:
  explicit PathEvaluator(Evaluator& ev) : ev_(ev) {}

  //! An end the query's earlier patterns bound (not written in the path's triple): a zero-length
  //! path matches it only as a node of the active graph, as when the path is evaluated alone.
  void SetBoundEnds(std::optional<Term> s, std::optional<Term> o) {
    bound_s_ = std::move(s);
    bound_o_ = std::move(o);
  }

  Status Eval(const Path& p, const std::optional<Term>& s, const std::optional<Term>& o, Pairs* out) {
    RETURN_IF_ERROR(ev_.Tick());
    switch (p.kind) {
      case Path::Kind::kIri:
        return ev_.ScanActive(s, Term::Iri(p.iri), o, [&](const graph::Statement& st) {
          out->emplace_back(st.subject, st.object);
          return true;
        });
      case Path::Kind::kInverse: {
        Pairs inner;
        RETURN_IF_ERROR(Eval(p.args[0], o, s, &inner));
        for (auto& [a, b] : inner) out->emplace_back(std::move(b), std::move(a));
        return Status::Ok();
      }
      case Path::Kind::kSequence:
        return Sequence(p, 0, s, o, out);
      case Path::Kind::kAlternative:
        for (const Path& a : p.args) RETURN_IF_ERROR(Eval(a, s, o, out));
        return Status::Ok();
      case Path::Kind::kNegated:
        return Negated(p, s, o, out);
      case Path::Kind::kZeroOrOne: {
        std::set<std::pair<Term, Term>> pairs;
        std::set<Term> nodes;
        RETURN_IF_ERROR(ZeroLength(s, o, &nodes));
        for (const Term& n : nodes) pairs.emplace(n, n);
        Pairs one;
        RETURN_IF_ERROR(Eval(p.args[0], s, o, &one));
        pairs.insert(one.begin(), one.end());
        out->insert(out->end(), pairs.begin(), pairs.end());
        return Status::Ok();
      }
      case Path::Kind::kZeroOrMore:
      case Path::Kind::kOneOrMore:
        return Closure(p, s, o, out);
    }
    return Status::Ok();
  }

 private:
  Status Sequence(const Path& p, size_t from, const std::optional<Term>& s, const std::optional<Term>& o, Pairs* out) {
    if (from + 1 == p.args.size()) return Eval(p.args[from], s, o, out);
    Pairs first;
    RETURN_IF_ERROR(Eval(p.args[from], s, std::nullopt, &first));
    for (auto& [a, mid] : first) {
      Pairs rest;
      RETURN_IF_ERROR(Sequence(p, from + 1, mid, o, &rest));
      for (auto& [m, b] : rest) out->emplace_back(a, std::move(b));
    }
    return Status::Ok();
  }

  Status Negated(const Path& p, const std::optional<Term>& s, const std::optional<Term>& o, Pairs* out) {
    std::set<std::string> forward, inverse;
    for (const Path& m : p.args) {
      if (m.kind == Path::Kind::kInverse) {
        inverse.insert(m.args[0].iri);
      } else {
        forward.insert(m.iri);
      }
    }
    if (!forward.empty() || inverse.empty()) {
      RETURN_IF_ERROR(ev_.ScanActive(s, std::nullopt, o, [&](const graph::Statement& st) {
        if (!forward.count(st.predicate.value())) out->emplace_back(st.subject, st.object);
        return true;
      }));
    }
    if (!inverse.empty()) {
      RETURN_IF_ERROR(ev_.ScanActive(o, std::nullopt, s, [&](const graph::Statement& st) {
        if (!inverse.count(st.predicate.value())) out->emplace_back(st.object, st.subject);
        return true;
      }));
    }
    return Status::Ok();
  }

  //! The nodes a zero-length path connects to themselves.
  Status ZeroLength(const std::optional<Term>& s, const std::optional<Term>& o, std::set<Term>* nodes) {
    if (s && o) {
      if (*s == *o && ZeroEnd(*s)) nodes->insert(*s);
      return Status::Ok();
    }
    if (s || o) {
      if (ZeroEnd(s ? *s : *o)) nodes->insert(s ? *s : *o);
      return Status::Ok();
    }
    return ev_.ScanActive(std::nullopt, std::nullopt, std::nullopt, [&](const graph::Statement& st) {
      nodes->insert(st.subject);
      nodes->insert(st.object);
      return true;
    });
  }

  //! The nodes reachable from `start` by `step` (forward) one or more times; `start` itself too for `*`.
  Status Reach(const Path& step, const Term& start, bool forward, bool zero, std::set<Term>* seen) {
    if (zero && ZeroEnd(start)) seen->insert(start);
    std::deque<Term> todo{start};
    while (!todo.empty()) {
      Term x = std::move(todo.front());
      todo.pop_front();
      Pairs next;
      RETURN_IF_ERROR(forward ? Eval(step, x, std::nullopt, &next) : Eval(step, std::nullopt, x, &next));
      for (auto& [a, b] : next) {
        const Term& y = forward ? b : a;
        if (seen->insert(y).second) todo.push_back(y);
      }
    }
    return Status::Ok();
  }

  Status Closure(const Path& p, const std::optional<Term>& s, const std::optional<Term>& o, Pairs* out) {
    bool zero = p.kind == Path::Kind::kZeroOrMore;
    if (s || o) {
      std::set<Term> seen;
      RETURN_IF_ERROR(Reach(p.args[0], s ? *s : *o, s.has_value(), zero, &seen));
      for (const Term& n : seen) {
        if (s && o && n != *o) continue;
        if (s) {
          out->emplace_back(*s, n);
        } else {
          out->emplace_back(n, *o);
        }
      }
      return Status::Ok();
    }
    std::set<Term> nodes;
    RETURN_IF_ERROR(ZeroLength(std::nullopt, std::nullopt, &nodes));
    for (const Term& start : nodes) {
      std::set<Term> seen;
      RETURN_IF_ERROR(Reach(p.args[0], start, true, zero, &seen));
      for (const Term& n : seen) out->emplace_back(start, n);
    }
    return Status::Ok();
  }

  //! Whether `n` may be a zero-length path's end: written in the query, or a node of the graph.
  bool ZeroEnd(const Term& n) {
    if (n != bound_s_ && n != bound_o_) return true;
    bool found = false;
    auto any = [&](const graph::Statement&) {
      found = true;
      return false;
    };
    ev_.ScanActive(n, std::nullopt, std::nullopt, any).PermitUncheckedError();
    if (!found) ev_.ScanActive(std::nullopt, std::nullopt, n, any).PermitUncheckedError();
    return found;
  }

  Evaluator& ev_;
  std::optional<Term> bound_s_, bound_o_;
};

Result<Solutions> Evaluator::EvalPath(const Op& op, const Solution& seed) {
  const TriplePattern& t = op.triples[0];
  int ss = SlotOf(t.subject), os = SlotOf(t.object);
  auto end = [&](const VarOrTerm& n, int slot) -> std::optional<graph::Term> {
    if (slot < 0) return std::get<graph::Term>(n);
    return seed[slot];
  };
  Pairs pairs;
  PathEvaluator paths(*this);
  paths.SetBoundEnds(ss >= 0 ? seed[ss] : std::nullopt, os >= 0 ? seed[os] : std::nullopt);
  RETURN_IF_ERROR(paths.Eval(*t.path, end(t.subject, ss), end(t.object, os), &pairs));
  Solutions out;
  for (auto& [a, b] : pairs) {
    Solution s = seed;
    if (ss >= 0) s[ss] = std::move(a);
    if (os >= 0) {
      if (s[os] && *s[os] != b) continue;  // ?x path ?x
      s[os] = std::move(b);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace webindex::sparql
