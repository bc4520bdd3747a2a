#include "pipeline/task_ownership.h"

#include <algorithm>
#include <iterator>
#include <thread>

#include "common/bytes.h"
#include "common/crash_point.h"
#include "common/log.h"
#include "pipeline/runner_keys.h"

namespace webindex::pipeline {

TaskOwnership::TaskOwnership(const RunnerPart& part, Outbox& outbox, TaskChangelog& changelog)
    : RunnerPart(part),
      outbox_(outbox),
      changelog_(changelog),
      pause_assigned_(std::string(stage_->name()) + "-assigned"),
      pause_taken_over_(std::string(stage_->name()) + "-taken-over") {}

Status TaskOwnership::DropStaleTasks() {
  ASSIGN_OR_RETURN(local_copies_, TakeLocalCopies());
  std::set<int32_t> every;
  for (int32_t p = 0; p < input_partitions_; ++p) every.insert(p);
  return DropTasksWithoutCopy(every);
}

const std::vector<InRecord>* TaskOwnership::OwnedOnly(const std::vector<InRecord>& records,
                                                      std::vector<InRecord>* owned) const {
  const std::vector<InRecord>* input = &records;
  std::lock_guard<std::mutex> lock(owned_mu_);
  auto ours = [this](const InRecord& r) { return owned_.count(r.partition) > 0; };
  if (!std::all_of(records.begin(), records.end(), ours)) {  // copies only then, a rare case
    std::copy_if(records.begin(), records.end(), std::back_inserter(*owned), ours);
    input = owned;
  }
  return input;
}

std::set<int32_t> TaskOwnership::Owned() const {
  std::lock_guard<std::mutex> lock(owned_mu_);
  return owned_;
}

std::vector<kafka::TopicPartitionOffset> TaskOwnership::OnAssigned(const std::vector<kafka::TopicPartitionOffset>& given) {
  std::vector<kafka::TopicPartitionOffset> start;
  std::set<int32_t> tasks;
  busy_ = true;  // not idle while taking tasks over
  struct Done {
    TaskOwnership* r;
    ~Done() {
      r->last_rebalance_ns_ = std::chrono::steady_clock::now().time_since_epoch().count();
      r->joined_ = true;
      r->busy_ = false;
    }
  } done{this};
  for (const auto& p : given) {
    if (p.topic == stage_->input_topic() && p.partition >= 0 && p.partition < input_partitions_) {
      tasks.insert(p.partition);
    } else if (group_error_.ok()) {
      group_error_ = Status::Unavailable(
          "stage " + std::string(stage_->name()) + ": the group assigned " + p.topic + "[" +
          std::to_string(p.partition) + "], but this process knows " + std::to_string(input_partitions_) +
          " input partitions: partitions were added while it ran; restart every member of the group");
    }
  }
  if (tasks.empty() || !group_error_.ok()) return start;
  const auto began = std::chrono::steady_clock::now();
  Status st;
  try {
    // The generation that gave these tasks, read now: by the time they are claimed the client
    // may have learnt that the group moved on (and forgotten its generation).
    assigned_generation_ = consumer_->GroupGeneration();
    st = DropTasksWithoutCopy(tasks);
    PausePoint(pause_assigned_);  // given tasks, nothing of them read yet
    if (st.ok()) st = TakeOver(tasks);
    const std::set<int32_t> owned = Owned();
    for (int32_t task : tasks) {
      if (owned.count(task)) {
        start.push_back({stage_->input_topic(), task, positions_[task].load()});
      } else {
        // Not taken over (another member's since, or the takeover failed): assigned all the
        // same, at its end, so that the client's view of the assignment stays whole until it
        // reports the loss or revokes it; its records are not this runner's (RunBatch).
        start.push_back({stage_->input_topic(), task, kafka::kEnd});
      }
    }
    if (st.ok()) st = stage_->Open(store_);
    if (st.ok()) st = AssignSide();
  } catch (const std::exception& e) {  // the client's callback must not throw
    st = Status::Internal("stage " + std::string(stage_->name()) + " taking tasks over: " + e.what());
  }
  if (!st.ok()) {
    group_error_ = st;
    return start;
  }
  PausePoint(pause_taken_over_);  // claimed, nothing read yet
  const std::set<int32_t> owned = Owned();
  std::set<int32_t> taken;
  std::set_intersection(tasks.begin(), tasks.end(), owned.begin(), owned.end(), std::inserter(taken, taken.end()));
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began).count();
  if (taken.empty()) {
    LOG_INFO("stage {}: took over none of the {} task(s) given in {} ms; owns {}", stage_->name(), tasks.size(), ms,
             owned.size());
  } else {
    LOG_INFO("stage {}: took over {} task(s) ({}) in {} ms; owns {}", stage_->name(), taken.size(),
             TaskNames(stage_->name(), taken), ms, owned.size());
  }
  return start;
}

