#include "app/group_member.h"

#include <algorithm>
#include <filesystem>
#include <thread>

#include "app/binding.h"
#include "app/replay.h"
#include "common/crash_point.h"
#include "common/log.h"
#include "common/time.h"

namespace webindex::app {
namespace {
constexpr int kAdminTimeoutMs = 10000;
}  // namespace

GroupMember::GroupMember(ProcessorConfig config, std::function<void(Processor&)> on_switch)
    : config_(std::move(config)), on_switch_(std::move(on_switch)) {}

GroupMember::~GroupMember() { Stop().PermitUncheckedError(); }

uint64_t GroupMember::lost_records() const {
  uint64_t lost = lost_;
  if (current_) lost += current_->metrics().lost_records;
  if (builder_) lost += builder_->metrics().lost_records;
  return lost;
}

Result<std::unique_ptr<Processor>> GroupMember::StartGeneration(uint64_t generation) {
  ProcessorConfig config = config_;
  config.generation = generation;
  // The watch is read again right before a trim: a build announced since must stop it.
  config.trims_allowed = [watch = watch_.get()](uint64_t gen) {
    auto generations = watch->Refresh(5000);
    if (!generations.ok()) {
      LOG_DEBUG("no changelog trim: the group's generations are unknown ({})", generations.status().ToString());
      return false;
    }
    return generations->TrimsAllowed(gen, NowMs());
  };
  auto processor = std::make_unique<Processor>(config);
  RETURN_IF_ERROR(processor->Start());
  return processor;
}

Status GroupMember::Start() {
  ASSIGN_OR_RETURN(admin_, kafka::Admin::Create(config_.kafka));
  RETURN_IF_ERROR(admin_->EnsureTopics(TopicSpecs(config_), kAdminTimeoutMs)
                      .WithContext("cannot reach Kafka at " + config_.kafka.brokers +
                                   " (check --brokers / bootstrap.servers)"));
  ASSIGN_OR_RETURN(watch_, GenerationWatch::Open(config_.kafka, config_.topics.generations, config_.group));
  auto read = watch_->Refresh();
  if (!read.ok()) return read.status().WithContext("reading the generations of group " + config_.group);
  const GroupGenerations generations = std::move(read).value();
  ASSIGN_OR_RETURN(dir_, state::DataDir::Open(config_.data_dir, /*create=*/true));
  ASSIGN_OR_RETURN(const uint64_t had, dir_->Current());
  // Before any generation is switched or removed: a data dir of a lone run or of another group
  // is refused whole, whatever generation it is at, never emptied to join.
  RETURN_IF_ERROR(CheckSideOf(had));
  const uint64_t want = generations.current;
  if (had != want) {
    // The group switched generations while this data dir was away (or never ran in it): its
    // generation `want` is used when a build of it finished its setup here, else made afresh
    // (its tasks restore from the changelogs, its table reads the exports from their start).
    ASSIGN_OR_RETURN(const bool usable,
                     PrepareGeneration(generations.current_record.value_or(GroupGeneration{}), had));
    RETURN_IF_ERROR(dir_->SetCurrent(want));
    LOG_INFO("group {} is at generation {}; data dir {} was at generation {}: now at {}{}", config_.group, want,
             config_.data_dir, had, want, usable ? " (built here before)" : "");
  }
  // Generations other than the current one and the build in force are leftovers.
  ASSIGN_OR_RETURN(auto present, dir_->List());
  for (uint64_t gen : present) {
    if (gen == want || (generations.building && gen == generations.building->generation)) continue;
    LOG_INFO("removing generation {} of {}: the group runs generation {}{}", gen, config_.data_dir, want,
             generations.building ? " and builds " + std::to_string(generations.building->generation) : "");
    RETURN_IF_ERROR(dir_->Remove(gen));
  }
  ASSIGN_OR_RETURN(current_, StartGeneration(want));
  if (generations.building) RETURN_IF_ERROR(StartBuilder(*generations.building));
  return Status::Ok();
}

Status GroupMember::CheckSideOf(uint64_t generation) {
  const std::string path = dir_->PathOf(generation);
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::path(path) / "CURRENT", ec)) return Status::Ok();  // none yet
  state::StoreOptions options = config_.store;
  options.read_only = true;
  ASSIGN_OR_RETURN(auto store, state::Store::Open(path, options));
  ASSIGN_OR_RETURN(const bool set_up, IsSetUp(*store));
  if (!set_up) return Status::Ok();
  return CheckSide(config_, *store, "generation " + std::to_string(generation) + " of data dir " + config_.data_dir);
}

