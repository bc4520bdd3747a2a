#include "pipeline/stage_runner.h"

#include <algorithm>
#include <chrono>
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
      positions_(new std::atomic<int64_t>[2 * static_cast<size_t>(input_partitions)]),
      pause_committed_(std::string(stage_->name()) + "-committed"),
      shared_(stage_.get(), index_, input_partitions_, store_, producer_, consumer_config_, metrics_, options_, consumer_,
              side_consumer_, positions_.get(), task_seqs_, task_epochs_, busy_),
      flow_(shared_),
      outbox_(shared_, flow_),
      changelog_(shared_, outbox_),
      ownership_(shared_, outbox_, changelog_),
      reports_(shared_, ownership_) {
  for (int32_t p = 0; p < 2 * input_partitions_; ++p) positions_[p] = kafka::kBeginning;
}

StageRunner::~StageRunner() {
  RequestStop();
  if (thread_.joinable()) thread_.join();
  // A group member leaves before the members its listener touches go (Loop leaves already,
  // unless it ended by an exception or never ran).
  ownership_.set_closing();
  consumer_.reset();
  side_consumer_.reset();
}

Status StageRunner::Start() {
  const bool group = options_.group.has_value();
  changelog_.ResetTrimClock();
  if (group && !options_.partitions.empty()) {
    return Status::InvalidArgument("stage " + std::string(stage_->name()) +
                                   ": a group member reads the partitions its group assigns, not a fixed set");
  }
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
    RETURN_IF_ERROR(ownership_.DropStaleTasks());
  }
  RETURN_IF_ERROR(stage_->Open(store_));
  // Counters and positions (a group member's come with each task it is given: OnAssigned).
  RETURN_IF_ERROR(outbox_.LoadSeq());
  const std::string& side = shared_.side_topic();
  std::vector<kafka::TopicPartitionOffset> assignment;
  for (int32_t p = 0; p < input_partitions_ && !group; ++p) {
    if (!options_.partitions.empty() && !options_.partitions.count(p)) continue;
    RETURN_IF_ERROR(ownership_.LoadTask(p));
    assignment.push_back({stage_->input_topic(), p, positions_[p].load()});
    if (!side.empty()) assignment.push_back({side, p, positions_[shared_.side_index(p)].load()});
  }
  RETURN_IF_ERROR(outbox_.Resend());
  if (group) {
    if (!side.empty()) {  // assigned the side partitions of the tasks the group gives (TaskOwnership)
      ASSIGN_OR_RETURN(side_consumer_, kafka::Consumer::Create(consumer_config_, options_.group->group_id + ".side"));
    }
    ASSIGN_OR_RETURN(consumer_, kafka::Consumer::Join(consumer_config_, *options_.group, &ownership_));
    RETURN_IF_ERROR(consumer_->Subscribe({stage_->input_topic()}));
    thread_ = std::thread([this] { Loop(); });
    return Status::Ok();
  }
  if (options_.changelog && stage_->KeepsChangelog()) {
    // Every task's position and seq counter, as this start found them, in one commit: a task
    // restored from the changelog then starts where this data dir would, even if it never
    // commits again (its start position came from the generation's setup, not from a commit).
    log_positions_ = true;
    RETURN_IF_ERROR(changelog_.LoadAdopted());
    RETURN_IF_ERROR(RunBatch({}));
  }

  ASSIGN_OR_RETURN(consumer_, kafka::Consumer::Create(consumer_config_, options_.app_id + "-" + std::string(stage_->name())));
  RETURN_IF_ERROR(consumer_->Assign(assignment));
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void StageRunner::OnDelivered(uint64_t seq, const Status& status, int64_t offset) {
  if (seq & kSnapshotSeq) {  // no outbox record; a snapshot cut short is passed over by restores
    changelog_.OnSnapshotDelivered(seq, status, offset);
    return;
  }
  outbox_.OnDelivered(seq, status);
}

std::vector<int64_t> StageRunner::Positions() const {
  std::vector<int64_t> out(input_partitions_);
  for (int32_t p = 0; p < input_partitions_; ++p) out[p] = positions_[p];
  return out;
}

