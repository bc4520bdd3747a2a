// The Kafka cluster of the subcommands that talk to one (load, run, replay): one rule for all of
// them, so that a configuration that works for one works for the others.
#pragma once

#include <string_view>

#include "cli/config.h"

namespace webindex::cli {

//! Checks the cluster `subcommand` talks to: settings' brokers, i.e. --brokers over
//! kafka.bootstrap_servers of the configuration. InvalidArgument (a usage error) saying what to
//! give when there is none, or when it is "embedded" and `subcommand` is not `run` (an
//! in-process broker would vanish with a load and hold nothing for a replay).
Status CheckBrokers(std::string_view subcommand, const Settings& settings);

}  // namespace webindex::cli
