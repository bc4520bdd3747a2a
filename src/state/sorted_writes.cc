#include "state/sorted_writes.h"

#include <algorithm>
#include <utility>

#include "state/key_sorter.h"

namespace webindex::state {

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
    KeySorter<Write, &Write::order>(keys_).Sort(writes_.data() + run, writes_.size() - run, 0);
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
