#include "graph/graph_update.h"

#include <algorithm>

namespace webindex::graph {

Status GraphUpdate::Record(Statement statement, bool add) {
  RETURN_IF_ERROR(ValidateStatement(statement));
  std::string key = RowKey(space_, Index::kSpo, statement);
  Op& op = ops_[std::move(key)];
  op.statement = std::move(statement);
  op.add = add;
  return Status::Ok();
}

Result<ApplyResult> GraphUpdate::Apply(state::Store& store, state::WriteBatch& batch) {
  std::vector<std::string> keys;
  keys.reserve(ops_.size());
  for (const auto& [key, op] : ops_) keys.push_back(key);
  std::vector<std::optional<std::string>> present;
  RETURN_IF_ERROR(store.MultiGet(space_.family, keys, &present));

  ApplyResult result;  // ops_ is in SPO key order, which is statement order
  // Rows reach the batch in key order (RocksDB's memtable takes sorted inserts fastest).
  RowBuffer rows;
  size_t i = 0;
  for (auto& [key, op] : ops_) {
    const bool was = present[i++].has_value();
    if (was == op.add) {
      ++result.unchanged;
      continue;
    }
    rows.Add(key, op.add);
    for (size_t k = 1; k < kIndexes.size(); ++k) {
      AppendRowKey(space_, kIndexes[k], op.statement, &rows.Begin());
      rows.End(op.add);
    }
    AppendIndexRows(indexes_, space_, op.statement, op.add, &rows, &result.notes);
    (op.add ? result.added : result.removed).push_back(std::move(op.statement));
  }
  rows.Sort();
  batch.Reserve(rows.size(), rows.bytes());
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows.put(r)) {
      batch.Put(space_.family, rows.key(r), {});
    } else {
      batch.Delete(space_.family, rows.key(r));
    }
  }
  ops_.clear();
  return result;
}

}  // namespace webindex::graph
