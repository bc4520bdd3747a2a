#include "pipeline/fence.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <mutex>

#include "codec/json_writer.h"
#include "common/bytes.h"
#include "common/log.h"
#include "kafka/producer.h"
#include "pipeline/changelog.h"
#include "pipeline/stage.h"

namespace webindex::pipeline {
namespace {

constexpr int kAckTimeoutMs = 30000;

}  // namespace

std::optional<uint64_t> ParseUint(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::string DescribeEpoch(uint64_t epoch) {
  const uint64_t generation = epoch >> 32;
  const uint64_t within = epoch & 0xffffffffu;
  return generation == 0 ? std::to_string(within)
                         : fmt::format("{} of group generation {}", within, generation);
}

std::string TaskName(std::string_view stage, int32_t partition) {
  return std::string(stage) + "." + std::to_string(partition);
}

std::string TaskNames(std::string_view stage, const std::set<int32_t>& partitions) {
  std::string out;
  for (int32_t p : partitions) out += (out.empty() ? "" : ", ") + TaskName(stage, p);
  return out;
}

std::string TaskEpochKey(std::string_view stage, int32_t partition) {
  return "task-epoch/" + std::string(stage) + "/" + std::to_string(partition);
}

std::optional<uint64_t> EpochOf(const InRecord& record) {
  auto ep = record.Header(kEpochHeader);
  if (!ep) return 0;
  return ParseUint(*ep);
}

OutRecord FenceRecord(const std::string& topic, int32_t partition, std::string_view task, uint64_t epoch,
                      uint64_t generation, std::string_view instance, std::string_view of) {
  codec::JsonWriter w;
  w.BeginObject();
  w.Key("type").String("fence");
  w.Key("task").String(task);
  w.Key("epoch").Uint(epoch);
  w.Key("gen").Uint(generation);
  w.Key("inst").String(instance);
  w.EndObject();
  OutRecord marker{topic,
                   partition,
                   std::string(task),
                   w.Take(),
                   {{kFenceHeader, std::string(task)},
                    {kEpochHeader, std::to_string(epoch)},
                    {"gen", std::to_string(generation)},
                    {"inst", std::string(instance)}}};
  if (!of.empty()) marker.headers.emplace_back("of", std::string(of));
  return marker;
}

FenceMarks::Verdict FenceMarks::Admit(const InRecord& record) {
  if (auto fenced = record.Header(kFenceHeader)) {
    const auto epoch = EpochOf(record);
    const auto gen = record.Header("gen");
    if (!epoch || !gen || ParseUint(*gen) != generation_) return Verdict::kMarker;  // another generation's
    auto key = std::make_pair(record.partition, std::string(*fenced));
    if (*epoch > marks_.Get(key).value_or(0)) marks_.Set(std::move(key), *epoch);
    return Verdict::kMarker;
  }
  if (marks_.empty()) return Verdict::kAccept;
  const auto task = record.Header(kTaskHeader);
  if (!task) return Verdict::kAccept;
  const auto mark = marks_.Get({record.partition, std::string(*task)});
  if (!mark) return Verdict::kAccept;
  const auto epoch = EpochOf(record);
  // A record whose epoch cannot be read cannot be shown to be current: it counts as fenced.
  return epoch && *epoch >= *mark ? Verdict::kAccept : Verdict::kFenced;
}

bool Admitted(FenceMarks& marks, const InRecord& record, BatchContext& ctx) {
  switch (marks.Admit(record)) {
    case FenceMarks::Verdict::kAccept: return true;
    case FenceMarks::Verdict::kMarker: return false;
    case FenceMarks::Verdict::kFenced: ++ctx.metrics().fenced_records; return false;
  }
  return false;
}

std::string ClaimKey(uint64_t generation, std::string_view stage, int32_t task, uint64_t epoch) {
  BytesWriter w;
  w.str() = TaskEpochKey(stage, task);
  w.str().push_back('\0');
  w.PutFixed64BE(epoch);
  return ChangelogKey(generation, state::Family::kMeta, w.str());
}

Status ClaimTasks(const kafka::ClientConfig& config, const std::vector<std::pair<const ClaimSpec*, uint64_t>>& claims) {
  if (claims.empty()) return Status::Ok();
  std::mutex mu;
  Status failed;
  // Not idempotent: nothing here needs it (the markers are awaited before the claims are sent; a
  // marker or claim sent twice changes nothing), and a fresh idempotent producer first waits for
  // its producer id (20 ms of the 100 ms a claim takes on the embedded broker).
  kafka::ClientConfig plain = config;
  plain.properties.emplace("enable.idempotence", "false");
  plain.properties.emplace("linger.ms", "0");
  ASSIGN_OR_RETURN(auto producer, kafka::Producer::Create(plain, [&](uint64_t, const Status& st) {
                     std::lock_guard<std::mutex> lock(mu);
                     if (!st.ok() && failed.ok()) failed = st;
                   }));
  auto wait = [&](std::string_view what) -> Status {
    RETURN_IF_ERROR(producer->Flush(kAckTimeoutMs).WithContext(std::string(what)));
    std::lock_guard<std::mutex> lock(mu);
    return failed.WithContext(std::string(what));
  };
  // The partitions of every topic written below, learnt at once: asked one by one, the claims'
  // topic would wait a second for the next metadata refresh.
  std::vector<std::string> topics;
  for (const auto& [spec, epoch] : claims) {
    topics.push_back(spec->changelog_topic);
    for (const auto& output : spec->outputs) topics.push_back(output.first);
  }
  std::sort(topics.begin(), topics.end());
  topics.erase(std::unique(topics.begin(), topics.end()), topics.end());
  RETURN_IF_ERROR(producer->WarmUp(topics, kAckTimeoutMs));
  std::string names;
  for (const auto& [spec, epoch] : claims) {
    names += (names.empty() ? "" : ", ") + TaskName(spec->stage, spec->task) + " at epoch " + std::to_string(epoch);
  }
  // 1. Fence markers, every one acknowledged: whatever an old owner produces from now on lands
  // after them.
  for (const auto& [spec, epoch] : claims) {
    const std::string task = TaskName(spec->stage, spec->task);
    for (const auto& [topic, partitions] : spec->outputs) {
      for (int32_t p = 0; p < partitions; ++p) {
        RETURN_IF_ERROR(producer->Produce(
            FenceRecord(topic, p, task, epoch, spec->generation, spec->instance, spec->records_instance), 0));
      }
    }
  }
  RETURN_IF_ERROR(wait("fencing " + names));
  // 2. The claims: an old owner's changelog records after them are void.
  for (const auto& [spec, epoch] : claims) {
    const std::string task = TaskName(spec->stage, spec->task);
    BytesWriter value;
    value.PutFixed64BE(epoch);
    OutRecord claim{spec->changelog_topic,
                    spec->task,
                    ClaimKey(spec->generation, spec->stage, spec->task, epoch),
                    value.Take(),
                    {{kClaimHeader, task},
                     {kEpochHeader, std::to_string(epoch)},
                     {"gen", std::to_string(spec->generation)},
                     {"inst", spec->instance}}};
    RETURN_IF_ERROR(producer->Produce(claim, 0));
  }
  return wait("claiming " + names);
}

Status ClaimTask(const kafka::ClientConfig& config, const ClaimSpec& spec, uint64_t epoch) {
  return ClaimTasks(config, {{&spec, epoch}});
}

std::optional<uint64_t> NextEpoch(uint64_t current, int32_t generation) {
  if (generation < 1) return current + 1;
  const uint64_t floor = static_cast<uint64_t>(generation) << 32;
  if ((current >> 32) > static_cast<uint64_t>(generation)) return std::nullopt;
  return std::max(current + 1, floor);
}

std::vector<Result<TakeOverStats>> TakeOverTasks(const kafka::ClientConfig& config, kafka::Admin& admin,
                                                 state::Store& store, const std::vector<ClaimSpec>& specs,
                                                 std::atomic<int64_t>* restore_lag) {
  std::vector<Status> failed(specs.size());
  std::vector<uint64_t> epochs(specs.size(), 0);  // claimed; 0: none (failed, or not ours)
  std::vector<std::unique_ptr<TaskRestore>> restores;
  std::vector<std::pair<const ClaimSpec*, uint64_t>> claims;
  for (size_t i = 0; i < specs.size(); ++i) {
    const ClaimSpec& spec = specs[i];
    restores.push_back(std::make_unique<TaskRestore>(config, admin, store, spec.changelog_topic, spec.task,
                                                     spec.generation, ""));
    restores[i]->ReportLagTo(restore_lag);
    if (spec.local) restores[i]->ResumeAt(spec.local->offset, spec.local->epoch, spec.instance);
    failed[i] = restores[i]->CatchUp();
    restores[i]->Release();  // a reader per task at a time, not one per task at once
    if (spec.local && failed[i].ok() && restores[i]->stats().claims > 0) {
      // Another member owned the task since this copy was kept. Read on, the copy would be
      // exact on a log nothing was deleted from; but under compaction the tail can miss the
      // tombstone of a key the copy still holds.
      failed[i] = Status::NotFound("the local copy of task " + TaskName(spec.stage, spec.task) + " at offset " +
                                   std::to_string(spec.local->offset) + " is not current: data dir '" +
                                   restores[i]->claimed_by() + "' claimed the task after it");
    } else if (spec.local && !failed[i].ok() && failed[i].code() != Status::Code::kAborted) {
      failed[i] = Status::NotFound("the local copy of task " + TaskName(spec.stage, spec.task) + " at offset " +
                                   std::to_string(spec.local->offset) + " cannot be read on: " + failed[i].message());
    }
    if (!failed[i].ok()) continue;
    const uint64_t current = restores[i]->epoch();
    std::optional<uint64_t> next = NextEpoch(current, spec.group_generation);
    // A group member asks the group first whenever the generation does not settle it: a claim of
    // a later generation in force (this member's may be over), another member's claim of the
    // same one (with static membership a process that replaced this one gets its generation), or
    // its own generation unknown (the client forgets it when it learns the group moved on).
    const bool ask = spec.confirm_member && (!next || spec.group_generation < 1 ||
                                             ((current >> 32) == static_cast<uint64_t>(spec.group_generation) &&
                                              restores[i]->claimed_by() != spec.instance));
    if (!next && !spec.confirm_member) {
      failed[i] = Status::Internal("task " + TaskName(spec.stage, spec.task) +
                                   ": claimed at a later generation, and no way to ask the group");
      continue;
    }
    if (ask) {
      const Status member = spec.confirm_member();
      if (member.code() == Status::Code::kAborted) {  // refused: this member's generation is over
        LOG_WARN(
            "task {}: claimed at epoch {} by data dir '{}'; this member (group generation {}) is not the group's "
            "any more ({}): the task is another member's",
            TaskName(spec.stage, spec.task), DescribeEpoch(current), restores[i]->claimed_by(), spec.group_generation,
            member.message());
        continue;
      }
      if (!member.ok()) {
        failed[i] = member.WithContext("asking the group whether task " + TaskName(spec.stage, spec.task) +
                                       " is still this member's");
        continue;
      }
      if (!next) {
        LOG_INFO(
            "task {}: claimed at group generation {}, yet the group counts this member at generation {}: the "
            "group was made anew; claiming after it",
            TaskName(spec.stage, spec.task), current >> 32, spec.group_generation);
        next = current + 1;
      }
    }
    epochs[i] = *next;
    claims.emplace_back(&spec, *next);
  }
  const Status claimed = ClaimTasks(config, claims);
  std::vector<Result<TakeOverStats>> out;
  for (size_t i = 0; i < specs.size(); ++i) {
    const ClaimSpec& spec = specs[i];
    if (!failed[i].ok()) {
      out.emplace_back(failed[i]);
      continue;
    }
    if (epochs[i] == 0) {  // not ours: nothing claimed
      TakeOverStats stats{restores[i]->epoch(), restores[i]->stats()};
      stats.ours = false;
      out.emplace_back(stats);
      continue;
    }
    if (!claimed.ok()) {
      out.emplace_back(claimed);
      continue;
    }
    const uint64_t epoch = epochs[i];
    Status st = restores[i]->CatchUp();
    restores[i]->Release();
    const std::string task = TaskName(spec.stage, spec.task);
    if (st.ok() && (restores[i]->epoch() != epoch || restores[i]->claimed_by() != spec.instance)) {
      st = Status::Aborted("task " + task + " was claimed by data dir '" + restores[i]->claimed_by() + "' at epoch " +
                           DescribeEpoch(restores[i]->epoch()) + " while this one claimed epoch " +
                           DescribeEpoch(epoch) + "; it is not ours");
    }
    if (!st.ok()) {
      out.emplace_back(st);
      continue;
    }
    const RestoreStats& stats = restores[i]->stats();
    LOG_INFO("task {} taken over at epoch {}{}: {} changelog records read, {} commits restored, {} void, {} "
             "snapshot records",
             task, DescribeEpoch(epoch),
             spec.local ? " from the local copy at offset " + std::to_string(spec.local->offset) : std::string(),
             stats.records, stats.commits, stats.void_records, stats.snapshot_records + stats.snapshot_rows);
    out.emplace_back(TakeOverStats{epoch, stats});
  }
  return out;
}

Result<TakeOverStats> TakeOverTask(const kafka::ClientConfig& config, kafka::Admin& admin, state::Store& store,
                                   const ClaimSpec& spec, std::atomic<int64_t>* restore_lag) {
  return std::move(TakeOverTasks(config, admin, store, {spec}, restore_lag).front());
}

}  // namespace webindex::pipeline