Status TaskOwnership::LoadTask(int32_t task) {
  const std::string seq_key = TaskSeqKey(stage_->name(), task);
  ASSIGN_OR_RETURN(auto seq, state::GetFixed64(store_, state::Family::kMeta, seq_key, "seq counter " + seq_key));
  task_seqs_[task] = seq ? *seq : 1;
  const std::string epoch_key = TaskEpochKey(stage_->name(), task);
  ASSIGN_OR_RETURN(auto epoch, state::GetFixed64(store_, state::Family::kMeta, epoch_key, "epoch " + epoch_key));
  if (epoch) task_epochs_[task] = *epoch;
  const std::string key = OffsetKey(stage_->name(), stage_->input_topic(), task);
  ASSIGN_OR_RETURN(auto next, state::GetFixed64(store_, state::Family::kOffsets, key, "offset " + key));
  positions_[task] = next ? static_cast<int64_t>(*next) : kafka::kBeginning;
  if (const std::string& side = side_topic(); !side.empty()) {
    // Records of this instance's own tasks: from the start when the task never read them.
    const std::string side_key = OffsetKey(stage_->name(), side, task);
    ASSIGN_OR_RETURN(auto at, state::GetFixed64(store_, state::Family::kOffsets, side_key, "offset " + side_key));
    positions_[side_index(task)] = at ? static_cast<int64_t>(*at) : kafka::kBeginning;
  }
  if (!next && stage_->ReadsExternalInput() && options_.admin) {
    // A task that never read its partition starts where the partition starts now; what the
    // broker's retention deleted before is named (and counted), not skipped without a word.
    ASSIGN_OR_RETURN(auto marks, options_.admin->Watermarks(stage_->input_topic(), task, 10000));
    positions_[task] = marks.first;
    if (marks.first > 0) {
      LOG_WARN("{}[{}]: records [0, {}) were deleted by the broker's retention before task {} first read them; it "
               "starts at {}",
               stage_->input_topic(), task, marks.first, TaskName(stage_->name(), task), marks.first);
      metrics_.deleted_before_start += static_cast<uint64_t>(marks.first);
    }
  }
  return Status::Ok();
}

ClaimSpec TaskOwnership::SpecOf(int32_t task) const {
  const std::string name(stage_->name());
  ClaimSpec spec{name,
                 task,
                 options_.generation,
                 options_.instance,
                 ChangelogTopic(options_.changelog_prefix, name),
                 stage_->Outputs(),
                 options_.records_instance,
                 std::nullopt,
                 -1,
                 {}};
  if (options_.group && consumer_) {
    // The claim outranks those of earlier group generations: a member dropped while it took the
    // task over, claiming late, cannot take it from its next owner (fence.h, NextEpoch).
    spec.group_generation = assigned_generation_;
    spec.confirm_member = [this, task]() -> Status {
      // The restored position of the task (the commit must name one): lag monitors read it.
      const std::string key = OffsetKey(stage_->name(), stage_->input_topic(), task);
      ASSIGN_OR_RETURN(auto next, state::GetFixed64(store_, state::Family::kOffsets, key, "offset " + key));
      return consumer_->ConfirmAssignment({{stage_->input_topic(), task, next ? static_cast<int64_t>(*next) : 0}},
                                          5000);
    };
  }
  return spec;
}

