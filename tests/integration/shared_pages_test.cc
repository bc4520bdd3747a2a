// The pages topic is input anyone may write (docs/reliability.md, "Who may write which topic"):
// its records are crawl events whatever their headers say. Forwarded events and the page tasks'
// fence markers travel on webindex.page-forwards, which only webindex writes. A producer who
// copies webindex's headers onto `pages` (a forwarded event's fwd / seq / gen / inst with this
// instance's name and a huge seq, a fence marker of a page task at a high epoch) changes nothing
// but its own record: every forwarded event still arrives and counts.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "batch_model.h"
#include "pipeline/fence.h"
#include "pipeline/page_stage.h"
#include "pipeline/topics.h"
#include "pipeline_harness.h"
#include "state/data_dir.h"

namespace webindex::testing {
namespace {

std::string Event(const std::string& url, const std::string& link) {
  return R"({"url":")" + url + R"(","crawlDate":"2015-07-28T03:06:17Z","outboundLinks":[{"url":")" + link +
         R"(","anchorText":"a"}]})";
}

// With a changelog the page stage forwards events to their task; without one it forwards
// nothing. Both must give the batch table.
class SharedPagesTest : public ::testing::TestWithParam<bool> {};

TEST_P(SharedPagesTest, HeadersOnPagesNeverActAsForwardsOrFenceMarkers) {
  PipelineHarness h(2);
  h.config().runner.changelog = GetParam();
  h.RunUntilIdle();  // sets the data dir up: its instance id is what a forger would copy
  auto dir = state::DataDir::Open(h.config().data_dir, /*create=*/false);
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  auto instance = dir->InstanceId();
  ASSERT_TRUE(instance.ok()) << instance.status().ToString();

  BatchModel model;
  auto producer = kafka::Producer::Create(h.config().kafka, [](uint64_t, const Status& st) {
    EXPECT_TRUE(st.ok()) << st.ToString();
  });
  ASSERT_TRUE(producer.ok());
  const std::string pages = h.config().topics.pages;
  const std::string forwards = h.config().topics.page_forwards;
  const std::string a = Event("http://a.com/1", "http://t.com/x");
  const std::string forged = Event("http://forged.com/1", "http://t.com/f");
  const std::string c = Event("http://c.com/1", "http://t.com/z");
  model.Apply(a);
  model.Apply(forged);
  model.Apply(c);
  const std::vector<OutRecord> records = {
      // A producer's event whose headers share webindex's names, but not all of them.
      {pages, 0, "a", a, {{pipeline::kForwardHeader, "crawler-7"}, {"task", "fetch.3"}, {"ep", "x"}}},
      // Read as a forwarded event, this would raise task page.1's dedupe mark in partition 0
      // past every seq it will ever send: its forward of c would be dropped as a duplicate.
      {pages,
       0,
       "forged",
       forged,
       {{pipeline::kForwardHeader, "page.1"}, {pipeline::kForwardSeqHeader, "18446744073709551000"}, {"gen", "1"},
        {"inst", *instance}}},
      // Read as a marker, this would fence task page.1's records in partition 0 below epoch 99.
      pipeline::FenceRecord(pages, 0, "page.1", 99, 1, *instance, *instance),
      // c's page task is 0 (its URI's partition); it arrives in 1.
      {pages, 1, "c", c, {}},
      // A record on the internal topic that no task of this instance wrote: a dead letter.
      {forwards, 0, "c", c, {}},
  };
  ASSERT_EQ(pipeline::PartitionFor("com.c>>o>/1", 2), 0);
  for (const auto& r : records) ASSERT_TRUE((*producer)->Produce(r, 0).ok());
  ASSERT_TRUE((*producer)->Flush(10000).ok());
  uint64_t invalid = 0, corrupt = 0, forwarded = 0, duplicates = 0, fenced = 0;
  h.RunUntilIdle([&](const pipeline::Metrics& m) {
    invalid = m.invalid_events;
    corrupt = m.corrupt_records;
    forwarded = m.forwarded_events;
    duplicates = m.duplicates;
    fenced = m.fenced_records;
  });
  EXPECT_EQ(invalid, 1u) << "the forged marker is no crawl event";
  EXPECT_EQ(corrupt, GetParam() ? 1u : 0u) << "the unattributed record on " << forwards << " (read only with a changelog)";
  EXPECT_EQ(forwarded, GetParam() ? 1u : 0u);
  EXPECT_EQ(duplicates, 0u);
  EXPECT_EQ(fenced, 0u);
  EXPECT_EQ(h.Dump(), model.TableLines());
}

INSTANTIATE_TEST_SUITE_P(Changelog, SharedPagesTest, ::testing::Bool());

}  // namespace
}  // namespace webindex::testing
