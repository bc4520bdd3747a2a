// The pages topic is shared input: producers write events, and a webindex that forwards events
// to their page's task (docs/scale-out.md §9) writes copies and fence markers there too. A
// processor must skip the copies and markers of other processors (it reads the originals
// itself), and treat a producer's own headers that happen to share their names as what they are:
// headers of an ordinary event.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "batch_model.h"
#include "pipeline/fence.h"
#include "pipeline/page_stage.h"
#include "pipeline/topics.h"
#include "pipeline_harness.h"

namespace webindex::testing {
namespace {

std::string Event(const std::string& url, const std::string& link) {
  return R"({"url":")" + url + R"(","crawlDate":"2015-07-28T03:06:17Z","outboundLinks":[{"url":")" + link +
         R"(","anchorText":"a"}]})";
}

// With a changelog the page stage forwards events to their task and reads its own copies and
// markers among the others'; without one it forwards nothing. Both must give the batch table.
class SharedPagesTest : public ::testing::TestWithParam<bool> {};

TEST_P(SharedPagesTest, OtherProcessorsCopiesAndMarkersAreSkippedAndProducersHeadersKept) {
  PipelineHarness h(2);
  h.config().runner.changelog = GetParam();
  BatchModel model;
  auto producer = kafka::Producer::Create(h.config().kafka, [](uint64_t, const Status& st) {
    EXPECT_TRUE(st.ok()) << st.ToString();
  });
  ASSERT_TRUE(producer.ok());
  const std::string pages = h.config().topics.pages;
  const std::string a = Event("http://a.com/1", "http://t.com/x");
  const std::string b = Event("http://b.com/1", "http://t.com/y");
  const std::string c = Event("http://c.com/1", "http://t.com/z");
  const std::string other = Event("http://other.com/1", "http://t.com/never");
  model.Apply(a);
  model.Apply(b);
  model.Apply(c);
  const std::vector<OutRecord> records = {
      // A producer's event whose headers share webindex's names, but not all of them.
      {pages, 0, "a", a, {{pipeline::kForwardHeader, "crawler-7"}, {"task", "fetch.3"}, {"ep", "x"}}},
      {pages, 1, "b", b, {{pipeline::kFenceHeader, "yes"}}},
      // Another group's copy of an event (whose original is not here: it must not count).
      {pages,
       0,
       "o",
       other,
       {{pipeline::kForwardHeader, "page.1"}, {pipeline::kForwardSeqHeader, "1"}, {"gen", "1"},
        {"inst", "group:elsewhere"}}},
      // Another group's fence marker of task page.1 at a high epoch: honoured, it would drop the
      // copy of c that this processor's task page.1 forwards to partition 0.
      pipeline::FenceRecord(pages, 0, "page.1", 99, 1, "0123456789abcdef", "group:elsewhere"),
      // c's page task is 0 (its URI's partition); it arrives in 1.
      {pages, 1, "c", c, {}},
  };
  ASSERT_EQ(pipeline::PartitionFor("com.c>>o>/1", 2), 0);
  for (const auto& r : records) ASSERT_TRUE((*producer)->Produce(r, 0).ok());
  ASSERT_TRUE((*producer)->Flush(10000).ok());
  uint64_t invalid = 0, forwarded = 0;
  h.RunUntilIdle([&](const pipeline::Metrics& m) {
    invalid = m.invalid_events + m.corrupt_records;
    forwarded = m.forwarded_events;
  });
  EXPECT_EQ(invalid, 0u) << "a record was dead-lettered";
  EXPECT_EQ(forwarded, GetParam() ? 1u : 0u);
  EXPECT_EQ(h.Dump(), model.TableLines());
}

INSTANTIATE_TEST_SUITE_P(Changelog, SharedPagesTest, ::testing::Bool());

}  // namespace
}  // namespace webindex::testing
