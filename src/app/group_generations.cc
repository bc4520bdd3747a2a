#include "app/group_generations.h"

#include <simdjson.h>

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "app/read_to_end.h"
#include "codec/json_writer.h"
#include "common/log.h"
#include "kafka/producer.h"

namespace webindex::app {

std::string_view StateName(GroupGeneration::State state) {
  switch (state) {
    case GroupGeneration::State::kBuilding: return "building";
    case GroupGeneration::State::kSwitched: return "switched";
    case GroupGeneration::State::kAborted: return "aborted";
  }
  return "?";
}

std::string EncodeGroupGeneration(const GroupGeneration& g) {
  codec::JsonWriter w;
  w.BeginObject();
  w.Key("generation").Uint(g.generation);
  w.Key("state").String(StateName(g.state));
  w.Key("from_ms").Int(g.from_ms);
  w.Key("indexes").String(g.indexes);
  w.Key("switch_lag").Int(g.switch_lag);
  w.Key("at_ms").Int(g.at_ms);
  w.EndObject();
  return w.Take();
}

Result<GroupGeneration> DecodeGroupGeneration(std::string_view json) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  GroupGeneration g;
  auto bad = [&](const std::string& why) {
    return Status::Corruption("group generation record " + std::string(json.substr(0, 200)) + ": " + why);
  };
  simdjson::ondemand::document doc;
  if (parser.iterate(padded).get(doc)) return bad("not JSON");
  simdjson::ondemand::object obj;
  if (doc.get_object().get(obj)) return bad("not an object");
  bool have_generation = false, have_state = false;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return bad("bad key");
    auto value = field.value();
    if (key == "generation") {
      uint64_t v = 0;
      if (value.get_uint64().get(v) || v < 1) return bad("generation must be a number >= 1");
      g.generation = v;
      have_generation = true;
    } else if (key == "state") {
      std::string_view s;
      if (value.get_string().get(s)) return bad("state must be a string");
      if (s == "building") {
        g.state = GroupGeneration::State::kBuilding;
      } else if (s == "switched") {
        g.state = GroupGeneration::State::kSwitched;
      } else if (s == "aborted") {
        g.state = GroupGeneration::State::kAborted;
      } else {
        return bad("unknown state '" + std::string(s) + "'");
      }
      have_state = true;
    } else if (key == "from_ms" || key == "switch_lag" || key == "at_ms") {
      int64_t v = 0;
      if (value.get_int64().get(v)) return bad(std::string(key) + " must be a number");
      (key == "from_ms" ? g.from_ms : key == "switch_lag" ? g.switch_lag : g.at_ms) = v;
    } else if (key == "indexes") {
      std::string_view s;
      if (value.get_string().get(s)) return bad("indexes must be a string");
      g.indexes = std::string(s);
    }  // other keys: written by a later version, ignored
  }
  if (!have_generation || !have_state) return bad("generation and state are required");
  return g;
}

void GroupGenerations::Apply(const GroupGeneration& g) {
  highest = std::max(highest, g.generation);
  switch (g.state) {
    case GroupGeneration::State::kBuilding:
      if (g.generation > current) building = g;
      break;
    case GroupGeneration::State::kSwitched:
      if (g.generation >= current) {
        current = g.generation;
        current_record = g;
      }
      if (building && building->generation <= current) building.reset();
      break;
    case GroupGeneration::State::kAborted:
      if (building && building->generation == g.generation) building.reset();
      break;
  }
}

std::string GroupGenerations::GroupIdOf(const std::string& group, uint64_t generation, std::string_view stage) {
  if (generation <= 1) return fmt::format("{}.{}", group, stage);
  return fmt::format("{}.g{}.{}", group, generation, stage);
}

std::string GenerationKey(const std::string& group, GroupGeneration::State state) {
  return (state == GroupGeneration::State::kSwitched ? "current:" : "build:") + group;
}

Result<std::unique_ptr<GenerationWatch>> GenerationWatch::Open(const kafka::ClientConfig& config, std::string topic,
                                                               std::string group) {
  std::unique_ptr<GenerationWatch> watch(new GenerationWatch(std::move(topic), std::move(group)));
  ASSIGN_OR_RETURN(watch->admin_, kafka::Admin::Create(config));
  ASSIGN_OR_RETURN(watch->consumer_, kafka::Consumer::Create(config, "webindex-generations-watch"));
  RETURN_IF_ERROR(watch->consumer_->Assign({{watch->topic_, 0, kafka::kBeginning}}));
  return watch;
}

GenerationWatch::~GenerationWatch() = default;

Result<GroupGenerations> GenerationWatch::Refresh(int timeout_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  ASSIGN_OR_RETURN(auto marks, admin_->Watermarks(topic_, 0, timeout_ms));
  next_ = std::max(next_, marks.first);
  RETURN_IF_ERROR(ReadToEnd(*consumer_, *admin_, topic_, marks.second, timeout_ms, &next_, [&](const InRecord& r) {
    if (r.tombstone || !r.key.ends_with(group_)) return;
    auto g = DecodeGroupGeneration(r.value);
    if (!g.ok()) {
      LOG_WARN("{}[0] offset {}: {}; passed over", topic_, r.offset, g.status().ToString());
      return;
    }
    if (r.key != GenerationKey(group_, g->state)) return;  // another group's, or a key of another kind
    state_.Apply(*g);
  }));
  return state_;
}

GroupGenerations GenerationWatch::last() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

Status AppendGroupGeneration(const kafka::ClientConfig& config, const std::string& topic, const std::string& group,
                             const GroupGeneration& g) {
  return kafka::ProduceAndWait(config, {{topic, 0, GenerationKey(group, g.state), EncodeGroupGeneration(g), {}}}, 30000)
      .WithContext(fmt::format("writing {} generation {} of group {} to {}", StateName(g.state), g.generation, group,
                               topic));
}

}  // namespace webindex::app
