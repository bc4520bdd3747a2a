// Shared by the evaluator's tests: a MemoryDataset filled from N-Quads, queries run through
// ParseQuery and Execute, rows printed as sorted text so expectations read like tables.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "graph/ntriples.h"
#include "sparql/execute.h"
#include "sparql/memory_dataset.h"
#include "sparql/parser.h"

namespace webindex::sparql {

//! A dataset that answers as `inner` does: tests derive from it to count, reorder or withhold
//! what they are about and forward the rest.
class ForwardingDataset : public Dataset {
 public:
  explicit ForwardingDataset(Dataset& inner) : inner_(inner) {}
  Status Scan(const graph::Pattern& p, const Visitor& fn) override { return inner_.Scan(p, fn); }
  uint64_t Estimate(const graph::Pattern& p) override { return inner_.Estimate(p); }
  Status NamedGraphs(const std::function<bool(const graph::Term& name)>& fn) override {
    return inner_.NamedGraphs(fn);
  }
  Status ScanTemporal(const graph::TemporalQuery& q, const Visitor& fn) override { return inner_.ScanTemporal(q, fn); }
  Status ScanText(const graph::TextSearch& s, const Visitor& fn) override { return inner_.ScanText(s, fn); }
  graph::IndexSet Indexes() override { return inner_.Indexes(); }
  uint64_t EstimateTemporal(const graph::TemporalQuery& q, uint64_t up_to) override {
    return inner_.EstimateTemporal(q, up_to);
  }
  uint64_t EstimateText(const graph::TextSearch& s, uint64_t up_to) override { return inner_.EstimateText(s, up_to); }

 protected:
  Dataset& inner_;
};

inline void Load(MemoryDataset* ds, const std::string& nquads) {
  Result<std::vector<graph::Statement>> st = graph::ParseStatements(nquads, graph::Syntax::kNQuads);
  ASSERT_TRUE(st.ok()) << st.status().message();
  for (graph::Statement& s : *st) ds->Add(std::move(s));
}

inline Result<QueryResult> RunQuery(Dataset& ds, const std::string& text, const ExecuteOptions& options = {}) {
  Result<Query> q = ParseQuery("PREFIX : <http://e/> " + text);
  if (!q.ok()) return q.status();
  return Execute(*q, ds, options);
}

//! One line per row, "?a=<x> ?b=-" in projection order; sorted unless the query is ordered.
inline std::vector<std::string> Rows(Dataset& ds, const std::string& text) {
  Result<QueryResult> r = RunQuery(ds, text);
  EXPECT_TRUE(r.ok()) << r.status().message() << "\n" << text;
  if (!r.ok()) return {"error: " + r.status().message()};
  std::vector<std::string> out;
  for (const auto& row : r->rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0) line += " ";
      std::string v = row[i] ? graph::ToNTriples(*row[i]) : "-";
      if (row[i] && row[i]->datatype() == "http://www.w3.org/2001/XMLSchema#integer") v = row[i]->value();
      const std::string prefix = "<http://e/";
      if (v.rfind(prefix, 0) == 0) v = ":" + v.substr(prefix.size(), v.size() - prefix.size() - 1);
      line += v;
    }
    out.push_back(line);
  }
  if (!r->ordered) std::sort(out.begin(), out.end());
  return out;
}

using Lines = std::vector<std::string>;

}  // namespace webindex::sparql
