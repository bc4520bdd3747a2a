#include "cli/brokers.h"

#include <string>

namespace webindex::cli {

Status CheckBrokers(std::string_view subcommand, const Settings& settings) {
  const std::string& brokers = settings.processor.kafka.brokers;
  const std::string name(subcommand);
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
  return Status::Ok();
}

}  // namespace webindex::cli
