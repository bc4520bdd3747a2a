#include "query/table_source.h"

#include "common/bytes.h"

namespace webindex::query {
namespace {

class StoreRead final : public TableRead {
 public:
  explicit StoreRead(state::Store& store) : store_(store), snap_(store.GetSnapshot()) {}

  Result<std::vector<std::optional<std::string>>> Get(std::string_view,
                                                      const std::vector<std::string>& keys) override {
    std::vector<std::optional<std::string>> values;
    values.reserve(keys.size());
    for (const std::string& key : keys) {
      ASSIGN_OR_RETURN(auto value, store_.Get(state::Family::kTable, key, snap_.get()));
      values.push_back(std::move(value));
    }
    return values;
  }
  Status Scan(std::string_view prefix, std::string_view after, size_t limit, std::vector<KeyValue>* out) override {
    return ScanStore(store_, snap_.get(), prefix, after, limit, out);
  }
  Status ScanDomainIndex(std::string_view prefix, size_t limit, std::vector<KeyValue>* out) override {
    return ScanStoreDomainIndex(store_, snap_.get(), prefix, limit, out);
  }
  Result<std::optional<sink::TableTotals>> Totals() override { return sink::ReadTotals(store_, snap_.get()); }
  Result<int64_t> Position(int32_t, std::string_view key) override { return StorePosition(store_, snap_.get(), key); }

 private:
  state::Store& store_;
  std::unique_ptr<state::Snapshot> snap_;
};

}  // namespace

std::unique_ptr<TableRead> StoreTableSource::Read() { return std::make_unique<StoreRead>(store_); }

Result<int64_t> StorePosition(state::Store& store, const state::Snapshot* snap, std::string_view key) {
  ASSIGN_OR_RETURN(auto value, store.Get(state::Family::kOffsets, key, snap));
  if (!value) return int64_t{-1};
  uint64_t next = 0;
  BytesReader r(*value);
  if (!r.GetFixed64BE(&next)) {
    return Status::Corruption("offsets: the value of '" + std::string(key) + "' is no offset");
  }
  return static_cast<int64_t>(next);
}

Status ScanStore(state::Store& store, const state::Snapshot* snap, std::string_view prefix, std::string_view after,
                 size_t limit, std::vector<KeyValue>* out) {
  out->clear();
  if (limit == 0) return Status::Ok();
  auto it = store.NewIterator(state::Family::kTable, snap);
  if (after.empty() || after < prefix) {
    it->Seek(prefix);
  } else {
    it->Seek(after);
    if (it->Valid() && it->key() == after) it->Next();
  }
  for (; it->Valid() && it->key().starts_with(prefix) && out->size() < limit; it->Next()) {
    out->push_back({std::string(it->key()), std::string(it->value())});
  }
  return it->status();
}

Status ScanStoreDomainIndex(state::Store& store, const state::Snapshot* snap, std::string_view prefix, size_t limit,
                            std::vector<KeyValue>* out) {
  out->clear();
  if (limit == 0) return Status::Ok();
  auto it = store.NewIterator(state::Family::kMeta, snap);
  const std::string start = sink::DomainIndexKey(prefix);
  for (it->Seek(start); it->Valid() && it->key().starts_with(start) && out->size() < limit; it->Next()) {
    out->push_back({std::string(it->key().substr(sink::kDomainIndexPrefix.size())), std::string(it->value())});
  }
  return it->status();
}

}  // namespace webindex::query
