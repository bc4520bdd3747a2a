#include "pipeline/outbox.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <thread>

#include "codec/state_codec.h"
#include "common/bytes.h"
#include "common/log.h"
#include "pipeline/runner_keys.h"

namespace webindex::pipeline {
namespace {

//! The `reason` header of a dead letter ("" without one).
std::string ReasonOf(const OutRecord& dead_letter) {
  for (const auto& [name, value] : dead_letter.headers) {
    if (name == "reason") return value;
  }
  return "";
}

}  // namespace

Status Outbox::LoadSeq() {
  ASSIGN_OR_RETURN(auto seq, state::GetFixed64(store_, state::Family::kMeta, SeqKey(stage_->name()),
                                               "seq counter of stage " + std::string(stage_->name())));
  if (seq) next_seq_ = *seq;
  sent_below_ = next_seq_;
  return Status::Ok();
}

Status Outbox::Resend() {
  // Records committed by an earlier run but maybe never acknowledged: send them again, in order.
  // A row holds the records of one commit, the first under the row's seq.
  const std::string prefix = std::string(stage_->name()) + "/";
  uint64_t resent = 0;
  auto it = store_.NewIterator(state::Family::kOutbox);
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    BytesReader r(it->key().substr(prefix.size()));
    uint64_t first;
    if (!r.GetFixed64BE(&first) || !r.empty()) return Status::Corruption("outbox key");
    if (rows_.empty()) deleted_below_ = sent_below_ = first;
    rows_.insert(first);
    ASSIGN_OR_RETURN(std::vector<OutRecord> recs, codec::DecodeOutBatch(it->value()));
    RETURN_IF_ERROR(Dispatch(recs, first));
    resent += recs.size();
  }
  RETURN_IF_ERROR(it->status());
  sent_below_ = next_seq_;  // every row sent, or held (FirstHeld)
  const std::string lists = TaskOutboxListPrefix(stage_->name());
  auto list = store_.NewIterator(state::Family::kMeta);
  for (list->Seek(lists); list->Valid() && list->key().starts_with(lists); list->Next()) {
    BytesReader r(list->key().substr(lists.size()));
    uint64_t row;
    if (!r.GetFixed64BE(&row) || !r.empty()) return Status::Corruption("key " + std::string(list->key()));
    ASSIGN_OR_RETURN(row_task_keys_[row], DecodeKeyList(list->value()));
  }
  RETURN_IF_ERROR(list->status());
  // Normal after any stop: the acknowledgements of the last records sent were not committed
  // (or never came); receivers drop the copies they already have by seq.
  if (resent) {
    LOG_DEBUG("stage {}: re-sending {} records committed before the last stop whose acknowledgement was not recorded",
              stage_->name(), resent);
  }
  started_ = true;
  return Status::Ok();
}

Status Outbox::Send(const OutRecord& record, uint64_t seq, bool counted) {
  {
    std::lock_guard<std::mutex> lock(acked_mu_);
    in_flight_.insert(seq);  // before producing, so the acknowledgement always finds it
    if (record.topic == options_.dead_letters) dead_letters_in_flight_.emplace(seq, ReasonOf(record));
  }
  if (!counted) ++unacked_;
  if (options_.flow) flow_.CountSent(record);
  Status st = producer_.Produce(record, RunnerOpaque(index_, seq));
  if (kafka::IsRecordRejected(st)) st = SetAside(record, seq, st);
  if (st.ok()) sent_below_ = std::max(sent_below_, seq + 1);
  return st;
}

bool Outbox::IsChangelog(const OutRecord& record) const {
  return options_.changelog && record.topic.starts_with(options_.changelog_prefix);
}

Status Outbox::Dispatch(std::vector<OutRecord>& recs, uint64_t first) {
  Held held;
  for (size_t i = 0; i < recs.size(); ++i) {
    if (!IsChangelog(recs[i])) continue;
    const uint64_t seq = first + i;
    if (held.gate_to == held.gate_from) held.gate_from = seq;
    held.gate_to = seq + 1;
    RETURN_IF_ERROR(Send(recs[i], seq));
  }
  const bool gated = held.gate_to > held.gate_from;
  for (size_t i = 0; i < recs.size(); ++i) {
    if (IsChangelog(recs[i])) continue;
    if (!gated && held_.empty()) {
      RETURN_IF_ERROR(Send(recs[i], first + i));
    } else {
      held.records.emplace_back(first + i, std::move(recs[i]));
    }
  }
  if (!held.records.empty()) {
    unacked_ += held.records.size();
    held_.push_back(std::move(held));
  }
  return ReleaseHeld();
}

