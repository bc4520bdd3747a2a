// Consumer::PollBatch against the embedded broker: a batch ends at its record count or once its
// records hold the byte budget (Stage::MaxBatchBytes; the graph stage's 1 MiB), never later.
#include <gtest/gtest.h>

#include <chrono>
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

TEST(ConsumerBatchTest, ABatchEndsOnceItsRecordsHoldTheByteBudget) {
  constexpr int kRecords = 200;
  constexpr size_t kValueBytes = 10'000, kBudget = 50'000;
  auto broker = kafka::EmbeddedBroker::Start();
  ASSERT_TRUE(broker.ok()) << broker.status().ToString();
  ASSERT_TRUE((*broker)->CreateTopic("t", 1).ok());
  const kafka::ClientConfig config{(*broker)->bootstrap_servers(), {}};
  auto producer = kafka::Producer::Create(config, [](uint64_t, const Status& st) { EXPECT_TRUE(st.ok()); });
  ASSERT_TRUE(producer.ok()) << producer.status().ToString();
  for (int i = 0; i < kRecords; ++i) {
    ASSERT_TRUE((*producer)->Produce({"t", 0, "k" + std::to_string(i), std::string(kValueBytes, 'v'), {}}, i).ok());
  }
  ASSERT_TRUE((*producer)->Flush(30000).ok());

  auto consumer = kafka::Consumer::Create(config, "batch-test");
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

}  // namespace
}  // namespace webindex::testing
