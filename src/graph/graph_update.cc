#include "graph/graph_update.h"

#include <algorithm>

namespace webindex::graph {

Status GraphUpdate::Record(Statement statement, bool add) {
  RETURN_IF_ERROR(ValidateStatement(statement));
  Put(std::move(statement), add);
  return Status::Ok();
}

void GraphUpdate::Put(Statement statement, bool add) {
  std::string key = RowKey(space_, Index::kSpo, statement);
  Op& op = ops_[std::move(key)];
  op.statement = std::move(statement);
  op.add = add;
}

Result<ApplyResult> GraphUpdate::Apply(state::Store& store, state::WriteBatch& batch) {
  state::SortedWrites rows;
  ASSIGN_OR_RETURN(ApplyResult result, Collect(store, &rows));
  rows.AddTo(space_.family, batch);
  return result;
}

Result<ApplyResult> GraphUpdate::Collect(state::Store& store, state::SortedWrites* out, const BatchStatements* before,
                                         BatchStatements* after) {
  std::vector<std::string> keys;
  keys.reserve(ops_.size());
  for (const auto& [key, op] : ops_) keys.push_back(key);
  std::vector<std::optional<std::string>> present;
  RETURN_IF_ERROR(store.MultiGet(space_.family, keys, &present));

  if (before != nullptr && before->size() > 0) {
    size_t i = 0;
    for (const auto& [key, op] : ops_) {
      if (const auto was = before->Find(key)) present[i] = *was ? std::optional<std::string>("") : std::nullopt;
      ++i;
    }
  }
  if (after != nullptr) {
    after->Clear();
    for (const auto& [key, op] : ops_) after->Note(key, op.add);
  }

  ApplyResult result;  // ops_ is in SPO key order, which is statement order
  // Rows are sorted, to reach the batch in key order (RocksDB's memtable takes sorted inserts
  // fastest; the graph stage's two lanes add two such runs one after the other). The
  // removals' rows first: of two statements that share a derived row (two long literals of one
  // subject and predicate with one digest, docs/graph.md), the one added keeps it.
  state::SortedWrites& rows = *out;
  for (const bool add : {false, true}) {
    size_t i = 0;
    for (auto& [key, op] : ops_) {
      const bool was = present[i++].has_value();
      if (op.add != add) continue;
      if (was == add) {
        ++result.unchanged;
        continue;
      }
      rows.BeginKey().append(key);
      EndRow(&rows, add);
      for (size_t k = 1; k < kIndexes.size(); ++k) {
        AppendRowKey(space_, kIndexes[k], op.statement, &rows.BeginKey());
        EndRow(&rows, add);
      }
      AppendIndexRows(indexes_, space_, op.statement, add, &rows, &result.notes);
      (add ? result.added : result.removed).push_back(std::move(op.statement));
    }
  }
  rows.Sort();
  ops_.clear();
  return result;
}

}  // namespace webindex::graph
