// Writes collected during a batch and handed to a WriteBatch in key order: RocksDB's memtable
// takes sorted inserts fastest (each starts where the previous one ended). Keys and values go
// one after the other into two buffers, not into a string each: a batch writes up to millions
// of rows, and an allocation and a free per row would cost as much as the inserts. One thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "state/store.h"

namespace webindex::state {

class SortedWrites {
 public:
  //! Starts a write: its key is what is appended to the returned buffer until EndPut/EndDelete.
  std::string& BeginKey() { return keys_; }
  void EndPut(std::string_view value);
  void EndDelete();
  void Put(std::string_view key, std::string_view value) {
    BeginKey().append(key);
    EndPut(value);
  }
  void Delete(std::string_view key) {
    BeginKey().append(key);
    EndDelete();
  }
  //! Writes collected (before Sort, with the repeats of a key).
  size_t size() const { return writes_.size(); }
  bool empty() const { return writes_.empty(); }

  //! Orders the writes by key, the writes of one key in the order they were made (once: until
  //! the next write, a second Sort does nothing). Writes made in key order before the others
  //! cost no sorting.
  void Sort();
  //! After Sort: the i-th write's key, value (a put), and whether a later write of the same key
  //! replaces it.
  std::string_view key(size_t i) const { return KeyOf(writes_[i]); }
  bool put(size_t i) const { return writes_[i].value_size != kDelete; }
  std::string_view value(size_t i) const {
    return put(i) ? std::string_view(values_).substr(writes_[i].value, writes_[i].value_size) : std::string_view();
  }
  bool replaced(size_t i) const { return i + 1 < writes_.size() && key(i + 1) == key(i); }

  //! Sorts, adds the last write of each key to `batch` in key order, and starts over empty.
  void AddTo(Family family, WriteBatch& batch);
  void Clear();

 private:
  static constexpr uint32_t kDelete = UINT32_MAX;
  struct Write {
    size_t key, value;  // offsets in keys_, values_
    uint32_t key_size, value_size;  // value_size kDelete: a delete
    size_t order;       // the how-manieth write: among equal keys, the later wins
  };
  std::string_view KeyOf(const Write& w) const { return std::string_view(keys_).substr(w.key, w.key_size); }
  std::string keys_, values_;
  std::vector<Write> writes_;
  size_t begun_ = 0;  // where the key being appended starts in keys_
  bool sorted_ = false;  // Sort ran since the last write
};

}  // namespace webindex::state
