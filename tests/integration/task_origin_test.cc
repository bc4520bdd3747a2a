// Tasks number their records on their own (docs/scale-out.md §2): the work a stage does on one
// input partition is a task (for the page stage, the partition a page's URI hashes to), the
// internal records it derives carry src "<stage>.<partition>" and a seq that grows by one per
// record of that task, across restarts. Deltas are combined within a task, never across tasks,
// so that a task's records can move to another member with the task. The table stays equal to
// the batch model.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "batch_model.h"
#include "codec/records.h"
#include "pipeline/topics.h"
#include "pipeline_harness.h"

namespace webindex::testing {
namespace {

constexpr int kPartitions = 3;

std::string Event(const std::string& url, const std::vector<std::string>& links) {
  std::string out = R"({"url":")" + url + R"(","crawlDate":"2015-07-28T03:06:17Z","outboundLinks":[)";
  for (size_t i = 0; i < links.size(); ++i) {
    if (i) out += ",";
    out += R"({"url":")" + links[i] + R"(","anchorText":"a"})";
  }
  return out + "]}";
}

struct Delta {
  std::string src;
  uint64_t seq;
  std::string key;
  int64_t amount;  // linksTo for uri deltas, pages for domain deltas
  int32_t partition;
};

//! The records of an internal topic, each decoded by `decode` (a RecordDecoder member); `key_and_amount`
//! names the delta's key and amount.
template <typename DecodeFn, typename KeyAndAmountFn>
std::vector<Delta> Deltas(PipelineHarness& h, const std::string& topic, DecodeFn decode,
                          KeyAndAmountFn key_and_amount) {
  codec::RecordDecoder decoder;
  std::vector<Delta> out;
  for (const auto& r : h.ReadTopic(topic)) {
    auto d = (decoder.*decode)(r.value);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    if (!d.ok()) continue;
    auto [key, amount] = key_and_amount(*d);
    out.push_back({d->origin.src, d->origin.seq, std::move(key), amount, r.partition});
  }
  return out;
}

std::vector<Delta> UriDeltas(PipelineHarness& h) {
  return Deltas(h, h.config().topics.uri_deltas, &codec::RecordDecoder::DecodeUriDelta,
                [](const codec::UriDelta& d) { return std::pair{d.uri, d.delta.links_to}; });
}

std::vector<Delta> DomainDeltas(PipelineHarness& h) {
  return Deltas(h, h.config().topics.domain_deltas, &codec::RecordDecoder::DecodeDomainDelta,
                [](const codec::DomainDelta& d) { return std::pair{d.domain, d.pages}; });
}

//! Every src's seqs, over all partitions its records went to, are 1..n once each (a record sent
//! again after a stop repeats its seq with the same content and is tolerated).
void ExpectSeqsCountFromOnePerTask(const std::vector<Delta>& deltas) {
  std::map<std::string, std::map<uint64_t, std::string>> by_src;
  for (const auto& d : deltas) {
    const std::string content = d.key + "|" + std::to_string(d.amount);
    auto [it, fresh] = by_src[d.src].emplace(d.seq, content);
    if (!fresh) EXPECT_EQ(it->second, content) << d.src << " seq " << d.seq << " names two different records";
  }
  for (const auto& [src, seqs] : by_src) {
    EXPECT_EQ(seqs.begin()->first, 1u) << src;
    EXPECT_EQ(seqs.rbegin()->first, seqs.size()) << src << ": seqs have gaps";
  }
}

TEST(TaskOriginTest, DeltasCarryTheirTaskAndAreCombinedWithinATaskOnly) {
  PipelineHarness h(kPartitions);
  BatchModel model;
  // Two pages of different page tasks (the partitions their URIs hash to: a.com and b.com 1,
  // c.com 0) link to the same target; a third, in the first page's task, links to it too. Each
  // arrives in its task's partition (elsewhere, only where it is folded would differ).
  const std::string target = "http://target.com/x";
  const std::vector<std::tuple<int, std::string, std::string>> first = {
      {1, "a", Event("http://a.com/1", {target})},
      {0, "c", Event("http://c.com/1", {target})},
      {1, "b", Event("http://b.com/1", {target})},
  };
  for (const char* uri : {"com.a>>o>/1", "com.b>>o>/1"}) ASSERT_EQ(pipeline::PartitionFor(uri, kPartitions), 1);
  ASSERT_EQ(pipeline::PartitionFor("com.c>>o>/1", kPartitions), 0);
  h.ProduceTo(first);
  for (const auto& [p, k, v] : first) model.Apply(v);
  h.RunUntilIdle();

  const std::string target_uri = "com.target>>o>/x";
  std::map<std::string, int64_t> to_target;  // src -> linksTo delivered for the target
  for (const auto& d : UriDeltas(h)) {
    ASSERT_TRUE(d.src == "page.0" || d.src == "page.1") << d.src;
    EXPECT_EQ(d.partition, pipeline::PartitionFor(d.key, kPartitions));
    if (d.key == target_uri) to_target[d.src] += d.amount;
  }
  // One delta per task: pages a and b (task 1) combined, page c (task 0) on its own.
  EXPECT_EQ(to_target, (std::map<std::string, int64_t>{{"page.0", 1}, {"page.1", 2}}));

  // Domain deltas come from the uri stage's task of the uri they count.
  for (const auto& d : DomainDeltas(h)) {
    ASSERT_EQ(d.src.rfind("uri.", 0), 0u) << d.src;
  }
  std::map<std::string, std::string> domain_src;
  for (const auto& d : DomainDeltas(h)) domain_src[d.key] = d.src;
  for (const auto& uri : {target_uri, std::string("com.a>>o>/1"), std::string("com.c>>o>/1")}) {
    const std::string domain = uri.substr(0, uri.find('>'));
    ASSERT_TRUE(domain_src.count(domain)) << domain;
    EXPECT_EQ(domain_src[domain], "uri." + std::to_string(pipeline::PartitionFor(uri, kPartitions))) << domain;
  }

  // A second run goes on numbering each task where the first stopped.
  const std::vector<std::tuple<int, std::string, std::string>> second = {
      {1, "a", Event("http://a.com/1", {})},  // a drops its link
      {1, "d", Event("http://d.com/1", {target, "http://e.com/1"})},
      {2, "m", Event("http://m.com/1", {"http://e.com/1"})},
  };
  ASSERT_EQ(pipeline::PartitionFor("com.d>>o>/1", kPartitions), 1);
  ASSERT_EQ(pipeline::PartitionFor("com.m>>o>/1", kPartitions), 2);
  h.ProduceTo(second);
  for (const auto& [p, k, v] : second) model.Apply(v);
  h.RunUntilIdle();

  const auto uri_deltas = UriDeltas(h);
  ExpectSeqsCountFromOnePerTask(uri_deltas);
  ExpectSeqsCountFromOnePerTask(DomainDeltas(h));
  std::map<std::string, size_t> per_src;
  for (const auto& d : uri_deltas) ++per_src[d.src];
  EXPECT_EQ(per_src.size(), 3u);  // page.0, page.1, page.2
  EXPECT_EQ(h.Dump(), model.TableLines());
}

}  // namespace
}  // namespace webindex::testing
