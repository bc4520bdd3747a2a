#include "pipeline/changelog.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include "common/bytes.h"
#include "common/log.h"
#include "pipeline/fence.h"

namespace webindex::pipeline {
namespace {

constexpr int kTimeoutMs = 10000;
constexpr auto kProgressEvery = std::chrono::seconds(5);

}  // namespace

std::string ChangelogKey(uint64_t generation, state::Family family, std::string_view key) {
  BytesWriter w;
  w.PutFixed64BE(generation);
  w.str().push_back(static_cast<char>(family));
  w.str().append(key);
  return w.Take();
}

std::string ChangelogCommitKey(uint64_t generation) {
  BytesWriter w;
  w.PutFixed64BE(generation);
  w.str().push_back(kChangelogCommit);
  return w.Take();
}

std::string ChangelogSnapshotKey(uint64_t generation, bool end) {
  BytesWriter w;
  w.PutFixed64BE(generation);
  w.str().push_back(kChangelogSnapshot);
  w.str().append(end ? "end" : "begin");
  return w.Take();
}

SnapshotWriter::SnapshotWriter(std::string topic, int32_t task, uint64_t generation,
                               std::vector<std::pair<std::string, std::string>> headers, std::string_view id)
    : topic_(std::move(topic)), task_(task), generation_(generation), headers_(std::move(headers)) {
  headers_.emplace_back(kSnapshotHeader, std::string(id));
}

OutRecord SnapshotWriter::Begin() const { return {topic_, task_, ChangelogSnapshotKey(generation_, false), "", headers_}; }

OutRecord SnapshotWriter::Row(state::Family family, std::string_view key, std::string_view value) {
  ++rows_;
  return {topic_, task_, ChangelogKey(generation_, family, key), std::string(value), headers_};
}

OutRecord SnapshotWriter::End() const {
  return {topic_, task_, ChangelogSnapshotKey(generation_, true), std::to_string(rows_), headers_};
}

std::vector<OutRecord> SnapshotRecords(const std::string& topic, int32_t task, uint64_t generation,
                                       const std::vector<std::pair<std::string, std::string>>& headers,
                                       std::string_view id, const std::vector<SnapshotRow>& rows) {
  SnapshotWriter writer(topic, task, generation, headers, id);
  std::vector<OutRecord> out;
  out.reserve(rows.size() + 2);
  out.push_back(writer.Begin());
  for (const auto& row : rows) out.push_back(writer.Row(row.family, row.key, row.value));
  out.push_back(writer.End());
  return out;
}

std::optional<ChangelogKeyParts> ParseChangelogKey(std::string_view key) {
  BytesReader r(key);
  ChangelogKeyParts parts;
  if (!r.GetFixed64BE(&parts.generation) || key.size() < 9) return std::nullopt;
  parts.family = static_cast<uint8_t>(key[8]);
  parts.state_key = key.substr(9);
  return parts;
}

TaskRestore::~TaskRestore() = default;

std::string TaskRestore::Where(int64_t offset) const {
  return topic_ + "[" + std::to_string(task_) + "] offset " + std::to_string(offset);
}

Status TaskRestore::CatchUp(int64_t until) {
  ASSIGN_OR_RETURN(auto marks, admin_.Watermarks(topic_, task_, kTimeoutMs));
  const int64_t broker_low = marks.first, end = std::min(marks.second, until);
  if (next_ > marks.second) {
    return Status::Unavailable("cannot restore task " + std::to_string(task_) + ": " + topic_ + "[" +
                               std::to_string(task_) + "] ends at offset " + std::to_string(marks.second) +
                               ", before offset " + std::to_string(next_) +
                               " this restore reached: the topic was recreated or truncated");
  }
  // Compaction keeps a log's start; only deletion (retention, a trim) moves it, and then the
  // state of the records it took is gone: a restore that has not begun yet begins at the first
  // complete snapshot after the start; one that has applied records cannot skip any.
  const bool first = next_ < 0;
  const int64_t low = first ? std::max(broker_low, start_at_) : broker_low;
  next_ = std::max<int64_t>(next_, 0);
  if (next_ < low) {
    if (!first) return Truncated(next_, low, /*under_reader=*/true);
    seeking_ = true;
    truncated_from_ = next_;
    truncated_to_ = low;
    next_ = low;
  }
  if (next_ >= end) return seeking_ ? Truncated(truncated_from_, truncated_to_) : Status::Ok();
  if (!consumer_) {
    ASSIGN_OR_RETURN(consumer_, kafka::Consumer::Create(config_, "webindex-restore"));
    RETURN_IF_ERROR(consumer_->Assign({{topic_, task_, next_}}));
  }
  // Progress: the shared lag gauge while this runs, and a line every few seconds of a long read.
  struct Lag {
    std::atomic<int64_t>* gauge;
    int64_t counted = 0;
    void Set(int64_t left) {
      if (gauge) gauge->fetch_add(left - counted);
      counted = left;
    }
    ~Lag() { Set(0); }
  } lag{lag_};
  lag.Set(end - next_);
  const int64_t from = next_;
  const auto started = std::chrono::steady_clock::now();
  auto logged = started;
  kafka::MessageBatch batch;
  int idle_polls = 0;
  while (next_ < end) {
    lag.Set(end - next_);
    if (const auto now = std::chrono::steady_clock::now(); now - logged >= kProgressEvery) {
      logged = now;
      const double seconds = std::chrono::duration<double>(now - started).count();
      const double rate = static_cast<double>(next_ - from) / seconds;
      LOG_INFO("restoring {}[{}]: {} of {} records read, {:.0f}/s{}", topic_, task_, next_ - from, end - from, rate,
               rate > 0 ? fmt::format(", about {:.0f} s left", static_cast<double>(end - next_) / rate) : "");
    }
    RETURN_IF_ERROR(consumer_->PollBatch(10000, 1000, &batch));
    if (batch.empty() && ++idle_polls >= 10) {
      return Status::Unavailable("restore of " + topic_ + "[" + std::to_string(task_) + "] got nothing for 10 s at offset " +
                                 std::to_string(next_) + " of " + std::to_string(end));
    }
    if (!batch.empty()) idle_polls = 0;
    for (const auto& loss : consumer_->TakeDataLoss()) {
      if (!seeking_) return Truncated(loss.from, loss.to, /*under_reader=*/true);
      if (snapshot_) ++stats_.snapshots_dropped;  // torn: the next one, then
      snapshot_.reset();
      next_ = std::max(next_, loss.to);
    }
    bool beyond = false;  // read past `until`: the next call reads those records again
    for (const auto& r : batch.records()) {
      if (r.offset < next_) continue;
      if (r.offset >= end) {
        beyond = true;
        break;
      }
      next_ = r.offset + 1;
      ++stats_.records;
      RETURN_IF_ERROR(Apply(r));
    }
    batch.Clear();
    if (beyond) {  // nothing is left below `end` (a gap in a compacted log may span it)
      consumer_.reset();
      next_ = end;
    }
  }
  if (seeking_) return Truncated(truncated_from_, truncated_to_);
  RETURN_IF_ERROR(ApplySnapshotRows());
  stats_.unfinished = pending_.size();
  if (!pending_.empty()) {
    LOG_WARN(
        "restore of {}[{}]: {} changes after the last closed commit are not applied (their writer stopped "
        "between them and the record closing them)",
        topic_, task_, pending_.size());
  }
  return Status::Ok();
}

Status TaskRestore::Truncated(int64_t from, int64_t to, bool under_reader) const {
  if (under_reader) {
    return Status::Aborted("records [" + std::to_string(from) + ", " + std::to_string(to) + ") of " + topic_ + "[" +
                           std::to_string(task_) + "] were deleted while the restore of task " + std::to_string(task_) +
                           " read them (a trim to a later snapshot, or the broker's retention): it must begin again");
  }
  return Status::Unavailable(
      "cannot restore task " + std::to_string(task_) + " from " + Where(from) + ": records [" + std::to_string(from) +
      ", " + std::to_string(to) +
      ") of its changelog were deleted by the broker's retention, the task's state needs them, and no complete "
      "snapshot of the task follows them. A changelog topic must keep its records (cleanup.policy=delete with "
      "retention.ms=-1, as webindex creates them: its stages trim it themselves); the embedded broker keeps only about "
      "5 MiB per partition: spread the state over more partitions or use a Kafka cluster");
}

Status TaskRestore::Apply(const InRecord& r) {
  const auto key = ParseChangelogKey(r.key);
  if (!key) return Status::Corruption("changelog record at " + Where(r.offset) + " has no generation and family in its key");
  if (key->generation != generation_) {
    ++stats_.other_generation;
    return Status::Ok();
  }
  const auto epoch = EpochOf(r);
  if (!epoch) return Status::Corruption("changelog record at " + Where(r.offset) + " has an unreadable epoch");
  if (seeking_) return Seek(r, *key, *epoch);
  if (began_at_snapshot_ && *epoch > std::max(claim_epoch_, epoch_) && !r.Header(kClaimHeader)) {
    // An epoch whose claim this restore never saw: it was claimed before the log's start, so the
    // snapshot this restore began at was written by an owner that claim had fenced. Undone, and
    // sought again from here.
    LOG_WARN("restoring {}[{}]: epoch {} at offset {} was claimed before the log's start; the snapshot of epoch {} "
             "this restore began at is void: looking for a later one",
             topic_, task_, *epoch, r.offset, claim_epoch_);
    state::WriteBatch wb(store_);
    for (const auto& [family, k] : written_) wb.Delete(family, k);
    RETURN_IF_ERROR(store_.Write(wb).WithContext("undoing a void snapshot of " + Where(r.offset)));
    written_.clear();
    pending_.clear();
    snapshot_rows_.clear();
    ++stats_.snapshots_dropped;
    stats_.snapshot_rows = 0;
    began_at_snapshot_ = false;
    seeking_ = true;
    return Seek(r, *key, *epoch);
  }
  const bool snapshot_row = r.Header(kSnapshotHeader) && static_cast<char>(key->family) != kChangelogSnapshot;
  if (!snapshot_row) RETURN_IF_ERROR(ApplySnapshotRows());
  // Claims and the epochs they end count whoever wrote them.
  if (r.Header(kClaimHeader)) {
    if (*epoch <= std::max(claim_epoch_, epoch_)) {  // lost to an earlier claim of the same epoch or a later one
      ++stats_.void_records;
      return Status::Ok();
    }
    const size_t end = key->state_key.find('\0');
    if (key->family != static_cast<uint8_t>(state::Family::kMeta) || end == std::string_view::npos) {
      return Status::Corruption("claim at " + Where(r.offset) + " is not a task epoch key");
    }
    // Whatever the old owner had begun and not closed before the claim never counts.
    stats_.interrupted += pending_.size();
    pending_.clear();
    claim_epoch_ = epoch_ = *epoch;
    const auto inst = r.Header("inst");
    claimed_by_ = inst ? std::string(*inst) : std::string();
    ++stats_.claims;
    BytesWriter value;
    value.PutFixed64BE(*epoch);
    state::WriteBatch wb(store_);
    wb.Put(state::Family::kMeta, key->state_key.substr(0, end), value.str());
    Wrote(state::Family::kMeta, key->state_key.substr(0, end));
    return store_.Write(wb).WithContext("restoring the claim at " + Where(r.offset));
  }
  if (*epoch < claim_epoch_) {  // the old owner, after the claim: void
    ++stats_.void_records;
    return Status::Ok();
  }
  if (!instance_.empty() && r.Header("inst") != std::optional<std::string_view>(instance_)) {
    ++stats_.other_generation;
    return Status::Ok();
  }
  epoch_ = std::max(epoch_, *epoch);
  if (r.Header(kSnapshotHeader)) {
    // The state as restored up to here, once more: applied all the same (in one write with the
    // rows next to it), since under compaction a snapshot's row can be the last record of its key.
    ++stats_.snapshot_records;
    if (!snapshot_row) return Status::Ok();  // its begin or end
    if (key->family >= static_cast<uint8_t>(state::Family::kCount) || r.tombstone) {
      // Passed over, as while seeking; here the snapshot only repeats the state, so its other
      // rows still apply.
      LOG_WARN("restoring {}[{}]: snapshot record at offset {} is no state row; passed over", topic_, task_, r.offset);
      return Status::Ok();
    }
    snapshot_rows_.push_back({static_cast<state::Family>(key->family), std::string(key->state_key), std::string(r.value)});
    return Status::Ok();
  }
  if (static_cast<char>(key->family) == kChangelogCommit && key->state_key.empty()) {
    state::WriteBatch wb(store_);
    for (auto& c : pending_) {
      if (c.value) {
        wb.Put(c.family, c.key, *c.value);
      } else {
        wb.Delete(c.family, c.key);
      }
      Wrote(c.family, c.key);
    }
    RETURN_IF_ERROR(store_.Write(wb).WithContext("restoring " + Where(r.offset)));
    stats_.changes += pending_.size();
    ++stats_.commits;
    pending_.clear();
    return Status::Ok();
  }
  if (key->family >= static_cast<uint8_t>(state::Family::kCount)) {
    return Status::Corruption("changelog record at " + Where(r.offset) + " names no state family");
  }
  pending_.push_back({static_cast<state::Family>(key->family), std::string(key->state_key),
                      r.tombstone ? std::nullopt : std::optional<std::string>(std::string(r.value))});
  return Status::Ok();
}

Status TaskRestore::ApplySnapshotRows() {
  if (snapshot_rows_.empty()) return Status::Ok();
  state::WriteBatch wb(store_);
  for (const auto& row : snapshot_rows_) {
    wb.Put(row.family, row.key, row.value);
    Wrote(row.family, row.key);
  }
  snapshot_rows_.clear();
  return store_.Write(wb).WithContext("restoring snapshot rows of " + Where(next_));
}

Status TaskRestore::Seek(const InRecord& r, const ChangelogKeyParts& key, uint64_t epoch) {
  ++stats_.skipped_to_snapshot;  // the applied snapshot's records are taken off at its end
  // Epochs come from claims only: a record of epoch e, whoever wrote it, shows that e was
  // claimed before it, so that a snapshot of a lower epoch written after it is void, and one it
  // interrupts was written by an owner the claim had already fenced.
  if (epoch > claim_epoch_) {
    claim_epoch_ = epoch;
    if (snapshot_ && snapshot_->epoch < epoch) {
      ++stats_.snapshots_dropped;
      snapshot_.reset();
    }
  }
  const auto id = r.Header(kSnapshotHeader);
  if (!id || r.Header(kClaimHeader) || epoch < claim_epoch_) return Status::Ok();
  const auto inst = r.Header("inst");
  if (!instance_.empty() && inst != std::optional<std::string_view>(instance_)) return Status::Ok();
  if (static_cast<char>(key.family) == kChangelogSnapshot) {
    if (key.state_key == "begin") {
      if (snapshot_) ++stats_.snapshots_dropped;  // never ended: its writer stopped
      snapshot_ = Snapshot{std::string(*id), epoch, inst ? std::string(*inst) : std::string(), {}};
      return Status::Ok();
    }
    if (!snapshot_ || snapshot_->id != *id) return Status::Ok();  // the end of one whose start is gone
    if (key.state_key != "end" || r.value != std::to_string(snapshot_->rows.size())) {
      // Not whole (compaction took rows of it, or a writer this restore cannot read): the next.
      LOG_WARN("restoring {}[{}]: the snapshot ending at offset {} holds {} rows, its end record says {}; passed over",
               topic_, task_, r.offset, snapshot_->rows.size(), r.value);
      ++stats_.snapshots_dropped;
      snapshot_.reset();
      return Status::Ok();
    }
    state::WriteBatch wb(store_);
    for (const auto& row : snapshot_->rows) {
      wb.Put(row.family, row.key, row.value);
      Wrote(row.family, row.key);
    }
    RETURN_IF_ERROR(store_.Write(wb).WithContext("restoring the snapshot ending at " + Where(r.offset)));
    began_at_snapshot_ = true;
    stats_.snapshot_rows = snapshot_->rows.size();
    stats_.skipped_to_snapshot -= snapshot_->rows.size() + 2;
    claim_epoch_ = epoch_ = snapshot_->epoch;
    claimed_by_ = snapshot_->inst;
    LOG_INFO("restoring {}[{}]: records [{}, {}) are gone; began at the snapshot ending at offset {} ({} rows, epoch {})",
             topic_, task_, truncated_from_, truncated_to_, r.offset, snapshot_->rows.size(), snapshot_->epoch);
    snapshot_.reset();
    seeking_ = false;
    return Status::Ok();
  }
  if (!snapshot_ || snapshot_->id != *id) return Status::Ok();
  if (key.family >= static_cast<uint8_t>(state::Family::kCount) || r.tombstone) {
    LOG_WARN("restoring {}[{}]: snapshot record at offset {} is no state row; the snapshot is passed over", topic_, task_,
             r.offset);
    ++stats_.snapshots_dropped;
    snapshot_.reset();
    return Status::Ok();
  }
  snapshot_->rows.push_back({static_cast<state::Family>(key.family), std::string(key.state_key), std::string(r.value)});
  return Status::Ok();
}

Result<RestoreStats> RestoreTask(const kafka::ClientConfig& config, kafka::Admin& admin, state::Store& store,
                                 const std::string& topic, int32_t task, uint64_t generation,
                                 const std::string& instance) {
  TaskRestore restore(config, admin, store, topic, task, generation, instance);
  RETURN_IF_ERROR(restore.CatchUp());
  return restore.stats();
}

}  // namespace webindex::pipeline