Result<bool> GroupMember::PrepareGeneration(const GroupGeneration& g, uint64_t base) {
  ASSIGN_OR_RETURN(const InstanceDetails details, DetailsForReplay(config_, *dir_, base, g.indexes));
  ASSIGN_OR_RETURN(auto present, dir_->List());
  if (std::find(present.begin(), present.end(), g.generation) != present.end()) {
    ASSIGN_OR_RETURN(auto started, ReadReplayStart(*dir_, g.generation, config_.store));
    if (started && started->from_ms == g.from_ms && SameIndexes(started->details, details)) return true;
    RETURN_IF_ERROR(dir_->Remove(g.generation));
  }
  RETURN_IF_ERROR(CreateGeneration(config_, details, *admin_, *dir_, g.generation, g.from_ms));
  return false;
}

Status GroupMember::StartBuilder(const GroupGeneration& g) {
  ASSIGN_OR_RETURN(const uint64_t current, dir_->Current());
  ASSIGN_OR_RETURN(const bool resume, PrepareGeneration(g, current));
  LOG_INFO("group {} builds generation {} (a replay from {}{}): {} its stages here beside generation {}",
           config_.group, g.generation, DescribeFrom(g.from_ms), g.indexes.empty() ? "" : ", indexes " + g.indexes,
           resume ? "resuming" : "starting", current);
  ProcessorConfig saved = config_;
  config_.compute_rank = false;  // computed once the generation is current
  auto started = StartGeneration(g.generation);
  config_ = std::move(saved);
  if (!started.ok()) return started.status();
  builder_ = std::move(started).value();
  building_ = g;
  return Status::Ok();
}

Status GroupMember::StopBuilder(const char* why) {
  if (!builder_) return Status::Ok();
  const uint64_t gen = building_->generation;
  LOG_INFO("group {}: stopping the build of generation {} ({})", config_.group, gen, why);
  Status st = builder_->Stop();
  lost_ += builder_->metrics().lost_records;
  builder_.reset();
  building_.reset();
  if (!st.ok()) LOG_WARN("stopping generation {}: {}", gen, st.ToString());
  return dir_->Remove(gen);
}

Status GroupMember::SwitchToBuilder() {
  const uint64_t gen = building_->generation;
  const uint64_t old = current_->generation();
  RETURN_IF_ERROR(dir_->SetCurrent(gen));
  CrashPoint("member-switched");
  if (config_.compute_rank) RETURN_IF_ERROR(builder_->StartRank());
  if (on_switch_) on_switch_(*builder_);
  std::swap(current_, builder_);
  building_.reset();
  old_stages_stopped_ = false;
  Status st = builder_->Stop();  // the generation retired
  lost_ += builder_->metrics().lost_records;
  builder_.reset();
  RETURN_IF_ERROR(st);
  auto removed = dir_->RemoveOlder();
  if (!removed.ok()) LOG_WARN("cannot remove generation {}: {}", old, removed.status().ToString());
  LOG_INFO("group {}: now running generation {} (generation {} retired)", config_.group, gen, old);
  return Status::Ok();
}

namespace {
//! Whether `g` is the build `building` describes (a replay started again with other parameters
//! writes the same generation with another --from or --indexes only after aborting it, but two
//! replays started at once could both write one).
bool SameBuild(const GroupGeneration& a, const GroupGeneration& b) {
  return a.generation == b.generation && a.from_ms == b.from_ms && a.indexes == b.indexes;
}
}  // namespace

GroupMember::Step GroupMember::Next(const GroupGenerations& generations) const {
  const uint64_t current = current_->generation();
  if (generations.current > current) {
    // Switched (this member follows before it looks at any newer build).
    const GroupGeneration target = generations.current_record.value_or(GroupGeneration{});
    if (!builder_ || !SameBuild(*building_, target)) return Step::kBuildTarget;
    return Step::kSwitch;
  }
  if (generations.building) {
    if (builder_ && SameBuild(*building_, *generations.building)) return Step::kNone;
    return Step::kBuild;
  }
  return builder_ ? Step::kDropBuild : Step::kNone;
}

