// The temporal index (docs/graph.md, "Temporal index"): statements whose object is an
// xsd:dateTime literal, by their instant in UTC whole seconds, so that before / after / equals /
// within are one range scan (with a predicate: one range of the by-predicate rows). Row keys
// come from AppendTemporalRows; TemporalReader reads one snapshot on one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "graph/graph_query.h"
#include "graph/index_set.h"

namespace webindex::graph {

inline constexpr std::string_view kXsdDateTime = "http://www.w3.org/2001/XMLSchema#dateTime";

//! The instant of an xsd:dateTime lexical form ([-]YYYY-MM-DDThh:mm:ss[.f+][Z|±hh:mm], no zone =
//! UTC, 24:00:00 = the next day's start) in seconds since the epoch, UTC, fractions dropped
//! (floor); nullopt when it is not one.
std::optional<int64_t> ParseXsdDateTime(std::string_view lexical);

//! A query's time: RFC 3339 or an xsd:dateTime lexical form, in whole UTC seconds; nullopt when
//! it is neither (`query temporal`'s options, SPARQL's tempo: functions).
std::optional<int64_t> ParseInstant(std::string_view text);

//! The xsd:dateTime form of an instant in UTC whole seconds ("2015-07-28T03:06:17Z").
std::string FormatXsdDateTime(int64_t seconds);

//! Appends the temporal rows of `statement` when its object is an xsd:dateTime literal (and
//! its predicate is listed, when `indexes.temporal_predicates` is set); counts it in `notes`
//! when the literal does not parse.
void AppendTemporalRows(const IndexSet& indexes, const KeySpace& space, const Statement& statement, bool add,
                        state::SortedWrites* rows, IndexNotes* notes);

//! A temporal query: statements whose instant i satisfies the operator. Instants and the
//! query's times are whole UTC seconds: before: i < t1; after: i > t1; equals: i == t1;
//! within: t1 < i < t2.
struct TemporalQuery {
  enum class Op { kBefore, kAfter, kEquals, kWithin };
  Op op = Op::kEquals;
  int64_t t1 = 0, t2 = 0;
  std::optional<Term> predicate;
  GraphSelector graph;
};

//! True when an instant (whole UTC seconds) satisfies `query`'s operator and times.
inline bool Satisfies(const TemporalQuery& query, int64_t at) {
  switch (query.op) {
    case TemporalQuery::Op::kBefore:
      return at < query.t1;
    case TemporalQuery::Op::kAfter:
      return at > query.t1;
    case TemporalQuery::Op::kEquals:
      return at == query.t1;
    case TemporalQuery::Op::kWithin:
      return at > query.t1 && at < query.t2;
  }
  return false;
}

//! A query from the CLI's --before/--after/--equals/--within (or the API's parameters of the
//! same names): exactly one of them non-empty; times in RFC 3339 (any zone, fractions dropped),
//! `within` as T1/T2 with T1 before T2. `predicate` an IRI, bare or in angle brackets, or
//! empty; `graph` as ParsePattern takes it. InvalidArgument naming the option otherwise.
Result<TemporalQuery> ParseTemporalQuery(std::string_view before, std::string_view after, std::string_view equals,
                                         std::string_view within, std::string_view predicate, std::string_view graph);

//! Reads temporal queries: matches sorted by graph, then instant, then statement; cursor-paged.
class TemporalReader {
 public:
  TemporalReader(state::Store& store, const state::Snapshot* snapshot, KeySpace space = {})
      : store_(store), snapshot_(snapshot), space_(std::move(space)) {}

  //! Calls `fn` with each match after `cursor` ("" from the start), in order, until it returns false.
  Status Scan(const TemporalQuery& query, std::string_view cursor, const GraphReader::Visitor& fn);
  //! Up to `limit` (>= 1) matches after `cursor`; `next` when more follow.
  Result<Page> Query(const TemporalQuery& query, size_t limit, std::string_view cursor = {});

 private:
  state::Store& store_;
  const state::Snapshot* snapshot_;
  KeySpace space_;
};

}  // namespace webindex::graph
