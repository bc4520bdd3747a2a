// An in-process webindex for integration tests: an embedded broker with the topics, a temp
// data dir, and helpers to produce events, run the processor until idle, and read the table.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "app/processor.h"
#include "graph/graph_query.h"
#include "batch_model.h"
#include "event_generator.h"
#include "kafka/common.h"
#include "kafka/embedded_broker.h"
#include "kafka/producer.h"

namespace webindex::testing {

class PipelineHarness {
 public:
  //! `partitions` for every topic but those `overrides` names.
  explicit PipelineHarness(int partitions = 3, const std::map<std::string, int>& overrides = {});
  ~PipelineHarness();

  const std::string& brokers() const { return brokers_; }
  kafka::EmbeddedBroker& broker() { return *broker_; }
  const std::string& data_dir() const { return data_dir_; }
  app::ProcessorConfig& config() { return config_; }

  //! Produces values to the pages topic; partition -1 lets the key decide.
  void Produce(const std::vector<std::pair<std::string, std::string>>& keyed_values, int partition = -1);
  //! Produces `count` events of `gen` to their partition hints and folds them into `model`.
  void Feed(EventGenerator& gen, BatchModel& model, size_t count);
  //! Produces values to an explicit partition each.
  void ProduceTo(const std::vector<std::tuple<int, std::string, std::string>>& records);
  //! Starts a processor on the data dir, waits until idle, stops it. Returns its metrics summary.
  std::string RunUntilIdle();
  //! Like RunUntilIdle, and hands the processor's metrics to `inspect` before it goes.
  void RunUntilIdle(const std::function<void(const pipeline::Metrics&)>& inspect);
  //! Starts a processor, runs it until idle or a failure, stops it; returns why it ended (the
  //! first error of start, run and stop), for tests where the processor must fail.
  Status TryRunUntilIdle(const std::function<void(const pipeline::Metrics&)>& inspect = {});
  //! The query table's text lines, sorted.
  std::vector<std::string> Dump();
  //! The data dir's store, read-only (the processor must not be running).
  Result<std::unique_ptr<state::Store>> OpenReadOnly() const;
  //! Every statement of the graph store in `graph` (default: all graphs), as N-Quads lines.
  std::set<std::string> Quads(const graph::GraphSelector& graph = graph::GraphSelector::All()) const;
  //! All records of a topic from the beginning (value and headers).
  struct Consumed {
    int32_t partition;
    int64_t offset;
    std::string key, value;
    std::vector<std::pair<std::string, std::string>> headers;
  };
  std::vector<Consumed> ReadTopic(const std::string& topic);

 private:
  std::unique_ptr<kafka::EmbeddedBroker> broker_;
  std::string brokers_;
  std::string data_dir_;
  app::ProcessorConfig config_;
  std::unique_ptr<kafka::Producer> producer_;
};

//! PipelineHarness::ReadTopic on any cluster (a CliCluster's broker process).
std::vector<PipelineHarness::Consumed> ReadTopic(const kafka::ClientConfig& client, const std::string& topic);

//! A fresh directory under the system temp dir, removed by the caller.
std::string MakeTempDir(const std::string& prefix);

//! Lines of a text file, without the trailing newline.
std::vector<std::string> ReadLines(const std::string& path);

//! Path of a file in tests/data.
std::string TestData(const std::string& name);

}  // namespace webindex::testing