bool GroupMember::Due() {
  using Clock = std::chrono::steady_clock;
  if (builder_ && !builder_->Failure().ok()) return true;
  const auto now = Clock::now();
  if (now - refreshed_ < std::chrono::seconds(1)) return false;
  refreshed_ = now;
  auto generations = watch_->Refresh(2000);
  if (!generations.ok()) {
    LOG_DEBUG("reading the generations of group {}: {}", config_.group, generations.status().ToString());
    return false;
  }
  const Step step = Next(*generations);
  if (step != Step::kSwitch || !config_.table) return step != Step::kNone;
  // A member with the table switches once its new table is within the switch lag of its inputs;
  // until then it answers from the old one, whose stages it stops at once (the group retired them).
  if (!old_stages_stopped_) return true;
  auto lag = builder_->Lag();
  if (!lag.ok()) return false;
  int64_t total = 0;
  for (const auto& s : *lag) total += s.lag;
  if (total <= building_->switch_lag) return true;
  if (now - waiting_said_ > std::chrono::seconds(5)) {
    waiting_said_ = now;
    LOG_INFO("group {} switched to generation {}: this member's table follows once it is within {} records of its "
             "inputs ({} to go)",
             config_.group, building_->generation, building_->switch_lag, total);
  }
  return false;
}

Status GroupMember::Act() {
  if (builder_) {
    if (Status failed = builder_->Failure(); !failed.ok()) {
      return failed.WithContext("generation " + std::to_string(building_->generation) + " (being built)");
    }
  }
  const GroupGenerations generations = watch_->last();
  switch (Next(generations)) {
    case Step::kNone:
      return Status::Ok();
    case Step::kBuild:
      if (builder_) RETURN_IF_ERROR(StopBuilder("another replay replaced it"));
      return StartBuilder(*generations.building);
    case Step::kDropBuild:
      return StopBuilder("the replay was aborted");
    case Step::kBuildTarget:
      // The build began and ended between two looks, or this member was building another one:
      // built here now, switched to once it caught up.
      if (builder_) RETURN_IF_ERROR(StopBuilder("superseded"));
      RETURN_IF_ERROR(StartBuilder(generations.current_record.value_or(GroupGeneration{})));
      if (!config_.table) return SwitchToBuilder();
      return StopOldStages();
    case Step::kSwitch:
      if (config_.table && !old_stages_stopped_) return StopOldStages();  // Due waits for the table
      return SwitchToBuilder();
  }
  return Status::Ok();
}

Status GroupMember::StopOldStages() {
  if (old_stages_stopped_) return Status::Ok();
  old_stages_stopped_ = true;
  LOG_INFO("group {} switched to generation {}: stopping generation {}'s stages here; its table answers until "
           "the new one caught up",
           config_.group, building_->generation, current_->generation());
  return current_->StopGroupStages();
}

Status GroupMember::Run(bool exit_when_idle, const std::atomic<bool>& stop) {
  bool due = false;
  auto last_progress = std::chrono::steady_clock::now();
  while (!stop) {
    due = false;
    Status run = current_->Run(exit_when_idle, stop, [&] {
      if (builder_ &&
          std::chrono::steady_clock::now() - last_progress > std::chrono::milliseconds(config_.progress_interval_ms)) {
        last_progress = std::chrono::steady_clock::now();
        LOG_INFO("progress of generation {} (being built): {}", building_->generation,
                 ProgressLine::Totals(builder_->metrics()));
      }
      due = Due();
      return due;
    });
    RETURN_IF_ERROR(run);
    if (stop) break;
    if (due) {
      RETURN_IF_ERROR(Act());
      continue;
    }
    // Idle (exit_when_idle): not while a generation is being built here, which the group waits for.
    if (!builder_) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return Status::Ok();
}

Status GroupMember::Stop() {
  Status first;
  if (builder_) first = builder_->Stop();
  if (current_) {
    Status st = current_->Stop();
    if (first.ok()) first = st;
  }
  return first;
}

}  // namespace webindex::app
