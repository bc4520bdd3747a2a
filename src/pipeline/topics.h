// Topic names and partitioning shared by every stage. Partitions are chosen by us, not the
// client, so that a record re-sent after a crash lands in the partition the original did.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace webindex::pipeline {

struct TopicNames {
  std::string pages = "pages";
  std::string triples = "triples";  //!< RDF statements (graph::GraphStage)
  //! Crawl events forwarded to their page's task (PageStage), and the page tasks' fence markers.
  std::string page_forwards = "webindex.page-forwards";
  std::string uri_deltas = "webindex.uri-deltas";
  std::string domain_deltas = "webindex.domain-deltas";
  std::string exports = "webindex.exports";
  std::string dead_letters = "webindex.dead-letters";
  std::string pagerank = "webindex.pagerank";  //!< PageRank results (app::RankPublisher)
  std::string generations = "webindex.generations";  //!< a group's generations (app/group_generations.h)
  std::string instances = "webindex.instances";  //!< the claim of the lone run on these topics (app/instance_claim.h)
  //! Which member of a partitioned table serves which shard (app/table_members.h).
  std::string table_members = "webindex.table-members";
};

//! 64-bit FNV-1a: stable across builds and platforms.
inline uint64_t StableHash(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 1099511628211ull;
  }
  return h;
}

inline int32_t PartitionFor(std::string_view key, int32_t partitions) {
  return static_cast<int32_t>(StableHash(key) % static_cast<uint64_t>(partitions));
}

}  // namespace webindex::pipeline
