// TableSource: what the query service reads the query table through. A table is one store (a
// whole table: StoreTableSource) or the shards of a partitioned table (sharded_table.h), each
// holding the rows of the webindex.exports partitions it was given. Every question the service
// answers is made of four reads: cells of one key's rows (they live in that key's shard), cells
// under a key prefix in key order (they may be spread over every shard), entries of the index of
// domain names under a prefix (each domain's in its shard), and the totals.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "sink/summary.h"
#include "state/store.h"

namespace webindex::query {

//! One table cell as stored: its encoded key (sink::EncodeCellKey) and value.
struct KeyValue {
  std::string key, value;
  bool operator==(const KeyValue&) const = default;
};

//! One read of a table: what it returns of one shard comes from one snapshot of that shard.
class TableRead {
 public:
  virtual ~TableRead() = default;
  //! The cells at `keys` (encoded cell keys, all of rows of `owner`: the URI or domain key whose
  //! exports wrote them, so that they are in one shard), nullopt for a cell the table lacks.
  virtual Result<std::vector<std::optional<std::string>>> Get(std::string_view owner,
                                                              const std::vector<std::string>& keys) = 0;
  //! Up to `limit` cells whose keys start with `prefix` and sort strictly after `after` ("":
  //! from the first), in key order, replacing `out`'s contents.
  virtual Status Scan(std::string_view prefix, std::string_view after, size_t limit, std::vector<KeyValue>* out) = 0;
  //! Up to `limit` entries of the sink's index of domains by plain name (sink/summary.h) whose
  //! name starts with `prefix`, in name order, replacing `out`'s contents: key = the name
  //! ("stackoverflow.com"), value = its page count in decimal.
  virtual Status ScanDomainIndex(std::string_view prefix, size_t limit, std::vector<KeyValue>* out) = 0;
  //! The table's totals as the sink keeps them; nullopt when a shard keeps none yet.
  virtual Result<std::optional<sink::TableTotals>> Totals() = 0;
  //! The next offset the sink filling shard `shard` (a whole table: its one store) will read,
  //! stored under `key` of its offsets ("<stage>/<topic>/<partition>", pipeline/runner_keys.h);
  //! -1 when it stored none yet.
  virtual Result<int64_t> Position(int32_t shard, std::string_view key) = 0;
  //! True when each call waits on another process (a shard another member serves, or a merged
  //! read of one): a merged read then asks such shards at once rather than one after another.
  //! Each call of such a read sees a snapshot of its own, not the read's one.
  virtual bool remote() const { return false; }
};

class TableSource {
 public:
  virtual ~TableSource() = default;
  virtual std::unique_ptr<TableRead> Read() = 0;
};

//! A whole table in one store; each Read is one snapshot of it.
class StoreTableSource final : public TableSource {
 public:
  explicit StoreTableSource(state::Store& store) : store_(store) {}
  std::unique_ptr<TableRead> Read() override;

 private:
  state::Store& store_;
};

//! The next offset stored under `key` of `store`'s offsets (as of `snap`), -1 when none is.
Result<int64_t> StorePosition(state::Store& store, const state::Snapshot* snap, std::string_view key);

//! The cells of `store` (as of `snap`) under `prefix` after `after`: StoreTableSource's Scan, for
//! other sources over stores.
Status ScanStore(state::Store& store, const state::Snapshot* snap, std::string_view prefix, std::string_view after,
                 size_t limit, std::vector<KeyValue>* out);
//! StoreTableSource's ScanDomainIndex, for other sources over stores.
Status ScanStoreDomainIndex(state::Store& store, const state::Snapshot* snap, std::string_view prefix, size_t limit,
                            std::vector<KeyValue>* out);

}  // namespace webindex::query
