#include "http/prometheus.h"

#include <fmt/format.h>

namespace webindex::http {
namespace {

void AppendLabelValue(std::string* out, std::string_view v) {
  for (char c : v) {
    if (c == '\\') {
      *out += "\\\\";
    } else if (c == '"') {
      *out += "\\\"";
    } else if (c == '\n') {
      *out += "\\n";
    } else {
      out->push_back(c);
    }
  }
}

}  // namespace

void PrometheusWriter::Family(std::string_view name, std::string_view type, std::string_view help) {
  out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void PrometheusWriter::Head(std::string_view name, const Labels& labels) {
  out_ += name;
  if (labels.empty()) {
    out_.push_back(' ');
    return;
  }
  out_.push_back('{');
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out_.push_back(',');
    out_ += labels[i].first;
    out_ += "=\"";
    AppendLabelValue(&out_, labels[i].second);
    out_.push_back('"');
  }
  out_ += "} ";
}

void PrometheusWriter::Sample(std::string_view name, const Labels& labels, uint64_t value) {
  Head(name, labels);
  out_ += std::to_string(value);
  out_.push_back('\n');
}

void PrometheusWriter::Sample(std::string_view name, const Labels& labels, int64_t value) {
  Head(name, labels);
  out_ += std::to_string(value);
  out_.push_back('\n');
}

void PrometheusWriter::Sample(std::string_view name, const Labels& labels, double value) {
  Head(name, labels);
  out_ += fmt::format("{}\n", value);
}

void PrometheusWriter::Counter(std::string_view name, std::string_view help, uint64_t value) {
  Family(name, "counter", help);
  Sample(name, {}, value);
}

void WritePipelineMetrics(const pipeline::Metrics& m, PrometheusWriter& w) {
  w.Counter("webindex_events_total", "Crawl events consumed.", m.events.load());
  w.Counter("webindex_invalid_events_total", "Invalid crawl events, sent to the dead-letter topic.",
            m.invalid_events.load());
  w.Counter("webindex_stale_events_total", "Crawl events older than the recorded crawlDate, ignored.",
            m.stale_events.load());
  w.Counter("webindex_dead_lettered_total",
            "Records the dead-letter topic took: invalid events and triples records, undecodable internal "
            "records, records Kafka rejected.",
            m.dead_lettered.load());
  w.Counter("webindex_dropped_links_total", "Links whose URL did not resolve.", m.dropped_links.load());
  w.Counter("webindex_truncated_links_total", "Links beyond the per-page limit.", m.truncated_links.load());
  w.Counter("webindex_uri_deltas_total", "URI count deltas applied.", m.uri_deltas.load());
  w.Counter("webindex_domain_deltas_total", "Domain count deltas applied.", m.domain_deltas.load());
  w.Counter("webindex_duplicates_total", "Internal records seen before, skipped.", m.duplicates.load());
  w.Counter("webindex_fenced_records_total",
            "Internal and export records written by a task's former owner after the task moved, dropped.",
            m.fenced_records.load());
  w.Counter("webindex_exports_total", "Export records applied to the query table.", m.exports.load());
  w.Counter("webindex_stale_exports_total", "Export records older than the table, skipped.", m.stale_exports.load());
  w.Counter("webindex_events_before_from_total",
            "Crawl events stamped before the start time of the generation's replay (--from), skipped.",
            m.before_from.load());
  w.Counter("webindex_other_generation_records_total",
            "Internal and export records written by another data-dir generation (a replay or the one it replaces), skipped.",
            m.other_generation.load());
  w.Counter("webindex_corrupt_records_total", "Undecodable internal records.", m.corrupt_records.load());
  w.Counter("webindex_lost_records_total", "Input removed by retention before it was read.", m.lost_records.load());
  w.Counter("webindex_deleted_before_start_total",
            "Input records the broker's retention had deleted before this table (or a group's page task) first read "
            "their partition; the table starts after them.",
            m.deleted_before_start.load());
  w.Counter("webindex_commits_total", "Stage batch commits.", m.commits.load());
  w.Counter("webindex_forwarded_events_total",
            "Crawl events read from another partition than their page's task, forwarded there (tasks that move).",
            m.forwarded_events.load());
  w.Counter("webindex_tasks_taken_over_total",
            "Stage tasks this member was given by its consumer group and took over (restored, fenced, claimed).",
            m.tasks_taken_over.load());
  w.Counter("webindex_tasks_given_up_total", "Stage tasks the consumer group took away from this member.",
            m.tasks_given_up.load());
  w.Counter("webindex_tasks_resumed_locally_total",
            "Of the tasks taken over, those read on from the copy this data dir kept at its last stop (no "
            "changelog read from its start).",
            m.tasks_resumed_locally.load());
  w.Counter("webindex_restored_records_total", "Changelog records read by task takeovers.",
            m.restored_records.load());
  w.Counter("webindex_changelog_snapshots_total",
            "Task snapshots written to the changelogs (after takeovers, and as the changelogs grow).",
            m.snapshots.load());
  w.Counter("webindex_changelog_snapshot_rows_total", "State rows in those snapshots.", m.snapshot_rows.load());
  w.Counter("webindex_changelog_trims_total",
            "Changelog partitions whose records before their task's last snapshot were deleted (DeleteRecords).",
            m.changelog_trims.load());
  w.Counter("webindex_changelog_trims_refused_total",
            "Changelog trims not done because the group did not confirm that this member still owns the task.",
            m.changelog_trims_refused.load());
  w.Counter("webindex_changelog_trim_errors_total", "Changelog trims the brokers failed (tried again in 30 s).",
            m.changelog_trim_errors.load());
  w.Family("webindex_restore_lag_records", "gauge",
           "Changelog records the task takeovers running now have left to read before their tasks are processed.");
  w.Sample("webindex_restore_lag_records", {}, static_cast<int64_t>(m.restore_lag.load()));
  w.Counter("webindex_undeliverable_records_total",
            "Records Kafka rejected for good (too large, invalid); each was replaced by a dead letter.",
            m.undeliverable_records.load());
  w.Counter("webindex_export_parts_total", "Parts sent of page exports too large for one record.",
            m.export_parts.load());
  w.Counter("webindex_truncated_texts_total",
            "Anchor texts cut to 2,048 bytes, titles and server fields cut to 8,192 bytes.",
            m.truncated_texts.load());
  w.Counter("webindex_dropped_long_urls_total", "Links dropped because their URL is over 8,192 bytes.",
            m.dropped_long_urls.load());
  w.Counter("webindex_triple_records_total", "Records of the triples topic consumed.", m.triple_records.load());
  w.Counter("webindex_invalid_triple_records_total",
            "Records of the triples topic with a bad line, sent whole to the dead-letter topic.",
            m.invalid_triple_records.load());
  w.Family("webindex_statements_total", "counter",
           "Statements that changed the graph store, by graph kind (statements: from topic triples; web: the web "
           "graph, indexes.web_triples) and change.");
  w.Sample("webindex_statements_total", {{"graph", "statements"}, {"change", "added"}}, m.statements_added.load());
  w.Sample("webindex_statements_total", {{"graph", "statements"}, {"change", "removed"}}, m.statements_removed.load());
  w.Sample("webindex_statements_total", {{"graph", "web"}, {"change", "added"}}, m.web_statements_added.load());
  w.Sample("webindex_statements_total", {{"graph", "web"}, {"change", "removed"}}, m.web_statements_removed.load());
  w.Counter("webindex_unparsed_dates_total",
            "Statements whose object claims xsd:dateTime but does not parse: stored, left out of the temporal "
            "index.",
            m.unparsed_dates.load());
  w.Counter("webindex_web_statements_skipped_total",
            "Web graph statements left out: a URL or text that cannot be an RDF term.",
            m.web_statements_skipped.load());
}

}  // namespace webindex::http
