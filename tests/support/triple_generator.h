// Random records for topic `triples`, for the graph stage's tests: adds and removes over a small
// universe of terms (so that statements repeat, are removed while absent, come back), in the
// default graph, a named graph and a blank-node graph, some records invalid; and the reference
// they must leave: a set of canonical N-Quads lines.
#pragma once

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace webindex::testing {

struct TripleRecord {
  std::string key;   //!< the subject, as load keys records
  std::string text;  //!< N-Quads lines
  std::string op;    //!< header op: "add", "remove" or "" (absent: add)
  bool invalid = false;  //!< has a bad line: the whole record must be dead-lettered
  std::vector<std::string> quads;  //!< its statements, canonical N-Quads (empty when invalid)
};

class TripleGenerator {
 public:
  explicit TripleGenerator(uint64_t seed) : rng_(seed) {}
  //! One record: 1-4 statements of one subject, sometimes comments, 1 in 12 invalid.
  TripleRecord Next();

 private:
  size_t Pick(size_t n) { return static_cast<size_t>(rng_() % n); }
  std::mt19937_64 rng_;
};

//! Folds a record into `reference`, as the graph stage must (invalid records change nothing).
void Fold(const TripleRecord& record, std::set<std::string>* reference);

}  // namespace webindex::testing
