#include "app/instance_details.h"

#include <fmt/format.h>

#include "codec/json_writer.h"
#include "common/time.h"

namespace webindex::app {
namespace {

constexpr char kNameKey[] = "instance/name";
constexpr char kVersionKey[] = "instance/version";
constexpr char kCreatedKey[] = "instance/created_ms";
constexpr char kGenerationCreatedKey[] = "generation/created_ms";
constexpr char kPageRankKey[] = "indexes/pagerank";

Result<int64_t> ReadMs(state::Store& store, const char* key) {
  ASSIGN_OR_RETURN(auto v, store.Get(state::Family::kMeta, key));
  if (!v) return int64_t{-1};
  try {
    return static_cast<int64_t>(std::stoll(*v));
  } catch (const std::exception&) {
    return Status::Corruption(std::string("bad ") + key + " in the store: '" + *v + "'");
  }
}

//! True for "on", when the current value and the wanted one differ.
bool* Flag(InstanceDetails* d, std::string_view name) {
  if (name == "web_triples") return &d->web_triples;
  if (name == "temporal") return &d->indexes.temporal;
  if (name == "freetext") return &d->indexes.freetext;
  if (name == "pagerank") return &d->pagerank;
  return nullptr;
}

}  // namespace

std::string_view Version() { return WEBINDEX_VERSION; }

InstanceDetails DetailsFromConfig(const ProcessorConfig& config, int64_t now_ms) {
  InstanceDetails d;
  d.name = config.instance_name;
  d.version = std::string(Version());
  d.created_ms = now_ms;
  d.generation_created_ms = now_ms;
  d.web_triples = config.web_triples;
  d.indexes = config.indexes;
  d.pagerank = config.rank.interval.count() > 0;
  return d;
}

Result<InstanceDetails> ReadDetails(state::Store& store) {
  InstanceDetails d;
  ASSIGN_OR_RETURN(d.indexes, graph::RecordedIndexes(store));
  ASSIGN_OR_RETURN(auto name, store.Get(state::Family::kMeta, kNameKey));
  ASSIGN_OR_RETURN(auto version, store.Get(state::Family::kMeta, kVersionKey));
  ASSIGN_OR_RETURN(auto web, store.Get(state::Family::kMeta, kWebTriplesKey));
  ASSIGN_OR_RETURN(auto pagerank, store.Get(state::Family::kMeta, kPageRankKey));
  ASSIGN_OR_RETURN(d.created_ms, ReadMs(store, kCreatedKey));
  ASSIGN_OR_RETURN(d.generation_created_ms, ReadMs(store, kGenerationCreatedKey));
  d.name = name.value_or("");
  d.version = version.value_or("");
  d.web_triples = web && *web == "1";
  d.pagerank = !pagerank || *pagerank == "1";
  return d;
}

void RecordDetails(const InstanceDetails& d, state::WriteBatch* batch) {
  batch->Put(state::Family::kMeta, kNameKey, d.name);
  batch->Put(state::Family::kMeta, kVersionKey, d.version);
  batch->Put(state::Family::kMeta, kCreatedKey, std::to_string(d.created_ms));
  batch->Put(state::Family::kMeta, kGenerationCreatedKey, std::to_string(d.generation_created_ms));
  batch->Put(state::Family::kMeta, kWebTriplesKey, d.web_triples ? "1" : "0");
  batch->Put(state::Family::kMeta, kPageRankKey, d.pagerank ? "1" : "0");
  graph::RecordIndexes(d.indexes, batch);
}

std::string DetailsJson(const InstanceDetails& d, std::string_view instance_id, uint64_t generation) {
  codec::JsonWriter w;
  auto time = [&](int64_t ms) -> codec::JsonWriter& {
    return ms < 0 ? w.Null() : w.String(FormatRfc3339Ms(ms));
  };
  w.BeginObject().Key("name").String(d.name).Key("id").String(instance_id);
  w.Key("version");
  if (d.version.empty()) {
    w.Null();
  } else {
    w.String(d.version);
  }
  w.Key("createdAt");
  time(d.created_ms);
  w.Key("generation").Uint(generation).Key("generationCreatedAt");
  time(d.generation_created_ms);
  w.Key("indexes").BeginObject();
  w.Key("graph").Bool(true).Key("web_triples").Bool(d.web_triples).Key("temporal").Bool(d.indexes.temporal);
  w.Key("freetext").Bool(d.indexes.freetext).Key("pagerank").Bool(d.pagerank);
  w.Key("temporal.predicates").BeginArray();
  for (const auto& p : d.indexes.temporal_predicates) w.String(p);
  w.EndArray().Key("freetext.by_predicate").Bool(d.indexes.freetext_by_predicate).EndObject();
  return w.EndObject().Take();
}

Status ChangeIndexes(std::string_view changes, InstanceDetails* details) {
  std::string_view rest = changes;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const bool on = item.empty() || item.front() != '-';
    if (!item.empty() && (item.front() == '+' || item.front() == '-')) item.remove_prefix(1);
    bool* flag = Flag(details, item);
    if (!flag) {
      std::string names;
      for (auto n : kIndexNames) names += (names.empty() ? "" : ", ") + std::string(n);
      return Status::InvalidArgument(fmt::format(
          "--indexes: '{}' is not an index; write +name or -name, comma-separated, with names {} (the graph's "
          "four statement orders are always kept)",
          item, names));
    }
    *flag = on;
  }
  return Status::Ok();
}

Drift DriftFrom(const InstanceDetails& recorded, const ProcessorConfig& config) {
  InstanceDetails wanted = recorded;
  wanted.web_triples = config.web_triples;
  wanted.indexes.temporal = config.indexes.temporal;
  wanted.indexes.freetext = config.indexes.freetext;
  wanted.pagerank = config.rank.interval.count() > 0;
  Drift drift;
  for (auto name : kIndexNames) {
    const bool have = *Flag(const_cast<InstanceDetails*>(&recorded), name);
    const bool want = *Flag(&wanted, name);
    if (have == want) continue;
    drift.description += fmt::format("{}{}: {} in this table, {} in the configuration",
                                     drift.description.empty() ? "" : "; ", name, have ? "on" : "off",
                                     want ? "on" : "off");
    drift.changes += fmt::format("{}{}{}", drift.changes.empty() ? "" : ",", want ? "+" : "-", name);
  }
  if (recorded.indexes.temporal && config.indexes.temporal &&
      recorded.indexes.temporal_predicates != config.indexes.temporal_predicates) {
    drift.description += fmt::format("{}temporal.predicates: [{}] in this table, [{}] in the configuration",
                                     drift.description.empty() ? "" : "; ",
                                     fmt::join(recorded.indexes.temporal_predicates, ", "),
                                     fmt::join(config.indexes.temporal_predicates, ", "));
  }
  return drift;
}

}  // namespace webindex::app
