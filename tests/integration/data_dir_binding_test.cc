// A data dir only means something with the topics it read. Each case here ended in a wrong
// table with exit 0 before data dirs were bound to their cluster and positions: a fresh data
// dir on topics another one had processed, a data dir started against another cluster or
// re-created topics, and deltas this state never counted (a negative count).
#include <gtest/gtest.h>

#include "batch_model.h"
#include "codec/records.h"
#include "common/bytes.h"
#include "event_generator.h"
#include "pipeline/runner_keys.h"
#include "pipeline/topics.h"
#include "pipeline_harness.h"

namespace webindex::testing {
namespace {

TEST(DataDirBindingTest, FreshDataDirOnTopicsAnotherProcessedEqualsBatch) {
  PipelineHarness h(2);
  EventGenerator gen(51, 2);
  BatchModel model;
  h.Feed(gen, model, 800);
  h.RunUntilIdle();
  ASSERT_EQ(h.Dump(), model.TableLines());
  // A second data dir on the same topics: the internal topics hold the first one's deltas.
  h.config().data_dir += "-second";
  h.RunUntilIdle();
  EXPECT_EQ(h.Dump(), model.TableLines());
  h.Feed(gen, model, 200);
  h.RunUntilIdle();
  EXPECT_EQ(h.Dump(), model.TableLines());
}

// Two data dirs taking turns on the same topics: each one's internal records are in the other's
// input. Counting them would mix two tables (674 extra records in one try); the stage stops
// at the first one instead, naming both data dirs, and commits nothing of that batch.
TEST(DataDirBindingTest, RecordsOfAnotherDataDirStopTheStage) {
  PipelineHarness h(2);
  EventGenerator gen(53, 2);
  BatchModel model;
  h.Feed(gen, model, 300);
  h.RunUntilIdle();
  const std::string first = h.config().data_dir;
  h.config().data_dir = first + "-second";
  h.Feed(gen, model, 300);
  h.RunUntilIdle();  // reads the internal topics from their ends: only its own records
  EXPECT_EQ(h.Dump(), model.TableLines());
  // The first data dir again: the second one's deltas and exports follow its positions.
  h.config().data_dir = first;
  const Status st = h.TryRunUntilIdle();
  ASSERT_FALSE(st.ok()) << "the first data dir counted the second one's records";
  EXPECT_NE(st.message().find("holds a record of another webindex processor (data dir "), std::string::npos)
      << st.ToString();
  EXPECT_NE(st.message().find("two processors are working on the same topics"), std::string::npos);
}

TEST(DataDirBindingTest, AnotherClusterIsRefused) {
  PipelineHarness first(2);
  EventGenerator gen(52, 2);
  BatchModel model;
  first.Feed(gen, model, 300);
  first.RunUntilIdle();
  PipelineHarness other(2);  // another embedded broker: another cluster with empty topics
  other.config().data_dir = first.config().data_dir;
  Status st = other.TryRunUntilIdle();
  ASSERT_EQ(st.code(), Status::Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("--reset"), std::string::npos) << st.message();
  // The data dir is untouched and still right for its own cluster.
  EXPECT_EQ(first.Dump(), model.TableLines());
  first.RunUntilIdle();
  EXPECT_EQ(first.Dump(), model.TableLines());
}

TEST(DataDirBindingTest, PositionBeyondTheTopicsEndIsRefused) {
  PipelineHarness h(2);
  EventGenerator gen(53, 2);
  BatchModel model;
  h.Feed(gen, model, 300);
  h.RunUntilIdle();
  {
    // As if `pages` had been deleted and created again: the stored position lies past its end.
    state::StoreOptions options;
    auto store = state::OpenCurrent(h.config().data_dir, options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    state::WriteBatch wb(**store);
    BytesWriter w;
    w.PutFixed64BE(1'000'000);
    wb.Put(state::Family::kOffsets, pipeline::OffsetKey("page", h.config().topics.pages, 1), w.str());
    ASSERT_TRUE((*store)->Write(wb).ok());
  }
  Status st = h.TryRunUntilIdle();
  ASSERT_EQ(st.code(), Status::Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find(h.config().topics.pages + "[1] up to offset 1000000"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("--reset"), std::string::npos) << st.message();
}

TEST(DataDirBindingTest, NegativeCountStopsTheStage) {
  PipelineHarness h(2);
  EventGenerator gen(54, 2);
  BatchModel model;
  h.Feed(gen, model, 100);
  h.RunUntilIdle();
  // A delta this state never counted: a link removed from a page no one saw.
  const std::string uri = "com.never-seen>>o>/page";
  codec::UriDelta d{{"page", 1'000'000'000, 1}, uri, {-1, 0}};
  auto producer = kafka::Producer::Create(h.config().kafka, [](uint64_t, const Status&) {});
  ASSERT_TRUE(producer.ok());
  const auto& topic = h.config().topics.uri_deltas;
  ASSERT_TRUE((*producer)->Produce({topic, pipeline::PartitionFor(uri, 2), uri, codec::Encode(d), {}}, 0).ok());
  ASSERT_TRUE((*producer)->Flush(10000).ok());
  Status st = h.TryRunUntilIdle();
  ASSERT_EQ(st.code(), Status::Code::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("negative counts"), std::string::npos) << st.message();
  EXPECT_EQ(h.Dump(), model.TableLines());  // nothing of it reached the table
}

}  // namespace
}  // namespace webindex::testing
