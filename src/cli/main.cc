// webindex: a live index of the web's link graph, built from page-crawl events in Kafka.
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "common/log.h"

using namespace webindex;

int main(int argc, char** argv) {
  CLI::App app{"webindex: keeps a live, exact index of the web's link graph from crawl events in Kafka"};
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand
  std::string config_path, brokers, log_level, data_dir;
  std::vector<std::string> kafka_props;
  app.add_option("-c,--config", config_path, "TOML configuration file (defaults: config/webindex.toml)");
  app.add_option("-X", kafka_props, "librdkafka property key=value, for any client (repeatable)");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error");

  cli::BrokerOptions broker_opts;
  auto* broker = app.add_subcommand("broker", "run the embedded Kafka broker (librdkafka mock cluster) on loopback");
  broker->add_option("--partitions", broker_opts.partitions, "partitions of the topics it creates")->check(CLI::PositiveNumber);
  broker->add_option("--address-file", broker_opts.address_file, "write the bootstrap address to this file");

  cli::LoadOptions load_opts;
  auto* load = app.add_subcommand("load", "produce JSON-lines crawl events, keyed by URL");
  load->add_option("--brokers", brokers, "Kafka bootstrap servers")->required();
  load->add_option("--topic", load_opts.topic, "topic to write (default: pages)");
  load->add_option("files", load_opts.files, "files of JSON lines, - for stdin")->required();

  cli::RunOptions run_opts;
  int partitions = 0;
  auto* run = app.add_subcommand("run", "run all stages and the sink");
  run->add_option("--brokers", brokers, "Kafka bootstrap servers, or 'embedded' for an in-process broker");
  run->add_option("--data-dir", data_dir, "state and query table directory")->required();
  run->add_option("--partitions", partitions, "partitions of the topics it creates")->check(CLI::PositiveNumber);
  run->add_flag("--exit-when-idle", run_opts.exit_when_idle, "exit 0 once all input is consumed and applied");

  auto* dump = app.add_subcommand("dump", "print the query table as row|cf|cq|value lines");
  dump->add_option("--data-dir", data_dir, "state and query table directory")->required();

  cli::DemoOptions demo_opts{WEBINDEX_SAMPLE_DATA, ""};
  auto* demo = app.add_subcommand("demo", "embedded broker + sample crawl + processing, then the top pages");
  demo->add_option("file", demo_opts.file, "JSON-lines crawl events (default: the bundled sample)")->capture_default_str();
  demo->add_option("--domain", demo_opts.domain, "domain to list, e.g. stackoverflow.com");
  demo->add_option("--data-dir", data_dir, "where to keep the table (default: a new temporary dir)");

  CLI11_PARSE(app, argc, argv);

  auto settings = cli::LoadSettings(config_path);
  if (!settings.ok()) {
    InitLogging("info");
    LOG_ERROR("{}", settings.status().ToString());
    return 1;
  }
  InitLogging(log_level.empty() ? settings->log_level : log_level);
  for (const auto& p : kafka_props) {
    if (Status st = cli::SetKafkaProperty(&*settings, p); !st.ok()) {
      LOG_ERROR("{}", st.ToString());
      return 1;
    }
  }
  if (!brokers.empty()) settings->processor.kafka.brokers = brokers;
  if (!data_dir.empty()) settings->processor.data_dir = data_dir;
  if (partitions > 0) {
    for (auto& [topic, n] : settings->processor.partitions) n = partitions;
  }

  if (*broker) return cli::RunBroker(*settings, broker_opts);
  if (*load) return cli::RunLoad(*settings, load_opts);
  if (*run) return cli::RunProcessor(std::move(settings).value(), run_opts);
  if (*dump) return cli::RunDump(*settings);
  if (*demo) {
    settings->processor.kafka.brokers = brokers.empty() ? "embedded" : brokers;
    return cli::RunDemo(std::move(settings).value(), demo_opts);
  }
  return 1;
}
