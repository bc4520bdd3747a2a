#include "pipeline/metrics.h"

#include <chrono>

#include <fmt/format.h>

namespace webindex::pipeline {

std::vector<std::pair<std::string_view, uint64_t>> Metrics::Counters() const {
  return {{"events", events.load()},
          {"invalid", invalid_events.load()},
          {"stale", stale_events.load()},
          {"dropped_links", dropped_links.load()},
          {"truncated_links", truncated_links.load()},
          {"uri_deltas", uri_deltas.load()},
          {"domain_deltas", domain_deltas.load()},
          {"duplicates", duplicates.load()},
          {"fenced", fenced_records.load()},
          {"exports_applied", exports.load()},
          {"stale_exports", stale_exports.load()},
          {"corrupt", corrupt_records.load()},
          {"lost", lost_records.load()},
          {"before_from", before_from.load()},
          {"other_generation", other_generation.load()},
          {"undeliverable", undeliverable_records.load()},
          {"dead_lettered", dead_lettered.load()},
          {"export_parts", export_parts.load()},
          {"truncated_texts", truncated_texts.load()},
          {"dropped_long_urls", dropped_long_urls.load()},
          {"triple_records", triple_records.load()},
          {"invalid_triple_records", invalid_triple_records.load()},
          {"statements_added", statements_added.load()},
          {"statements_removed", statements_removed.load()},
          {"web_statements_added", web_statements_added.load()},
          {"web_statements_removed", web_statements_removed.load()},
          {"web_statements_skipped", web_statements_skipped.load()},
          {"forwarded", forwarded_events.load()},
          {"tasks_taken_over", tasks_taken_over.load()},
          {"tasks_given_up", tasks_given_up.load()},
          {"tasks_resumed_locally", tasks_resumed_locally.load()}};
}

std::string Metrics::Summary() const {
  std::string out;
  for (const auto& [name, value] : Counters()) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
  return out;
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
