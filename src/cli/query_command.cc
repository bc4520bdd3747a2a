#include "cli/query_command.h"

#include <iostream>

#include "cli/exit_codes.h"
#include "common/log.h"
#include "query/query_json.h"
#include "query/query_service.h"

namespace webindex::cli {
namespace {

//! An option the query does not take is a mistake (a wrong query name, a forgotten one), not
//! something to ignore. Checked before the store is opened.
Status CheckOptions(const QueryOptions& o) {
  auto unused = [&](const std::string& v, const char* flag, const char* for_queries) {
    return v.empty() ? Status::Ok()
                     : Status::InvalidArgument(std::string(flag) + " does not apply to `query " + o.what +
                                               "`; it is for " + for_queries);
  };
  if (o.what == "top" || o.what == "pages") RETURN_IF_ERROR(unused(o.url, "--url", "`query page` and `query links`"));
  if (o.what != "pages") RETURN_IF_ERROR(unused(o.domain, "--domain", "`query pages`"));
  if (o.what != "links") RETURN_IF_ERROR(unused(o.link_type, "--link-type", "`query links`"));
  if (o.what == "page") RETURN_IF_ERROR(unused(o.next, "--next", "`query top`, `query pages` and `query links`"));
  for (const auto& [value, flag] : {std::pair{&o.subject, "--s"}, {&o.object, "--o"}}) {
    RETURN_IF_ERROR(unused(*value, flag, "`query triples`"));
  }
  for (const auto& [value, flag] : {std::pair{&o.before, "--before"}, {&o.after, "--after"}, {&o.equals, "--equals"},
                                    {&o.within, "--within"}}) {
    RETURN_IF_ERROR(unused(*value, flag, "`query temporal`"));
  }
  RETURN_IF_ERROR(unused(o.text, "--q", "`query search`"));
  for (const auto& [value, flag] : {std::pair{&o.predicate, "--p"}, {&o.graph, "--graph"}, {&o.format, "--format"}}) {
    RETURN_IF_ERROR(unused(*value, flag, "`query triples`, `query temporal` and `query search`"));
  }
  return Status::Ok();
}

//! The JSON answer, as the API gives it. `*found` becomes false when it names nothing the table
//! has: a domain of no page (which the API answers with total 0, and the exit code reports).
Result<std::string> Answer(query::QueryService& q, const QueryOptions& o, bool* found) {
  auto required = [](const std::string& v, const char* flag) {
    return v.empty() ? Status::InvalidArgument(std::string("missing ") + flag) : Status::Ok();
  };
  if (o.what == "top") {
    ASSIGN_OR_RETURN(auto r, q.Top(o.limit, o.next));
    return query::ToJson(r);
  }
  if (o.what == "pages") {
    RETURN_IF_ERROR(required(o.domain, "--domain"));
    ASSIGN_OR_RETURN(auto r, q.Pages(o.domain, o.limit, o.next));
    *found = r.total > 0;
    return query::ToJson(r);
  }
  RETURN_IF_ERROR(required(o.url, "--url"));
  if (o.what == "page") {
    ASSIGN_OR_RETURN(auto r, q.Page(o.url));
    return query::ToJson(r);
  }
  if (o.what == "links") {
    ASSIGN_OR_RETURN(auto type, query::ParseLinkType(o.link_type.empty() ? "in" : o.link_type));
    ASSIGN_OR_RETURN(auto r, q.Links(o.url, type, o.limit, o.next));
    return query::ToJson(r);
  }
  return Status::InvalidArgument("unknown query '" + o.what + "' (top, pages, page, links)");
}

//! Pipeline counters and consumer lag for /metrics.
void WriteProcessorMetrics(app::Processor& processor, http::PrometheusWriter& w) {
  http::WritePipelineMetrics(processor.metrics(), w);
  w.Family("webindex_generation", "gauge", "The data-dir generation this process runs and serves (replays add one).");
  w.Sample("webindex_generation", {}, processor.generation());
  const auto timings = processor.Timings();
  w.Family("webindex_stage_batches_total", "counter", "Batches a stage committed (the sink's are table applies).");
  for (const auto& t : timings) w.Sample("webindex_stage_batches_total", {{"stage", t.stage}}, t.batches);
  w.Family("webindex_stage_batch_seconds_total", "counter",
           "Seconds a stage spent processing and committing batches; divided by batches, the apply latency.");
  for (const auto& t : timings) w.Sample("webindex_stage_batch_seconds_total", {{"stage", t.stage}}, t.seconds);
  const auto rank = processor.rank_stats();
  w.Family("webindex_pagerank_computations_total", "counter",
           "PageRank results of the live graph stored (pagerank.interval_s), by outcome; unchanged: the table "
           "had not changed since the last result.");
  w.Sample("webindex_pagerank_computations_total", {{"outcome", "stored"}}, rank.computations);
  w.Sample("webindex_pagerank_computations_total", {{"outcome", "unchanged"}}, rank.unchanged);
  w.Sample("webindex_pagerank_computations_total", {{"outcome", "failed"}}, rank.failures);
  w.Family("webindex_pagerank_last_seconds", "gauge",
           "Seconds the last PageRank computation took, from its snapshot of the table to the stored result.");
  w.Sample("webindex_pagerank_last_seconds", {}, rank.last_seconds);
  w.Family("webindex_pagerank_running", "gauge", "1 while a PageRank computation is under way.");
  w.Sample("webindex_pagerank_running", {}, static_cast<uint64_t>(rank.running ? 1 : 0));
  auto lag = processor.InputLag();
  if (!lag.ok()) LOG_WARN("metrics: consumer lag unavailable: {}", lag.status().ToString());
  w.Family("webindex_consumer_lag_up", "gauge", "1 when the brokers answered the watermark queries of this scrape.");
  w.Sample("webindex_consumer_lag_up", {}, static_cast<uint64_t>(lag.ok() ? 1 : 0));
  if (!lag.ok()) return;
  w.Family("webindex_consumer_lag", "gauge",
           "Records of a stage's input partition not yet committed (high watermark - committed position); a group "
           "member's partitions of other members by the group's committed offsets; none when unknown.");
  uint64_t unknown = 0;
  for (const auto& [s, member, known] : *lag) {
    if (!known) {
      ++unknown;
      continue;
    }
    w.Sample("webindex_consumer_lag",
             {{"stage", s.stage}, {"topic", s.topic}, {"partition", std::to_string(s.partition)}}, s.lag);
  }
  w.Family("webindex_consumer_lag_unknown_partitions", "gauge",
           "Input partitions of a group's stages whose position nobody reported (no member holds them: a join "
           "under way).");
  w.Sample("webindex_consumer_lag_unknown_partitions", {}, unknown);
}

//! The processor's figures for /api/status.
http::ProcessorStatus StatusOf(app::Processor& processor) {
  http::ProcessorStatus s;
  s.generation = processor.generation();
  s.events = processor.metrics().events.load();
  if (const auto rate = processor.EventRate()) {
    s.events_per_second = rate->per_second;
    s.rate_seconds = rate->seconds;
  }
  if (auto lag = processor.InputLag(); lag.ok()) {
    s.lag.emplace();
    for (const auto& [l, member, known] : *lag) {
      s.lag->push_back({l.stage, l.topic, l.partition, l.position, l.end, l.lag, member, known});
    }
  } else {
    s.lag_error = lag.status().message();
  }
  s.pagerank_enabled = processor.rank_enabled();
  s.pagerank_interval = processor.rank_interval();
  const auto rank = processor.rank_stats();
  s.pagerank_computations = rank.computations;
  s.pagerank_unchanged = rank.unchanged;
  s.pagerank_failures = rank.failures;
  s.pagerank_running = rank.running;
  auto& dead = s.dead_letters;
  dead.topic = processor.topics().dead_letters;
  dead.brokers = processor.brokers();
  dead.count = processor.metrics().dead_lettered.load();
  if (const auto last = processor.metrics().LastDeadLetter()) {
    dead.last_reason = last->reason;
    dead.last_at_ms = last->at_ms;
  }
  if (auto stored = processor.StoredDeadLetters(); stored.ok()) {
    dead.stored = *stored;
  } else {
    dead.stored_error = stored.status().message();
  }
  return s;
}

}  // namespace

int RunQuery(const Settings& settings, const QueryOptions& options) {
  if (Status st = CheckOptions(options); !st.ok()) {
    std::cout << query::ErrorJson(st.message()) << std::endl;
    LOG_ERROR("{}", st.message());
    return kExitUsage;
  }
  bool no_table = false;
  auto store = OpenQueryTable(settings, &no_table);
  if (!store.ok()) {
    if (no_table) std::cout << query::ErrorJson(store.status().message()) << std::endl;
    LOG_ERROR("{}", no_table ? store.status().message() : store.status().ToString());
    return no_table ? kExitNotFound : kExitFailure;
  }
  query::QueryService service(**store);
  bool found = true;
  auto json = Answer(service, options, &found);
  if (json.ok()) {
    std::cout << *json << std::endl;
    return found ? kExitOk : kExitNotFound;
  }
  std::cout << query::ErrorJson(json.status().message()) << std::endl;
  switch (json.status().code()) {
    case Status::Code::kInvalidArgument:
      return kExitUsage;
    case Status::Code::kNotFound:
      return kExitNotFound;
    default:
      LOG_ERROR("{}", json.status().ToString());
      return kExitFailure;
  }
}

void SwitchHttp(http::Server& server, app::Processor& processor, std::shared_ptr<query::TableSource> table) {
  server.api().SetSource(
      *processor.store(), [&processor](http::PrometheusWriter& w) { WriteProcessorMetrics(processor, w); },
      [&processor] { return StatusOf(processor); }, std::move(table));
}

Result<std::unique_ptr<http::Server>> StartHttp(const Settings& settings, app::Processor& processor) {
  if (settings.http.listen.empty()) return std::unique_ptr<http::Server>();
  if (!processor.store()) return Status::Internal("the processor has no store yet");
  auto server = std::make_unique<http::Server>(
      *processor.store(), settings.http,
      [&processor](http::PrometheusWriter& w) { WriteProcessorMetrics(processor, w); },
      [&processor] { return StatusOf(processor); });
  RETURN_IF_ERROR(server->Start().WithContext("http"));
  return server;
}

}  // namespace webindex::cli