Status StageRunner::PollInput(int timeout_ms, kafka::MessageBatch* batch) {
  side_batch_.Clear();
  if (const size_t room = flow_.BatchRoom(); room > 0) {
    held_since_.reset();
    RETURN_IF_ERROR(consumer_->Hold(false));
    // The group's consumer first: the tasks it gives or takes in there set the side's assignment.
    RETURN_IF_ERROR(consumer_->PollBatch(room, timeout_ms, batch, stage_->MaxBatchBytes()));
    if (!side_consumer_ || batch->records().size() >= room) return Status::Ok();
    return side_consumer_->PollBatch(room - batch->records().size(), 0, &side_batch_, stage_->MaxBatchBytes());
  }
  // The stages downstream are behind: no input until they read on. A group member goes on being
  // polled, or the group drops it past max.poll.interval.ms (kafka::Consumer::Hold): held after a
  // second of this (a hold drops what the client fetched ahead, so not at every short wait).
  const auto now = std::chrono::steady_clock::now();
  if (!held_since_) held_since_ = now;
  if (!options_.group || now - *held_since_ < std::chrono::seconds(1)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return Status::Ok();
  }
  RETURN_IF_ERROR(consumer_->Hold(true));
  return consumer_->PollBatch(1, 2, batch, stage_->MaxBatchBytes());
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
      st = PollInput(timeout, &batch);
      if (options_.group) ownership_.WatchMembership();
      if (st.ok() && batch.empty()) st = FinishWriting();
      if (!st.ok()) break;
      for (const auto& loss : consumer_->TakeDataLoss()) metrics_.lost_records += loss.to - loss.from;
      if (side_consumer_) {
        for (const auto& loss : side_consumer_->TakeDataLoss()) metrics_.lost_records += loss.to - loss.from;
      }
      busy_ = true;
      st = outbox_.delivery_error();
      if (st.ok()) st = producer_.FatalError();
      if (st.ok()) st = outbox_.SetAsideRejected();
      if (st.ok()) st = outbox_.ReleaseHeld();
      if (st.ok()) st = ownership_.group_error();
      if (st.ok()) changelog_.TrimIfDue(ownership_);
      if (st.ok() && !side_batch_.empty()) {
        std::vector<InRecord> both = batch.records();
        both.insert(both.end(), side_batch_.records().begin(), side_batch_.records().end());
        st = RunBatch(both);
      } else if (st.ok() && (!batch.empty() || !changelog_.adopted().empty() ||
                             outbox_.DeletableBelow() > outbox_.deleted_below())) {
        st = RunBatch(batch.records());
      } else if (st.ok()) {
        // Idle: the positions of the last commits, whose report was due later (once a second at
        // most) or held back by a rebalance, are reported now; nothing when they were.
        reports_.Report();
      }
      batch.Clear();
      side_batch_.Clear();
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
    reports_.MakeDue();
    reports_.Report();
  }
  if (options_.group && st.ok()) {
    try {
      ownership_.KeepLocalCopies(deadline);
    } catch (const std::exception& e) {
      LOG_WARN("stage {}: keeps no local copy of its tasks: {}", stage_->name(), e.what());
    }
  }
  // A group member leaves the group now (the others take the tasks over), keeping the local rows.
  // Every stage closes its consumer on its own thread, so that brokers gone at shutdown cost one
  // close timeout in all (Consumer::Close), not one per stage.
  ownership_.set_closing();
  if (consumer_) consumer_->Close();
  if (side_consumer_) side_consumer_->Close();
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
  for (auto& adopted : changelog_.adopted()) {  // a former owner's records, under this owner's epoch
    for (OutRecord& r : adopted.records) {
      std::erase_if(r.headers, [](const auto& h) { return h.first == kTaskHeader || h.first == kEpochHeader; });
      ctx.Emit(adopted.task, std::move(r));
    }
    for (const std::string& key : adopted.keys) ctx.Delete(adopted.task, state::Family::kOutbox, key);
  }
  std::vector<InRecord> owned;  // group mode: records of tasks given up since they were fetched are not ours
  const std::vector<InRecord>* input = &records;
  if (options_.group) input = ownership_.OwnedOnly(records, &owned);
  if (!input->empty()) RETURN_IF_ERROR(stage_->Process(*input, ctx).WithContext(std::string(stage_->name())));
  // The previous commit, if still being written beside Process, lands before anything of this
  // batch's bookkeeping: the outbox rows this one deletes, the positions it writes.
  RETURN_IF_ERROR(FinishWriting());
  // The input's positions, then the side input's (RunnerPart::side_index).
  const std::string& side = shared_.side_topic();
  std::vector<int64_t> next(2 * static_cast<size_t>(input_partitions_), -1);
  for (const auto& r : *input) {
    if (r.partition < 0 || r.partition >= input_partitions_) continue;
    next[!side.empty() && r.topic == side ? shared_.side_index(r.partition) : r.partition] = r.offset + 1;
  }
  BytesWriter w;
  for (int32_t i = 0; i < 2 * input_partitions_; ++i) {
    const bool side_position = i >= input_partitions_;
    if (side_position && side.empty()) break;
    const int32_t p = side_position ? i - input_partitions_ : i;
    // The batch's new position; when logging positions, the committed one of a partition it did not read.
    const int64_t position = next[i] >= 0 ? next[i] : log_positions_ ? positions_[i].load() : -1;
    if (position < 0) continue;
    w.str().clear();
    w.PutFixed64BE(static_cast<uint64_t>(position));
    ctx.Put(p, state::Family::kOffsets, OffsetKey(stage_->name(), side_position ? side : stage_->input_topic(), p),
            w.str());
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
    task_keys = changelog_.TaskOutbox(out, ctx.emitted_tasks(), outbox_.next_seq(), &values);
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
    RETURN_IF_ERROR(changelog_.AddChangelog(ctx));
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
    changelog_.adopted().clear();
    return Status::Ok();
  }
  RETURN_IF_ERROR(store_.Write(wb));
  Committed(next, std::chrono::steady_clock::now() - started, input->size(), out.size(),
            outbox_.deleted_below() - deleted_from);
  task_seqs_.swap(ctx.task_seqs());
  log_positions_ = false;
  if (options_.flow) flow_.CountFlow(*input, out);
  const uint64_t first = outbox_.AddRow(out.size(), std::move(task_keys));
  changelog_.adopted().clear();
  if (outputs > 0) PausePoint(pause_committed_);  // a commit with outputs, none sent yet
  RETURN_IF_ERROR(outbox_.Dispatch(out, first));
  return changelog_.SnapshotIfDue(out, ownership_);  // Dispatch moved the stage's records, not the changelog's
}

void StageRunner::Committed(const std::vector<int64_t>& next, std::chrono::nanoseconds busy, size_t records,
                            size_t outputs, uint64_t acknowledged) {
  ++metrics_.commits;
  ++batches_;
  batch_nanos_ += static_cast<uint64_t>(busy.count());
  LOG_DEBUG("stage {}: committed {} records in, {} out, {} acknowledged", stage_->name(), records, outputs,
            acknowledged);
  for (size_t i = 0; i < next.size(); ++i) {
    if (next[i] >= 0) positions_[i] = next[i];
  }
  reports_.Report();
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
