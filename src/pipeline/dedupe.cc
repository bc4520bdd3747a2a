#include "pipeline/dedupe.h"

#include <charconv>

#include "common/bytes.h"

namespace webindex::pipeline {

Status PartitionMarks::Load(state::Store& store) {
  marks_.clear();
  dirty_.clear();
  auto it = store.NewIterator(state::Family::kDedupe);
  for (it->Seek(prefix_); it->Valid() && it->key().starts_with(prefix_); it->Next()) {
    const std::string_view rest = it->key().substr(prefix_.size());
    int32_t partition = -1;
    const auto parsed = std::from_chars(rest.data(), rest.data() + rest.size(), partition);
    uint64_t mark;
    BytesReader r(it->value());
    if (parsed.ec != std::errc() || partition < 0 || parsed.ptr == rest.data() + rest.size() || *parsed.ptr != '/' ||
        !r.GetFixed64BE(&mark)) {
      return Status::Corruption("mark " + std::string(it->key()) + " in the dedupe family");
    }
    marks_[{partition, std::string(parsed.ptr + 1, rest.data() + rest.size())}] = mark;
  }
  return it->status();
}

std::optional<uint64_t> PartitionMarks::Get(const Key& key) const {
  if (auto dirty = dirty_.find(key); dirty != dirty_.end()) return dirty->second;
  if (auto it = marks_.find(key); it != marks_.end()) return it->second;
  return std::nullopt;
}

void PartitionMarks::Flush(BatchContext& ctx) {
  for (auto& [key, mark] : dirty_) {
    BytesWriter w;
    w.PutFixed64BE(mark);
    ctx.Put(key.first, state::Family::kDedupe, prefix_ + std::to_string(key.first) + "/" + key.second, w.str());
    marks_[key] = mark;
  }
  dirty_.clear();
}

bool Dedupe::Accept(int32_t partition, const std::string& src, uint64_t seq) {
  auto key = std::make_pair(partition, src);
  if (const auto mark = marks_.Get(key); mark && seq <= *mark) return false;
  marks_.Set(std::move(key), seq);
  return true;
}

}  // namespace webindex::pipeline
