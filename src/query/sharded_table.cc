#include "query/sharded_table.h"

#include <algorithm>
#include <functional>
#include <future>
#include <iterator>
#include <map>
#include <optional>
#include <queue>

#include "pipeline/topics.h"

namespace webindex::query {
namespace {

class ShardedRead final : public TableRead {
 public:
  explicit ShardedRead(std::vector<std::shared_ptr<TableSource>> shards)
      : shards_(std::move(shards)), reads_(shards_.size()) {}

  Result<std::vector<std::optional<std::string>>> Get(std::string_view owner,
                                                      const std::vector<std::string>& keys) override {
    ASSIGN_OR_RETURN(TableRead * read, ReadOf(pipeline::PartitionFor(owner, static_cast<int32_t>(shards_.size()))));
    return read->Get(owner, keys);
  }

  // Each distinct source's first `limit` cells after `after`; the merged first `limit` of them
  // are the table's (a key lives in one shard only). A scan that goes on where the previous one
  // of this read ended (same prefix, `after` its last cell) starts from the cells the previous
  // merge left over, and asks a source only for what it lacks: reading a range page by page
  // then fetches each cell about once, not once per source and page.
  Status Scan(std::string_view prefix, std::string_view after, size_t limit, std::vector<KeyValue>* out) override {
    out->clear();
    const std::vector<TableRead*> reads = DistinctReads();
    Carry carry;
    if (carry_ && carry_->prefix == prefix && carry_->after == after && carry_->runs.size() == reads.size()) {
      carry = std::move(*carry_);
    } else {
      carry.runs.resize(reads.size());
      carry.ended.assign(reads.size(), false);
    }
    carry_.reset();
    RETURN_IF_ERROR(Fill(reads, prefix, after, limit, carry));
    using Head = std::pair<size_t, size_t>;  // (run, index in it)
    auto& runs = carry.runs;
    auto later = [&](const Head& a, const Head& b) { return runs[a.first][a.second].key > runs[b.first][b.second].key; };
    std::priority_queue<Head, std::vector<Head>, decltype(later)> heads(later);
    for (size_t r = 0; r < runs.size(); ++r) {
      if (!runs[r].empty()) heads.push({r, 0});
    }
    std::vector<size_t> taken(runs.size(), 0);
    while (!heads.empty() && out->size() < limit) {
      auto [r, i] = heads.top();
      heads.pop();
      out->push_back(std::move(runs[r][i]));
      taken[r] = i + 1;
      if (i + 1 < runs[r].size()) heads.push({r, i + 1});
    }
    if (out->empty()) return Status::Ok();
    for (size_t r = 0; r < runs.size(); ++r) runs[r].erase(runs[r].begin(), runs[r].begin() + taken[r]);
    carry.prefix = std::string(prefix);
    carry.after = out->back().key;
    carry_ = std::move(carry);
    return Status::Ok();
  }

  // A domain's index entry lives in the domain's shard: each source's first `limit` merged.
  Status ScanDomainIndex(std::string_view prefix, size_t limit, std::vector<KeyValue>* out) override {
    out->clear();
    const std::vector<TableRead*> reads = DistinctReads();
    std::vector<std::vector<KeyValue>> runs(reads.size());
    RETURN_IF_ERROR(AskEach(reads, [&](size_t r) { return reads[r]->ScanDomainIndex(prefix, limit, &runs[r]); }));
    std::vector<KeyValue> all;
    for (auto& run : runs) all.insert(all.end(), std::make_move_iterator(run.begin()), std::make_move_iterator(run.end()));
    std::sort(all.begin(), all.end(), [](const KeyValue& a, const KeyValue& b) { return a.key < b.key; });
    if (all.size() > limit) all.resize(limit);
    *out = std::move(all);
    return Status::Ok();
  }

  Result<int64_t> Position(int32_t shard, std::string_view key) override {
    if (shard < 0 || shard >= static_cast<int32_t>(shards_.size())) {
      return Status::InvalidArgument("no table shard " + std::to_string(shard) + " (the table has " +
                                     std::to_string(shards_.size()) + ")");
    }
    ASSIGN_OR_RETURN(TableRead * read, ReadOf(shard));
    return read->Position(shard, key);
  }

  //! True when some shard is another member's: its reads then are no one snapshot of it.
  bool remote() const override {
    for (const TableRead* read : DistinctReads()) {
      if (read != nullptr && read->remote()) return true;
    }
    return false;
  }

  Result<std::optional<sink::TableTotals>> Totals() override {
    const std::vector<TableRead*> reads = DistinctReads();
    std::vector<std::optional<sink::TableTotals>> each(reads.size());
    RETURN_IF_ERROR(AskEach(reads, [&](size_t r) -> Status {
      ASSIGN_OR_RETURN(each[r], reads[r]->Totals());
      return Status::Ok();
    }));
    sink::TableTotals sum;
    for (const auto& totals : each) {
      if (!totals) return std::optional<sink::TableTotals>();
      sum.pages += totals->pages;
      sum.crawled += totals->crawled;
      sum.linked += totals->linked;
      sum.links += totals->links;
      sum.domains += totals->domains;
    }
    return std::optional<sink::TableTotals>(sum);
  }

