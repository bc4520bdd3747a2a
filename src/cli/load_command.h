// `webindex load`: crawl events from JSON-lines, Common Crawl WAT or Wikipedia revision files (plain or gzip) into
// the pages topic, keyed by page URL, with progress on stderr. Called from the main thread.
#pragma once

#include <cstdint>
#include <string>

#include "cli/commands.h"
#include "common/status.h"
#include "ingest/wat.h"

namespace webindex::cli {

//! What a load did, for its summary line and exit code.
struct LoadSummary {
  uint64_t records = 0;    //!< lines or WARC records read
  uint64_t events = 0;     //!< events produced and acknowledged
  uint64_t bad_lines = 0;  //!< JSON lines without a string "url", malformed revision records (skipped)
  uint64_t oversized = 0;  //!< events over limits.max_event_bytes or larger than the topic takes (skipped)
  //! Records of this load the broker deleted (retention) before the load ended and before the
  //! reader whose position the load watches (embedded broker) read them.
  uint64_t deleted_early = 0;
  ingest::WatStats wat;    //!< WAT input: skipped records by kind, links
  double seconds = 0;

  //! One line: records, events produced, skipped by kind, dropped links, seconds.
  std::string ToString(const std::string& format) const;
};

//! Produces the events of `options.files` ("-": stdin) to `topic` and waits for every
//! acknowledgement, also when a file fails part-way (its events so far stay produced).
Status LoadFiles(const Settings& settings, const std::string& topic, const LoadOptions& options, LoadSummary* summary);

}  // namespace webindex::cli
