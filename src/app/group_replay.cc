#include "app/group_replay.h"

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "app/app_id.h"
#include "app/group_bulk.h"
#include "app/group_generations.h"
#include "codec/records.h"
#include "common/crash_point.h"
#include "common/log.h"
#include "common/time.h"
#include "pipeline/changelog.h"

namespace webindex::app {
namespace {

constexpr int kAdminTimeoutMs = 10000;

//! A scratch directory, removed with this object.
class ScratchDir {
 public:
  static Result<ScratchDir> Make() {
    std::error_code ec;
    std::string tmpl = (std::filesystem::temp_directory_path(ec) / "webindex-group-replay-XXXXXX").string();
    if (ec || !mkdtemp(tmpl.data())) return Status::IoError("cannot create a scratch dir in " + tmpl);
    return ScratchDir(tmpl);
  }
  ScratchDir(ScratchDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

//! The page tasks of `generation`, restored from the page stage's changelog into `store`.
Status RestorePages(const ProcessorConfig& config, kafka::Admin& admin, state::Store& store, uint64_t generation) {
  ASSIGN_OR_RETURN(int partitions, admin.PartitionCount(config.topics.pages, kAdminTimeoutMs));
  const std::string topic = pipeline::ChangelogTopic(config.runner.changelog_prefix, "page");
  for (int32_t p = 0; p < partitions; ++p) {
    // "": records of any data dir, as every member of a group writes them.
    RETURN_IF_ERROR(pipeline::RestoreTask(config.kafka, admin, store, topic, p, generation, "").status().WithContext(
        fmt::format("restoring page task {} of generation {}", p, generation)));
  }
  return Status::Ok();
}

//! What generation `gen` lacks of generation `current`'s pages (docs/reliability.md, Replay): both
//! restored from the changelogs, the current one first, so that what it has and `gen` has not is
//! in a record `gen` has not read (its restored positions against the watermarks asked after) or
//! gone from the input.
Result<Missing> MissingPages(const ProcessorConfig& config, kafka::Admin& admin, uint64_t current, uint64_t gen) {
  ASSIGN_OR_RETURN(ScratchDir scratch, ScratchDir::Make());
  state::StoreOptions options;
  options.sync_commits = false;
  std::error_code ec;
  std::filesystem::create_directories(scratch.path() + "/old", ec);  // RocksDB logs an error for a missing dir
  std::filesystem::create_directories(scratch.path() + "/new", ec);
  ASSIGN_OR_RETURN(auto old_store, state::Store::Open(scratch.path() + "/old", options));
  ASSIGN_OR_RETURN(auto new_store, state::Store::Open(scratch.path() + "/new", options));
  LOG_INFO("checking that generation {} lacks no page of generation {}: restoring both from the changelogs", gen,
           current);
  RETURN_IF_ERROR(RestorePages(config, admin, *old_store, current));
  RETURN_IF_ERROR(RestorePages(config, admin, *new_store, gen));
  ASSIGN_OR_RETURN(Missing missing, CountMissing(*old_store, *new_store, state::Family::kPages, "", "",
                                                 [](std::string_view uri) { return std::string(uri); }));
  if (missing.count > 0) {
    ASSIGN_OR_RETURN(missing.unread, Unread(admin, *new_store, "page", config.topics.pages));
  }
  return missing;
}

//! One generation record per exports partition, for consumers that follow one generation; sent
//! again when the replay is run again (announcements are idempotent).
Status Announce(const ProcessorConfig& config, kafka::Admin& admin, uint64_t gen) {
  ASSIGN_OR_RETURN(int partitions, admin.PartitionCount(config.topics.exports, kAdminTimeoutMs));
  codec::ExportRecord record;
  record.type = codec::ExportRecord::Type::kGeneration;
  record.key = std::to_string(gen);
  record.gen = gen;
  record.inst = "group:" + config.group;
  const std::string value = codec::Encode(record);
  std::vector<OutRecord> records;
  for (int32_t p = 0; p < partitions; ++p) records.push_back({config.topics.exports, p, record.key, value, {}});
  return kafka::ProduceAndWait(config.kafka, records, 30000)
      .WithContext("announcing generation " + std::to_string(gen) + " in " + config.topics.exports);
}

}  // namespace

Result<GroupLag> LagOfGeneration(const ProcessorConfig& config, kafka::Admin& admin, uint64_t generation) {
  GroupLag lag;
  for (const auto& [stage, topic] : ChangelogInputs(config)) {
    ASSIGN_OR_RETURN(int partitions, admin.PartitionCount(topic, kAdminTimeoutMs));
    ASSIGN_OR_RETURN(auto reader, kafka::Consumer::Create(
                                      config.kafka, GroupGenerations::GroupIdOf(KafkaGroupName(config), generation, stage)));
    ASSIGN_OR_RETURN(auto committed, reader->Committed(topic, partitions, kAdminTimeoutMs));
    for (int32_t p = 0; p < partitions; ++p) {
      ASSIGN_OR_RETURN(auto marks, admin.Watermarks(topic, p, kAdminTimeoutMs));
      if (committed[p] < 0) {
        ++lag.unreported;
        lag.records += marks.second - marks.first;
      } else {
        lag.records += std::max<int64_t>(0, marks.second - std::max(committed[p], marks.first));
      }
    }
  }
  return lag;
}

Status ReplayGroup(const ProcessorConfig& config, const ReplayOptions& options, const std::atomic<bool>& stop) {
  ASSIGN_OR_RETURN(const int64_t from_ms, ParseReplayFrom(options.from));
  const std::string& group = config.group;
  ASSIGN_OR_RETURN(auto admin, kafka::Admin::Create(config.kafka));
  RETURN_IF_ERROR(admin->EnsureTopics(TopicSpecs(config), kAdminTimeoutMs)
                      .WithContext("cannot reach Kafka at " + config.kafka.brokers));
  ASSIGN_OR_RETURN(auto watch, GenerationWatch::Open(config.kafka, config.topics.generations, group));
  ASSIGN_OR_RETURN(GroupGenerations generations, watch->Refresh());
  const auto append = [&](const GroupGeneration& g) {
    return AppendGroupGeneration(config.kafka, config.topics.generations, group, g);
  };

  if (options.abort) {
    if (!generations.building) {
      LOG_INFO("group {} builds no generation; generation {} stays current", group, generations.current);
      return Status::Ok();
    }
    GroupGeneration aborted = *generations.building;
    aborted.state = GroupGeneration::State::kAborted;
    aborted.at_ms = NowMs();
    RETURN_IF_ERROR(append(aborted));
    // A replay stopped between its announcement and the switch told the exports' readers of a
    // generation that never came: they are told the current one again.
    RETURN_IF_ERROR(Announce(config, *admin, generations.current));
    LOG_INFO("group {}: the build of generation {} is aborted (its members drop it); generation {} stays current",
             group, aborted.generation, generations.current);
    return Status::Ok();
  }

  // --indexes changes the current generation's indexes, which a member that joins later knows
  // only from the records: each generation's record holds every change since the group began.
  const std::string previous = generations.current_record ? generations.current_record->indexes : "";
  const std::string indexes =
      previous.empty() ? options.indexes : options.indexes.empty() ? previous : previous + "," + options.indexes;
  GroupGeneration g;
  if (generations.building && generations.building->from_ms == from_ms && generations.building->indexes == indexes) {
    g = *generations.building;
    LOG_INFO("resuming the replay of group {}: generation {} (from {}) is being built", group, g.generation,
             DescribeFrom(from_ms));
  } else {
    if (generations.building) {
      GroupGeneration aborted = *generations.building;
      aborted.state = GroupGeneration::State::kAborted;
      aborted.at_ms = NowMs();
      RETURN_IF_ERROR(append(aborted));
      RETURN_IF_ERROR(Announce(config, *admin, generations.current));
      LOG_INFO("rolling back the unfinished replay of group {} into generation {} (from {})", group,
               aborted.generation, DescribeFrom(aborted.from_ms));
    }
    g.generation = std::max(generations.current, generations.highest) + 1;
    g.state = GroupGeneration::State::kBuilding;
    g.from_ms = from_ms;
    g.indexes = indexes;
    g.switch_lag = options.switch_lag;
    if (options.use_bulk) {
      // The stage state built in bulk, as changelog snapshots the members restore (group_bulk.h);
      // the number reserved first, so that a build killed before `building` is never resumed.
      auto reserve = [&]() -> Status {
        GroupGeneration reserved = g;
        reserved.state = GroupGeneration::State::kAborted;
        reserved.at_ms = NowMs();
        return append(reserved).WithContext("reserving generation " + std::to_string(g.generation));
      };
      auto bulk = GroupBulkBuild(config, *admin, g.generation, from_ms, options.bulk, reserve, stop);
      if (!bulk.ok()) {
        if (stop) {
          return Status::Aborted(fmt::format("replay of group {} interrupted during its bulk build; generation {} "
                                             "stays current: run the same command again",
                                             group, generations.current));
        }
        return bulk.status().WithContext("bulk build of generation " + std::to_string(g.generation));
      }
      if (!bulk->ran) LOG_INFO("no bulk build of generation {}: {}", g.generation, bulk->skipped_because);
      CrashPoint("group-replay-after-bulk");  // every record acknowledged, the generation not announced
    }
    g.at_ms = NowMs();
    RETURN_IF_ERROR(append(g));
    // Two replays started at once would both write this generation: the one read back wins.
    ASSIGN_OR_RETURN(generations, watch->Refresh());
    if (!generations.building || !(*generations.building == g)) {
      return Status::Aborted(fmt::format("another replay of group {} started at the same time; this one leaves it "
                                         "the build (`webindex replay --group {} --abort` drops it)",
                                         group, group));
    }
    LOG_INFO("replay of group {} from {} into generation {}: its members build it beside generation {}, which keeps "
             "answering",
             group, DescribeFrom(from_ms), g.generation, generations.current);
  }
  const uint64_t current = generations.current;

  // The members build it; this waits until its stage groups are within the switch lag.
  using Clock = std::chrono::steady_clock;
  const auto began = Clock::now();
  auto last_report = began;
  int64_t first_lag = -1;
  bool said_none = false;
  while (!stop) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    if (stop) break;
    ASSIGN_OR_RETURN(generations, watch->Refresh());
    if (!generations.building || generations.building->generation != g.generation) {
      return Status::Aborted(fmt::format("the build of generation {} of group {} was aborted or replaced by another "
                                         "replay (the group is at generation {})",
                                         g.generation, group, generations.current));
    }
    auto lag = LagOfGeneration(config, *admin, g.generation);
    if (!lag.ok()) {
      LOG_WARN("lag of generation {}: {}; trying again", g.generation, lag.status().ToString());
      continue;
    }
    if (lag->unreported == 0 && lag->records <= options.switch_lag) break;
    if (first_lag < 0) first_lag = std::max<int64_t>(lag->records, 1);
    if (!said_none && lag->unreported > 0 && Clock::now() - began > std::chrono::seconds(60)) {
      said_none = true;
      LOG_WARN("no member of group {} has reported positions of generation {} in {} partition(s) after a minute: "
               "members build it (`webindex run --group {}`); is one running?",
               group, g.generation, lag->unreported, group);
    }
    if (Clock::now() - last_report < std::chrono::seconds(5)) continue;
    last_report = Clock::now();
    const double done = 100.0 * static_cast<double>(first_lag - std::min(lag->records, first_lag)) / first_lag;
    LOG_INFO("replay of group {} into generation {}: {} records to go ({:.0f}% done){}", group, g.generation,
             lag->records, done,
             lag->unreported ? fmt::format(", {} partition(s) not reported yet", lag->unreported) : "");
  }
  if (stop) {
    return Status::Aborted(fmt::format(
        "replay of group {} interrupted; its members go on building generation {}: run the same command again to "
        "switch to it, or with --abort to drop it",
        group, g.generation));
  }