Status Outbox::ReleaseHeld() {
  while (!held_.empty()) {
    Held& h = held_.front();
    if (h.gate_to > h.gate_from) {
      std::lock_guard<std::mutex> lock(acked_mu_);
      auto waiting = in_flight_.lower_bound(h.gate_from);
      if (waiting != in_flight_.end() && *waiting < h.gate_to) return Status::Ok();
    }
    for (auto& [seq, record] : h.records) RETURN_IF_ERROR(Send(record, seq, /*counted=*/true));
    held_.pop_front();
  }
  return Status::Ok();
}

Status Outbox::DrainHeld(std::chrono::steady_clock::time_point deadline, bool until_acked) {
  while (!held_.empty() || (until_acked && AckedBelow() < next_seq_)) {
    {
      std::lock_guard<std::mutex> lock(acked_mu_);
      RETURN_IF_ERROR(delivery_error_);
    }
    RETURN_IF_ERROR(ReleaseHeld());
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return Status::Ok();
}

uint64_t Outbox::FirstHeld() const {
  return held_.empty() ? UINT64_MAX : held_.front().records.front().first;
}

Status Outbox::SetAside(const OutRecord& record, uint64_t seq, const Status& why) {
  if (IsChangelog(record)) {
    // A changelog with a hole restores a wrong state: stop instead of describing it.
    return Status::Unavailable("stage " + std::string(stage_->name()) + ": changelog record to " + record.topic + "[" +
                               std::to_string(record.partition) + "] (" + std::to_string(kafka::RecordBytes(record)) +
                               " bytes) refused: " + why.message() + "; raise that topic's max.message.bytes");
  }
  bool replaced;
  {
    std::lock_guard<std::mutex> lock(acked_mu_);
    replaced = replaced_.count(seq) > 0;
  }
  if (replaced) {  // the describing dead letter was rejected too: nothing more to try
    LOG_ERROR("stage {}: the dead letter describing an undeliverable record was rejected too ({}); dropped",
              stage_->name(), why.message());
    Forget(seq);
    return Status::Ok();
  }
  const size_t bytes = kafka::RecordBytes(record);
  ++metrics_.undeliverable_records;
  LOG_ERROR("stage {}: undeliverable record to {}[{}], key '{}' ({} bytes), {} bytes in all: {}; "
            "a dead letter on {} replaces it",
            stage_->name(), record.topic, record.partition, record.key.substr(0, 100), record.key.size(), bytes,
            why.message(), options_.dead_letters);
  OutRecord dead = MakeDeadLetter(options_.dead_letters, record.key, record.value,
                                  {{"reason", "undeliverable: " + why.message()},
                                   {"target.topic", record.topic},
                                   {"target.partition", std::to_string(record.partition)},
                                   {"generation", std::to_string(options_.generation)}},
                                  options_.limits.BudgetOf(options_.dead_letters));
  {
    std::lock_guard<std::mutex> lock(acked_mu_);
    replaced_.emplace(seq, ReasonOf(dead));
  }
  Status st = producer_.Produce(dead, RunnerOpaque(index_, seq));
  if (kafka::IsRecordRejected(st)) return SetAside(dead, seq, st);
  return st;
}

Status Outbox::SetAsideRejected() {
  std::vector<std::pair<uint64_t, Status>> rejected;
  {
    std::lock_guard<std::mutex> lock(acked_mu_);
    rejected.swap(rejected_);
  }
  // Rejections come in seq order mostly, many from one row: each row is read and decoded once.
  uint64_t row_start = 0;
  std::vector<OutRecord> recs;
  for (const auto& [seq, why] : rejected) {
    // The row holding `seq` starts at the last row start at or below it.
    auto row = rows_.upper_bound(seq);
    const bool in_a_row = row != rows_.begin();
    if (in_a_row && *std::prev(row) != row_start) {
      row_start = *std::prev(row);
      recs.clear();
      ASSIGN_OR_RETURN(auto stored, store_.Get(state::Family::kOutbox, OutboxKey(stage_->name(), row_start)));
      if (stored) {
        ASSIGN_OR_RETURN(recs, codec::DecodeOutBatch(*stored));
      }
    }
    const uint64_t index = seq - row_start;
    if (!in_a_row || index >= recs.size()) {  // cannot happen: records leave the outbox only once acknowledged
      LOG_ERROR("stage {}: rejected record {} is not in the outbox: {}", stage_->name(), seq, why.message());
      Forget(seq);
      continue;
    }
    RETURN_IF_ERROR(SetAside(recs[index], seq, why));
  }
  return Status::Ok();
}

void Outbox::Forget(uint64_t seq) {
  std::lock_guard<std::mutex> lock(acked_mu_);
  replaced_.erase(seq);
  dead_letters_in_flight_.erase(seq);
  if (in_flight_.erase(seq)) --unacked_;
}

void Outbox::OnDelivered(uint64_t seq, const Status& status) {
  std::lock_guard<std::mutex> lock(acked_mu_);
  if (!status.ok()) {
    if (kafka::IsRecordRejected(status)) {
      rejected_.emplace_back(seq, status);  // set aside by the runner's thread: it may block producing
    } else if (delivery_error_.ok()) {
      delivery_error_ = status;
    }
    return;
  }
  // A dead letter counts once Kafka has it: a rejected one, or one dropped, never arrived, and
  // one that replaces a rejected dead letter takes its place.
  std::optional<std::string> reason;
  if (auto it = replaced_.find(seq); it != replaced_.end()) {
    reason = std::move(it->second);
    replaced_.erase(it);
  }
  if (auto it = dead_letters_in_flight_.find(seq); it != dead_letters_in_flight_.end()) {
    if (!reason) reason = std::move(it->second);
    dead_letters_in_flight_.erase(it);
  }
  if (reason) metrics_.CountDeadLetter(std::move(*reason));
  in_flight_.erase(seq);
  --unacked_;
}

uint64_t Outbox::AckedBelow() {
  std::lock_guard<std::mutex> lock(acked_mu_);
  return in_flight_.empty() ? next_seq_ : *in_flight_.begin();
}

uint64_t Outbox::DeletableBelow() {
  // Rows whose every record is acknowledged: those before the row holding the first record
  // still in flight or not sent yet (rows hold consecutive seqs, so that row starts at or below
  // it). A start or a batch that failed part-way leaves records unsent: they stay.
  if (!started_) return deleted_below_;
  const uint64_t below = std::min({AckedBelow(), sent_below_, FirstHeld()});
  if (below >= next_seq_) return next_seq_;  // everything acknowledged, the last row too
  auto row = rows_.upper_bound(below);
  return row == rows_.begin() ? deleted_below_ : *std::prev(row);
}

bool Outbox::DeleteAcked(state::WriteBatch& wb, uint64_t until) {
  if (until <= deleted_below_) return false;
  const uint64_t deleted_from = deleted_below_;
  wb.DeleteRange(state::Family::kOutbox, OutboxKey(stage_->name(), deleted_below_), OutboxKey(stage_->name(), until));
  deleted_below_ = until;
  rows_.erase(rows_.begin(), rows_.lower_bound(until));
  if (!row_task_keys_.empty() && row_task_keys_.begin()->first < until) {
    wb.DeleteRange(state::Family::kMeta, TaskOutboxListKey(stage_->name(), deleted_from), TaskOutboxListKey(stage_->name(), until));
    row_task_keys_.erase(row_task_keys_.begin(), row_task_keys_.lower_bound(until));
  }
  return true;
}

uint64_t Outbox::AddRow(size_t records, std::vector<std::pair<int32_t, std::string>> task_keys) {
  const uint64_t first = next_seq_;
  if (records > 0) rows_.insert(first);
  if (!task_keys.empty()) row_task_keys_[first] = std::move(task_keys);
  {
    std::lock_guard<std::mutex> lock(acked_mu_);
    next_seq_ += records;  // AckedBelow reads it under the same lock
  }
  return first;
}

Status Outbox::delivery_error() {
  std::lock_guard<std::mutex> lock(acked_mu_);
  return delivery_error_;
}

}  // namespace webindex::pipeline
