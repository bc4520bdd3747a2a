// Consumer::PollBatch against the embedded broker: a batch ends at its record count or once its
// records hold the byte budget (Stage::MaxBatchBytes; the graph stage's 1 MiB), never later.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "kafka/common.h"
#include "kafka/consumer.h"
#include "kafka/embedded_broker.h"
#include "kafka/producer.h"

namespace webindex::testing {
namespace {

//! An embedded broker with topic "t" of one partition.
class ConsumerBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto broker = kafka::EmbeddedBroker::Start();
    ASSERT_TRUE(broker.ok()) << broker.status().ToString();
    broker_ = std::move(broker).value();
    ASSERT_TRUE(broker_->CreateTopic("t", 1).ok());
    config_ = {broker_->bootstrap_servers(), {}};
  }
  //! Produces `n` records to t[0], record i with the value `value(i)`, and waits for them.
  void Produce(int n, const std::function<std::string(int)>& value) {
    auto producer = kafka::Producer::Create(config_, [](uint64_t, const Status& st) { EXPECT_TRUE(st.ok()); });
    ASSERT_TRUE(producer.ok()) << producer.status().ToString();
    for (int i = 0; i < n; ++i) {
      ASSERT_TRUE((*producer)->Produce({"t", 0, "k" + std::to_string(i), value(i), {}}, i).ok());
    }
    ASSERT_TRUE((*producer)->Flush(30000).ok());
  }

  std::unique_ptr<kafka::EmbeddedBroker> broker_;
  kafka::ClientConfig config_;
};

TEST_F(ConsumerBatchTest, ABatchEndsOnceItsRecordsHoldTheByteBudget) {
  constexpr int kRecords = 200;
  constexpr size_t kValueBytes = 10'000, kBudget = 50'000;
  Produce(kRecords, [](int) { return std::string(kValueBytes, 'v'); });

  auto consumer = kafka::Consumer::Create(config_, "batch-test");
  ASSERT_TRUE(consumer.ok()) << consumer.status().ToString();
  ASSERT_TRUE((*consumer)->Assign({{"t", 0, kafka::kBeginning}}).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the client fetches ahead meanwhile
  kafka::MessageBatch batch;
  int read = 0, full = 0;
  for (int polls = 0; read < kRecords && polls < 1000; ++polls) {
    ASSERT_TRUE((*consumer)->PollBatch(1000, 500, &batch, kBudget).ok());
    if (batch.empty()) continue;
    std::vector<size_t> sizes;
    for (const auto& r : batch.records()) sizes.push_back(r.key.size() + r.value.size());
    const size_t before_last = std::accumulate(sizes.begin(), sizes.end() - 1, size_t{0});
    EXPECT_LT(before_last, kBudget) << "a batch of " << sizes.size() << " records went on past its budget";
    if (before_last + sizes.back() >= kBudget) ++full;
    for (const auto& r : batch.records()) EXPECT_EQ(r.offset, read++);
  }
  EXPECT_EQ(read, kRecords);
  // The records were there to take: batches ended at the budget, not for want of records.
  EXPECT_GE(full, kRecords * static_cast<int>(kValueBytes) / static_cast<int>(kBudget) / 2);
}

// Held (Consumer::Hold), a consumer hands out nothing though records wait, and released it reads
// on from the record after the last one it handed out: from its assigned offset when it had
// handed out none, and past the records it had fetched ahead, which the hold dropped.
TEST_F(ConsumerBatchTest, AHeldConsumerHandsOutNothingAndReadsOnFromWhereItStood) {
  constexpr int kRecords = 100;
  Produce(kRecords, [](int i) { return std::to_string(i); });

  auto consumer = kafka::Consumer::Create(config_, "hold-test");
  ASSERT_TRUE(consumer.ok()) << consumer.status().ToString();
  kafka::MessageBatch batch;
  std::vector<int64_t> read;
  // Polls for `ms`, taking up to `max` records a poll and `limit` in all.
  auto poll_for = [&](int ms, size_t max, size_t limit) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    size_t taken = 0;
    while (std::chrono::steady_clock::now() < until && taken < limit) {
      ASSERT_TRUE((*consumer)->PollBatch(std::min(max, limit - taken), 50, &batch).ok());
      for (const auto& r : batch.records()) read.push_back(r.offset);
      taken += batch.records().size();
    }
  };
  ASSERT_TRUE((*consumer)->Hold(true).ok());
  ASSERT_TRUE((*consumer)->Assign({{"t", 0, 10}}).ok());
  poll_for(1000, 1000, SIZE_MAX);
  EXPECT_TRUE(read.empty()) << "a consumer held from its assignment handed out offset " << read.front();
  ASSERT_TRUE((*consumer)->Hold(false).ok());
  poll_for(10000, 5, 20);
  ASSERT_EQ(read.size(), 20u);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the client fetches ahead meanwhile
  ASSERT_TRUE((*consumer)->Hold(true).ok());
  poll_for(1000, 1000, SIZE_MAX);
  EXPECT_EQ(read.size(), 20u) << "a held consumer handed out records it had fetched ahead";
  ASSERT_TRUE((*consumer)->Hold(false).ok());
  poll_for(10000, 1000, kRecords - 10 - read.size());
  std::vector<int64_t> want(kRecords - 10);
  std::iota(want.begin(), want.end(), 10);
  EXPECT_EQ(read, want);
}

}  // namespace
}  // namespace webindex::testing
