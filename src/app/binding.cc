#include "app/binding.h"

#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "app/app_id.h"
#include "common/log.h"
#include "pipeline/runner_keys.h"

namespace webindex::app {
namespace {

constexpr int kAdminTimeoutMs = 10000;
constexpr char kClusterKey[] = "binding/cluster_id";
constexpr char kSetUpKey[] = "binding/set_up";
constexpr char kAppIdKey[] = "binding/app_id";  // the application id it was set up under (app/app_id.h)
constexpr char kGroupKey[] = "binding/group";  // the consumer group it was set up in; "": a lone run

//! The input of one stage; its offset keys are OffsetKey(stage, topic, p).
struct Input {
  const char* stage;
  const std::string* topic;
  //! Written by producers outside webindex (read from the start, or from a replay's --from);
  //! the others are webindex's internal topics (read from their ends when a generation starts).
  bool external;
};

//! Every stage's input, in flow order.
std::vector<Input> Inputs(const ProcessorConfig& config) {
  const auto& n = config.topics;
  return {{"page", &n.pages, true},
          {"graph", &n.triples, true},
          {"page", &n.page_forwards, false},
          {"uri", &n.uri_deltas, false},
          {"domain", &n.domain_deltas, false},
          {"sink", &n.exports, false}};
}

std::string ResetAdvice(const ProcessorConfig& config) {
  return fmt::format(
      "Point --brokers at the cluster it was built from, or rebuild the table from what this cluster holds with "
      "`webindex run --reset --data-dir {}` (drops the current table) or `webindex replay` into a new generation",
      config.data_dir);
}

}  // namespace

Result<std::pair<int64_t, int64_t>> SettledWatermarks(kafka::Admin& admin, const std::string& topic, int32_t partition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kAdminTimeoutMs);
  for (;;) {
    auto marks = admin.Watermarks(topic, partition, kAdminTimeoutMs);
    if (marks.ok() || marks.status().code() != Status::Code::kUnavailable ||
        std::chrono::steady_clock::now() > deadline) {
      return marks;
    }
    LOG_DEBUG("watermarks of {}[{}]: {}; asking again", topic, partition, marks.status().ToString());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

Status SetUpGeneration(const ProcessorConfig& config, const InstanceDetails& details, kafka::Admin& admin,
                       state::Store& store, int64_t from_ms, state::WriteBatch* extra, uint64_t* deleted_before) {
  ASSIGN_OR_RETURN(std::string cluster, admin.ClusterId(kAdminTimeoutMs));
  state::WriteBatch local(store);
  state::WriteBatch& wb = extra ? *extra : local;
  const auto& n = config.topics;
  if (from_ms >= 0) {
    // A hint only: the page stage skips events stamped before from_ms anyway, so a broker
    // that cannot look offsets up by time (-1) just means reading from the beginning.
    ASSIGN_OR_RETURN(int partitions, admin.PartitionCount(n.pages, kAdminTimeoutMs));
    ASSIGN_OR_RETURN(auto offsets, admin.OffsetsForTime(n.pages, partitions, from_ms, kAdminTimeoutMs));
    for (int32_t p = 0; p < partitions; ++p) {
      if (offsets[p] >= 0) {
        wb.Put(state::Family::kOffsets, pipeline::OffsetKey("page", n.pages, p), state::Fixed64(offsets[p]));
      }
    }
    wb.Put(state::Family::kMeta, kFromMsKey, state::Fixed64(static_cast<uint64_t>(from_ms)));
  }
  for (const auto& [stage, topic, external] : Inputs(config)) {
    if (external) {
      // From where each partition starts now, named when that is not its first record: what the
      // broker's retention deleted before the table began is not in it (the embedded broker
      // keeps only ~5 MiB per partition). Deleted after this, it is lost, and counted so.
      if (from_ms >= 0 && *topic == n.pages) continue;
      ASSIGN_OR_RETURN(int partitions, admin.PartitionCount(*topic, kAdminTimeoutMs));
      for (int32_t p = 0; p < partitions; ++p) {
        ASSIGN_OR_RETURN(auto marks, SettledWatermarks(admin, *topic, p));
        wb.Put(state::Family::kOffsets, pipeline::OffsetKey(stage, *topic, p), state::Fixed64(marks.first));
        if (marks.first > 0) {
          LOG_WARN("{}[{}]: records [0, {}) were deleted by the broker's retention before this table began; it "
                   "starts at {} and lacks them",
                   *topic, p, marks.first, marks.first);
          if (deleted_before) *deleted_before += static_cast<uint64_t>(marks.first);
        }
      }
      continue;
    }
    // A group's internal topics hold the group's history: a member's stage tasks start where
    // their changelogs say, its table from the exports' start.
    if (!config.group.empty()) continue;
    ASSIGN_OR_RETURN(int partitions, admin.PartitionCount(*topic, kAdminTimeoutMs));
    for (int32_t p = 0; p < partitions; ++p) {
      ASSIGN_OR_RETURN(auto marks, SettledWatermarks(admin, *topic, p));
      wb.Put(state::Family::kOffsets, pipeline::OffsetKey(stage, *topic, p), state::Fixed64(marks.second));
    }
  }
  wb.Put(state::Family::kMeta, kClusterKey, cluster);
  wb.Put(state::Family::kMeta, kGroupKey, config.group);
  wb.Put(state::Family::kMeta, kAppIdKey, config.app_id);
  RecordDetails(details, &wb);
  wb.Put(state::Family::kMeta, kSetUpKey, "1");
  if (extra) return Status::Ok();
  return store.Write(wb);
}

Result<bool> IsSetUp(state::Store& store) {
  ASSIGN_OR_RETURN(auto marker, store.Get(state::Family::kMeta, kSetUpKey));
  if (marker) return true;
  // A generation made before bindings were recorded has positions; it is adopted as it is.
  auto it = store.NewIterator(state::Family::kOffsets);
  it->SeekToFirst();
  RETURN_IF_ERROR(it->status());
  return it->Valid();
}

Status CheckSide(const ProcessorConfig& config, state::Store& store, const std::string& where) {
  // Its positions are in the topics of its application id; under another it would read another
  // index's topics from positions that are not theirs.
  ASSIGN_OR_RETURN(auto app_id, store.Get(state::Family::kMeta, kAppIdKey));
  const std::string built_under = app_id ? *app_id : std::string(kDefaultAppId);  // older data dirs: the default
  if (built_under != config.app_id) {
    return Status::InvalidArgument(fmt::format(
        "{} was built under app id {} (topics {}.*): its positions mean nothing in the topics of app id {}. Run "
        "it with --app-id {}, or give app id {} a data dir of its own",
        where, built_under, built_under, config.app_id, built_under, config.app_id));
  }
  // A lone run's stages keep every task's state, a group member's only what it owned, and only
  // a group's tasks are in its changelogs: a data dir never changes sides.
  ASSIGN_OR_RETURN(auto group, store.Get(state::Family::kMeta, kGroupKey));
  const std::string was = group ? *group : std::string();  // older data dirs: lone runs
  if (was != config.group) {
    if (was.empty()) {
      return Status::InvalidArgument(fmt::format(
          "{} was built by a lone `webindex run`; its state is not in group {}'s changelogs, and joining would "
          "count its input again. Give each member of group {} a data dir of its own, or rebuild this one as a "
          "member with `webindex run --reset --group {} --data-dir {}`",
          where, config.group, config.group, config.group, config.data_dir));
    }
    return Status::InvalidArgument(fmt::format(
        "{} belongs to consumer group {}: it holds only the state of the tasks it owned. Run it with --group {}, "
        "or rebuild it with `webindex run --reset{} --data-dir {}`",
        where, was, was, config.group.empty() ? "" : " --group " + config.group, config.data_dir));
  }
  return Status::Ok();
}

Status CheckBinding(const ProcessorConfig& config, kafka::Admin& admin, state::Store& store, const std::string& where) {
  ASSIGN_OR_RETURN(std::string cluster, admin.ClusterId(kAdminTimeoutMs));
  ASSIGN_OR_RETURN(auto bound, store.Get(state::Family::kMeta, kClusterKey));
  RETURN_IF_ERROR(CheckSide(config, store, where));
  if (bound && *bound != cluster) {
    return Status::InvalidArgument(fmt::format(
        "{} was built from Kafka cluster {}, but {} is cluster {}: its positions in the topics mean nothing there. {}",
        where, *bound, config.kafka.brokers, cluster, ResetAdvice(config)));
  }
  for (const auto& [stage, topic, external] : Inputs(config)) {
    ASSIGN_OR_RETURN(int partitions, admin.PartitionCount(*topic, kAdminTimeoutMs));
    for (int32_t p = 0; p < partitions; ++p) {
      const std::string key = pipeline::OffsetKey(stage, *topic, p);
      ASSIGN_OR_RETURN(auto position, state::GetFixed64(store, state::Family::kOffsets, key, "offset " + key));
      if (!position) continue;
      ASSIGN_OR_RETURN(auto marks, SettledWatermarks(admin, *topic, p));
      if (static_cast<int64_t>(*position) > marks.second) {
        return Status::InvalidArgument(fmt::format(
            "{} has read {}[{}] up to offset {}, but that partition ends at {}: the topic was deleted and created "
            "again, or {} is another cluster. Going on would skip or re-apply input. {}",
            where, *topic, p, *position, marks.second, config.kafka.brokers, ResetAdvice(config)));
      }
    }
  }
  if (!bound) {
    LOG_INFO("{}: recording its Kafka cluster id {}", where, cluster);
    state::WriteBatch wb(store);
    wb.Put(state::Family::kMeta, kClusterKey, cluster);
    wb.Put(state::Family::kMeta, kSetUpKey, "1");
    RETURN_IF_ERROR(store.Write(wb));
  }
  return Status::Ok();
}

}  // namespace webindex::app
