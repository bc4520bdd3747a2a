#include "cli/bench_command.h"

#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/exit_codes.h"
#include "common/log.h"

namespace webindex::cli {

void AddBenchOptions(CLI::App* command, BenchOptions* options) {
  auto& c = options->config;
  command->add_option("--pages", c.crawl.pages, "pages (events) of the throughput phase")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_option("--links-per-page", c.crawl.links_per_page, "mean outlinks per page")->capture_default_str();
  command->add_option("--domains", c.crawl.domains, "registrable domains")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_option("--uris", c.crawl.uri_space, "URI space links point into (0: 4 x all pages)")
      ->capture_default_str();
  command->add_option("--zipf", c.crawl.zipf, "in-degree skew exponent")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3.0));
  command->add_option("--seed", c.crawl.seed, "generator seed")->capture_default_str();
  command->add_option("--rate", c.rate, "latency phase produce rate, events/s (0: half the measured maximum)")
      ->capture_default_str();
  command->add_option("--latency-pages", c.latency_pages, "latency phase events (0: pages / 4, at least 100)")
      ->capture_default_str();
  command->add_option("--latency-samples", c.latency_samples, "latency probes at most")->capture_default_str();
  command->add_option("--partitions", c.partitions, "partitions of pages, uri-deltas and exports")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_option("--data-dir", c.data_dir, "empty dir for the state (default: a temporary dir, removed)");
  command->add_flag("--keep-data", c.keep_data, "keep the temporary data dir");
  command->add_flag_callback("--no-count-uris", [config = &c] { config->count_uris = false; },
                             "skip counting distinct URIs afterwards");
  command->add_flag("--json", options->json, "print the report as JSON");
}

int RunBench(const Settings& settings, BenchOptions options) {
  options.config.processor = settings.processor;
  bench::BenchReport report;
  const Status st = bench::RunEndToEnd(options.config, &report);
  std::cout << (options.json ? bench::FormatJson(report) + "\n" : bench::FormatText(report)) << std::flush;
  if (!st.ok()) {
    LOG_ERROR("bench failed: {}", st.ToString());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace webindex::cli
