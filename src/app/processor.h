// Processor: the startup class. Builds every service of `webindex run` (store, producer,
// the page/uri/domain stages and the sink), starts them in data-flow order and stops them
// in reverse. Start/Run/Stop are called from one thread; Stop is idempotent.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codec/event.h"
#include "kafka/client.h"
#include "pipeline/metrics.h"
#include "pipeline/stage_runner.h"
#include "pipeline/topics.h"
#include "state/store.h"

namespace webindex::app {

struct ProcessorConfig {
  kafka::ClientConfig kafka;
  std::string data_dir;
  pipeline::TopicNames topics;
  std::map<std::string, int> partitions;  //!< topic -> partitions to create it with
  std::map<std::string, std::map<std::string, std::string>> topic_config;  //!< topic -> broker config
  codec::DecodeLimits limits;
  state::StoreOptions store;
  pipeline::RunnerOptions runner;
  int progress_interval_ms = 5000;
};

class Processor {
 public:
  explicit Processor(ProcessorConfig config);
  ~Processor();

  //! Creates missing topics, opens the data dir, resumes every stage where it committed.
  Status Start();
  //! Returns when `stop` becomes true, a stage fails, or (with exit_when_idle) every stage
  //! has consumed all of its input and nothing is in flight.
  Status Run(bool exit_when_idle, const std::atomic<bool>& stop);
  //! Finishes the current batches, waits for Kafka's acknowledgements, commits, closes.
  Status Stop();
  //! True when every input partition is read to its end and every output acknowledged.
  Result<bool> Idle();
  const pipeline::Metrics& metrics() const { return metrics_; }
  //! The data dir's store, for readers of the query table (after Start, until Stop).
  state::Store* store() { return store_.get(); }

  //! How far one stage's consumer is behind the end of one input partition.
  struct LagSample {
    std::string stage, topic;
    int32_t partition = 0;
    int64_t position = 0;  //!< next offset to read, as committed
    int64_t end = 0;       //!< high watermark
    int64_t lag = 0;       //!< end - position, at least 0
  };
  //! Asks the brokers for every stage's input watermarks. Any thread, between Start and Stop.
  Result<std::vector<LagSample>> Lag();
  //! Per stage: batches committed and seconds spent processing and committing them.
  struct StageTiming {
    std::string stage;
    uint64_t batches = 0;
    double seconds = 0;
  };
  std::vector<StageTiming> Timings() const;

 private:
  Status EnsureTopics();
  void LogProgress();

  ProcessorConfig config_;
  pipeline::Metrics metrics_;
  std::unique_ptr<state::Store> store_;
  std::unique_ptr<kafka::Admin> admin_;
  std::unique_ptr<kafka::Producer> producer_;
  std::vector<std::unique_ptr<pipeline::StageRunner>> runners_;
  bool stopped_ = false;
};

//! The topics of `names` with their partition counts from `config` (default `fallback`).
std::vector<kafka::TopicSpec> TopicSpecs(const ProcessorConfig& config);

}  // namespace webindex::app