Status TaskOwnership::TakeOver(const std::set<int32_t>& tasks) {
  std::vector<ClaimSpec> specs;
  std::set<int32_t> taken;
  for (int32_t task : tasks) {
    specs.push_back(SpecOf(task));
    if (auto copy = local_copies_.find(task); copy != local_copies_.end()) {
      specs.back().local = copy->second;
      local_copies_.erase(copy);  // whatever comes of it, the rows change from here on
    }
  }
  std::vector<Result<TakeOverStats>> took =
      TakeOverTasks(consumer_config_, *options_.admin, store_, specs, &metrics_.restore_lag);
  // Takes the tasks `which` (indices of specs) over again from their changelogs' start, together.
  auto redo = [&](const std::vector<size_t>& which) -> Status {
    std::vector<ClaimSpec> again;
    for (size_t i : which) {
      RETURN_IF_ERROR(DropTasks({specs[i].task}));
      specs[i].local.reset();  // its rows are gone
      again.push_back(specs[i]);
    }
    std::vector<Result<TakeOverStats>> retook =
        TakeOverTasks(consumer_config_, *options_.admin, store_, again, &metrics_.restore_lag);
    for (size_t k = 0; k < which.size(); ++k) took[which[k]] = std::move(retook[k]);
    return Status::Ok();
  };
  std::vector<size_t> stale;  // a local copy that is not current: restored from the changelog
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].local && !took[i].ok() && took[i].status().code() == Status::Code::kNotFound) {
      LOG_INFO("stage {}: {}; restoring it from the changelog", stage_->name(), took[i].status().message());
      stale.push_back(i);
    }
  }
  if (!stale.empty()) RETURN_IF_ERROR(redo(stale));
  // Another claim of the same epoch came first (a member the group has dropped since: the next
  // epoch is ours unless it claims again), or records went while the restore read them (a
  // former owner's trim: the log now starts at a later snapshot), or a request went unanswered
  // (a broker's hiccup, or this process was stopped and its deadlines passed meanwhile): from
  // the start again, all such tasks together (this runs inside the rebalance callback, where
  // the member cannot join the group's next rebalance). A claim of this member's that was
  // written counts for nothing then: the next one outranks it.
  for (int round = 1; round < 3; ++round) {
    std::vector<size_t> failed;
    bool unanswered = false;
    for (size_t i = 0; i < specs.size(); ++i) {
      const Status st = took[i].ok() ? Status::Ok() : took[i].status();
      if (st.code() != Status::Code::kAborted && st.code() != Status::Code::kUnavailable) continue;
      LOG_WARN("stage {}: {}; taking task {} over again", stage_->name(), st.message(),
               TaskName(stage_->name(), specs[i].task));
      failed.push_back(i);
      unanswered |= st.code() == Status::Code::kUnavailable;
    }
    if (failed.empty()) break;
    if (unanswered) std::this_thread::sleep_for(std::chrono::seconds(round));
    RETURN_IF_ERROR(redo(failed));
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const int32_t task = specs[i].task;
    const std::string name = TaskName(stage_->name(), task);
    if (!took[i].ok()) return took[i].status().WithContext("taking over task " + name);
    metrics_.restored_records += took[i]->restore.records;
    if (!took[i]->ours) {  // the group gave it to another member since: its loss is on its way
      RETURN_IF_ERROR(DropTasks({task}));
      LOG_WARN(
          "stage {}: task {} is not taken over: the group gave it to another member since it was given to this one",
          stage_->name(), name);
      continue;
    }
    if (specs[i].local) ++metrics_.tasks_resumed_locally;
    RETURN_IF_ERROR(LoadTask(task));  // the restore wrote the claimed epoch with the rest
    RETURN_IF_ERROR(changelog_.LoadAdopted(task));
    taken.insert(task);
    {
      std::lock_guard<std::mutex> lock(owned_mu_);
      owned_.insert(task);
    }
    ++taken_over_;
    ++metrics_.tasks_taken_over;
  }
  // The tasks as restored, so that their next owner need not read the logs before this point.
  // (A failure stops the runner: group_error_.)
  return changelog_.WriteSnapshots(taken);
}

