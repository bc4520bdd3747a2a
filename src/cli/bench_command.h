// `webindex bench`: flags of the end-to-end benchmark (src/bench/) and its report on stdout.
// Called from the main thread.
#pragma once

#include "bench/end_to_end.h"
#include "cli/config.h"

namespace CLI {
class App;
}

namespace webindex::cli {

struct BenchOptions {
  bench::BenchConfig config;
  bool json = false;  //!< the report as one JSON object instead of text
};

//! Adds the bench flags to `command`, bound to `options`.
void AddBenchOptions(CLI::App* command, BenchOptions* options);

//! Runs the benchmark on an in-process embedded broker with `settings`' store, pipeline and
//! Kafka client configuration. Exit code 0; 1 when it failed or any event went missing.
int RunBench(const Settings& settings, BenchOptions options);

}  // namespace webindex::cli
