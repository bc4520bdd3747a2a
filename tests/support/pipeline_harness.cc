#include "pipeline_harness.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "common/log.h"
#include "state/data_dir.h"
#include "query/table_reader.h"
#include "test_paths.h"

namespace webindex::testing {

std::string MakeTempDir(const std::string& prefix) {
  std::random_device rd;
  auto dir = std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(rd()) + std::to_string(rd()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string TestData(const std::string& name) { return std::string(WEBINDEX_TEST_DATA) + "/" + name; }

PipelineHarness::PipelineHarness(int partitions, const std::map<std::string, int>& overrides) {
  InitLogging(std::getenv("WEBINDEX_TEST_LOG") ? std::getenv("WEBINDEX_TEST_LOG") : "warn");
  auto broker = kafka::EmbeddedBroker::Start();
  EXPECT_TRUE(broker.ok()) << broker.status().ToString();
  broker_ = std::move(broker).value();
  brokers_ = broker_->bootstrap_servers();
  data_dir_ = MakeTempDir("webindex-test");
  config_.kafka.brokers = brokers_;
  if (const char* debug = std::getenv("WEBINDEX_TEST_KAFKA_DEBUG")) config_.kafka.properties["debug"] = debug;
  config_.data_dir = data_dir_ + "/data";
  config_.progress_interval_ms = 60000;
  config_.runner.poll_timeout_ms = 20;
  for (const auto& spec : app::TopicSpecs(config_)) {
    const auto it = overrides.find(spec.name);
    const int n = it == overrides.end() ? partitions : it->second;
    config_.partitions[spec.name] = n;
    EXPECT_TRUE(broker_->CreateTopic(spec.name, n).ok());
  }
  auto producer = kafka::Producer::Create(config_.kafka, [](uint64_t, const Status& st) {
    EXPECT_TRUE(st.ok()) << st.ToString();
  });
  EXPECT_TRUE(producer.ok()) << producer.status().ToString();
  producer_ = std::move(producer).value();
}

PipelineHarness::~PipelineHarness() {
  producer_.reset();
  broker_.reset();
  std::error_code ec;
  std::filesystem::remove_all(data_dir_, ec);
}

void PipelineHarness::Produce(const std::vector<std::pair<std::string, std::string>>& keyed_values, int partition) {
  for (const auto& [key, value] : keyed_values) {
    ASSERT_TRUE(producer_->Produce({config_.topics.pages, partition, key, value, {}}, 0).ok());
  }
  ASSERT_TRUE(producer_->Flush(30000).ok());
}

void PipelineHarness::ProduceTo(const std::vector<std::tuple<int, std::string, std::string>>& records) {
  for (const auto& [partition, key, value] : records) {
    ASSERT_TRUE(producer_->Produce({config_.topics.pages, partition, key, value, {}}, 0).ok());
  }
  ASSERT_TRUE(producer_->Flush(30000).ok());
}

void PipelineHarness::Feed(EventGenerator& gen, BatchModel& model, size_t count) {
  std::vector<std::tuple<int, std::string, std::string>> records;
  for (auto& ev : gen.Next(count)) {
    model.Apply(ev.value);
    records.emplace_back(ev.partition_hint, ev.key, ev.value);
  }
  ProduceTo(records);
}

std::string PipelineHarness::RunUntilIdle() {
  std::string summary;
  RunUntilIdle([&](const pipeline::Metrics& m) { summary = m.Summary(); });
  return summary;
}

void PipelineHarness::RunUntilIdle(const std::function<void(const pipeline::Metrics&)>& inspect) {
  Status st = TryRunUntilIdle(inspect);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

Status PipelineHarness::TryRunUntilIdle(const std::function<void(const pipeline::Metrics&)>& inspect) {
  app::Processor processor(config_);
  Status st = processor.Start();
  if (!st.ok()) return st;
  std::atomic<bool> stop{false};
  st = processor.Run(/*exit_when_idle=*/true, stop);
  Status stopped = processor.Stop();
  if (inspect) inspect(processor.metrics());
  return st.ok() ? stopped : st;
}

Result<std::unique_ptr<state::Store>> PipelineHarness::OpenReadOnly() const {
  state::StoreOptions opts;
  opts.read_only = true;
  return state::OpenCurrent(config_.data_dir, opts);
}

std::set<std::string> PipelineHarness::Quads(const graph::GraphSelector& graph) const {
  std::set<std::string> out;
  auto store = OpenReadOnly();
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return out;
  graph::Pattern pattern;
  pattern.graph = graph;
  Status st = graph::GraphReader(**store, nullptr).Scan(pattern, "", [&](const graph::Statement& s) {
    out.insert(graph::ToNQuads(s));
    return true;
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

std::vector<std::string> PipelineHarness::Dump() {
  auto store = OpenReadOnly();
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return {};
  std::vector<std::string> lines;
  Status st = query::ScanRows(**store, "", [&](const sink::Cell& c) {
    lines.push_back(query::CellLine(c));
    return true;
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return lines;
}

std::vector<PipelineHarness::Consumed> PipelineHarness::ReadTopic(const std::string& topic) {
  return testing::ReadTopic(config_.kafka, topic);
}

std::vector<PipelineHarness::Consumed> ReadTopic(const kafka::ClientConfig& client, const std::string& topic) {
  std::vector<PipelineHarness::Consumed> out;
  auto admin = kafka::Admin::Create(client);
  EXPECT_TRUE(admin.ok());
  auto partitions = (*admin)->PartitionCount(topic, 5000);
  EXPECT_TRUE(partitions.ok()) << partitions.status().ToString();
  auto consumer = kafka::Consumer::Create(client, "webindex-test-reader");
  EXPECT_TRUE(consumer.ok());
  std::vector<kafka::TopicPartitionOffset> assignment;
  int64_t remaining = 0;
  for (int32_t p = 0; p < *partitions; ++p) {
    auto marks = (*admin)->Watermarks(topic, p, 5000);
    EXPECT_TRUE(marks.ok());
    remaining += marks->second - marks->first;
    assignment.push_back({topic, p, kafka::kBeginning});
  }
  EXPECT_TRUE((*consumer)->Assign(assignment).ok());
  kafka::MessageBatch batch;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (remaining > 0 && std::chrono::steady_clock::now() < deadline) {
    EXPECT_TRUE((*consumer)->PollBatch(1000, 100, &batch).ok());
    for (size_t i = 0; i < batch.records().size(); ++i) {
      const auto& r = batch.records()[i];
      out.push_back({r.partition, r.offset, std::string(r.key), std::string(r.value), batch.Headers(i)});
      --remaining;
    }
  }
  EXPECT_EQ(remaining, 0) << "timed out reading " << topic;
  return out;
}

}  // namespace webindex::testing