 private:
  //! Runs `ask(r)` for each of `reads`: those of other members at once, each on a thread of its
  //! own, local ones on this thread. The first error, or Missing for a shard without a read.
  Status AskEach(const std::vector<TableRead*>& reads, const std::function<Status(size_t)>& ask) {
    if (std::find(reads.begin(), reads.end(), nullptr) != reads.end()) return Missing();
    std::vector<std::future<Status>> asked(reads.size());
    for (size_t r = 0; r < reads.size(); ++r) {
      if (reads[r]->remote()) asked[r] = std::async(std::launch::async, [&ask, r] { return ask(r); });
    }
    Status st;
    for (size_t r = 0; r < reads.size(); ++r) {
      if (!reads[r]->remote() && st.ok()) st = ask(r);
    }
    for (auto& f : asked) {
      if (!f.valid()) continue;
      Status got = f.get();
      if (st.ok()) st = std::move(got);
    }
    return st;
  }

  Result<TableRead*> ReadOf(int32_t shard) const {
    if (!shards_[shard]) return Missing();
    if (!reads_[shard]) {
      // A source serving several shards is read once: the reads of its other shards share it.
      for (size_t s = 0; s < shards_.size(); ++s) {
        if (shards_[s] == shards_[shard] && reads_[s]) {
          reads_[shard] = reads_[s];
          return reads_[shard].get();
        }
      }
      reads_[shard] = std::shared_ptr<TableRead>(shards_[shard]->Read());
    }
    return reads_[shard].get();
  }

  //! One read per distinct source, nullptr for a shard without one.
  std::vector<TableRead*> DistinctReads() const {
    std::vector<TableRead*> reads;
    for (size_t s = 0; s < shards_.size(); ++s) {
      if (!shards_[s]) {
        reads.push_back(nullptr);
        continue;
      }
      TableRead* read = ReadOf(static_cast<int32_t>(s)).value();  // a shard with a source: never fails
      if (std::find(reads.begin(), reads.end(), read) == reads.end()) reads.push_back(read);
    }
    return reads;
  }

  //! What one scan leaves for the next: per distinct source, its cells after the last one
  //! returned, and whether the source has none beyond them.
  struct Carry {
    std::string prefix, after;
    std::vector<std::vector<KeyValue>> runs;
    std::vector<bool> ended;
  };

  //! Tops each run of `carry` up to `limit` cells (after `after`, or after its last cell) from its
  //! source, unless the source has no more.
  Status Fill(const std::vector<TableRead*>& reads, std::string_view prefix, std::string_view after, size_t limit,
              Carry& carry) {
    std::vector<std::vector<KeyValue>> more(reads.size());
    std::vector<size_t> wanted(reads.size(), 0);
    std::vector<std::string> from(reads.size());
    for (size_t r = 0; r < reads.size(); ++r) {
      const auto& run = carry.runs[r];
      if (carry.ended[r] || run.size() >= limit) continue;
      wanted[r] = limit - run.size();
      from[r] = run.empty() ? std::string(after) : run.back().key;
    }
    RETURN_IF_ERROR(AskEach(reads, [&](size_t r) {
      return wanted[r] == 0 ? Status::Ok() : reads[r]->Scan(prefix, from[r], wanted[r], &more[r]);
    }));
    for (size_t r = 0; r < reads.size(); ++r) {
      if (wanted[r] == 0) continue;
      carry.ended[r] = more[r].size() < wanted[r];
      carry.runs[r].insert(carry.runs[r].end(), std::make_move_iterator(more[r].begin()),
                           std::make_move_iterator(more[r].end()));
    }
    return Status::Ok();
  }

  Status Missing() const {
    std::string names;
    for (size_t s = 0; s < shards_.size(); ++s) {
      if (!shards_[s]) names += (names.empty() ? "" : ", ") + std::to_string(s);
    }
    return Status::Unavailable("table shard(s) " + names + " have no owner ready to answer");
  }

  const std::vector<std::shared_ptr<TableSource>> shards_;
  mutable std::vector<std::shared_ptr<TableRead>> reads_;  //!< made at first use
  std::optional<Carry> carry_;  //!< the last scan's leftovers
};

}  // namespace

ShardedTableSource::ShardedTableSource(std::vector<std::shared_ptr<TableSource>> shards) : shards_(std::move(shards)) {}

std::unique_ptr<TableRead> ShardedTableSource::Read() { return std::make_unique<ShardedRead>(shards_); }

int32_t ShardedTableSource::ShardOf(std::string_view owner) const {
  return pipeline::PartitionFor(owner, static_cast<int32_t>(shards_.size()));
}

}  // namespace webindex::query
