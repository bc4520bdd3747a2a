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
#include <functional>
#include <optional>
#include <string>

#include "app/bulk_crawl.h"
#include "app/bulk_graph.h"
#include "app/instance_details.h"
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
  //! Build the graph stage's state from `triples` and the crawl stages' from `pages` as batches
  //! before the stages run (app/bulk_graph.h, app/bulk_crawl.h); `bulk.temp_dir` empty: a
  //! directory in the data dir.
  bool use_bulk = true;
  BulkOptions bulk;
};

//! "earliest" -> -1; an RFC 3339 time -> ms since the epoch (>= 0).
Result<int64_t> ParseReplayFrom(const std::string& from);

//! Runs a replay of `config.data_dir` (config.generation is ignored). Returns Aborted when
//! `stop` interrupted it (it resumes when started again).
Status Replay(ProcessorConfig config, const ReplayOptions& options, const std::atomic<bool>& stop);

// Shared by the replays of a lone data dir and of a group (group_replay.h).

//! How a replayed generation started: the replay's --from and the generation's details.
struct ReplayStart {
  int64_t from_ms = -1;
  InstanceDetails details;
};
//! True when two generations keep the same indexes.
bool SameIndexes(const InstanceDetails& a, const InstanceDetails& b);
//! The details of the generation a replay builds: the current generation's (its name, creation
//! time and indexes; the configuration's for a data dir that never ran), the configured
//! temporal predicates, and `changes` (--indexes) applied.
Result<InstanceDetails> DetailsForReplay(const ProcessorConfig& config, const state::DataDir& dir, uint64_t current,
                                         const std::string& changes);
//! How generation `gen` started if its setup finished, nullopt if it did not.
Result<std::optional<ReplayStart>> ReadReplayStart(const state::DataDir& dir, uint64_t gen,
                                                   const state::StoreOptions& o);
//! Creates generation `gen` of `dir` (not current) with its start positions, in one commit.
Status CreateGeneration(const ProcessorConfig& config, const InstanceDetails& details, kafka::Admin& admin,
                        const state::DataDir& dir, uint64_t gen, int64_t from_ms);

//! What a replay would drop: keys the current generation has that the new one has not, and how
//! many input records the new one has yet to read (each of which could still bring them).
struct Missing {
  uint64_t count = 0;
  std::vector<std::string> examples;  //!< the first few, readable
  int64_t unread = 0;
};
//! Counts the keys in [begin, end) of `family` that `old_store` has and `new_store` has not;
//! `describe` makes an example readable.
Result<Missing> CountMissing(state::Store& old_store, state::Store& new_store, state::Family family,
                             const std::string& begin, const std::string& end,
                             const std::function<std::string(std::string_view)>& describe);
//! Records of `topic` that `stage` of a stopped generation has not read: its committed
//! positions in `store` against the watermarks asked now.
Result<int64_t> Unread(kafka::Admin& admin, state::Store& store, const char* stage, const std::string& topic);
//! "earliest" or the RFC 3339 time of `from_ms`.
std::string DescribeFrom(int64_t from_ms);

//! The lock file `webindex run` holds while it runs a data dir's current generation.
std::string RunLockPath(const state::DataDir& dir);

}  // namespace webindex::app
