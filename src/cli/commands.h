// The subcommands of the webindex CLI. Each returns the process exit code.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "app/replay.h"
#include "cli/config.h"

namespace webindex::cli {

struct BrokerOptions {
  int partitions = 0;  //!< 0: from the topic definitions
  std::string address_file;
};
int RunBroker(const Settings& settings, const BrokerOptions& options);

struct LoadOptions {
  std::string topic;  //!< empty: the configured input topic
  std::vector<std::string> files;
  //! "json" (JSON lines), "wat" (Common Crawl WAT), "wikipedia" (revisions), "ntriples" or "nquads"
  //! (RDF statements, to the triples topic)
  std::string format = "json";
  bool all_links = false;       //!< wat: keep links within the page's own domain too
  bool remove = false;          //!< ntriples, nquads: records remove their statements (header op=remove)
};
//! Defined in cli/load_command.cc.
int RunLoad(const Settings& settings, const LoadOptions& options);

struct RunOptions {
  bool exit_when_idle = false;
  bool reset = false;  //!< drop the data dir's generations first and rebuild from the input topic
  bool table = false;      //!< --table: a group member keeps the table (as with --http)
  bool no_stages = false;  //!< --no-stages: a group member keeps only the table
  //! --table-shard: a group member keeps its share of a partitioned table (docs/scale-out.md §6)
  bool table_shard = false;
  //! --http-advertise: where other members of a partitioned table reach this one's API
  //! (default: the --http address, when it names a host)
  std::string http_advertise;
  //! A lone run whose stages hold nothing yet builds from a backlog as a batch first
  //! (app/bulk_builds.h, Settings::bulk); --no-bulk: one batch at a time.
  bool bulk = true;
};
int RunProcessor(Settings settings, const RunOptions& options);

int RunDump(const Settings& settings);

//! Checks every checksum of the data dir's current generation.
int RunVerify(const Settings& settings);
//! `webindex details`: the current generation's instance details as JSON on stdout.
int RunDetails(const Settings& settings);

//! Rebuilds the table from the input topic into a new generation, then switches to it.
int RunReplay(Settings settings, const app::ReplayOptions& options);

struct DemoOptions {
  std::string file;    //!< JSON-lines crawl events; "": the sample crawl in the binary
  std::string domain;  //!< domain to list; default: the top page's
};
//! Embedded broker + load + run until idle + the top pages and a domain's pages.
int RunDemo(Settings settings, const DemoOptions& options);

//! Installs SIGINT/SIGTERM handlers: the first asks to stop, the second exits at once.
const std::atomic<bool>& InstallStopSignals();

}  // namespace webindex::cli
