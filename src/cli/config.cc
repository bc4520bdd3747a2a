#include "cli/config.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "app/app_id.h"
#include "cli/embedded.h"
#include "state/data_dir.h"

namespace webindex::cli {
namespace {

//! toml++'s errors as "FILE:LINE:COLUMN: what", as compilers write them.
Result<toml::table> Parse(std::string_view text, const std::string& source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const toml::source_position at = e.source().begin;
    return Status::InvalidArgument("configuration file " + source + ":" + std::to_string(at.line) + ":" +
                                   std::to_string(at.column) + ": " + std::string(e.description()));
  }
}

//! The text of the --config file, or what keeps it from being read, in a user's terms.
Result<std::string> ReadConfigFile(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    return Status::InvalidArgument("configuration file " + path + " does not exist (-c/--config)");
  }
  if (std::filesystem::is_directory(status)) {
    return Status::InvalidArgument("configuration file " + path + " is a directory (-c/--config takes a TOML file)");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) {
    return Status::InvalidArgument("configuration file " + path + " cannot be read: " + std::strerror(errno));
  }
  return text.str();
}

void ApplyTopic(const toml::table& t, Settings* s) {
  const std::string name = t["name"].value_or(std::string());
  if (name.empty()) return;
  // A topic file without a count (the changelogs) takes what TopicSpecs derives for it.
  if (auto n = t["partitions"].value<int>()) s->processor.partitions[name] = *n;
  if (const auto* cfg = t["config"].as_table()) {
    for (const auto& [k, v] : *cfg) s->processor.topic_config[name][std::string(k.str())] = v.value_or(std::string());
  }
}

