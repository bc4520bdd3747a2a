#include "graph/index_set.h"

#include <algorithm>

#include "graph/temporal_index.h"
#include "graph/text_index.h"

namespace webindex::graph {

namespace {

//! Multikey quicksort (Bentley and Sedgewick, 1997) of rows whose keys share their first
//! `depth` bytes: a comparison sort compares the long prefixes rows share (the graph, a
//! predicate, a subject) again at every step; this one partitions on one byte at a time.
class KeySorter {
 public:
  explicit KeySorter(std::string_view bytes) : bytes_(bytes) {}

  template <typename Row>
  void Sort(Row* rows, size_t n, size_t depth, int levels = 0) {
    if (levels > kMaxLevels) {  // pivots that keep missing: a comparison sort bounds the stack
      std::sort(rows, rows + n, [&](const Row& a, const Row& b) { return Less(a, b, depth); });
      return;
    }
    while (n > kSmall) {
      std::swap(rows[0], rows[n / 2]);
      const int pivot = At(rows[0], depth);
      // rows[0, lt) < pivot, [lt, i) == pivot, [gt, n) > pivot.
      size_t lt = 0, i = 0, gt = n;
      while (i < gt) {
        const int c = At(rows[i], depth);
        if (c < pivot) {
          std::swap(rows[lt++], rows[i++]);
        } else if (c > pivot) {
          std::swap(rows[i], rows[--gt]);
        } else {
          ++i;
        }
      }
      Sort(rows, lt, depth, levels + 1);
      Sort(rows + gt, n - gt, depth, levels + 1);
      rows += lt;
      n = gt - lt;
      if (pivot < 0) {  // equal keys, all ended here
        std::sort(rows, rows + n, [](const Row& a, const Row& b) { return a.put < b.put; });
        return;
      }
      ++depth;
    }
    for (size_t i = 1; i < n; ++i) {  // insertion sort, comparing from `depth` on
      for (size_t j = i; j > 0 && Less(rows[j], rows[j - 1], depth); --j) std::swap(rows[j], rows[j - 1]);
    }
  }

 private:
  static constexpr size_t kSmall = 12;
  static constexpr int kMaxLevels = 64;
  template <typename Row>
  int At(const Row& r, size_t depth) const {
    return depth < r.size ? static_cast<unsigned char>(bytes_[r.offset + depth]) : -1;
  }
  template <typename Row>
  bool Less(const Row& a, const Row& b, size_t depth) const {
    const int c = bytes_.substr(a.offset + depth, a.size - depth).compare(bytes_.substr(b.offset + depth, b.size - depth));
    return c < 0 || (c == 0 && a.put < b.put);
  }
  std::string_view bytes_;
};

}  // namespace

void RowBuffer::Sort() { KeySorter(bytes_).Sort(rows_.data(), rows_.size(), 0); }

void AppendIndexRows(const IndexSet& indexes, const KeySpace& space, const Statement& statement, bool add,
                     RowBuffer* rows, IndexNotes* notes) {
  AppendTemporalRows(indexes, space, statement, add, rows, notes);
  AppendTextRows(indexes, space, statement, add, rows);
}

Result<IndexSet> RecordedIndexes(state::Store& store) {
  IndexSet s;
  ASSIGN_OR_RETURN(auto temporal, store.Get(state::Family::kMeta, kTemporalKey));
  ASSIGN_OR_RETURN(auto freetext, store.Get(state::Family::kMeta, kFreeTextKey));
  ASSIGN_OR_RETURN(auto predicates, store.Get(state::Family::kMeta, kTemporalPredicatesKey));
  s.temporal = temporal && *temporal == "1";
  s.freetext = freetext && *freetext == "1";
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
  batch->Put(state::Family::kMeta, kTemporalPredicatesKey, predicates);
}

}  // namespace webindex::graph
