// The exit codes of every webindex subcommand: one table, documented in docs/cli.md.
#pragma once

namespace webindex::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,   //!< could not do its job: I/O, Kafka, a full disk, a damaged store, a busy data dir
  kExitUsage = 2,     //!< a bad command line or configuration file; nothing was touched
  //! query: the page, or every page of the domain, is not in the table; query, dump, pagerank
  //! --data-dir: the data dir keeps no table (a group member that runs only stages)
  kExitNotFound = 3,
  kExitDataLoss = 4,  //!< run: input was removed by retention before it was read (the rest was processed); load: the broker deleted records it wrote before they were read
  kExitSkipped = 5,   //!< load: some input records were malformed or too large and were skipped (the rest sent)
  kExitNoIndex = 6,   //!< query temporal, search: the table was built without the index the query reads
  kExitInterrupted = 130,  //!< replay: stopped by SIGINT/SIGTERM before it switched
};

}  // namespace webindex::cli
