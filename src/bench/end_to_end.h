// `webindex bench`, the end-to-end benchmark: starts the embedded broker and an app::Processor
// on a fresh data dir in this process, feeds them a SyntheticCrawl while they run, and
// measures in one run (a) throughput, (d) the raw consume rate of the records (a) consumed,
// (b) event-to-query latency at a fixed rate, (c) peak RSS and RocksDB size. Blocking; one thread.
#pragma once

#include <string>

#include "app/processor.h"
#include "bench/crawl_generator.h"
#include "bench/report.h"
#include "common/status.h"

namespace webindex::bench {

struct BenchConfig {
  CrawlShape crawl;                //!< crawl.pages: the throughput phase's events
  uint64_t latency_pages = 0;      //!< latency phase events; 0: pages / 4, at least 100
  double rate = 0;                 //!< latency phase produce rate (events/s); 0: half the measured max
  size_t latency_samples = 2000;   //!< probes in the latency phase, at most
  int partitions = 8;              //!< of pages, webindex.uri-deltas and webindex.exports
  std::string data_dir;            //!< empty: a new temp dir, removed afterwards
  bool keep_data = false;          //!< keep a temp data dir
  bool count_uris = true;          //!< count distinct URIs in the state afterwards
  double min_raw_seconds = 1.0;    //!< raw consume passes repeat for at least this long
  app::ProcessorConfig processor;  //!< store, runner, limits, kafka properties; brokers and dir set here
};

//! Runs the benchmark; fills `report` as far as it got, also on failure. Fails (non-OK) when
//! any event produced was not consumed, lost to retention or invalid.
Status RunEndToEnd(const BenchConfig& config, BenchReport* report);

}  // namespace webindex::bench
