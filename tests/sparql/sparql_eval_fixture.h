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
