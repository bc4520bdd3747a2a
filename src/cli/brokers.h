// The Kafka cluster of the subcommands that talk to one (load, run, replay): one rule for all of
// them, so that a configuration that works for one works for the others.
#pragma once

#include <string>
#include <string_view>

#include "cli/config.h"

namespace webindex::cli {

//! Sets the cluster `subcommand` talks to: `flag` (--brokers; nullptr when not given) over
//! kafka.bootstrap_servers of the configuration. The value is HOST:PORT[,HOST:PORT...],
//! "embedded" (`run` only: an in-process broker would vanish with a load and hold nothing for a
//! replay), or @FILE: the first line of FILE, waited for up to 30 s, since `webindex broker
//! --address-file FILE` writes it only once its broker listens. InvalidArgument (a usage error)
//! saying what to give when there is no cluster, or the flag is empty; Unavailable when FILE
//! does not appear.
Status ResolveBrokers(std::string_view subcommand, const std::string* flag, Settings* settings);

}  // namespace webindex::cli
