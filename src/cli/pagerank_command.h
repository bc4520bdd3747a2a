// `webindex pagerank`: PageRank (docs/pagerank.md) over Wikipedia revision files or
// over a snapshot of a data dir's query table, printed as `name score` lines on stdout; progress
// and a summary on stderr. Called from the main thread.
#pragma once

#include <string>
#include <vector>

#include "cli/config.h"

namespace webindex::cli {

struct PageRankCommandOptions {
  std::string format;  //!< input format of `files`: "wikipedia" (also when "": the only one)
  std::vector<std::string> files;
  std::string data_dir;  //!< instead of files: the live graph of this data dir's table
  int iterations = 10;
  std::string until;  //!< RFC 3339: only revisions stamped at or before it
  size_t limit = 0;   //!< print the first K nodes only (0: all)
  unsigned threads = 0;  //!< 0: one per core
};

int RunPageRank(const Settings& settings, const PageRankCommandOptions& options);

}  // namespace webindex::cli
