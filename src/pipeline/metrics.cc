#include "pipeline/metrics.h"

#include <chrono>

#include <fmt/format.h>

namespace webindex::pipeline {

std::string Metrics::Summary() const {
  return fmt::format(
      "events={} invalid={} stale={} dropped_links={} truncated_links={} uri_deltas={} domain_deltas={} "
      "duplicates={} fenced={} exports_applied={} stale_exports={} corrupt={} lost={} before_from={} other_generation={} "
      "undeliverable={} export_parts={} truncated_texts={} dropped_long_urls={} triple_records={} invalid_triple_records={} "
      "statements_added={} statements_removed={} web_statements_added={} web_statements_removed={} "
      "web_statements_skipped={} forwarded={} tasks_taken_over={} tasks_given_up={} tasks_resumed_locally={}",
      events.load(), invalid_events.load(), stale_events.load(), dropped_links.load(), truncated_links.load(),
      uri_deltas.load(), domain_deltas.load(), duplicates.load(), fenced_records.load(), exports.load(), stale_exports.load(),
      corrupt_records.load(), lost_records.load(), before_from.load(), other_generation.load(),
      undeliverable_records.load(), export_parts.load(), truncated_texts.load(), dropped_long_urls.load(),
      triple_records.load(), invalid_triple_records.load(), statements_added.load(), statements_removed.load(),
      web_statements_added.load(), web_statements_removed.load(), web_statements_skipped.load(),
      forwarded_events.load(), tasks_taken_over.load(), tasks_given_up.load(), tasks_resumed_locally.load());
}

void Metrics::CountDeadLetter(std::string reason) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  std::lock_guard<std::mutex> lock(dead_letter_mu_);
  last_dead_letter_ =
      DeadLetterNote{std::move(reason), std::chrono::duration_cast<std::chrono::milliseconds>(now).count()};
  ++dead_lettered;  // after the note: a reader that sees the count finds its reason
}

std::optional<Metrics::DeadLetterNote> Metrics::LastDeadLetter() const {
  std::lock_guard<std::mutex> lock(dead_letter_mu_);
  return last_dead_letter_;
}

}  // namespace webindex::pipeline
