// The indexes derived from statements (docs/graph.md, "Temporal index", "Free-text index"): which
// ones a generation keeps, and their rows, written by GraphUpdate in the same batch as the
// statements' four rows, so that a statement and its index entries come and go together. Stateless; any thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "graph/key_codec.h"
#include "state/sorted_writes.h"
#include "state/store.h"
#include "graph/term.h"

namespace webindex::graph {

//! Row kinds after the key space prefix, beside the four statement orders (01-04).
inline constexpr char kTemporalRows = 0x05;             //!< graph | instant | s p o
inline constexpr char kTemporalByPredicateRows = 0x06;  //!< graph | p | instant | s p o
inline constexpr char kTextRows = 0x07;                 //!< graph | token | s p o
//! graph | token reversed: the words of a graph's text, for suffix wildcards (docs/graph.md).
//! Written when a statement with the word is added and kept when it goes, as Rya keeps its term
//! list; rows written before this form (the same key followed by s p o) read the same.
inline constexpr char kTextReversedRows = 0x08;
//! graph | p | token | s o: the postings of kTextRows again, by predicate, where the generation
//! records them (IndexSet::freetext_by_predicate); the object as in kTextRows (long ones digested).
inline constexpr char kTextByPredicateRows = 0x09;

//! The graph's rows that only scans read (state::StoreOptions::scan_only): the SOP, POS and OSP
//! orders and the derived indexes (02-09). Point reads look for SPO rows (is a statement
//! present?) and the web graph's anchor-text counts (10).
state::ScanOnlyKeys ScanOnlyRows(const KeySpace& space);

//! The derived indexes a generation maintains.
struct IndexSet {
  bool temporal = false;
  //! Temporal: only statements with these predicates (IRIs); empty: every predicate.
  std::vector<std::string> temporal_predicates;
  bool freetext = false;
  //! Free-text: the postings are written by predicate too (kTextByPredicateRows), and a search
  //! with a predicate reads those. Generations set up before these rows existed record none:
  //! they keep writing and reading the rows they have.
  bool freetext_by_predicate = true;

  //! True when the temporal index holds the date-times of `predicate` (an IRI's value): it is
  //! kept, and the predicate is listed or none is.
  bool TemporalHolds(std::string_view predicate) const {
    return temporal && (temporal_predicates.empty() || std::find(temporal_predicates.begin(), temporal_predicates.end(),
                                                                 predicate) != temporal_predicates.end());
  }
  bool operator==(const IndexSet&) const = default;
};

//! Ends the row whose key was appended to rows->BeginKey(): a put of an empty value when `add`,
//! else a delete (the graph's rows are keys only).
inline void EndRow(state::SortedWrites* rows, bool add) {
  if (add) {
    rows->EndPut({});
  } else {
    rows->EndDelete();
  }
}

//! What writing a statement's index rows noticed.
struct IndexNotes {
  //! Objects typed xsd:dateTime that do not parse: stored as statements, not indexed.
  uint64_t unparsed_dates = 0;
  std::string last_unparsed;  //!< the last such lexical form, for a warning
};

//! Appends the derived rows of `statement` (puts when `add`, deletes otherwise) to `rows`.
void AppendIndexRows(const IndexSet& indexes, const KeySpace& space, const Statement& statement, bool add,
                     state::SortedWrites* rows, IndexNotes* notes);

//! kMeta keys of a generation's derived indexes, written when it is set up: "1" or "0" (absent:
//! "0", a generation set up before they existed), and the temporal predicates, one IRI per line.
inline constexpr char kTemporalKey[] = "indexes/temporal";
inline constexpr char kFreeTextKey[] = "indexes/freetext";
inline constexpr char kFreeTextByPredicateKey[] = "indexes/freetext_by_predicate";
inline constexpr char kTemporalPredicatesKey[] = "indexes/temporal_predicates";

//! The derived indexes recorded in a generation's store.
Result<IndexSet> RecordedIndexes(state::Store& store);
//! Records `indexes` in `batch` (with the generation's set-up).
void RecordIndexes(const IndexSet& indexes, state::WriteBatch* batch);

}  // namespace webindex::graph