void TaskOwnership::OnRevoked(const std::vector<kafka::TopicPartitionOffset>& taken, bool lost) {
  last_rebalance_ns_ = std::chrono::steady_clock::now().time_since_epoch().count();
  std::set<int32_t> tasks;
  {
    std::lock_guard<std::mutex> lock(owned_mu_);
    for (const auto& p : taken) {
      if (p.topic == stage_->input_topic() && owned_.erase(p.partition)) tasks.insert(p.partition);
    }
  }
  if (tasks.empty()) return;
  given_up_ += tasks.size();
  metrics_.tasks_given_up += tasks.size();
  for (int32_t task : tasks) {
    task_seqs_.erase(task);
    task_epochs_.erase(task);
    changelog_.Forget(task);
  }
  if (closing_) return;  // a stop: the rows stay, and the next owner (maybe this data dir) restores
  for (int32_t task : tasks) positions_[task] = positions_[side_index(task)] = kafka::kBeginning;
  Status st;
  try {
    if (!lost) {
      // Handed over in order: the task's records held for their changelog records go first, so
      // that the new owner's fence does not void them. Whatever is still held after this (a slow
      // changelog) is void once fenced, and the new owner re-sends it from the changelog.
      st = outbox_.DrainHeld(std::chrono::steady_clock::now() + std::chrono::seconds(10));
    }
    if (st.ok()) st = DropTasks(tasks);
    if (st.ok()) st = stage_->Open(store_);
    if (st.ok()) st = AssignSide();
  } catch (const std::exception& e) {  // the client's callback must not throw
    st = Status::Internal("stage " + std::string(stage_->name()) + " giving tasks up: " + e.what());
  }
  if (!st.ok() && group_error_.ok()) group_error_ = st;
  LOG_INFO("stage {}: gave up {} task(s) ({}, {}); owns {}", stage_->name(), tasks.size(),
           TaskNames(stage_->name(), tasks), lost ? "lost" : "revoked", Owned().size());
}

Status TaskOwnership::AssignSide() {
  if (!side_consumer_) return Status::Ok();
  // Every owned task at its committed position: whatever the side consumer handed out before
  // is committed (a group member commits each batch before it polls again).
  std::vector<kafka::TopicPartitionOffset> assignment;
  for (int32_t task : Owned()) assignment.push_back({side_topic(), task, positions_[side_index(task)].load()});
  return side_consumer_->Assign(assignment);
}

bool TaskOwnership::settled() const {
  if (!joined_ || (consumer_ && consumer_->RebalanceUnderWay())) return false;
  const auto since = std::chrono::steady_clock::now().time_since_epoch().count() - last_rebalance_ns_.load();
  return since >= std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::seconds(3)).count();
}

void TaskOwnership::WatchMembership() {
  if (!consumer_ || !options_.group) return;
  const int64_t out_ms = consumer_->UnsettledForMs();
  if (out_ms == 0) {
    if (warned_out_) LOG_INFO("stage {}: is in group {} again", stage_->name(), options_.group->group_id);
    warned_out_ = false;
    return;
  }
  const int64_t limit_ms = options_.group->session_timeout_ms + 5000;
  if (out_ms <= limit_ms || warned_out_) return;
  warned_out_ = true;
  LOG_WARN("stage {}: is not in group {} after {} s (join state {}): its tasks wait. A member joins within its "
           "session timeout and 5 s ({} s); check that the brokers ({}) answer",
           stage_->name(), options_.group->group_id, out_ms / 1000, consumer_->JoinState(), limit_ms / 1000,
           consumer_config_.brokers);
}

Status TaskOwnership::ConfirmOwned(const std::set<int32_t>& tasks) {
  std::vector<kafka::TopicPartitionOffset> positions;
  for (int32_t task : tasks) positions.push_back({stage_->input_topic(), task, std::max<int64_t>(positions_[task], 0)});
  return consumer_->ConfirmAssignment(positions, 5000);
}

void TaskOwnership::KeepLocalCopies(std::chrono::steady_clock::time_point deadline) {
  const std::set<int32_t> owned = Owned();
  if (owned.empty() || !consumer_) return;
  // The copy must be what a restore of the changelog gives: every record of every commit
  // acknowledged, the changelog's before all. (Snapshot records are not waited for: they repeat
  // the state, wherever they land.)
  const Status drained = outbox_.DrainHeld(deadline, /*until_acked=*/true);
  const std::string stage(stage_->name());
  if (!drained.ok() || outbox_.AckedBelow() < outbox_.next_seq() || outbox_.holding()) {
    LOG_INFO("stage {}: keeps no local copy of its {} task(s): {}", stage, owned.size(),
             drained.ok() ? "records of its last commits are not acknowledged" : drained.ToString());
    return;
  }
  // The changelogs' ends first, then the group's confirmation that this member owns its tasks
  // still: had the group given a task to another member, this member would have been told to
  // give it up first, or dropped from the group, and then the commit fails. So whatever another
  // owner writes to the changelogs lands after the ends read here.
  state::WriteBatch wb(store_);
  BytesWriter w;
  for (int32_t task : owned) {
    auto marks = options_.admin->Watermarks(ChangelogTopic(options_.changelog_prefix, stage), task, 10000);
    if (!marks.ok()) {
      LOG_INFO("stage {}: keeps no local copy of its tasks: {}", stage, marks.status().ToString());
      return;
    }
    w.str().clear();
    w.PutFixed64BE(options_.generation);
    w.PutFixed64BE(changelog_.EpochOf(task));
    w.PutFixed64BE(static_cast<uint64_t>(marks->second));
    wb.Put(state::Family::kMeta, LocalCopyKey(stage_->name(), task), w.str());
  }
  if (Status confirmed = ConfirmOwned(owned); !confirmed.ok()) {
    LOG_INFO("stage {}: keeps no local copy of its {} task(s): the group did not confirm that it still owns them ({})",
             stage, owned.size(), confirmed.ToString());
    return;
  }
  if (Status written = store_.Write(wb); !written.ok()) {
    LOG_WARN("stage {}: keeps no local copy of its tasks: {}", stage, written.ToString());
    return;
  }
  LOG_INFO("stage {}: kept a local copy of {} task(s): a start on this data dir given them back reads their "
           "changelogs on from here",
           stage, owned.size());
}

