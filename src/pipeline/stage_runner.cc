#include "pipeline/stage_runner.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <iterator>
#include <limits>
#include <thread>

#include "codec/state_codec.h"
#include "common/bytes.h"
#include "common/crash_point.h"
#include "common/log.h"
#include "pipeline/fence.h"
#include "pipeline/runner_keys.h"

namespace webindex::pipeline {

StageRunner::StageRunner(std::unique_ptr<Stage> stage, int index, int32_t input_partitions, state::Store& store,
                         kafka::Producer& producer, kafka::ClientConfig consumer_config, Metrics& metrics,
                         RunnerOptions options)
    : stage_(std::move(stage)),
      index_(index),
      input_partitions_(input_partitions),
      store_(store),
      producer_(producer),
      consumer_config_(std::move(consumer_config)),
      metrics_(metrics),
      options_(options),
      positions_(new std::atomic<int64_t>[input_partitions]),
      pause_committed_(std::string(stage_->name()) + "-committed"),
      pause_assigned_(std::string(stage_->name()) + "-assigned"),
      pause_taken_over_(std::string(stage_->name()) + "-taken-over"),
      shared_(stage_.get(), index_, input_partitions_, store_, producer_, consumer_config_, metrics_, options_, consumer_,
              positions_.get(), task_seqs_, task_epochs_, busy_),
      flow_(shared_),
      outbox_(shared_, flow_) {
  for (int32_t p = 0; p < input_partitions_; ++p) positions_[p] = kafka::kBeginning;
}

StageRunner::~StageRunner() {
  RequestStop();
  if (thread_.joinable()) thread_.join();
  // A group member leaves before the members its listener touches go (Loop leaves already,
  // unless it ended by an exception or never ran).
  closing_ = true;
  consumer_.reset();
}

Status StageRunner::Start() {
  const bool group = options_.group.has_value();
  trim_checked_ = std::chrono::steady_clock::now();
  if (group) {
    const char* missing = !options_.changelog || !stage_->KeepsChangelog() ? "a changelog"
                          : !stage_->StateFamily()                           ? "rows that name their task"
                          : !options_.admin                                  ? "an admin client"
                                                                             : nullptr;
    if (missing) {
      return Status::InvalidArgument("stage " + std::string(stage_->name()) + " cannot run in consumer group " +
                                     options_.group->group_id + " without " + missing);
    }
  }
  if (group) {
    // Every task this member is given is restored from its changelog, or read on from the copy
    // the last stop kept of it (KeepLocalCopies). Other rows an earlier run kept would only be
    // stale copies of tasks that may be elsewhere now.
    ASSIGN_OR_RETURN(local_copies_, TakeLocalCopies());
    std::set<int32_t> every;
    for (int32_t p = 0; p < input_partitions_; ++p) every.insert(p);
    RETURN_IF_ERROR(DropTasksWithoutCopy(every));
  }
  RETURN_IF_ERROR(stage_->Open(store_));
  // Counters and positions (a group member's come with each task it is given: OnAssigned).
  RETURN_IF_ERROR(outbox_.LoadSeq());
  std::vector<kafka::TopicPartitionOffset> assignment;
  for (int32_t p = 0; p < input_partitions_ && !group; ++p) {
    RETURN_IF_ERROR(LoadTask(p));
    assignment.push_back({stage_->input_topic(), p, positions_[p].load()});
  }
  RETURN_IF_ERROR(outbox_.Resend());
  if (group) {
    ASSIGN_OR_RETURN(consumer_, kafka::Consumer::Join(consumer_config_, *options_.group, &listener_));
    RETURN_IF_ERROR(consumer_->Subscribe({stage_->input_topic()}));
    thread_ = std::thread([this] { Loop(); });
    return Status::Ok();
  }
  if (options_.changelog && stage_->KeepsChangelog()) {
    // Every task's position and seq counter, as this start found them, in one commit: a task
    // restored from the changelog then starts where this data dir would, even if it never
    // commits again (its start position came from the generation's setup, not from a commit).
    log_positions_ = true;
    RETURN_IF_ERROR(LoadAdopted());
    RETURN_IF_ERROR(RunBatch({}));
  }

  ASSIGN_OR_RETURN(consumer_, kafka::Consumer::Create(consumer_config_, "webindex-" + std::string(stage_->name())));
  RETURN_IF_ERROR(consumer_->Assign(assignment));
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

std::vector<std::pair<int32_t, std::string>> StageRunner::TaskOutbox(const std::vector<OutRecord>& recs,
                                                                     const std::vector<int32_t>& tasks, uint64_t row,
                                                                     std::vector<std::string>* values) const {
  std::map<int32_t, std::vector<OutRecord>> by_task;  // the stage's records, per task, in row order
  for (size_t i = 0; i < recs.size(); ++i) {
    if (tasks[i] >= 0) by_task[tasks[i]].push_back(recs[i]);
  }
  // Parts of the encoded records, each within the changelog's record budget less room for the
  // key and headers: a record as large as its own topic takes still fits in two.
  const size_t budget = options_.limits.BudgetOf(ChangelogTopic(options_.changelog_prefix, stage_->name()));
  const size_t room = budget > 4096 ? budget - 1024 : budget;
  std::vector<std::pair<int32_t, std::string>> keys;
  for (const auto& [task, list] : by_task) {
    const std::string bytes = codec::EncodeOutBatch(list);
    const uint64_t epoch = EpochOf(task);
    for (uint32_t part = 0; size_t{part} * room < bytes.size(); ++part) {
      keys.emplace_back(task, TaskOutboxKey(stage_->name(), task, epoch, row, part));
      values->push_back(bytes.substr(size_t{part} * room, room));
    }
  }
  return keys;
}

Status StageRunner::LoadAdopted(std::optional<int32_t> only) {
  // Keys in order: per task, epoch and row, the parts of one encoded batch of records.
  const std::string prefix = TaskOutboxPrefix(stage_->name()) + (only ? std::to_string(*only) + "/" : "");
  std::string batch, batch_of;  // the parts read so far, and the key they share but for the part number
  std::vector<std::string> keys;
  int32_t task = -1;
  auto finish = [&]() -> Status {
    if (keys.empty()) return Status::Ok();
    auto records = codec::DecodeOutBatch(batch);
    if (!records.ok()) return records.status().WithContext("restored outbox of task " + TaskName(stage_->name(), task));
    adopted_.push_back({task, std::move(keys), std::move(records).value()});
    keys.clear();
    batch.clear();
    return Status::Ok();
  };
  auto it = store_.NewIterator(state::Family::kOutbox);
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    const std::string_view key = it->key();
    const std::string_view rest = key.substr(TaskOutboxPrefix(stage_->name()).size());
    int32_t t = -1;
    const auto parsed = std::from_chars(rest.data(), rest.data() + rest.size(), t);
    if (parsed.ec != std::errc() || t < 0 || rest.end() - parsed.ptr != 1 + 8 + 8 + 8 || *parsed.ptr != '/') {
      return Status::Corruption("restored outbox key " + std::string(key));
    }
    const std::string_view of = key.substr(0, key.size() - 8);
    if (of != batch_of) {
      RETURN_IF_ERROR(finish());
      batch_of.assign(of);
      task = t;
    }
    keys.emplace_back(key);
    batch.append(it->value());
  }
  RETURN_IF_ERROR(it->status());
  RETURN_IF_ERROR(finish());
  if (!adopted_.empty()) {
    size_t n = 0;
    for (const auto& a : adopted_) n += a.records.size();
    LOG_INFO("stage {}: re-sending {} records of {} commits restored from the changelog (their former owner may not "
             "have sent them)",
             stage_->name(), n, adopted_.size());
  }
  return Status::Ok();
}

void StageRunner::OnDelivered(uint64_t seq, const Status& status, int64_t offset) {
  if (seq & kSnapshotSeq) {  // no outbox record; a snapshot cut short is passed over by restores
    if (!status.ok()) LOG_WARN("stage {}: a changelog snapshot record was not delivered: {}", stage_->name(), status.ToString());
    trims_.OnDelivered(seq & (kSnapshotSeq - 1), status, offset);
    return;
  }
  outbox_.OnDelivered(seq, status);
}

std::set<int32_t> StageRunner::Owned() const {
  std::lock_guard<std::mutex> lock(owned_mu_);
  return owned_;
}

std::vector<kafka::TopicPartitionOffset> StageRunner::OnAssigned(const std::vector<kafka::TopicPartitionOffset>& given) {
  std::vector<kafka::TopicPartitionOffset> start;
  std::set<int32_t> tasks;
  busy_ = true;  // not idle while taking tasks over
  struct Done {
    StageRunner* r;
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

Status StageRunner::LoadTask(int32_t task) {
  const std::string seq_key = TaskSeqKey(stage_->name(), task);
  ASSIGN_OR_RETURN(auto seq, state::GetFixed64(store_, state::Family::kMeta, seq_key, "seq counter " + seq_key));
  task_seqs_[task] = seq ? *seq : 1;
  const std::string epoch_key = TaskEpochKey(stage_->name(), task);
  ASSIGN_OR_RETURN(auto epoch, state::GetFixed64(store_, state::Family::kMeta, epoch_key, "epoch " + epoch_key));
  if (epoch) task_epochs_[task] = *epoch;
  const std::string key = OffsetKey(stage_->name(), stage_->input_topic(), task);
  ASSIGN_OR_RETURN(auto next, state::GetFixed64(store_, state::Family::kOffsets, key, "offset " + key));
  positions_[task] = next ? static_cast<int64_t>(*next) : kafka::kBeginning;
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

ClaimSpec StageRunner::SpecOf(int32_t task) const {
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

Status StageRunner::TakeOver(const std::set<int32_t>& tasks) {
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
    RETURN_IF_ERROR(LoadAdopted(task));
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
  return WriteSnapshots(taken);
}

void StageRunner::OnRevoked(const std::vector<kafka::TopicPartitionOffset>& taken, bool lost) {
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
    snapshot_due_.erase(task);
    trims_.Forget(task);
  }
  if (closing_) return;  // a stop: the rows stay, and the next owner (maybe this data dir) restores
  for (int32_t task : tasks) positions_[task] = kafka::kBeginning;
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
  } catch (const std::exception& e) {  // the client's callback must not throw
    st = Status::Internal("stage " + std::string(stage_->name()) + " giving tasks up: " + e.what());
  }
  if (!st.ok() && group_error_.ok()) group_error_ = st;
  LOG_INFO("stage {}: gave up {} task(s) ({}, {}); owns {}", stage_->name(), tasks.size(),
           TaskNames(stage_->name(), tasks), lost ? "lost" : "revoked", Owned().size());
}

bool StageRunner::settled() const {
  if (!joined_ || (consumer_ && consumer_->RebalanceUnderWay())) return false;
  const auto since = std::chrono::steady_clock::now().time_since_epoch().count() - last_rebalance_ns_.load();
  return since >= std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::seconds(3)).count();
}

Status StageRunner::ConfirmOwned(const std::set<int32_t>& tasks) {
  std::vector<kafka::TopicPartitionOffset> positions;
  for (int32_t task : tasks) positions.push_back({stage_->input_topic(), task, std::max<int64_t>(positions_[task], 0)});
  return consumer_->ConfirmAssignment(positions, 5000);
}

void StageRunner::KeepLocalCopies(std::chrono::steady_clock::time_point deadline) {
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
    w.PutFixed64BE(EpochOf(task));
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

Result<std::map<int32_t, ClaimSpec::LocalCopy>> StageRunner::TakeLocalCopies() {
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

Status StageRunner::DropTasksWithoutCopy(const std::set<int32_t>& tasks) {
  std::set<int32_t> without;
  std::copy_if(tasks.begin(), tasks.end(), std::inserter(without, without.end()),
               [&](int32_t task) { return !local_copies_.count(task); });
  return without.empty() ? Status::Ok() : DropTasks(without);
}

Status StageRunner::DropTasks(const std::set<int32_t>& tasks) {
  // In writes of a bounded size (dropping is idempotent: a crash part-way leaves rows the next
  // drop removes). The iterators read the store as it was when they were made.
  uint64_t dropped = 0;
  auto wb = std::make_unique<state::WriteBatch>(store_);
  RETURN_IF_ERROR(ForEachTaskRow(tasks, [&](int32_t, state::Family family, std::string_view key, std::string_view) {
    wb->Delete(family, key);
    if (++dropped % 100000 == 0) {
      RETURN_IF_ERROR(store_.Write(*wb));
      wb = std::make_unique<state::WriteBatch>(store_);
    }
    return Status::Ok();
  }));
  RETURN_IF_ERROR(store_.Write(*wb));
  std::erase_if(adopted_, [&](const Adopted& a) { return tasks.count(a.task) > 0; });
  LOG_DEBUG("stage {}: dropped the local rows of {} task(s): {} rows", stage_->name(), tasks.size(), dropped);
  return Status::Ok();
}

std::vector<int64_t> StageRunner::Positions() const {
  std::vector<int64_t> out(input_partitions_);
  for (int32_t p = 0; p < input_partitions_; ++p) out[p] = positions_[p];
  return out;
}

void StageRunner::Loop() {
  kafka::MessageBatch batch;
  Status st;
  std::chrono::steady_clock::time_point deadline;
  try {
    while (!stop_ && st.ok()) {
      // Held records wait for acknowledgements that take a millisecond or so on a quiet link.
      // A commit being written waits for no new record: without one at hand it lands at once.
      const int timeout = writing_ ? 0 : !outbox_.holding() ? options_.poll_timeout_ms : 5;
      if (const size_t room = flow_.BatchRoom(); room > 0) {
        st = consumer_->PollBatch(room, timeout, &batch, stage_->MaxBatchBytes());
      } else {  // the stages downstream are behind: no input until they read on
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      if (st.ok() && batch.empty()) st = FinishWriting();
      if (!st.ok()) break;
      for (const auto& loss : consumer_->TakeDataLoss()) metrics_.lost_records += loss.to - loss.from;
      busy_ = true;
      st = outbox_.delivery_error();
      if (st.ok()) st = producer_.FatalError();
      if (st.ok()) st = outbox_.SetAsideRejected();
      if (st.ok()) st = outbox_.ReleaseHeld();
      if (st.ok()) st = group_error_;
      if (st.ok()) TrimIfDue();
      if (st.ok() && (!batch.empty() || !adopted_.empty() || outbox_.DeletableBelow() > outbox_.deleted_below())) {
        st = RunBatch(batch.records());
      } else if (st.ok()) {
        // Idle: the positions of the last commits, whose report was due later (once a second at
        // most) or held back by a rebalance, are reported now; nothing when they were.
        ReportPositions();
      }
      batch.Clear();
      busy_ = false;
    }
    // Stopping: the commit being written lands; the held records whose changelog records are
    // on their way go too.
    if (Status written = FinishWriting(); st.ok()) st = written;
    deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    if (st.ok()) st = outbox_.DrainHeld(deadline);
  } catch (const std::exception& e) {
    st = Status::Internal(std::string("stage ") + std::string(stage_->name()) + ": " + e.what());
  }
  if (writing_ && writing_->written.valid()) writing_->written.wait();  // after a failure: the write ends first
  if (!options_.group) {  // the last ones, whatever the time since the previous report
    reported_at_ = {};
    ReportPositions();
  }
  if (options_.group && st.ok()) {
    try {
      KeepLocalCopies(deadline);
    } catch (const std::exception& e) {
      LOG_WARN("stage {}: keeps no local copy of its tasks: {}", stage_->name(), e.what());
    }
  }
  // A group member leaves the group now (the others take the tasks over), keeping the local rows.
  // Every stage closes its consumer on its own thread, so that brokers gone at shutdown cost one
  // close timeout in all (Consumer::Close), not one per stage.
  closing_ = true;
  if (consumer_) consumer_->Close();
  busy_ = false;
  if (!st.ok()) {
    failed_ = true;
    LOG_ERROR("stage {} stopped: {}", stage_->name(), st.ToString());
  }
  result_ = st;
}

Status StageRunner::RunBatch(const std::vector<InRecord>& records) {
  const auto started = std::chrono::steady_clock::now();
  state::WriteBatch wb(store_);
  BatchContext ctx(store_, wb, stage_->name(), metrics_, options_.generation, &options_.limits);
  ctx.task_seqs() = task_seqs_;
  const bool changelog = options_.changelog && stage_->KeepsChangelog();
  if (changelog) {
    ctx.RecordChanges();
    ctx.set_task_epochs(&task_epochs_);  // tasks can move only with their changelog
  }
  for (auto& adopted : adopted_) {  // a former owner's records, under this owner's epoch
    for (OutRecord& r : adopted.records) {
      std::erase_if(r.headers, [](const auto& h) { return h.first == kTaskHeader || h.first == kEpochHeader; });
      ctx.Emit(adopted.task, std::move(r));
    }
    for (const std::string& key : adopted.keys) ctx.Delete(adopted.task, state::Family::kOutbox, key);
  }
  std::vector<InRecord> owned;  // group mode: records of tasks given up since they were fetched are not ours
  const std::vector<InRecord>* input = &records;
  if (options_.group) {
    std::lock_guard<std::mutex> lock(owned_mu_);
    auto ours = [this](const InRecord& r) { return owned_.count(r.partition) > 0; };
    if (!std::all_of(records.begin(), records.end(), ours)) {  // copies only then, a rare case
      std::copy_if(records.begin(), records.end(), std::back_inserter(owned), ours);
      input = &owned;
    }
  }
  if (!input->empty()) RETURN_IF_ERROR(stage_->Process(*input, ctx).WithContext(std::string(stage_->name())));
  // The previous commit, if still being written beside Process, lands before anything of this
  // batch's bookkeeping: the outbox rows this one deletes, the positions it writes.
  RETURN_IF_ERROR(FinishWriting());
  std::vector<int64_t> next(input_partitions_, -1);
  for (const auto& r : *input) {
    if (r.partition >= 0 && r.partition < input_partitions_) next[r.partition] = r.offset + 1;
  }
  BytesWriter w;
  for (int32_t p = 0; p < input_partitions_; ++p) {
    // The batch's new position; when logging positions, the committed one of a partition it did not read.
    const int64_t position = next[p] >= 0 ? next[p] : log_positions_ ? positions_[p].load() : -1;
    if (position < 0) continue;
    w.str().clear();
    w.PutFixed64BE(static_cast<uint64_t>(position));
    ctx.Put(p, state::Family::kOffsets, OffsetKey(stage_->name(), stage_->input_topic(), p), w.str());
  }
  for (const auto& [p, seq] : ctx.task_seqs()) {
    auto was = task_seqs_.find(p);
    if (!log_positions_ && was != task_seqs_.end() && was->second == seq) continue;
    w.str().clear();
    w.PutFixed64BE(seq);
    ctx.Put(p, state::Family::kMeta, TaskSeqKey(stage_->name(), p), w.str());
  }
  auto& out = ctx.emitted();
  const size_t outputs = out.size();  // the commit's own records; the changelog's follow below
  const uint64_t delete_below = outbox_.DeletableBelow();
  std::vector<std::pair<int32_t, std::string>> task_keys;
  if (changelog) {
    // The stage's records, per task, for a new owner to re-send; the ones of the rows this
    // commit deletes (acknowledged) are forgotten.
    std::vector<std::string> values;
    task_keys = TaskOutbox(out, ctx.emitted_tasks(), outbox_.next_seq(), &values);
    if (!task_keys.empty()) wb.Put(state::Family::kMeta, TaskOutboxListKey(stage_->name(), outbox_.next_seq()), EncodeKeyList(task_keys));
    for (size_t i = 0; i < task_keys.size(); ++i) {
      ctx.changes().push_back({task_keys[i].first, state::Family::kOutbox, task_keys[i].second, std::move(values[i])});
    }
    for (auto row = outbox_.row_task_keys().begin(); row != outbox_.row_task_keys().end() && row->first < delete_below;
         ++row) {
      for (const auto& [task, key] : row->second) ctx.changes().push_back({task, state::Family::kOutbox, key, std::nullopt});
    }
    // The changelog records first in the row: they are sent first, the stage's records after
    // they are acknowledged (Dispatch).
    RETURN_IF_ERROR(AddChangelog(ctx));
    std::rotate(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(outputs), out.end());
  }
  if (!out.empty()) {
    wb.Put(state::Family::kOutbox, OutboxKey(stage_->name(), outbox_.next_seq()), codec::EncodeOutBatch(out));
    w.str().clear();
    w.PutFixed64BE(outbox_.next_seq() + out.size());
    wb.Put(state::Family::kMeta, SeqKey(stage_->name()), w.str());
  }
  const uint64_t deleted_from = outbox_.deleted_below();
  outbox_.DeleteAcked(wb, delete_below);
  if (out.empty() && stage_->OverlapsCommits() && !options_.group && !changelog) {
    // Written beside the next poll and Process (docs/performance-history.md, "Commits written
    // beside the next batch"). Nothing of it is sent anywhere, so nothing but its positions waits for it;
    // the next batch's bookkeeping, and anything that reads positions, waits (FinishWriting).
    Writing w;
    w.next = std::move(next);
    w.busy = std::chrono::steady_clock::now() - started;
    w.records = input->size();
    w.acknowledged = outbox_.deleted_below() - deleted_from;
    w.written = std::async(std::launch::async, [this, batch = std::move(wb)]() mutable { return store_.Write(batch); });
    writing_ = std::move(w);  // once the write is under way (std::async may throw)
    task_seqs_.swap(ctx.task_seqs());
    log_positions_ = false;
    if (options_.flow) flow_.CountFlow(*input, out);
    adopted_.clear();
    return Status::Ok();
  }
  RETURN_IF_ERROR(store_.Write(wb));
  Committed(next, std::chrono::steady_clock::now() - started, input->size(), out.size(),
            outbox_.deleted_below() - deleted_from);
  task_seqs_.swap(ctx.task_seqs());
  log_positions_ = false;
  if (options_.flow) flow_.CountFlow(*input, out);
  const uint64_t first = outbox_.AddRow(out.size(), std::move(task_keys));
  adopted_.clear();
  if (outputs > 0) PausePoint(pause_committed_);  // a commit with outputs, none sent yet
  RETURN_IF_ERROR(outbox_.Dispatch(out, first));
  return SnapshotIfDue(out);  // Dispatch moved the stage's records, not the changelog's
}

void StageRunner::Committed(const std::vector<int64_t>& next, std::chrono::nanoseconds busy, size_t records,
                            size_t outputs, uint64_t acknowledged) {
  ++metrics_.commits;
  ++batches_;
  batch_nanos_ += static_cast<uint64_t>(busy.count());
  LOG_DEBUG("stage {}: committed {} records in, {} out, {} acknowledged", stage_->name(), records, outputs,
            acknowledged);
  for (int32_t p = 0; p < input_partitions_; ++p) {
    if (next[p] >= 0) positions_[p] = next[p];
  }
  ReportPositions();
}

Status StageRunner::FinishWriting() {
  if (!writing_) return Status::Ok();
  const auto waited = std::chrono::steady_clock::now();
  Writing w = std::move(*writing_);
  writing_.reset();  // before get(), which may throw (and empties the future)
  RETURN_IF_ERROR(w.written.get());
  Committed(w.next, w.busy + (std::chrono::steady_clock::now() - waited), w.records, 0, w.acknowledged);
  return Status::Ok();
}

void StageRunner::ReportPositions() {
  // For lag monitors and `webindex load`, five times a second at most; none before the consumer
  // exists. A group's member reports for the tasks it owns, once a second at most and only while
  // its assignment is settled: its commits carry the group's generation, and one that meets a
  // newer generation makes the client declare the whole assignment lost (librdkafka drops it,
  // and the tasks are dropped and restored again): settled() asks the client's join state too.
  const auto every = options_.group ? std::chrono::milliseconds(1000) : std::chrono::milliseconds(200);
  if (!consumer_ || (options_.group && !settled())) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - reported_at_ < every) return;
  reported_at_ = now;
  std::set<int32_t> owned;
  if (options_.group) {
    std::lock_guard<std::mutex> lock(owned_mu_);
    owned = owned_;
  }
  std::vector<kafka::TopicPartitionOffset> positions;
  std::vector<std::pair<int32_t, int64_t>> reporting;
  for (int32_t p = 0; p < input_partitions_; ++p) {
    if (options_.group && !owned.count(p)) continue;
    if (positions_[p] >= 0) {
      positions.push_back({stage_->input_topic(), p, positions_[p].load()});
      reporting.emplace_back(p, positions_[p].load());
    }
  }
  if (reporting == reported_) return;  // asked again while idle: nothing new
  reported_ = std::move(reporting);
  consumer_->ReportPositions(positions);
}

Status StageRunner::AddChangelog(BatchContext& ctx) {
  // Per task, in the order they were made: its changes, then the record that closes them.
  // RunBatch puts them first in this commit's outbox row.
  const std::string topic = ChangelogTopic(options_.changelog_prefix, stage_->name());
  const size_t budget = options_.limits.BudgetOf(topic);
  std::map<int32_t, std::vector<BatchContext::StateChange*>> by_task;
  for (auto& change : ctx.changes()) by_task[change.task].push_back(&change);
  for (auto& [task, changes] : by_task) {
    const std::vector<std::pair<std::string, std::string>> headers = ChangelogHeaders(task);
    for (BatchContext::StateChange* c : changes) {
      OutRecord rec{topic,   task, ChangelogKey(options_.generation, c->family, c->key),
                    c->value ? std::move(*c->value) : std::string(), headers, /*tombstone=*/!c->value};
      if (kafka::RecordBytes(rec) > budget) {
        return Status::InvalidArgument(
            "stage " + std::string(stage_->name()) + ": a state value of " + std::to_string(rec.value.size()) +
            " bytes does not fit changelog topic " + topic + " (" + std::to_string(budget) +
            " bytes); raise that topic's max.message.bytes");
      }
      ctx.Emit(std::move(rec));
    }
    ctx.Emit({topic, task, ChangelogCommitKey(options_.generation), "", headers});
  }
  ctx.changes().clear();
  return Status::Ok();
}

Status StageRunner::ForEachTaskRow(const std::set<int32_t>& tasks, const TaskRowFn& fn) {
  if (tasks.empty()) return Status::Ok();
  const std::string name(stage_->name());
  const state::Family family = *stage_->StateFamily();
  {
    auto it = store_.NewIterator(family);
    for (it->Seek(""); it->Valid(); it->Next()) {
      const int32_t task = stage_->TaskOfKey(it->key());
      if (tasks.count(task)) RETURN_IF_ERROR(fn(task, family, it->key(), it->value()));
    }
    RETURN_IF_ERROR(it->status());
  }
  for (int32_t task : tasks) {
    const std::pair<state::Family, std::string> points[] = {{state::Family::kOffsets, OffsetKey(name, stage_->input_topic(), task)},
                                                            {state::Family::kMeta, TaskSeqKey(name, task)},
                                                            {state::Family::kMeta, TaskEpochKey(name, task)}};
    for (const auto& [f, key] : points) {
      ASSIGN_OR_RETURN(auto value, store_.Get(f, key));
      if (value) RETURN_IF_ERROR(fn(task, f, key, *value));
    }
    const std::string t = std::to_string(task) + "/";
    const std::pair<state::Family, std::string> prefixes[] = {{state::Family::kDedupe, name + "/" + t},
                                                              {state::Family::kDedupe, "fence/" + name + "/" + t},
                                                              {state::Family::kOutbox, TaskOutboxPrefix(name) + t}};
    for (const auto& [f, prefix] : prefixes) {
      auto p = store_.NewIterator(f);
      for (p->Seek(prefix); p->Valid() && p->key().starts_with(prefix); p->Next()) {
        RETURN_IF_ERROR(fn(task, f, p->key(), p->value()));
      }
      RETURN_IF_ERROR(p->status());
    }
  }
  return Status::Ok();
}

Result<std::map<int32_t, std::map<std::string, std::string>>> StageRunner::TaskOutRows(const std::set<int32_t>& tasks) {
  // In the changelog with the commits whose outbox rows are still here, and gone from it
  // (tombstones) with the commits that deleted earlier rows. Only keys of this owner's epoch: a
  // row left from an earlier ownership (kept by a stop, sent again at the start) holds keys of
  // an older epoch, which a restore kept (and the store has them with the restored records) or
  // a later owner deleted.
  const std::string name(stage_->name());
  const std::string topic = ChangelogTopic(options_.changelog_prefix, name);
  std::map<int32_t, std::string> own;  // per task, the prefix of its keys of this owner's epoch
  for (int32_t task : tasks) {
    BytesWriter epoch;
    epoch.PutFixed64BE(EpochOf(task));
    own[task] = TaskOutboxPrefix(name) + std::to_string(task) + "/" + epoch.str();
  }
  std::map<int32_t, std::map<std::string, std::string>> out;
  auto row = store_.NewIterator(state::Family::kOutbox);
  for (row->Seek(name + "/"); row->Valid() && row->key().starts_with(name + "/"); row->Next()) {
    ASSIGN_OR_RETURN(std::vector<OutRecord> recs, codec::DecodeOutBatch(row->value()));
    for (auto& r : recs) {
      if (r.topic != topic || !own.count(r.partition)) continue;
      const auto key = ParseChangelogKey(r.key);
      if (!key || key->generation != options_.generation || key->family != static_cast<uint8_t>(state::Family::kOutbox) ||
          !key->state_key.starts_with(own[r.partition])) {
        continue;
      }
      if (r.tombstone) {
        out[r.partition].erase(std::string(key->state_key));
      } else {
        out[r.partition][std::string(key->state_key)] = std::move(r.value);
      }
    }
  }
  RETURN_IF_ERROR(row->status());
  return out;
}

uint64_t StageRunner::EpochOf(int32_t task) const {
  const auto epoch = task_epochs_.find(task);
  return epoch == task_epochs_.end() ? 0 : epoch->second;
}

std::vector<std::pair<std::string, std::string>> StageRunner::ChangelogHeaders(int32_t task) const {
  std::vector<std::pair<std::string, std::string>> headers = {{"gen", std::to_string(options_.generation)},
                                                              {"inst", options_.instance}};
  if (const uint64_t epoch = EpochOf(task)) headers.emplace_back(kEpochHeader, std::to_string(epoch));
  return headers;
}

Status StageRunner::WriteSnapshots(const std::set<int32_t>& tasks) {
  if (!options_.changelog || !stage_->KeepsChangelog() || !stage_->StateFamily() || tasks.empty()) return Status::Ok();
  const std::string topic = ChangelogTopic(options_.changelog_prefix, stage_->name());
  const size_t budget = options_.limits.BudgetOf(topic);
  struct Open {
    SnapshotWriter writer;
    uint64_t trim_id = 0;  // SnapshotTrims
    uint64_t bytes = 0;
    bool dropped = false;  // a row does not fit: no end record, so restores pass it over
  };
  std::map<int32_t, Open> open;
  using Part = SnapshotTrims::Part;
  auto send = [&](int32_t task, Open& o, const OutRecord& r, Part part = Part::kRow) -> Status {
    if (o.dropped) return Status::Ok();
    const size_t size = kafka::RecordBytes(r);
    if (size > budget) {  // AddChangelog refuses such rows; a restored record's parts fit too
      LOG_WARN("stage {}: no snapshot of task {}: a row of {} bytes does not fit {}; none until the task is taken "
               "over again",
               stage_->name(), task, size, topic);
      o.dropped = true;
      // Not again as the log grows: each try would send the rows before this one once more.
      snapshot_due_[task] = {0, std::numeric_limits<uint64_t>::max() / 4};
      return Status::Ok();
    }
    o.bytes += size;
    return producer_.Produce(r, RunnerOpaque(index_, kSnapshotSeq | SnapshotTrims::Tag(o.trim_id, part)));
  };
  for (int32_t task : tasks) {
    const std::string id = options_.instance + "/" + std::to_string(EpochOf(task)) + "/" + std::to_string(outbox_.next_seq());
    Open& o = open.emplace(task, Open{SnapshotWriter(topic, task, options_.generation, ChangelogHeaders(task), id)}).first->second;
    o.trim_id = trims_.Begin(task, EpochOf(task));
    RETURN_IF_ERROR(send(task, o, o.writer.Begin(), Part::kBegin));
  }
  RETURN_IF_ERROR(ForEachTaskRow(tasks, [&](int32_t task, state::Family family, std::string_view key,
                                            std::string_view value) -> Status {
    Open& o = open.at(task);
    return o.dropped ? Status::Ok() : send(task, o, o.writer.Row(family, key, value));
  }));
  ASSIGN_OR_RETURN(auto task_out, TaskOutRows(tasks));
  for (auto& [task, rows] : task_out) {
    Open& o = open.at(task);
    for (const auto& [key, value] : rows) {
      if (!o.dropped) RETURN_IF_ERROR(send(task, o, o.writer.Row(state::Family::kOutbox, key, value)));
    }
  }
  for (auto& [task, o] : open) {
    if (o.dropped) {
      trims_.Abandon(o.trim_id);
      continue;
    }
    RETURN_IF_ERROR(send(task, o, o.writer.End(), Part::kEnd));
    snapshot_due_[task] = {0, o.bytes};
    ++metrics_.snapshots;
    metrics_.snapshot_rows += o.writer.rows();
    LOG_DEBUG("stage {}: snapshot of task {}: {} rows, {} bytes", stage_->name(), task, o.writer.rows(), o.bytes);
  }
  return Status::Ok();
}

Status StageRunner::SnapshotIfDue(const std::vector<OutRecord>& out) {
  if (!options_.changelog || !stage_->KeepsChangelog() || !stage_->StateFamily()) return Status::Ok();
  std::set<int32_t> due;
  for (const auto& r : out) {
    if (!outbox_.IsChangelog(r) || r.partition < 0) continue;
    auto& [since, last] = snapshot_due_[r.partition];
    since += kafka::RecordBytes(r);
    if (since > std::max<uint64_t>(2 * last, options_.snapshot_min_bytes)) due.insert(r.partition);
  }
  // A commit after a revocation still sends tombstones to a given-up task's partition.
  const std::set<int32_t> owned = options_.group ? Owned() : std::set<int32_t>();
  std::erase_if(due, [&](int32_t task) {
    if (!options_.group || owned.count(task)) return false;
    snapshot_due_.erase(task);
    return true;
  });
  return WriteSnapshots(due);
}

void StageRunner::TrimIfDue() {
  // Only in a group: a lone run's changelog partitions are shared with other writers whose
  // snapshots it knows nothing of (a replay's generation), and no restore reads them.
  if (trims_off_ || !options_.group || !options_.admin || !options_.changelog || !stage_->KeepsChangelog()) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - trim_checked_ < options_.trim_interval) return;
  // A group's commit that meets a newer generation makes the client declare the assignment lost
  // (ReportPositions): none while a rebalance may be under way.
  if (!settled()) return;
  trim_checked_ = now;
  std::map<int32_t, SnapshotTrims::Due> ready = trims_.Ready();
  // A task's snapshot of an earlier ownership (given up and taken back since) is not trimmed by.
  const std::set<int32_t> owned = Owned();
  std::erase_if(ready, [&](const auto& t) { return !owned.count(t.first) || t.second.epoch != EpochOf(t.first); });
  if (ready.empty()) return;
  const std::string stage(stage_->name());
  // Before the group's confirmation, which it would waste: a generation whose records could be
  // before these offsets (acknowledged already) is announced before any of its runners starts,
  // so the question asked now sees it.
  if (options_.trims_allowed && !options_.trims_allowed()) {
    LOG_DEBUG("stage {}: no changelog trim while another generation of the group shares {}", stage,
              ChangelogTopic(options_.changelog_prefix, stage));
    return;
  }
  {
    // The group's confirmation that this member owns its tasks still. A member the group has
    // dropped (a zombie) is refused; any claim of its tasks by another needs a later generation
    // of the group, so it follows this confirmation, which follows the snapshots: the records
    // deleted below are before every claim a restore could need.
    if (Status confirmed = ConfirmOwned(owned); !confirmed.ok()) {
      ++metrics_.changelog_trims_refused;
      trim_checked_ = now + std::chrono::seconds(30);
      LOG_INFO("stage {}: no changelog trim: the group did not confirm that this member still owns its tasks ({})",
               stage, confirmed.ToString());
      return;
    }
  }
  std::map<int32_t, int64_t> before;
  for (const auto& [task, due] : ready) before[task] = due.before;
  {
    std::lock_guard<std::mutex> lock(trims_mu_);
    for (const auto& [task, offset] : before) trims_asked_[task] = offset;
  }
  const std::string topic = ChangelogTopic(options_.changelog_prefix, stage);
  // The embedded broker has no DeleteRecords, and librdkafka 2.0 leaks a little of the handle
  // that asks it anyway: not asked.
  const Status deleted = options_.admin->IsEmbedded(5000)
                             ? Status::NotFound("the embedded broker (librdkafka's mock cluster) serves no DeleteRecords")
                             : options_.admin->DeleteRecords(topic, before, 10000);
  if (deleted.ok()) {
    for (const auto& [task, offset] : before) trims_.Trimmed(task, offset);
    metrics_.changelog_trims += before.size();
    LOG_DEBUG("stage {}: trimmed {} partition(s) of {} to their last snapshots", stage, before.size(), topic);
    return;
  }
  if (deleted.code() == Status::Code::kNotFound || deleted.code() == Status::Code::kInvalidArgument) {
    trims_off_ = true;
    const bool embedded = deleted.code() == Status::Code::kNotFound;
    LOG_INFO("stage {}: changelog {} is not trimmed ({}){}", stage, topic, deleted.message(),
             embedded ? ": it grows until the brokers' retention removes records (the embedded broker keeps ~5 MiB "
                        "per partition; a restore begins at the first complete snapshot it keeps)"
                      : fmt::format(": give it cleanup.policy=delete and retention.ms=-1 (kafka-configs.sh --alter "
                                    "--entity-type topics --entity-name {} --add-config "
                                    "cleanup.policy=delete,retention.ms=-1), and allow this client DeleteRecords",
                                    topic));
    return;
  }
  ++metrics_.changelog_trim_errors;
  trim_checked_ = now + std::chrono::seconds(30);
  LOG_WARN("stage {}: changelog trim failed, tried again in 30 s: {}", stage, deleted.ToString());
}

std::map<int32_t, int64_t> StageRunner::trims_asked() const {
  std::lock_guard<std::mutex> lock(trims_mu_);
  return trims_asked_;
}

Status StageRunner::Join() {
  if (thread_.joinable()) thread_.join();
  return result_;
}

Status StageRunner::CommitAcked() {
  // With a changelog, a deleted row's records leave the changelog in the same commit (RunBatch);
  // the rows stay for the next start, which re-sends them (receivers drop the copies).
  if (options_.changelog && stage_->KeepsChangelog()) return Status::Ok();
  state::WriteBatch wb(store_);
  if (!outbox_.DeleteAcked(wb, outbox_.DeletableBelow())) return Status::Ok();
  return store_.Write(wb);
}

}  // namespace webindex::pipeline