  ASSIGN_OR_RETURN(const Missing missing, MissingPages(config, *admin, current, g.generation));
  if (missing.count > 0) {
    std::string examples;
    for (const auto& e : missing.examples) examples += (examples.empty() ? "" : ", ") + e;
    const std::string what = fmt::format(
        "generation {} would lack {} page(s) (e.g. {}) that generation {} has, whose input is no longer in topic {} "
        "(removed by retention){}; a replay sees only what the topics still hold",
        g.generation, missing.count, examples, current, config.topics.pages,
        from_ms < 0 ? "" : " or is stamped before --from " + DescribeFrom(from_ms));
    if (static_cast<int64_t>(missing.count) <= missing.unread) {
      LOG_WARN("{} - unless they are in the {} input records it has yet to read", what, missing.unread);
    } else if (!options.force) {
      return Status::Aborted(what + fmt::format(". Generation {} stays current and the members keep building {}. "
                                                "Switch anyway with --force (the same command), or drop it with --abort",
                                                current, g.generation));
    } else {
      LOG_WARN("{}; switching anyway (--force)", what);
    }
  }
  CrashPoint("group-replay-before-announce");
  RETURN_IF_ERROR(Announce(config, *admin, g.generation));
  CrashPoint("group-replay-before-switch");
  GroupGeneration switched = g;
  switched.state = GroupGeneration::State::kSwitched;
  switched.at_ms = NowMs();
  RETURN_IF_ERROR(append(switched));
  LOG_INFO("replay done: group {} switched to generation {}; each member retires generation {} (a member with the "
           "table once its new table is within {} records of its inputs)",
           group, g.generation, current, g.switch_lag);
  return Status::Ok();
}

}  // namespace webindex::app
