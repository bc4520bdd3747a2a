// ShardedTableSource: a partitioned query table read as one. Shard p holds the table rows that
// the exports of partition p of webindex.exports wrote (docs/scale-out.md §6): the rows of a key
// (a page's page|cur and page|incount cells, a domain's page count) live in the shard of that
// key, so they are read from it alone; rows sorted across keys (t: rows, a domain's ranked pages,
// a page's inlinks, which its linking pages' exports write) are spread over every shard and are
// read as the k-way merge of each shard's first cells after the cursor, so that cursors, which
// name a table key, page exactly across shards. A read that scans on from where its last scan
// ended merges what that one left over, so paging through a range fetches each cell about once.
// The index of domain names (each domain's entry in its shard) is merged the same way.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "query/table_source.h"

namespace webindex::query {

class ShardedTableSource final : public TableSource {
 public:
  //! `shards[p]` reads shard p (partition p of webindex.exports); one source may serve several
  //! partitions (it is then asked once per scan). A null shard makes every read that needs it
  //! fail with Unavailable naming it, never answer short.
  explicit ShardedTableSource(std::vector<std::shared_ptr<TableSource>> shards);
  std::unique_ptr<TableRead> Read() override;

  //! The shard holding the rows of `owner` (a URI or a domain key): its exports' partition.
  int32_t ShardOf(std::string_view owner) const;

 private:
  std::vector<std::shared_ptr<TableSource>> shards_;
};

}  // namespace webindex::query
