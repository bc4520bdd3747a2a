// The graph store as a SPARQL dataset: each triple pattern one range scan of the order that
// binds its prefix (graph/graph_query.h), estimates from the rows themselves, the named graphs
// by a skip scan. Reads one snapshot of a store; both outlive it. One thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "graph/key_codec.h"
#include "sparql/dataset.h"
#include "state/store.h"

namespace webindex::sparql {

class StoreDataset final : public Dataset {
 public:
  //! `snapshot` may be null: the latest state, read anew by each scan.
  StoreDataset(state::Store& store, const state::Snapshot* snapshot, graph::KeySpace space = {})
      : store_(store), snapshot_(snapshot), space_(std::move(space)) {}

  Status Scan(const graph::Pattern& pattern, const Visitor& fn) override;
  //! Exact up to kExactUpTo matches (the rows are counted); above, the range's size on disk
  //! over the size of its first kExactUpTo rows, times kExactUpTo (files), plus the entries
  //! RocksDB counts in the memtables.
  uint64_t Estimate(const graph::Pattern& pattern) override;
  Status NamedGraphs(const std::function<bool(const graph::Term& name)>& fn) override;
  //! Range scans of the temporal rows and the free-text posting lists, after checking that the
  //! store's generation keeps the index (graph::CheckIndexFor).
  Status ScanTemporal(const graph::TemporalQuery& query, const Visitor& fn) override;
  Status ScanText(const graph::TextSearch& search, const Visitor& fn) override;
  //! As recorded in the store (none when the record is unreadable: then no plan reads them).
  graph::IndexSet Indexes() override;
  //! The matches counted up to min(up_to, kCountedUpTo); more than kCountedUpTo count as
  //! kManyIndexMatches; a scan that fails (a wildcard matching too many words) as UINT64_MAX.
  uint64_t EstimateTemporal(const graph::TemporalQuery& query, uint64_t up_to) override;
  uint64_t EstimateText(const graph::TextSearch& search, uint64_t up_to) override;

  static constexpr uint64_t kExactUpTo = 256;
  //! An estimate below this is checked by counting on to it (memtable counts are samples).
  static constexpr uint64_t kCountedUpTo = 4096;
  static constexpr uint64_t kManyIndexMatches = 16 * kCountedUpTo;

 private:
  //! The estimate for the rows of one graph (nullopt: the default graph) matching `pattern`.
  uint64_t EstimateIn(const graph::Pattern& pattern, const std::optional<graph::Term>& graph);

  //! Estimates asked before, by the start of their range: a plan asks for the same patterns
  //! again for every solution it extends, and the snapshot does not change.
  std::unordered_map<std::string, uint64_t> estimates_;
  //! The estimate for the rows whose keys start with `start`.
  uint64_t Count(const std::string& start);
  //! Counts a scan's statements up to min(up_to, kCountedUpTo), memoized under `key`.
  uint64_t CountIndexMatches(const std::string& key, uint64_t up_to,
                             const std::function<Status(const Visitor&)>& scan);
  struct IndexCount {
    uint64_t count = 0;
    bool complete = false;  //!< every match counted (else there are more than `count`)
  };
  std::unordered_map<std::string, IndexCount> index_estimates_;
  std::optional<graph::IndexSet> indexes_;
  state::Store& store_;
  const state::Snapshot* snapshot_;
  graph::KeySpace space_;
};

}  // namespace webindex::sparql
