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

Status TaskRestore::CatchUp() {
  ASSIGN_OR_RETURN(auto marks, admin_.Watermarks(topic_, task_, kTimeoutMs));
  const auto [low, end] = marks;
  // Compaction keeps a log's start; only deletion (retention) moves it, and then the state of
  // the records it took is gone: restoring the rest would give a wrong state without a word.
  next_ = std::max<int64_t>(next_, 0);
  if (next_ < low) return Truncated(next_, low);
  if (next_ >= end) return Status::Ok();
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
    for (const auto& loss : consumer_->TakeDataLoss()) return Truncated(loss.from, loss.to);
    for (const auto& r : batch.records()) {
      if (r.offset < next_) continue;
      next_ = r.offset + 1;
      ++stats_.records;
      RETURN_IF_ERROR(Apply(r));
    }
    batch.Clear();
  }
  stats_.unfinished = pending_.size();
  if (!pending_.empty()) {
    LOG_WARN(
        "restore of {}[{}]: {} changes after the last closed commit are not applied (their writer stopped "
        "between them and the record closing them)",
        topic_, task_, pending_.size());
  }
  return Status::Ok();
}

Status TaskRestore::Truncated(int64_t from, int64_t to) const {
  return Status::Unavailable(
      "cannot restore task " + std::to_string(task_) + " from " + Where(from) + ": records [" + std::to_string(from) +
      ", " + std::to_string(to) +
      ") of its changelog were deleted by the broker's retention, and the task's state needs them. A changelog "
      "topic must be compacted, never deleted (cleanup.policy=compact without retention); the embedded broker keeps "
      "only about 5 MiB per partition and does not compact: spread the state over more partitions or use a Kafka "
      "cluster");
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
  if (static_cast<char>(key->family) == kChangelogCommit && key->state_key.empty()) {
    state::WriteBatch wb(store_);
    for (auto& c : pending_) {
      if (c.value) {
        wb.Put(c.family, c.key, *c.value);
      } else {
        wb.Delete(c.family, c.key);
      }
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

Result<RestoreStats> RestoreTask(const kafka::ClientConfig& config, kafka::Admin& admin, state::Store& store,
                                 const std::string& topic, int32_t task, uint64_t generation,
                                 const std::string& instance) {
  TaskRestore restore(config, admin, store, topic, task, generation, instance);
  RETURN_IF_ERROR(restore.CatchUp());
  return restore.stats();
}

}  // namespace webindex::pipeline
