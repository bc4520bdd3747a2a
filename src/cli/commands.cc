#include "cli/commands.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <thread>

#include "codec/event.h"
#include "common/log.h"
#include "kafka/client.h"
#include "query/table_reader.h"

namespace webindex::cli {
namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) {
  if (g_stop.exchange(true)) _exit(130);  // second signal: now; state is safe at any instant
}

int Fail(const Status& st) {
  LOG_ERROR("{}", st.ToString());
  return 1;
}

//! Starts the in-process broker when the configuration says "embedded".
Result<std::unique_ptr<kafka::EmbeddedBroker>> MaybeEmbedded(Settings* settings) {
  if (settings->processor.kafka.brokers != "embedded") return std::unique_ptr<kafka::EmbeddedBroker>();
  ASSIGN_OR_RETURN(auto broker, kafka::EmbeddedBroker::Start());
  settings->processor.kafka.brokers = broker->bootstrap_servers();
  LOG_INFO("embedded broker listening on {}", settings->processor.kafka.brokers);
  return broker;
}

}  // namespace

const std::atomic<bool>& InstallStopSignals() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return g_stop;
}

int RunBroker(const Settings& settings, const BrokerOptions& options) {
  auto broker = kafka::EmbeddedBroker::Start();
  if (!broker.ok()) return Fail(broker.status());
  for (const auto& spec : app::TopicSpecs(settings.processor)) {
    const int partitions = options.partitions > 0 ? options.partitions : spec.partitions;
    if (Status st = (*broker)->CreateTopic(spec.name, partitions); !st.ok()) return Fail(st);
  }
  const std::string address = (*broker)->bootstrap_servers();
  if (!options.address_file.empty()) {
    const std::string tmp = options.address_file + ".tmp";
    std::ofstream(tmp) << address << '\n';
    if (rename(tmp.c_str(), options.address_file.c_str()) != 0) {
      return Fail(Status::IoError("cannot write " + options.address_file));
    }
  }
  std::cout << address << std::endl;
  LOG_INFO("embedded broker on {}; in memory, about 5 MiB per partition, no real transactions. Ctrl-C stops it.",
           address);
  const auto& stop = InstallStopSignals();
  while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return 0;
}

int RunLoad(const Settings& settings, const LoadOptions& options) {
  const std::string topic = options.topic.empty() ? settings.processor.topics.pages : options.topic;
  auto admin = kafka::Admin::Create(settings.processor.kafka);
  if (!admin.ok()) return Fail(admin.status());
  kafka::TopicSpec spec{topic, 1, 1, {}};
  if (auto it = settings.processor.partitions.find(topic); it != settings.processor.partitions.end()) {
    spec.partitions = it->second;
  }
  if (Status st = (*admin)->EnsureTopics({spec}, 10000); !st.ok()) {
    return Fail(st.WithContext("cannot reach Kafka at " + settings.processor.kafka.brokers));
  }
  std::atomic<uint64_t> failed{0};
  auto producer = kafka::Producer::Create(settings.processor.kafka, [&](uint64_t, const Status& st) {
    if (!st.ok() && failed++ == 0) LOG_ERROR("{}", st.ToString());
  });
  if (!producer.ok()) return Fail(producer.status());
  uint64_t sent = 0, bad = 0;
  for (const auto& file : options.files) {
    std::ifstream in_file;
    std::istream* in = &std::cin;
    if (file != "-") {
      in_file.open(file);
      if (!in_file) return Fail(Status::IoError("cannot open " + file));
      in = &in_file;
    }
    std::string line;
    for (uint64_t lineno = 1; std::getline(*in, line); ++lineno) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto url = codec::ExtractEventUrl(line);
      if (!url.ok()) {
        std::cerr << file << ":" << lineno << ": " << url.status().message() << " (line skipped)\n";
        ++bad;
        continue;
      }
      if (Status st = (*producer)->Produce({topic, -1, *url, line, {}}, sent); !st.ok()) return Fail(st);
      ++sent;
    }
  }
  if (Status st = (*producer)->Flush(60000); !st.ok()) return Fail(st.WithContext("waiting for acknowledgements"));
  LOG_INFO("loaded {} events into {} ({} lines skipped, {} not acknowledged)", sent, topic, bad, failed.load());
  return bad == 0 && failed == 0 ? 0 : 2;
}

int RunProcessor(Settings settings, const RunOptions& options) {
  auto embedded = MaybeEmbedded(&settings);
  if (!embedded.ok()) return Fail(embedded.status());
  const auto& stop = InstallStopSignals();
  app::Processor processor(settings.processor);
  if (Status st = processor.Start(); !st.ok()) return Fail(st);
  Status run = processor.Run(options.exit_when_idle, stop);
  Status stopped = processor.Stop();
  if (!run.ok()) return Fail(run);
  if (!stopped.ok()) return Fail(stopped);
  return 0;
}

int RunDump(const Settings& settings) {
  state::StoreOptions opts = settings.processor.store;
  opts.read_only = true;
  auto store = state::Store::Open(settings.processor.data_dir, opts);
  if (!store.ok()) return Fail(store.status());
  std::ios::sync_with_stdio(false);
  auto lines = query::DumpTable(**store, std::cout);
  if (!lines.ok()) return Fail(lines.status());
  std::cout.flush();
  return 0;
}

}  // namespace webindex::cli