//! The keys a configuration file may set, by section; a section listed with no keys takes any
//! (librdkafka properties, partition counts by topic).
const std::map<std::string, std::vector<std::string>, std::less<>>& KnownKeys() {
  static const std::map<std::string, std::vector<std::string>, std::less<>> known = {
      {"kafka", {"bootstrap_servers", "properties", "app_id"}},
      {"partitions", {}},
      {"limits", {"max_event_bytes", "max_outlinks"}},
      {"store",
       {"block_cache_mb", "write_buffer_mb", "memtable_budget_mb", "max_wal_mb", "min_free_mb", "sync_commits"}},
      {"pipeline", {"max_batch", "poll_timeout_ms", "progress_interval_ms", "changelog", "max_backlog_mb"}},
      {"pagerank", {"interval_s", "iterations", "publish_top"}},
      {"group", {"id", "instance_id", "session_timeout_ms"}},
      {"log", {"level"}},
      {"instance", {"name"}},
      {"indexes", {"web_triples", "temporal", "freetext"}},
      {"temporal", {"predicates"}},
      {"bulk", {"memory_mb", "min_records"}},
      {"http",
       {"listen", "threads", "read_timeout_ms", "idle_timeout_ms", "max_connections", "max_connections_per_client",
        "per_client_limit_on_loopback", "pressure_fraction", "idle_timeout_under_pressure_ms", "sparql_timeout_ms",
        "sparql_max_timeout_ms", "sparql_max_rows"}},
  };
  return known;
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

//! A typo in a key must not silently leave the default in place.
Status CheckKeys(const toml::table& t) {
  std::vector<std::string> sections;
  for (const auto& [name, keys] : KnownKeys()) sections.push_back(name);
  for (const auto& [section, value] : t) {
    const auto known = KnownKeys().find(section.str());
    if (known == KnownKeys().end()) {
      return Status::InvalidArgument("unknown section [" + std::string(section.str()) +
                                     "]; the sections are: " + Join(sections));
    }
    const auto* table = value.as_table();
    if (!table) return Status::InvalidArgument("[" + std::string(section.str()) + "] must be a table of keys");
    if (known->second.empty()) continue;
    for (const auto& [key, v] : *table) {
      if (std::find(known->second.begin(), known->second.end(), key.str()) == known->second.end()) {
        return Status::InvalidArgument("unknown key '" + std::string(key.str()) + "' in [" +
                                       std::string(section.str()) + "]; its keys are: " + Join(known->second));
      }
    }
  }
  return Status::Ok();
}

constexpr std::array<std::string_view, 6> kLogLevels = {"trace", "debug", "info", "warn", "error", "off"};

Status ApplyConfig(const toml::table& t, Settings* s) {
  RETURN_IF_ERROR(CheckKeys(t));
  auto& p = s->processor;
  if (auto v = t["kafka"]["bootstrap_servers"].value<std::string>()) p.kafka.brokers = *v;
  if (auto v = t["kafka"]["app_id"].value<std::string>()) {
    RETURN_IF_ERROR(app::CheckAppId(*v).WithContext("kafka.app_id"));
    p.app_id = *v;
  }
  if (const auto* props = t["kafka"]["properties"].as_table()) {
    for (const auto& [k, v] : *props) {
      auto str = v.value<std::string>();
      if (!str) return Status::InvalidArgument("kafka.properties." + std::string(k.str()) + " must be a string");
      p.kafka.properties[std::string(k.str())] = *str;
    }
  }
  if (const auto* parts = t["partitions"].as_table()) {
    for (const auto& [k, v] : *parts) {
      auto n = v.value<int64_t>();
      if (!n || *n < 1) return Status::InvalidArgument("partitions." + std::string(k.str()) + " must be >= 1");
      p.partitions[std::string(k.str())] = static_cast<int>(*n);
    }
  }
  p.limits.max_event_bytes = t["limits"]["max_event_bytes"].value_or(p.limits.max_event_bytes);
  p.limits.max_outlinks = t["limits"]["max_outlinks"].value_or(p.limits.max_outlinks);
  if (auto v = t["store"]["block_cache_mb"].value<int64_t>()) p.store.block_cache_bytes = static_cast<size_t>(*v) << 20;
  if (auto v = t["store"]["write_buffer_mb"].value<int64_t>()) p.store.write_buffer_bytes = static_cast<size_t>(*v) << 20;
  if (auto v = t["store"]["memtable_budget_mb"].value<int64_t>()) {
    p.store.memtable_budget_bytes = static_cast<size_t>(*v) << 20;
  }
  if (auto v = t["store"]["max_wal_mb"].value<int64_t>()) p.store.max_wal_bytes = static_cast<size_t>(*v) << 20;
  p.store.sync_commits = t["store"]["sync_commits"].value_or(p.store.sync_commits);
  if (auto v = t["store"]["min_free_mb"].value<int64_t>()) p.store.min_free_bytes = static_cast<size_t>(*v) << 20;
  p.runner.max_batch = t["pipeline"]["max_batch"].value_or(p.runner.max_batch);
  if (auto v = t["pipeline"]["max_backlog_mb"].value<int64_t>()) {
    if (*v < 0) return Status::InvalidArgument("pipeline.max_backlog_mb must be >= 0 (0: no limit)");
    p.max_backlog_bytes = static_cast<uint64_t>(*v) << 20;
  }
  p.runner.poll_timeout_ms = t["pipeline"]["poll_timeout_ms"].value_or(p.runner.poll_timeout_ms);
  p.runner.changelog = t["pipeline"]["changelog"].value_or(p.runner.changelog);
  p.progress_interval_ms = t["pipeline"]["progress_interval_ms"].value_or(p.progress_interval_ms);
  p.group = t["group"]["id"].value_or(p.group);
  p.group_instance_id = t["group"]["instance_id"].value_or(p.group_instance_id);
  if (auto v = t["group"]["session_timeout_ms"].value<int64_t>()) {
    if (*v < 1000 || *v > 3600000) {
      return Status::InvalidArgument("group.session_timeout_ms must be between 1000 and 3600000 (ms)");
    }
    p.group_session_timeout_ms = static_cast<int>(*v);
  }
  if (auto v = t["pagerank"]["interval_s"].value<int64_t>()) {
    if (*v < 0) return Status::InvalidArgument("pagerank.interval_s must be 0 (off) or more seconds");
    p.rank.interval = std::chrono::seconds(*v);
  }
  if (auto v = t["pagerank"]["iterations"].value<int64_t>()) {
    if (*v < 0 || *v > 1000) return Status::InvalidArgument("pagerank.iterations must be between 0 and 1000");
    p.rank.iterations = static_cast<int>(*v);
  }
  if (auto v = t["pagerank"]["publish_top"].value<int64_t>()) {
    if (*v < 0) return Status::InvalidArgument("pagerank.publish_top must be 0 (publish nothing) or more pages");
    p.rank_publish_top = static_cast<size_t>(*v);
  }
  p.web_triples = t["indexes"]["web_triples"].value_or(p.web_triples);
  p.indexes.temporal = t["indexes"]["temporal"].value_or(p.indexes.temporal);
  p.indexes.freetext = t["indexes"]["freetext"].value_or(p.indexes.freetext);
  if (const auto* list = t["temporal"]["predicates"].as_array()) {
    p.indexes.temporal_predicates.clear();
    for (const auto& item : *list) {
      const auto iri = item.value<std::string>();
      if (!iri || iri->empty()) return Status::InvalidArgument("temporal.predicates is a list of predicate IRIs");
      std::string bare = *iri;
      if (bare.size() > 1 && bare.front() == '<' && bare.back() == '>') bare = bare.substr(1, bare.size() - 2);
      p.indexes.temporal_predicates.push_back(std::move(bare));
    }
  } else if (t["temporal"]["predicates"]) {
    return Status::InvalidArgument("temporal.predicates is a list of predicate IRIs, e.g. [\"http://purl.org/dc/terms/created\"]");
  }
  s->processor.instance_name = t["instance"]["name"].value_or(s->processor.instance_name);
  if (s->processor.instance_name.empty()) return Status::InvalidArgument("instance.name must not be empty");
  s->log_level = t["log"]["level"].value_or(s->log_level);
  if (std::find(kLogLevels.begin(), kLogLevels.end(), s->log_level) == kLogLevels.end()) {
    return Status::InvalidArgument("log.level '" + s->log_level + "' is not one of trace, debug, info, warn, error, off");
  }
  auto& h = s->http;
  h.listen = t["http"]["listen"].value_or(h.listen);
  h.threads = t["http"]["threads"].value_or(h.threads);
  h.read_timeout = std::chrono::milliseconds(t["http"]["read_timeout_ms"].value_or(h.read_timeout.count()));
  h.idle_timeout = std::chrono::milliseconds(t["http"]["idle_timeout_ms"].value_or(h.idle_timeout.count()));
  h.max_connections = t["http"]["max_connections"].value_or(h.max_connections);
  h.max_connections_per_client = t["http"]["max_connections_per_client"].value_or(h.max_connections_per_client);
  h.per_client_limit_on_loopback = t["http"]["per_client_limit_on_loopback"].value_or(h.per_client_limit_on_loopback);
  h.pressure_fraction = t["http"]["pressure_fraction"].value_or(h.pressure_fraction);
  h.idle_timeout_under_pressure = std::chrono::milliseconds(
      t["http"]["idle_timeout_under_pressure_ms"].value_or(h.idle_timeout_under_pressure.count()));
  h.sparql.timeout = std::chrono::milliseconds(t["http"]["sparql_timeout_ms"].value_or(h.sparql.timeout.count()));
  h.sparql.max_timeout =
      std::chrono::milliseconds(t["http"]["sparql_max_timeout_ms"].value_or(h.sparql.max_timeout.count()));
  h.sparql.max_rows = t["http"]["sparql_max_rows"].value_or(h.sparql.max_rows);
  if (h.sparql.timeout.count() < 1 || h.sparql.max_timeout < h.sparql.timeout) {
    return Status::InvalidArgument("http.sparql_timeout_ms must be >= 1 and at most http.sparql_max_timeout_ms");
  }
  if (h.sparql.max_rows < 1) return Status::InvalidArgument("http.sparql_max_rows must be >= 1");
  if (h.threads < 1) return Status::InvalidArgument("http.threads must be >= 1");
  if (h.max_connections < 1) return Status::InvalidArgument("http.max_connections must be >= 1");
  if (!(h.pressure_fraction > 0 && h.pressure_fraction <= 1)) {
    return Status::InvalidArgument("http.pressure_fraction must be in (0, 1]");
  }
  if (p.runner.max_batch == 0) return Status::InvalidArgument("pipeline.max_batch must be > 0");
  const int64_t memory_mb = t["bulk"]["memory_mb"].value_or(static_cast<int64_t>(s->bulk.memory_bytes >> 20));
  if (memory_mb < 4) return Status::InvalidArgument("bulk.memory_mb must be >= 4");
  s->bulk.memory_bytes = static_cast<uint64_t>(memory_mb) << 20;
  s->bulk.min_records = t["bulk"]["min_records"].value_or(s->bulk.min_records);
  if (s->bulk.min_records < 0) return Status::InvalidArgument("bulk.min_records must be >= 0");
  return Status::Ok();
}

}  // namespace

