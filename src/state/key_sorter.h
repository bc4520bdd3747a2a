// The in-memory key sort of state/ (SortedWrites, ExternalSorter): entries that point into one
// buffer of keys, ordered by key and, among equal keys, by the order they were made. Header-only,
// internal to state/. One thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <utility>

namespace webindex::state {

//! Multikey quicksort (Bentley and Sedgewick, 1997) of entries whose keys share their first
//! `depth` bytes. A comparison sort compares again, at every step, the long prefixes that keys
//! of one batch share (a table row, a graph and predicate); this one partitions on one byte at a
//! time and looks at each byte of a shared prefix about once per level.
//! `Entry` has `key` (offset in `keys`) and `key_size`; `kOrder` names its member that grows with
//! the order entries were made, which breaks ties, so the result is that of a stable sort.
template <typename Entry, auto kOrder>
class KeySorter {
 public:
  explicit KeySorter(std::string_view keys) : keys_(keys) {}

  void Sort(Entry* w, size_t n, size_t depth, int levels = 0) {
    if (levels > kMaxLevels) {  // pivots that keep missing: a comparison sort bounds the stack
      std::sort(w, w + n, [&](const Entry& a, const Entry& b) { return Less(a, b, depth); });
      return;
    }
    while (n > kSmall) {
      std::swap(w[0], w[n / 2]);
      const int pivot = At(w[0], depth);
      // w[0, lt) < pivot, [lt, i) == pivot, [gt, n) > pivot.
      size_t lt = 0, i = 0, gt = n;
      while (i < gt) {
        const int c = At(w[i], depth);
        if (c < pivot) {
          std::swap(w[lt++], w[i++]);
        } else if (c > pivot) {
          std::swap(w[i], w[--gt]);
        } else {
          ++i;
        }
      }
      Sort(w, lt, depth, levels + 1);
      Sort(w + gt, n - gt, depth, levels + 1);
      w += lt;
      n = gt - lt;
      if (pivot < 0) {  // equal keys, all ended here: in the order they were made
        std::sort(w, w + n, [](const Entry& a, const Entry& b) { return a.*kOrder < b.*kOrder; });
        return;
      }
      ++depth;
    }
    for (size_t i = 1; i < n; ++i) {  // insertion sort, comparing from `depth` on
      for (size_t j = i; j > 0 && Less(w[j], w[j - 1], depth); --j) std::swap(w[j], w[j - 1]);
    }
  }

 private:
  static constexpr size_t kSmall = 12;
  static constexpr int kMaxLevels = 64;
  int At(const Entry& w, size_t depth) const {
    return depth < w.key_size ? static_cast<unsigned char>(keys_[w.key + depth]) : -1;
  }
  bool Less(const Entry& a, const Entry& b, size_t depth) const {
    const int c = keys_.substr(a.key + depth, a.key_size - depth).compare(keys_.substr(b.key + depth, b.key_size - depth));
    return c < 0 || (c == 0 && a.*kOrder < b.*kOrder);
  }
  std::string_view keys_;
};

}  // namespace webindex::state
