// Shared inputs of the hot-path benchmarks: realistic crawl events (bench::SyntheticCrawl),
// a pool of URIs, a real state::Store in a temp dir, and InRecord views over stored values.
// Single-threaded, like the stage code they drive.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/crawl_generator.h"
#include "common/record.h"
#include "model/page.h"
#include "pipeline/stage.h"
#include "state/store.h"

namespace webindex::benchmarks {

//! The crawl shape the benchmarks share: 10 links per page, 5000 domains, zipf 0.9.
bench::SyntheticCrawl Crawl(uint64_t pages);

//! `n` crawl events (JSON) of pages `first`.. of Crawl(first + n).
std::vector<std::string> Events(uint64_t first, uint64_t n);

//! The decoded pages of `n` events starting at page `first` (links resolved).
std::vector<model::Page> Pages(uint64_t first, uint64_t n);

//! `n` distinct URIs (URI form) of the synthetic URI space.
std::vector<std::string> UriPool(uint64_t n);

//! A Store in a fresh temp dir; the dir is removed with it.
class TempStore {
 public:
  TempStore();
  ~TempStore();
  state::Store& store() { return *store_; }

 private:
  std::string dir_;
  std::unique_ptr<state::Store> store_;
};

//! What StageRunner::RunBatch adds around Stage::Process, without Kafka: emitted records go
//! to the outbox, the previous batch's outbox entries are deleted (as if acknowledged), and
//! the whole batch is one Store::Write.
class RunnerEmulator {
 public:
  RunnerEmulator(state::Store& store, std::string stage_name) : store_(store), name_(std::move(stage_name)) {}
  Status RunBatch(pipeline::Stage& stage, const std::vector<InRecord>& records);
  const pipeline::Metrics& metrics() const { return metrics_; }
  uint64_t emitted() const { return next_seq_ - 1; }

 private:
  state::Store& store_;
  std::string name_;
  pipeline::Metrics metrics_;
  uint64_t next_seq_ = 1;
  std::vector<std::string> unacked_;
};

//! InRecords viewing `values` (which must outlive them), topic `topic`, partition 0.
std::vector<InRecord> Records(const std::string& topic, const std::vector<std::string>& values);

}  // namespace webindex::benchmarks
