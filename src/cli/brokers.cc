#include "cli/brokers.h"

#include <chrono>
#include <fstream>
#include <thread>

#include "common/log.h"

namespace webindex::cli {
namespace {

constexpr auto kAddressFileWait = std::chrono::seconds(30);
constexpr auto kSayWaitingAfter = std::chrono::seconds(1);  //!< a broker starting takes 1-5 s

//! The first line of `path`, trimmed; "" while the file is missing or empty.
std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  const size_t end = line.find_last_not_of(" \t\r");
  return end == std::string::npos ? "" : line.substr(0, end + 1);
}

//! `--brokers @FILE`: waits for the file a starting `webindex broker` writes (whole, by a rename).
Result<std::string> ReadAddressFile(const std::string& path) {
  const auto start = std::chrono::steady_clock::now();
  bool said = false;
  for (;;) {
    if (std::string address = FirstLine(path); !address.empty()) return address;
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited > kAddressFileWait) {
      return Status::Unavailable("--brokers @" + path + ": " + path + " holds no address after " +
                                 std::to_string(kAddressFileWait.count()) + " s; start `webindex broker " +
                                 "--address-file " + path + "` first, or give --brokers HOST:PORT");
    }
    if (!said && waited > kSayWaitingAfter) {
      LOG_INFO("waiting for {} (the address `webindex broker --address-file {}` writes once it listens), at most {} s",
               path, path, kAddressFileWait.count());
      said = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

Status ResolveBrokers(std::string_view subcommand, const std::string* flag, Settings* settings) {
  std::string& brokers = settings->processor.kafka.brokers;
  const std::string name(subcommand);
  if (flag) {
    if (flag->empty()) {
      return Status::InvalidArgument(
          "--brokers is empty: give HOST:PORT[,HOST:PORT...], or @FILE for the address `webindex broker "
          "--address-file FILE` writes (`--brokers \"$(cat FILE)\"` is empty while that broker is starting; @FILE "
          "waits for it)");
    }
    brokers = *flag;
  }
  if (brokers.empty()) {
    return Status::InvalidArgument(
        name + " needs a Kafka cluster: --brokers HOST:PORT[,HOST:PORT...] (or kafka.bootstrap_servers in a --config "
               "file)" +
        (subcommand == "run" ? ", or --brokers embedded for an in-process broker that keeps nothing across restarts"
                             : "; `webindex broker` runs one on this machine"));
  }
  if (brokers == "embedded" && subcommand != "run") {
    return Status::InvalidArgument(
        name + (subcommand == "replay" ? " reads the input topic again, which an in-process broker would not hold "
                                         "(it starts empty)"
                                       : " would send to an in-process broker that ends with it") +
        ": give the --brokers that `webindex run` reads (`webindex broker` runs one on this machine)");
  }
  if (brokers.starts_with('@')) {
    if (brokers.size() == 1) return Status::InvalidArgument("--brokers @FILE: the FILE is missing after '@'");
    ASSIGN_OR_RETURN(brokers, ReadAddressFile(brokers.substr(1)));
  }
  return Status::Ok();
}

}  // namespace webindex::cli
