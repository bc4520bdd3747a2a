#include "cli_cluster.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "pipeline_harness.h"

namespace webindex::testing {

std::string WaitForFile(const std::string& path) {
  for (int i = 0; i < 200; ++i) {
    std::ifstream in(path);
    std::string line;
    if (in && std::getline(in, line) && !line.empty()) return line;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "";
}

CliCluster::CliCluster(std::string binary, const std::string& name, int partitions)
    : binary_(std::move(binary)), dir_(MakeTempDir(name)), log_(dir_ + "/processes.log") {
  broker_ = std::make_unique<ChildProcess>(
      std::vector<std::string>{binary_, "broker", "--partitions", std::to_string(partitions), "--address-file",
                               dir_ + "/addr"},
      log_);
  brokers_ = WaitForFile(dir_ + "/addr");
  if (brokers_.empty()) return;
  auto producer = kafka::Producer::Create({brokers_, {}}, [](uint64_t, const Status& st) {
    EXPECT_TRUE(st.ok()) << st.ToString();
  });
  if (producer.ok()) producer_ = std::move(producer).value();
}

CliCluster::~CliCluster() {
  producer_.reset();
  broker_.reset();
  const bool failed = ::testing::Test::HasFailure();
  if (!failed && !keep_ && !std::getenv("WEBINDEX_KEEP_TEST_DIR")) std::filesystem::remove_all(dir_);
}

::testing::AssertionResult CliCluster::Produce(const std::vector<GeneratedEvent>& events) {
  for (const auto& ev : events) {
    Status st = producer_->Produce({"pages", ev.partition_hint, ev.key, ev.value, {}}, 0);
    if (!st.ok()) return ::testing::AssertionFailure() << "produce: " << st.ToString();
  }
  Status st = producer_->Flush(30000);
  if (!st.ok()) return ::testing::AssertionFailure() << "flush: " << st.ToString();
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult CliCluster::ProduceRecords(const std::vector<OutRecord>& records) {
  for (const auto& r : records) {
    Status st = producer_->Produce(r, 0);
    if (!st.ok()) return ::testing::AssertionFailure() << "produce: " << st.ToString();
  }
  Status st = producer_->Flush(30000);
  if (!st.ok()) return ::testing::AssertionFailure() << "flush: " << st.ToString();
  return ::testing::AssertionSuccess();
}

std::unique_ptr<ChildProcess> CliCluster::Start(const std::vector<std::string>& args, const std::string& env) {
  std::vector<std::string> argv;
  if (!env.empty()) {
    argv = {"/usr/bin/env"};
    std::stringstream pairs(env);
    for (std::string pair; pairs >> pair;) argv.push_back(pair);
  }
  argv.push_back(binary_);
  argv.insert(argv.end(), args.begin(), args.end());
  return std::make_unique<ChildProcess>(argv, log_);
}

std::unique_ptr<ChildProcess> CliCluster::StartRun(bool exit_when_idle, const std::string& env) {
  std::vector<std::string> args = {"run", "--brokers", brokers_, "--data-dir", data_dir()};
  if (exit_when_idle) args.push_back("--exit-when-idle");
  return Start(args, env);
}

int CliCluster::Run(const std::vector<std::string>& args, std::string* out) {
  std::vector<std::string> argv = {binary_};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string ignored;
  return RunCommand(argv, out ? out : &ignored, log_);
}

std::vector<std::string> CliCluster::Dump() {
  std::string out;
  EXPECT_EQ(Run({"dump", "--data-dir", data_dir()}, &out), 0) << "see " << log_;
  std::vector<std::string> lines;
  std::stringstream ss(out);
  for (std::string line; std::getline(ss, line);) lines.push_back(line);
  return lines;
}

std::string CliCluster::LogTail(size_t lines) const {
  std::ifstream in(log_);
  std::deque<std::string> tail;
  for (std::string line; std::getline(in, line);) {
    tail.push_back(std::move(line));
    if (tail.size() > lines) tail.pop_front();
  }
  std::string out = "see " + log_ + "; its last lines:";
  for (const auto& line : tail) out += "\n  " + line;
  return out;
}

size_t CliCluster::LogSize() const {
  std::error_code ec;
  const auto size = std::filesystem::file_size(log_, ec);
  return ec ? 0 : static_cast<size_t>(size);
}

bool CliCluster::WaitForLog(const std::string& needle, int timeout_ms, size_t from) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str().find(needle, from) != std::string::npos) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string CliCluster::CurrentGeneration() const {
  std::ifstream in(data_dir() + "/GENERATION");
  std::string text;
  in >> text;
  return text;
}

std::vector<std::string> CliCluster::GenerationDirs() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(data_dir(), ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name.starts_with("gen-")) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace webindex::testing
