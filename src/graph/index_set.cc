#include "graph/index_set.h"

#include "graph/temporal_index.h"
#include "graph/text_index.h"

namespace webindex::graph {

state::ScanOnlyKeys ScanOnlyRows(const KeySpace& space) {
  static_assert(static_cast<char>(Index::kSop) == 0x02 && static_cast<char>(Index::kOsp) == 0x04 &&
                    kTemporalRows == 0x05 && kTextByPredicateRows == 0x09,
                "the scan-only rows are 02 to 09");
  return {space.family, space.prefix + '\x02', space.prefix + '\x0a'};
}

void AppendIndexRows(const IndexSet& indexes, const KeySpace& space, const Statement& statement, bool add,
                     state::SortedWrites* rows, IndexNotes* notes) {
  AppendTemporalRows(indexes, space, statement, add, rows, notes);
  AppendTextRows(indexes, space, statement, add, rows);
}

Result<IndexSet> RecordedIndexes(state::Store& store) {
  IndexSet s;
  ASSIGN_OR_RETURN(auto temporal, store.Get(state::Family::kMeta, kTemporalKey));
  ASSIGN_OR_RETURN(auto freetext, store.Get(state::Family::kMeta, kFreeTextKey));
  ASSIGN_OR_RETURN(auto by_predicate, store.Get(state::Family::kMeta, kFreeTextByPredicateKey));
  ASSIGN_OR_RETURN(auto predicates, store.Get(state::Family::kMeta, kTemporalPredicatesKey));
  s.temporal = temporal && *temporal == "1";
  s.freetext = freetext && *freetext == "1";
  s.freetext_by_predicate = by_predicate && *by_predicate == "1";
  if (predicates) {
    std::string_view rest = *predicates;
    while (!rest.empty()) {
      const size_t nl = rest.find('\n');
      s.temporal_predicates.emplace_back(rest.substr(0, nl));
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    }
  }
  return s;
}

void RecordIndexes(const IndexSet& indexes, state::WriteBatch* batch) {
  std::string predicates;
  for (const auto& p : indexes.temporal_predicates) predicates += (predicates.empty() ? "" : "\n") + p;
  batch->Put(state::Family::kMeta, kTemporalKey, indexes.temporal ? "1" : "0");
  batch->Put(state::Family::kMeta, kFreeTextKey, indexes.freetext ? "1" : "0");
  batch->Put(state::Family::kMeta, kFreeTextByPredicateKey, indexes.freetext_by_predicate ? "1" : "0");
  batch->Put(state::Family::kMeta, kTemporalPredicatesKey, predicates);
}

}  // namespace webindex::graph
