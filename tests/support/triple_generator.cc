#include "triple_generator.h"

#include <gtest/gtest.h>

#include "graph/ntriples.h"
#include "graph/term.h"

namespace webindex::testing {

TripleRecord TripleGenerator::Next() {
  static const std::vector<std::string> kSubjects = {"<http://a.example/s1>", "<http://a.example/s2>", "_:b1",
                                                     "<http://b.example/s3>"};
  static const std::vector<std::string> kPredicates = {"<http://a.example/p>", "<http://a.example/q>"};
  static const std::vector<std::string> kObjects = {"<http://a.example/o>", "\"x\"", "\"x\"@en", "\"x\"@EN",
                                                    "\"5\"^^<http://www.w3.org/2001/XMLSchema#integer>", "_:b2",
                                                    "\"tab\\there\""};
  static const std::vector<std::string> kGraphs = {"", "<http://g.example/1>", "_:g"};
  TripleRecord r;
  r.key = kSubjects[Pick(kSubjects.size())];
  const size_t op = Pick(6);
  r.op = op < 2 ? "remove" : op < 4 ? "add" : "";
  r.invalid = Pick(12) == 0;
  for (size_t i = 0, n = 1 + Pick(4); i < n; ++i) {
    std::string line = r.key + " " + kPredicates[Pick(kPredicates.size())] + " " + kObjects[Pick(kObjects.size())];
    const std::string& g = kGraphs[Pick(kGraphs.size())];
    if (!g.empty()) line += " " + g;
    line += " .";
    if (Pick(5) == 0) r.text += "# a comment\n";
    r.text += line + "\n";
    if (r.invalid) continue;
    auto parsed = graph::ParseStatements(line, graph::Syntax::kNQuads);
    EXPECT_TRUE(parsed.ok()) << line;
    if (parsed.ok()) r.quads.push_back(graph::ToNQuads(parsed->front()));  // "x"@EN is "x"@en
  }
  if (r.invalid) r.text += r.key + " <rel> \"bad\" .\n";  // a relative IRI: the record goes whole
  return r;
}

void Fold(const TripleRecord& record, std::set<std::string>* reference) {
  if (record.invalid) return;
  for (const auto& q : record.quads) {
    if (record.op == "remove") {
      reference->erase(q);
    } else {
      reference->insert(q);
    }
  }
}

}  // namespace webindex::testing