Result<Settings> LoadSettings(const std::string& path) {
  Settings s;
  for (const auto& f : EmbeddedFiles()) {
    if (!f.path.starts_with("topics/")) continue;
    ASSIGN_OR_RETURN(toml::table t, Parse(f.text, std::string(f.path)));
    ApplyTopic(t, &s);
  }
  for (const auto& f : EmbeddedFiles()) {
    if (f.path != "config/webindex.toml") continue;
    ASSIGN_OR_RETURN(toml::table t, Parse(f.text, std::string(f.path)));
    RETURN_IF_ERROR(ApplyConfig(t, &s));
  }
  if (!path.empty()) {
    ASSIGN_OR_RETURN(const std::string text, ReadConfigFile(path));
    ASSIGN_OR_RETURN(toml::table t, Parse(text, path));
    RETURN_IF_ERROR(ApplyConfig(t, &s).WithContext(path));
  }
  return s;
}

Result<std::unique_ptr<state::Store>> OpenTableReadOnly(const Settings& settings) {
  state::StoreOptions opts = settings.processor.store;
  opts.read_only = true;
  return state::OpenCurrent(settings.processor.data_dir, opts);
}

Result<std::unique_ptr<state::Store>> OpenQueryTable(const Settings& settings, bool* no_table) {
  *no_table = false;
  ASSIGN_OR_RETURN(auto store, OpenTableReadOnly(settings));
  ASSIGN_OR_RETURN(const bool keeps, app::KeepsTable(*store));
  if (keeps) return store;
  *no_table = true;
  return Status::NotFound(settings.processor.data_dir +
                          ": this data dir keeps no table (a stage-only member of a group); ask a member started "
                          "with --table or --http");
}

Status SetKafkaProperty(Settings* settings, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::InvalidArgument("-X expects key=value, got '" + assignment + "'");
  }
  settings->processor.kafka.properties[assignment.substr(0, eq)] = assignment.substr(eq + 1);
  return Status::Ok();
}

}  // namespace webindex::cli
