// webindex: a live index of the web's link graph, built from page-crawl events in Kafka.
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <string_view>

#include "app/app_id.h"
#include "cli/bench_command.h"
#include "cli/brokers.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/pagerank_command.h"
#include "cli/query_command.h"
#include "cli/sparql_query.h"
#include "cli/statements_query.h"
#include "common/log.h"

using namespace webindex;

namespace {

constexpr char kExitCodes[] =
    "Exit codes (docs/cli.md): 0 ok, 1 failure, 2 usage, 3 not found, 4 data loss, 5 input skipped, 6 no such "
    "index, 130 interrupted\n";
constexpr char kGlobalOptions[] =
    "Global options, before or after the subcommand:\n"
    "  -c,--config FILE     TOML configuration file (defaults: config/webindex.toml)\n"
    "  -X key=value         librdkafka property, for any client (repeatable)\n"
    "  --app-id ID          the index's name on the cluster: prefix of its topics and groups (default webindex)\n"
    "  --log-level LEVEL    trace, debug, info, warn, error, off\n";

//! The first word of the command line that is neither an option nor a global option's value:
//! the subcommand the user meant ("" when there is none).
std::string FirstWord(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-c" || a == "--config" || a == "-X" || a == "--log-level" || a == "--app-id") {
      ++i;
    } else if (!a.starts_with("-")) {
      return std::string(a);
    }
  }
  return "";
}

