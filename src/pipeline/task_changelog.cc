#include "pipeline/task_changelog.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "codec/state_codec.h"
#include "common/bytes.h"
#include "common/log.h"
#include "pipeline/fence.h"
#include "pipeline/runner_keys.h"
#include "pipeline/task_ownership.h"

namespace webindex::pipeline {

void TaskChangelog::OnSnapshotDelivered(uint64_t seq, const Status& status, int64_t offset) {
  if (!status.ok()) LOG_WARN("stage {}: a changelog snapshot record was not delivered: {}", stage_->name(), status.ToString());
  trims_.OnDelivered(seq & (kSnapshotSeq - 1), status, offset);
}

void TaskChangelog::Forget(int32_t task) {
  snapshot_due_.erase(task);
  trims_.Forget(task);
}

std::vector<std::pair<int32_t, std::string>> TaskChangelog::TaskOutbox(const std::vector<OutRecord>& recs,
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

Status TaskChangelog::LoadAdopted(std::optional<int32_t> only) {
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

Status TaskChangelog::AddChangelog(BatchContext& ctx) {
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

Status TaskChangelog::ForEachTaskRow(const std::set<int32_t>& tasks, const TaskRowFn& fn) {
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
    if (const std::string& side = side_topic(); !side.empty()) {
      const std::string key = OffsetKey(name, side, task);
      ASSIGN_OR_RETURN(auto value, store_.Get(state::Family::kOffsets, key));
      if (value) RETURN_IF_ERROR(fn(task, state::Family::kOffsets, key, *value));
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

Result<std::map<int32_t, std::map<std::string, std::string>>> TaskChangelog::TaskOutRows(const std::set<int32_t>& tasks) {
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

uint64_t TaskChangelog::EpochOf(int32_t task) const {
  const auto epoch = task_epochs_.find(task);
  return epoch == task_epochs_.end() ? 0 : epoch->second;
}

std::vector<std::pair<std::string, std::string>> TaskChangelog::ChangelogHeaders(int32_t task) const {
  std::vector<std::pair<std::string, std::string>> headers = {{"gen", std::to_string(options_.generation)},
                                                              {"inst", options_.instance}};
  if (const uint64_t epoch = EpochOf(task)) headers.emplace_back(kEpochHeader, std::to_string(epoch));
  return headers;
}

Status TaskChangelog::WriteSnapshots(const std::set<int32_t>& tasks) {
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
    const std::string id =
        options_.instance + "/" + std::to_string(EpochOf(task)) + "/" + std::to_string(outbox_.next_seq());
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

Status TaskChangelog::SnapshotIfDue(const std::vector<OutRecord>& out, const TaskOwnership& ownership) {
  if (!options_.changelog || !stage_->KeepsChangelog() || !stage_->StateFamily()) return Status::Ok();
  std::set<int32_t> due;
  for (const auto& r : out) {
    if (!outbox_.IsChangelog(r) || r.partition < 0) continue;
    auto& [since, last] = snapshot_due_[r.partition];
    since += kafka::RecordBytes(r);
    if (since > std::max<uint64_t>(2 * last, options_.snapshot_min_bytes)) due.insert(r.partition);
  }
  // A commit after a revocation still sends tombstones to a given-up task's partition.
  const std::set<int32_t> owned = options_.group ? ownership.Owned() : std::set<int32_t>();
  std::erase_if(due, [&](int32_t task) {
    if (!options_.group || owned.count(task)) return false;
    snapshot_due_.erase(task);
    return true;
  });
  return WriteSnapshots(due);
}

void TaskChangelog::TrimIfDue(TaskOwnership& ownership) {
  // Only in a group: a lone run's changelog partitions are shared with other writers whose
  // snapshots it knows nothing of (a replay's generation), and no restore reads them.
  if (trims_off_ || !options_.group || !options_.admin || !options_.changelog || !stage_->KeepsChangelog()) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - trim_checked_ < options_.trim_interval) return;
  // A group's commit that meets a newer generation makes the client declare the assignment lost
  // (ReportPositions): none while a rebalance may be under way.
  if (!ownership.settled()) return;
  trim_checked_ = now;
  std::map<int32_t, SnapshotTrims::Due> ready = trims_.Ready();
  // A task's snapshot of an earlier ownership (given up and taken back since) is not trimmed by.
  const std::set<int32_t> owned = ownership.Owned();
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
    if (Status confirmed = ownership.ConfirmOwned(owned); !confirmed.ok()) {
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

std::map<int32_t, int64_t> TaskChangelog::trims_asked() const {
  std::lock_guard<std::mutex> lock(trims_mu_);
  return trims_asked_;
}

}  // namespace webindex::pipeline
