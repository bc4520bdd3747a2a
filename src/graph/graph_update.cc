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
  ops_.push_back({std::move(key), std::move(statement), add});
}

Result<ApplyResult> GraphUpdate::Apply(state::Store& store, state::WriteBatch& batch) {
  state::SortedWrites rows;
  ASSIGN_OR_RETURN(ApplyResult result, Collect(store, &rows));
  rows.AddTo(space_.family, batch);
  return result;
}

Result<ApplyResult> GraphUpdate::Collect(state::Store& store, state::SortedWrites* out, const BatchStatements* before,
                                         BatchStatements* after) {
  // The ops in key order (statement order), the last one of each statement only. Statements
  // mostly come grouped by subject and in order (a record holds one subject's), so the order
  // is often there already.
  order_.resize(ops_.size());
  for (uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
  auto by_key = [this](uint32_t a, uint32_t b) { return ops_[a].key < ops_[b].key; };
  if (!std::is_sorted(order_.begin(), order_.end(), by_key)) std::stable_sort(order_.begin(), order_.end(), by_key);
  size_t kept = 0;
  for (size_t i = 0; i < order_.size(); ++i) {
    if (i + 1 < order_.size() && ops_[order_[i + 1]].key == ops_[order_[i]].key) continue;  // a later op wins
    order_[kept++] = order_[i];
  }
  order_.resize(kept);

  std::vector<std::string_view> keys;
  keys.reserve(order_.size());
  for (uint32_t i : order_) keys.push_back(ops_[i].key);
  std::vector<std::optional<std::string>> present;
  RETURN_IF_ERROR(store.MultiGet(space_.family, keys, &present, /*sorted=*/true));
  if (before != nullptr && before->size() > 0) {
    BatchStatements::Cursor cursor(*before);  // both in key order
    for (size_t i = 0; i < keys.size(); ++i) {
      if (const auto was = cursor.Find(keys[i])) present[i] = *was ? std::optional<std::string>("") : std::nullopt;
    }
  }

  ApplyResult result;  // in statement order
  // Rows are sorted, to reach the batch in key order (RocksDB's memtable takes sorted inserts
  // fastest; the graph stage's two lanes add two such runs one after the other). The SPO and
  // SOP rows come first, in key order already (SortedWrites sorts only the others). Then the
  // others, the removals' rows first: of two statements that share a derived row (two long
  // literals of one subject and predicate with one digest, docs/graph.md), the one added keeps it.
  state::SortedWrites& rows = *out;
  changed_.clear();
  for (size_t i = 0; i < order_.size(); ++i) {
    const Op& op = ops_[order_[i]];
    if (present[i].has_value() == op.add) continue;  // unchanged
    changed_.push_back(order_[i]);
    rows.BeginKey().append(op.key);
    EndRow(&rows, op.add);
  }
  // The SOP rows next, in key order too: in SPO order the statements of one graph and subject
  // come together, and only theirs need ordering, by object and predicate.
  for (size_t first = 0, end = 0; first < changed_.size(); first = end) {
    const Statement& s = ops_[changed_[first]].statement;
    for (end = first + 1; end < changed_.size(); ++end) {
      const Statement& t = ops_[changed_[end]].statement;
      if (t.subject != s.subject || t.graph != s.graph) break;
    }
    if (sop_.size() < end - first) sop_.resize(end - first);
    sop_order_.clear();
    for (size_t i = first; i < end; ++i) {
      sop_[i - first].clear();
      AppendRowKey(space_, Index::kSop, ops_[changed_[i]].statement, &sop_[i - first]);
      sop_order_.push_back(static_cast<uint32_t>(i - first));
    }
    std::sort(sop_order_.begin(), sop_order_.end(), [this](uint32_t a, uint32_t b) { return sop_[a] < sop_[b]; });
    for (uint32_t k : sop_order_) {
      rows.BeginKey().append(sop_[k]);
      EndRow(&rows, ops_[changed_[first + k]].add);
    }
  }
  result.unchanged = order_.size() - changed_.size();
  for (const bool add : {false, true}) {
    for (uint32_t i : changed_) {
      Op& op = ops_[i];
      if (op.add != add) continue;
      static_assert(kIndexes[0] == Index::kSpo && kIndexes[1] == Index::kSop, "written above");
      for (size_t k = 2; k < kIndexes.size(); ++k) {  // POS and OSP
        AppendRowKey(space_, kIndexes[k], op.statement, &rows.BeginKey());
        EndRow(&rows, add);
      }
      AppendIndexRows(indexes_, space_, op.statement, add, &rows, &result.notes);
      (add ? result.added : result.removed).push_back(std::move(op.statement));
    }
  }
  rows.Sort();
  if (after != nullptr) {  // `before` is read: it may be `after`
    after->Clear();
    for (uint32_t i : order_) after->NoteNext(std::move(ops_[i].key), ops_[i].add);
  }
  ops_.clear();
  return result;
}

}  // namespace webindex::graph
