// Configuration: the embedded defaults (config/webindex.toml, topics/*.toml), then a user's
// TOML file, then command-line flags. The only code that includes toml++.
#pragma once

#include <string>

#include "app/bulk_input.h"
#include "app/processor.h"
#include "common/status.h"
#include "http/server.h"

namespace webindex::cli {

struct Settings {
  app::ProcessorConfig processor;
  std::string log_level = "info";
  http::ServerOptions http;  //!< [http]; listen "" (the default): no HTTP server
  app::BulkOptions bulk;     //!< [bulk]: a replay's bulk builds (flags win)
};

//! Defaults and topic definitions, overlaid with the TOML file at `path` (if not empty).
Result<Settings> LoadSettings(const std::string& path);

//! Opens the data dir's store read-only (dump, query, demo): works while `run` holds it.
Result<std::unique_ptr<state::Store>> OpenTableReadOnly(const Settings& settings);
//! The same, to read its query table (query, dump, pagerank --data-dir): a data dir that keeps
//! none (a group member that runs only stages) is NotFound saying whom to ask, with `*no_table`
//! set, which the commands report as exit code 3.
Result<std::unique_ptr<state::Store>> OpenQueryTable(const Settings& settings, bool* no_table);

//! Applies a librdkafka property given as "key=value" (the -X flag).
Status SetKafkaProperty(Settings* settings, const std::string& assignment);

}  // namespace webindex::cli
