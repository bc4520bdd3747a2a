// Free-text queries (docs/graph.md, "Free-text index"): the query grammar, its evaluation on a
// literal's tokens, and TextReader, which finds matches through the free-text rows. Words AND
// as an intersection of posting scans, OR as a merge, wildcards as a merge over the tokens they
// match; every candidate is checked against the whole query on its literal's tokens, so NOT and
// any nesting are exact. TextReader reads one snapshot on one thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "graph/graph_query.h"
#include "graph/key_codec.h"

namespace webindex::graph {

//! A parsed query. Stop words are gone; a term of several words ("e-mail") is their AND.
struct TextQueryNode {
  enum class Kind { kWord, kPrefix, kSuffix, kAnd, kOr, kNot };
  Kind kind = Kind::kWord;
  std::string word;  //!< kWord, kPrefix, kSuffix: lower case
  std::vector<TextQueryNode> children;
};

inline constexpr size_t kMaxQueryTerms = 100;
//! Tokens one wildcard may stand for; more is an error asking for a longer term.
inline constexpr size_t kMaxWildcardTokens = 10000;

//! Parses `query`. InvalidArgument with the (1-based) character position of the problem, for
//! more than kMaxQueryTerms terms, and for a query with no word left to look for (only stop
//! words, or only negations).
Result<TextQueryNode> ParseTextQuery(std::string_view query);

//! True when a literal with these tokens (sorted, distinct: Tokenize) satisfies `node`.
bool Satisfies(const TextQueryNode& node, const std::vector<std::string>& tokens);

//! The query as text, fully parenthesized ("(cat AND (NOT dog))"), for messages and tests.
std::string ToString(const TextQueryNode& node);

struct TextSearch {
  TextQueryNode query;
  std::optional<Term> predicate;
  GraphSelector graph;
};

//! A search from the CLI's --q/--p/--graph or the API's q/p/graph.
Result<TextSearch> ParseTextSearch(std::string_view query, std::string_view predicate, std::string_view graph);

//! Reads free-text searches: matches sorted by statement (graph, subject, predicate, object),
//! cursor-paged. A search with a predicate reads that predicate's postings when the store
//! records them (IndexSet::freetext_by_predicate), else the graph's, keeping those of the
//! predicate.
class TextReader {
 public:
  TextReader(state::Store& store, const state::Snapshot* snapshot, KeySpace space = {})
      : store_(store), snapshot_(snapshot), space_(std::move(space)) {}

  Status Scan(const TextSearch& search, std::string_view cursor, const GraphReader::Visitor& fn);
  Result<Page> Query(const TextSearch& search, size_t limit, std::string_view cursor = {});

 private:
  //! Scans one graph (its key encoding `graph`) from its first candidate, or strictly after
  //! statement `after` when given. Sets *stopped when `fn` returned false.
  Status ScanGraph(const TextSearch& search, const std::string& graph, const Statement* after,
                   const GraphReader::Visitor& fn, bool* stopped);
  state::Store& store_;
  const state::Snapshot* snapshot_;
  KeySpace space_;
  std::optional<bool> by_predicate_;  //!< the store's postings by predicate, read once
};

}  // namespace webindex::graph
