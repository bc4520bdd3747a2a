#include "state/sorted_writes.h"

#include <algorithm>
#include <utility>

namespace webindex::state {
namespace {

//! Multikey quicksort (Bentley and Sedgewick, 1997) of writes whose keys share their first
//! `depth` bytes. A comparison sort compares again, at every step, the long prefixes that keys
//! of one batch share (a table row, a graph and predicate); this one partitions on one byte at a
//! time and looks at each byte of a shared prefix about once per level.
template <typename Write>
class KeySorter {
 public:
  explicit KeySorter(std::string_view keys) : keys_(keys) {}

  void Sort(Write* w, size_t n, size_t depth, int levels = 0) {
    if (levels > kMaxLevels) {  // pivots that keep missing: a comparison sort bounds the stack
      std::sort(w, w + n, [&](const Write& a, const Write& b) { return Less(a, b, depth); });
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
      if (pivot < 0) {  // equal keys, all ended here: in the order they were written
        std::sort(w, w + n, [](const Write& a, const Write& b) { return a.order < b.order; });
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
  int At(const Write& w, size_t depth) const {
    return depth < w.key_size ? static_cast<unsigned char>(keys_[w.key + depth]) : -1;
  }
  bool Less(const Write& a, const Write& b, size_t depth) const {
    const int c = keys_.substr(a.key + depth, a.key_size - depth).compare(keys_.substr(b.key + depth, b.key_size - depth));
    return c < 0 || (c == 0 && a.order < b.order);
  }
  std::string_view keys_;
};

}  // namespace

void SortedWrites::EndPut(std::string_view value) {
  writes_.push_back({begun_, values_.size(), static_cast<uint32_t>(keys_.size() - begun_),
                     static_cast<uint32_t>(value.size()), writes_.size()});
  values_.append(value);
  begun_ = keys_.size();
  sorted_ = false;
}

void SortedWrites::EndDelete() {
  writes_.push_back({begun_, 0, static_cast<uint32_t>(keys_.size() - begun_), kDelete, writes_.size()});
  begun_ = keys_.size();
  sorted_ = false;
}

void SortedWrites::Sort() {
  if (sorted_) return;
  // The writes at the front already in key order (a caller may write one kind of rows in order
  // first) are left as they are; the rest is sorted, then merged with them.
  size_t run = writes_.empty() ? 0 : 1;
  while (run < writes_.size() && key(run - 1) < key(run)) ++run;
  if (run < writes_.size()) {
    KeySorter<Write>(keys_).Sort(writes_.data() + run, writes_.size() - run, 0);
    std::inplace_merge(writes_.begin(), writes_.begin() + static_cast<std::ptrdiff_t>(run), writes_.end(),
                       [this](const Write& a, const Write& b) {
                         const int c = KeyOf(a).compare(KeyOf(b));
                         return c < 0 || (c == 0 && a.order < b.order);
                       });
  }
  sorted_ = true;
}

void SortedWrites::AddTo(Family family, WriteBatch& batch) {
  Sort();
  batch.Reserve(writes_.size(), keys_.size() + values_.size());
  for (size_t i = 0; i < writes_.size(); ++i) {
    if (replaced(i)) continue;
    if (put(i)) {
      batch.Put(family, key(i), value(i));
    } else {
      batch.Delete(family, key(i));
    }
  }
  Clear();
}

void SortedWrites::Clear() {
  keys_.clear();
  values_.clear();
  writes_.clear();
  begun_ = 0;
  sorted_ = false;
}

}  // namespace webindex::state