//! A command line CLI11 refused: one message that says what to do, and the usage exit code.
int UsageError(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
  std::string names;
  bool known = false;
  const std::string word = FirstWord(argc, argv);
  for (const auto* sub : app.get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || sub->get_name() == word;
  }
  if (!known) {
    std::cerr << "webindex: " << (word.empty() ? "a subcommand is required" : "unknown subcommand '" + word + "'")
              << "; the subcommands are: " << names << "\nRun webindex --help for what each does.\n";
    return cli::kExitUsage;
  }
  app.exit(e);  // prints the error and where to find help
  return cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"webindex: keeps a live, exact index of the web's link graph from crawl events in Kafka"};
  app.require_subcommand(1);
  app.fallthrough();  // global options may follow the subcommand
  app.set_version_flag("--version", "webindex " WEBINDEX_VERSION);
  std::string config_path, brokers, log_level, data_dir, app_id;
  std::vector<std::string> kafka_props;
  app.add_option("-c,--config", config_path, "TOML configuration file (defaults: config/webindex.toml)");
  app.add_option("-X", kafka_props, "librdkafka property key=value, for any client (repeatable)");
  app.add_option("--app-id", app_id,
                 "the index's name on the Kafka cluster: the prefix of the topics and consumer groups it owns; two "
                 "ids are two independent indexes of the same input (default: kafka.app_id of --config, webindex)");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error, off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.footer(kExitCodes);

  cli::BrokerOptions broker_opts;
  auto* broker = app.add_subcommand("broker", "run the embedded Kafka broker (librdkafka mock cluster) on loopback");
  broker->add_option("--partitions", broker_opts.partitions, "partitions of the topics it creates")->check(CLI::PositiveNumber);
  broker->add_option("--address-file", broker_opts.address_file, "write the bootstrap address to this file");

  cli::LoadOptions load_opts;
  auto* load = app.add_subcommand("load", "produce crawl events (JSON lines, Common Crawl WAT or Wikipedia revisions) "
                                          "keyed by URL, or RDF statements (N-Triples, N-Quads) keyed by subject");
  load->add_option("--brokers", brokers,
                   "Kafka bootstrap servers, or @FILE: the address `webindex broker --address-file FILE` writes, "
                   "waited for (default: kafka.bootstrap_servers of --config)");
  load->add_option("--topic", load_opts.topic, "topic to write (default: pages, or triples for statements)");
  load->add_option("--format", load_opts.format,
                   "json: JSON-lines events; wat: Common Crawl WAT (WARC) records; wikipedia: revision records "
                   "(docs/pagerank.md); ntriples, nquads: RDF statements (docs/graph.md)")
      ->check(CLI::IsMember({"json", "wat", "wikipedia", "ntriples", "nquads"}));
  load->add_flag("--remove", load_opts.remove, "ntriples, nquads: remove the statements instead of adding them");
  load->add_flag("--all-links", load_opts.all_links, "wat: keep links within the page's own domain too");
  load->add_option("files", load_opts.files, "files, plain or gzip; - for stdin")->required();

  cli::RunOptions run_opts;
  int partitions = 0;
  auto* run = app.add_subcommand("run", "run all stages and the sink");
  run->add_option("--brokers", brokers,
                  "Kafka bootstrap servers, @FILE (the address `webindex broker --address-file FILE` writes, "
                  "waited for), or 'embedded' for an in-process broker (default: kafka.bootstrap_servers of --config)");
  run->add_option("--data-dir", data_dir, "state and query table directory")->required();
  run->add_option("--partitions", partitions, "partitions of the topics it creates")->check(CLI::PositiveNumber);
  run->add_flag("--exit-when-idle", run_opts.exit_when_idle, "exit 0 once all input is consumed and applied");
  run->add_flag("--reset", run_opts.reset,
                "discard the data dir's state and table, then rebuild them from what the input topic still holds");
  run->add_flag("!--no-bulk", run_opts.bulk,
                "a lone run whose stages hold nothing yet reads a backlog of bulk.min_records or more one batch at a "
                "time too, instead of building the table from it as a batch first (docs/operations.md)");
  std::string http_listen;
  run->add_option("--http", http_listen, "serve the query API (docs/api.md) on [HOST:]PORT; HOST defaults to 127.0.0.1");
  std::string group, group_instance_id;
  run->add_option("--group", group,
                  "share the stages' partitions with every `run` of the same group NAME (a Kafka consumer group "
                  "per stage; docs/scale-out.md); members with --table or --http keep the whole table");
  run->add_flag("--table", run_opts.table,
                "with --group: keep the whole query table here (as --http does); without either, a member runs "
                "only its share of the stages");
  run->add_flag("--no-stages", run_opts.no_stages, "with --group: keep the table only, run no stages (a replica)");
  run->add_flag("--table-shard", run_opts.table_shard,
                "with --group: keep only this member's share of a partitioned query table, the shards of the "
                "webindex.exports partitions the group assigns it; with --http, answer for the whole table by "
                "asking the other members (docs/scale-out.md)");
  run->add_option("--http-advertise", run_opts.http_advertise,
                  "with --table-shard: HOST:PORT where the other members reach this member's API (default: the "
                  "--http address)");
  run->add_option("--group-instance-id", group_instance_id,
                  "static membership: a member restarted under the same id gets its partitions back without a "
                  "rebalance (on clusters that support it)");

  app::ReplayOptions replay_opts;
  auto* replay = app.add_subcommand(
      "replay", "rebuild the state and the table from the input topic into a new generation while the current one "
                "keeps answering, then switch to it (a running `webindex run` takes it over)");
  replay->add_option("--brokers", brokers,
                     "Kafka bootstrap servers holding the input topic, or @FILE as for load (default: "
                     "kafka.bootstrap_servers of --config)");
  replay->add_option("--data-dir", data_dir, "state and query table directory (not with --group)");
  replay->add_option("--group", group,
                     "replay a consumer group's table: its members build the new generation beside the current "
                     "one and switch when this command says (docs/scale-out.md); no --data-dir");
  replay->add_option("--from", replay_opts.from, "earliest, or an RFC 3339 time: replay the events stamped from then on")
      ->capture_default_str();
  replay->add_option("--switch-lag", replay_opts.switch_lag,
                     "switch once this few input records are left to process, all stages together")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  replay->add_flag("--abort", replay_opts.abort, "roll back an unfinished replay and exit");
  replay->add_option("--indexes", replay_opts.indexes,
                     "change the indexes the new generation keeps: +name or -name, comma-separated (web_triples, "
                     "temporal, freetext, pagerank); default: the current generation's");
  replay->add_flag("!--no-bulk", replay_opts.use_bulk,
                   "read the crawl events and statements one batch at a time, as `run` does, instead of building "
                   "the generation from them as a batch first (docs/operations.md)");
  uint64_t bulk_memory_mb = replay_opts.bulk.memory_bytes >> 20;
  auto* bulk_memory_flag =
      replay
          ->add_option("--bulk-memory-mb", bulk_memory_mb,
                       "memory the bulk builds' sorts hold at once (up to 64 MB is used); the rest spills as sorted "
                       "runs to the data dir (default: bulk.memory_mb)")
          ->check(CLI::Range(4, 1 << 20));
  auto* bulk_min_flag = replay
                            ->add_option("--bulk-min-records", replay_opts.bulk.min_records,
                                         "build as a batch only from this many unread records on (of pages, of "
                                         "triples; default: bulk.min_records)")
                            ->check(CLI::NonNegativeNumber);
  replay->add_flag("--force", replay_opts.force,
                   "switch even if the new table lacks pages the current one has (their events were removed by "
                   "retention or are before --from); without it such a replay stops before switching");

  cli::QueryOptions query_opts;
  auto* query = app.add_subcommand("query", "answer one query from the table as JSON, like the HTTP API");
  query->add_option("what", query_opts.what,
                    "top, pages, page, links; statements: triples, temporal, search; sparql (a SPARQL 1.1 query)")
      ->required()
      ->check(CLI::IsMember({"top", "pages", "page", "links", "triples", "temporal", "search", "sparql"}));
  query->add_option("query", query_opts.sparql, "sparql: the query text (or --file)");
  query->add_option("--file", query_opts.file, "sparql: read the query from this file (- for standard input)");
  query->add_flag("--explain", query_opts.explain,
                  "sparql: print the plan (each pattern's index order and estimate, the join order, the filters) "
                  "instead of the answer");
  query->add_option("--timeout-ms", query_opts.timeout_ms, "sparql: stop the query after this long")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  query->add_option("--data-dir", data_dir, "state and query table directory")->required();
  query->add_option("--limit", query_opts.limit, "results per answer, 1..1000")->capture_default_str();
  query->add_option("--next", query_opts.next, "continue after a previous answer: its \"next\" cursor");
  query->add_option("--domain", query_opts.domain, "pages: any host name of the domain, or an IP");
  query->add_option("--url", query_opts.url, "page, links: the page's URL");
  query->add_option("--link-type", query_opts.link_type, "links: in (pages linking to it) or out")
      ->check(CLI::IsMember({"in", "out"}));
  query->add_option("--s", query_opts.subject, "triples: the subject, in N-Triples syntax (<iri> or _:b)");
  query->add_option("--p", query_opts.predicate, "triples, temporal, search: the predicate, an IRI (bare or <iri>)");
  query->add_option("--o", query_opts.object, "triples: the object, in N-Triples syntax (<iri>, _:b, \"x\", \"x\"@en, ...)");
  query->add_option("--graph", query_opts.graph,
                    "triples, temporal, search: default (the default), all, or a graph IRI");
  query->add_option("--before", query_opts.before, "temporal: instants strictly before T (RFC 3339)");
  query->add_option("--after", query_opts.after, "temporal: instants strictly after T (RFC 3339)");
  query->add_option("--equals", query_opts.equals, "temporal: instants in the same UTC second as T (RFC 3339)");
  query->add_option("--within", query_opts.within, "temporal: instants strictly between T1 and T2, as T1/T2");
  query->add_option("--q", query_opts.text,
                    "search: words, AND/&&, OR/||, NOT/!, (), word* and *word (docs/graph.md)");
  query->add_option("--format", query_opts.format,
                    "triples, temporal, search: ntriples prints every match as N-Triples (N-Quads with --graph all) "
                    "instead of JSON pages; sparql: json (default), xml, csv, tsv for SELECT and ASK, ntriples for "
                    "CONSTRUCT and DESCRIBE")
      ->check(CLI::IsMember({"ntriples", "json", "xml", "csv", "tsv"}));

  auto* dump = app.add_subcommand("dump", "print the query table as row|cf|cq|value lines");
  dump->add_option("--data-dir", data_dir, "state and query table directory")->required();

  auto* details = app.add_subcommand("details", "print the instance's details as JSON: name, version, creation "
                                                "time, generation and the indexes it keeps");
  details->add_option("--data-dir", data_dir, "state and query table directory")->required();

  auto* verify = app.add_subcommand("verify", "read every file of the data dir's current generation and check its "
                                              "checksums; exit 1 on damage");
  verify->add_option("--data-dir", data_dir, "state and query table directory")->required();

  cli::DemoOptions demo_opts;
  auto* demo = app.add_subcommand("demo", "embedded broker + sample crawl + processing, then the top pages");
  demo->add_option("file", demo_opts.file, "JSON-lines crawl events (default: the sample crawl built into webindex)");
  demo->add_option("--domain", demo_opts.domain, "domain to list, e.g. stackoverflow.com");
  demo->add_option("--data-dir", data_dir, "where to keep the table (default: a new temporary dir)");

  cli::BenchOptions bench_opts;
  auto* bench = app.add_subcommand("bench", "end-to-end benchmark: synthetic crawl through the embedded broker and "
                                            "the whole pipeline; throughput, latency, memory, raw consume rate");
  cli::AddBenchOptions(bench, &bench_opts);

  cli::PageRankCommandOptions pagerank_opts;
  auto* pagerank = app.add_subcommand(
      "pagerank", "PageRank as the Mister Mighty PageRank job computes it (docs/pagerank.md) over Wikipedia "
                  "revision files or a data dir's live link graph: `name score` lines on stdout, highest first");
  pagerank->add_option("--format", pagerank_opts.format,
                       "input format of the files: wikipedia (the default, and the only one)")
      ->check(CLI::IsMember({"wikipedia"}));
  pagerank->add_option("--iterations", pagerank_opts.iterations, "power iterations")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  pagerank->add_option("--until", pagerank_opts.until,
                       "RFC 3339 time: only revisions stamped at or before it count");
  pagerank->add_option("--limit", pagerank_opts.limit, "print only the first K nodes (0: all)")
      ->capture_default_str();
  pagerank->add_option("--threads", pagerank_opts.threads, "threads for the iterations (0: one per core)")
      ->capture_default_str();
  pagerank->add_option("files", pagerank_opts.files, "Wikipedia revision files, plain or gzip; - for stdin");
  pagerank->add_option("--data-dir", pagerank_opts.data_dir,
                       "instead of files: the live link graph of this data dir's query table (one snapshot)");

  for (auto* sub : app.get_subcommands({})) sub->footer(std::string(kGlobalOptions) + kExitCodes);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return UsageError(app, e, argc, argv);
  }

  auto settings = cli::LoadSettings(config_path);
  if (!settings.ok()) {
    InitLogging("info");
    LOG_ERROR("{}", settings.status().message());  // a usage error: what is wrong, not its code
    return cli::kExitUsage;
  }
  InitLogging(log_level.empty() ? settings->log_level : log_level);
  for (const auto& p : kafka_props) {
    if (Status st = cli::SetKafkaProperty(&*settings, p); !st.ok()) {
      LOG_ERROR("{}", st.ToString());
      return cli::kExitUsage;
    }
  }
  if (!data_dir.empty()) settings->processor.data_dir = data_dir;
  if (!http_listen.empty()) settings->http.listen = http_listen;
  if (!group.empty()) settings->processor.group = group;
  if (!group_instance_id.empty()) settings->processor.group_instance_id = group_instance_id;
  if (partitions > 0) {
    for (auto& [topic, n] : settings->processor.partitions) n = partitions;
  }
  if (!app_id.empty()) {
    if (Status st = app::CheckAppId(app_id); !st.ok()) {
      LOG_ERROR("{}", st.message());
      return cli::kExitUsage;
    }
    settings->processor.app_id = app_id;
  }
  app::ApplyAppId(&settings->processor);

  // Every subcommand that talks to Kafka takes its cluster the same way.
  for (auto* sub : {load, run, replay}) {
    if (!*sub) continue;
    const bool given = sub->get_option("--brokers")->count() > 0;
    if (Status st = cli::ResolveBrokers(sub->get_name(), given ? &brokers : nullptr, &*settings); !st.ok()) {
      LOG_ERROR("{}", st.message());
      return st.code() == Status::Code::kInvalidArgument ? cli::kExitUsage : cli::kExitFailure;
    }
  }

  if (*broker) return cli::RunBroker(*settings, broker_opts);
  if (*load) return cli::RunLoad(*settings, load_opts);
  if (*run) return cli::RunProcessor(std::move(settings).value(), run_opts);
  if (*dump) return cli::RunDump(*settings);
  if (*verify) return cli::RunVerify(*settings);
  if (*details) return cli::RunDetails(*settings);
  if (*replay) {
    replay_opts.bulk.memory_bytes = bulk_memory_flag->count() > 0 ? bulk_memory_mb << 20 : settings->bulk.memory_bytes;
    if (bulk_min_flag->count() == 0) replay_opts.bulk.min_records = settings->bulk.min_records;
    return cli::RunReplay(std::move(settings).value(), replay_opts);
  }
  if (*query) {
    if (query_opts.what == "sparql") return cli::RunSparqlQuery(*settings, query_opts);
    if (!query_opts.sparql.empty() || !query_opts.file.empty() || query_opts.explain ||
        query->get_option("--timeout-ms")->count() > 0) {
      LOG_ERROR("a query text, --file, --explain and --timeout-ms are for `query sparql`");
      return cli::kExitUsage;
    }
    return cli::IsStatementsQuery(query_opts.what) ? cli::RunStatementsQuery(*settings, query_opts)
                                                   : cli::RunQuery(*settings, query_opts);
  }
  if (*pagerank) {
    if (!pagerank_opts.data_dir.empty()) settings->processor.data_dir = pagerank_opts.data_dir;
    return cli::RunPageRank(*settings, pagerank_opts);
  }
  if (*bench) return cli::RunBench(*settings, std::move(bench_opts));
  if (*demo) {
    settings->processor.kafka.brokers = brokers.empty() ? "embedded" : brokers;
    return cli::RunDemo(std::move(settings).value(), demo_opts);
  }
  return cli::kExitUsage;
}
