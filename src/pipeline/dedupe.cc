#include "pipeline/dedupe.h"

#include "common/bytes.h"

namespace webindex::pipeline {

std::string Dedupe::Key(int32_t partition, const std::string& src) const {
  return stage_ + "/" + std::to_string(partition) + "/" + src;
}

Status Dedupe::Load(state::Store& store) {
  const std::string prefix = stage_ + "/";
  auto it = store.NewIterator(state::Family::kDedupe);
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    std::string_view rest = it->key().substr(prefix.size());
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return Status::Corruption("dedupe key " + std::string(it->key()));
    const int32_t partition = std::stoi(std::string(rest.substr(0, slash)));
    uint64_t seq;
    BytesReader r(it->value());
    if (!r.GetFixed64BE(&seq)) return Status::Corruption("dedupe value of " + std::string(it->key()));
    marks_[{partition, std::string(rest.substr(slash + 1))}] = seq;
  }
  return it->status();
}

bool Dedupe::Accept(int32_t partition, const std::string& src, uint64_t seq) {
  auto key = std::make_pair(partition, src);
  auto dirty = dirty_.find(key);
  uint64_t mark = 0;
  bool known = false;
  if (dirty != dirty_.end()) {
    mark = dirty->second;
    known = true;
  } else if (auto it = marks_.find(key); it != marks_.end()) {
    mark = it->second;
    known = true;
  }
  if (known && seq <= mark) return false;
  dirty_[key] = seq;
  return true;
}

void Dedupe::Flush(BatchContext& ctx) {
  for (auto& [key, seq] : dirty_) {
    BytesWriter w;
    w.PutFixed64BE(seq);
    ctx.Put(key.first, state::Family::kDedupe, Key(key.first, key.second), w.str());
    marks_[key] = seq;
  }
  dirty_.clear();
}

void Dedupe::Rollback() { dirty_.clear(); }

}  // namespace webindex::pipeline
