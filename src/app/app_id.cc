#include "app/app_id.h"

#include <algorithm>
#include <map>

namespace webindex::app {
namespace {

constexpr std::string_view kOwnedPrefix = "webindex.";

//! `name` under `app_id`: an owned topic's "webindex." becomes "<app_id>.".
std::string Renamed(const std::string& name, const std::string& app_id) {
  if (!name.starts_with(kOwnedPrefix)) return name;
  return app_id + "." + name.substr(kOwnedPrefix.size());
}

template <typename V>
void RenameKeys(std::map<std::string, V>* by_topic, const std::string& app_id) {
  std::map<std::string, V> renamed;
  for (auto& [name, value] : *by_topic) renamed[Renamed(name, app_id)] = std::move(value);
  *by_topic = std::move(renamed);
}

}  // namespace

Status CheckAppId(std::string_view id) {
  auto allowed = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  };
  const bool ok = !id.empty() && id.size() <= 100 && allowed(id.front()) && id.front() != '.' &&
                  id.front() != '_' && id.front() != '-' &&
                  std::all_of(id.begin(), id.end(), allowed);
  if (ok) return Status::Ok();
  return Status::InvalidArgument("app id '" + std::string(id) +
                                 "' is not a name Kafka topics can start with: 1 to 100 letters, digits, '.', '_' "
                                 "or '-', starting with a letter or digit (e.g. --app-id webindex-staging)");
}

void ApplyAppId(ProcessorConfig* config) {
  const std::string& id = config->app_id;
  config->runner.app_id = id;
  if (id == kDefaultAppId) return;
  auto& n = config->topics;
  for (std::string* name : {&n.page_forwards, &n.uri_deltas, &n.domain_deltas, &n.exports, &n.dead_letters, &n.pagerank,
                            &n.generations, &n.instances}) {
    *name = Renamed(*name, id);
  }
  config->runner.dead_letters = n.dead_letters;
  config->runner.changelog_prefix = Renamed(config->runner.changelog_prefix, id);
  RenameKeys(&config->partitions, id);
  RenameKeys(&config->topic_config, id);
}

std::string KafkaGroupName(const ProcessorConfig& config) {
  if (config.app_id == kDefaultAppId || config.group.empty()) return config.group;
  return config.app_id + "." + config.group;
}

}  // namespace webindex::app
