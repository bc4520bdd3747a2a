// Process-wide counters, updated by stage threads and read by the progress log.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace webindex::pipeline {

struct Metrics {
  std::atomic<uint64_t> events{0};           //!< crawl events consumed
  std::atomic<uint64_t> invalid_events{0};   //!< sent to dead letters
  std::atomic<uint64_t> stale_events{0};     //!< older than the recorded crawlDate
  std::atomic<uint64_t> dropped_links{0};    //!< links whose url did not resolve
  std::atomic<uint64_t> truncated_links{0};  //!< links beyond max_outlinks
  std::atomic<uint64_t> uri_deltas{0};
  std::atomic<uint64_t> domain_deltas{0};
  std::atomic<uint64_t> duplicates{0};       //!< internal records seen before, skipped
  std::atomic<uint64_t> fenced_records{0};   //!< written by a task's former owner after it moved (fence.h), dropped
  std::atomic<uint64_t> exports{0};          //!< export records applied by the sink
  std::atomic<uint64_t> stale_exports{0};    //!< export records older than the table, skipped
  std::atomic<uint64_t> corrupt_records{0};  //!< undecodable internal records (dead-lettered)
  std::atomic<uint64_t> before_from{0};      //!< events older than the generation's start time, skipped
  std::atomic<uint64_t> other_generation{0}; //!< internal records of another generation, skipped
  std::atomic<uint64_t> lost_records{0};     //!< input removed by retention before it was read
  std::atomic<uint64_t> deleted_before_start{0};  //!< input retention had removed before the table (or task) began
  std::atomic<uint64_t> undeliverable_records{0};  //!< records Kafka rejected for good, dead-lettered instead
  std::atomic<uint64_t> dead_lettered{0};    //!< records the dead-letter topic acknowledged, each once
  std::atomic<uint64_t> export_parts{0};     //!< page exports split into parts: the parts sent
  std::atomic<uint64_t> truncated_texts{0};   //!< anchor texts, titles, server fields cut to codec's bounds
  std::atomic<uint64_t> dropped_long_urls{0};       //!< links dropped for a URL over codec::kMaxUrlBytes
  std::atomic<uint64_t> triple_records{0};         //!< records of the triples topic consumed
  std::atomic<uint64_t> invalid_triple_records{0}; //!< of them, dead-lettered whole (a bad line)
  std::atomic<uint64_t> statements_added{0};       //!< statements that were not in the graph store
  std::atomic<uint64_t> statements_removed{0};     //!< statements that were
  std::atomic<uint64_t> web_statements_added{0};   //!< web graph statements (indexes.web_triples)
  std::atomic<uint64_t> web_statements_removed{0};
  std::atomic<uint64_t> unparsed_dates{0};  //!< xsd:dateTime objects the temporal index cannot read
  std::atomic<uint64_t> web_statements_skipped{0}; //!< a URL or text that cannot be an RDF term
  std::atomic<uint64_t> forwarded_events{0};  //!< read from another partition than their page's task, forwarded there
  std::atomic<uint64_t> commits{0};
  std::atomic<uint64_t> tasks_taken_over{0};  //!< group mode: tasks restored, fenced and claimed
  std::atomic<uint64_t> tasks_given_up{0};    //!< group mode: tasks the group took away
  std::atomic<uint64_t> tasks_resumed_locally{0};  //!< of those taken over: from the copy the data dir kept at its stop
  std::atomic<uint64_t> restored_records{0};  //!< changelog records read by takeovers
  std::atomic<uint64_t> snapshots{0};         //!< task snapshots written to the changelogs
  std::atomic<uint64_t> snapshot_rows{0};     //!< rows in them
  std::atomic<uint64_t> changelog_trims{0};   //!< changelog partitions trimmed to a snapshot
  std::atomic<uint64_t> changelog_trims_refused{0};  //!< trims not done: the group did not confirm the owner
  std::atomic<uint64_t> changelog_trim_errors{0};    //!< trims the brokers failed (tried again)
  std::atomic<int64_t> restore_lag{0};  //!< gauge: changelog records the takeovers running now have left to read

  //! Every counter as (name, value), in the order Summary gives them.
  std::vector<std::pair<std::string_view, uint64_t>> Counters() const;
  //! "name=value" of every counter.
  std::string Summary() const;

  //! A dead letter Kafka acknowledged: counts it in dead_lettered and keeps its reason as the last.
  void CountDeadLetter(std::string reason);
  struct DeadLetterNote {
    std::string reason;  //!< its `reason` header
    int64_t at_ms = 0;   //!< when Kafka acknowledged it (ms since the epoch)
  };
  //! The last dead letter counted since the process started; nullopt before the first.
  std::optional<DeadLetterNote> LastDeadLetter() const;

 private:
  mutable std::mutex dead_letter_mu_;
  std::optional<DeadLetterNote> last_dead_letter_;
};

}  // namespace webindex::pipeline
