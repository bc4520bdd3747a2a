// Replay: rebuilds the state and the query table from the input topic into a new generation
// of the data dir (state::DataDir) while the current generation keeps answering, then makes
// it current. Every record a generation writes carries its number, so the generations share
// the topics and ignore each other's records.
//
// Steps, each safe to interrupt:
//   1. create generation N = newest + 1 with its start positions: `pages` at --from, the
//      internal topics at their current ends (what is before belongs to other generations);
//   2. run the stages on generation N until they are at most `switch_lag` records behind;
//   3. stop them (everything committed), write N into GENERATION — the switch;
//   4. remove the older generation, or leave that to a running `webindex run`, which
//      notices the switch, moves its HTTP API to generation N and continues it.
// An interrupted replay resumes when started again with the same --from, and is rolled
// back (generation N deleted) when started with another one or with --abort.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "app/processor.h"

namespace webindex::app {

struct ReplayOptions {
  std::string from = "earliest";  //!< "earliest" or an RFC 3339 time (Kafka record timestamps)
  int64_t switch_lag = 1000;      //!< switch once this few input records are left, all stages together
  bool abort = false;             //!< only roll back an unfinished replay
  //! Index changes, "+temporal,-freetext" (instance_details.h); "": the current generation's set.
  std::string indexes;
  //! Switch even when the new generation lacks pages the current one has (their input was
  //! removed by retention or is before `from`); without it such a replay stops before the switch.
  bool force = false;
  int takeover_timeout_ms = 60000;  //!< wait this long for a running `webindex run` to take over
};

//! "earliest" -> -1; an RFC 3339 time -> ms since the epoch (>= 0).
Result<int64_t> ParseReplayFrom(const std::string& from);

//! Runs a replay of `config.data_dir` (config.generation is ignored). Returns Aborted when
//! `stop` interrupted it (it resumes when started again).
Status Replay(ProcessorConfig config, const ReplayOptions& options, const std::atomic<bool>& stop);

//! The lock file `webindex run` holds while it runs a data dir's current generation.
std::string RunLockPath(const state::DataDir& dir);

}  // namespace webindex::app