Result<std::map<int32_t, ClaimSpec::LocalCopy>> TaskOwnership::TakeLocalCopies() {
  std::map<int32_t, ClaimSpec::LocalCopy> copies;
  const std::string prefix = LocalCopyPrefix(stage_->name());
  state::WriteBatch wb(store_);
  auto it = store_.NewIterator(state::Family::kMeta);
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    wb.Delete(state::Family::kMeta, it->key());
    const auto task = ParseUint(it->key().substr(prefix.size()));
    BytesReader r(it->value());
    uint64_t generation = 0, epoch = 0, offset = 0;
    if (!task || *task >= static_cast<uint64_t>(input_partitions_) || !r.GetFixed64BE(&generation) ||
        !r.GetFixed64BE(&epoch) || !r.GetFixed64BE(&offset) || !r.empty()) {
      LOG_WARN("stage {}: ignoring an unreadable local copy note {} (the task is restored from its changelog)",
               stage_->name(), it->key());
      continue;
    }
    // The copy's epoch is the one its rows hold; a note of another generation (a replay since) is void.
    const std::string epoch_key = TaskEpochKey(stage_->name(), static_cast<int32_t>(*task));
    ASSIGN_OR_RETURN(auto stored, state::GetFixed64(store_, state::Family::kMeta, epoch_key, "epoch " + epoch_key));
    if (generation != options_.generation || stored.value_or(0) != epoch) continue;
    copies[static_cast<int32_t>(*task)] = {static_cast<int64_t>(offset), epoch};
  }
  RETURN_IF_ERROR(it->status());
  RETURN_IF_ERROR(store_.Write(wb));  // before any row of the copies changes
  if (!copies.empty()) {
    LOG_INFO("stage {}: the last stop kept a local copy of {} task(s)", stage_->name(), copies.size());
  }
  return copies;
}

Status TaskOwnership::DropTasksWithoutCopy(const std::set<int32_t>& tasks) {
  std::set<int32_t> without;
  std::copy_if(tasks.begin(), tasks.end(), std::inserter(without, without.end()),
               [&](int32_t task) { return !local_copies_.count(task); });
  return without.empty() ? Status::Ok() : DropTasks(without);
}

Status TaskOwnership::DropTasks(const std::set<int32_t>& tasks) {
  // In writes of a bounded size (dropping is idempotent: a crash part-way leaves rows the next
  // drop removes). The iterators read the store as it was when they were made.
  uint64_t dropped = 0;
  auto wb = std::make_unique<state::WriteBatch>(store_);
  RETURN_IF_ERROR(changelog_.ForEachTaskRow(tasks, [&](int32_t, state::Family family, std::string_view key, std::string_view) {
    wb->Delete(family, key);
    if (++dropped % 100000 == 0) {
      RETURN_IF_ERROR(store_.Write(*wb));
      wb = std::make_unique<state::WriteBatch>(store_);
    }
    return Status::Ok();
  }));
  RETURN_IF_ERROR(store_.Write(*wb));
  std::erase_if(changelog_.adopted(), [&](const TaskChangelog::Adopted& a) { return tasks.count(a.task) > 0; });
  LOG_DEBUG("stage {}: dropped the local rows of {} task(s): {} rows", stage_->name(), tasks.size(), dropped);
  return Status::Ok();
}

}  // namespace webindex::pipeline
