// Fencing (docs/scale-out.md §5): a member that lost a task must not change the table. Each task
// (stage, input partition) has an epoch that grows at every change of owner. Every record a task
// writes names the task and its epoch in headers. A new owner, before it processes anything, puts
// a fence marker (task, new epoch) into every partition of every topic the task writes to and then
// claims the task in its changelog (ClaimTask). Receivers remember, per input partition, the
// highest fence epoch of each task (FenceMarks) and drop the records of lower epochs that follow
// it: those of the old owner written after the claim. Works with or without Kafka transactions.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/record.h"
#include "common/status.h"
#include "kafka/admin.h"
#include "kafka/common.h"
#include "kafka/consumer.h"
#include "pipeline/changelog.h"
#include "pipeline/dedupe.h"
#include "state/store.h"

namespace webindex::pipeline {


//! Header naming the task that wrote a record: "<stage>.<input partition>".
inline constexpr char kTaskHeader[] = "task";
//! Header with the writing task's epoch (decimal); absent: 0.
inline constexpr char kEpochHeader[] = "ep";
//! Header of a fence marker: the task it fences (its epoch in kEpochHeader).
inline constexpr char kFenceHeader[] = "fence";
//! Header of the changelog record that claims a task (its epoch in kEpochHeader).
inline constexpr char kClaimHeader[] = "claim";

//! "<stage>.<partition>": how records name a task.
std::string TaskName(std::string_view stage, int32_t partition);
//! The tasks' names, comma-separated ("uri.0, uri.2"), for logs.
std::string TaskNames(std::string_view stage, const std::set<int32_t>& partitions);
//! An epoch as a person reads it: "N" for a lone run's, "N of group generation G" in a group,
//! whose epochs carry the group generation in their high 32 bits (ClaimEpoch).
std::string DescribeEpoch(uint64_t epoch);
//! kMeta key of a task's epoch (Fixed64BE; absent: 0). It is restored from the changelog's claims.
std::string TaskEpochKey(std::string_view stage, int32_t partition);
//! A header's decimal number; nullopt when it is not one.
std::optional<uint64_t> ParseUint(std::string_view s);
//! The epoch in a record's kEpochHeader: 0 when absent, nullopt when not a number.
std::optional<uint64_t> EpochOf(const InRecord& record);

//! A fence marker for `partition` of `topic`: records of `task` with an epoch below `epoch` that
//! follow it there are void. Its value is a JSON document for readers that do not look at headers.
//! `of` (header "of"; "" leaves it out) names whose records it fences: the writer's records
//! instance (TopicLayout::instance), for readers of topics that several processors share.
OutRecord FenceRecord(const std::string& topic, int32_t partition, std::string_view task, uint64_t epoch,
                      uint64_t generation, std::string_view instance, std::string_view of = {});

//! A receiving stage's fence epochs: per (input partition, writing task), the highest epoch a
//! fence marker of its generation announced. Kept in the kDedupe family under
//! "fence/<stage>/<partition>/<task>", committed with the batch like dedupe marks. One thread.
class FenceMarks {
 public:
  FenceMarks(const std::string& stage, uint64_t generation) : marks_("fence/" + stage + "/"), generation_(generation) {}
  Status Load(state::Store& store) { return marks_.Load(store); }
  enum class Verdict {
    kAccept,  //!< a record to process
    kMarker,  //!< a fence marker: noted (Flush writes it); not a record to process
    kFenced,  //!< written by an owner the task has left since: drop it
  };
  Verdict Admit(const InRecord& record);
  //! Adds the marks changed since the last Flush to the batch, each to its input partition's task.
  void Flush(BatchContext& ctx) { marks_.Flush(ctx); }
  //! Forgets marks not yet flushed.
  void Rollback() { marks_.Rollback(); }

 private:
  PartitionMarks marks_;
  uint64_t generation_;
};

//! FenceMarks::Admit for a stage: true for a record to process; a fenced record is counted
//! (Metrics::fenced_records) and dropped, a fence marker noted.
bool Admitted(FenceMarks& marks, const InRecord& record, BatchContext& ctx);

//! What ClaimTask fences and where it claims.
struct ClaimSpec {
  std::string stage;
  int32_t task = 0;
  uint64_t generation = 1;
  std::string instance;  //!< the claiming data dir
  std::string changelog_topic;
  //! Every topic the task writes records to, with its partition count (dead letters excepted:
  //! nothing reads them back).
  std::vector<std::pair<std::string, int32_t>> outputs;
  std::string records_instance;  //!< the fence markers' "of" (FenceRecord)
  //! TakeOverTask: set when the store holds a copy of the task that this data dir kept at its
  //! last stop (StageRunner): the task as a restore up to `offset` leaves it, at `epoch`.
  struct LocalCopy {
    int64_t offset = 0;
    uint64_t epoch = 0;
  };
  std::optional<LocalCopy> local;
  //! The claimer's group generation (kafka::Consumer::GroupGeneration; -1: not in a group, or not
  //! known): its claim's epoch carries it (NextEpoch).
  int32_t group_generation = -1;
  //! Group members: asked before a claim that the generation does not settle (a claim of a later
  //! generation in force, another member's claim of the same one, or `group_generation` unknown).
  //! Ok: the group still counts the claimer (after a later generation's claim: the group was made
  //! anew, its generations began again), and it claims. Aborted: the group refused it (its
  //! generation is over): the task is another member's, nothing is claimed. Otherwise: the
  //! takeover fails with that error.
  std::function<Status()> confirm_member;
};

//! The epoch a claimer of group generation `generation` claims after the epoch `current` in
//! force: one more, and at least the generation in the high 32 bits, so that the claims of a
//! later generation outrank every claim of an earlier one. A member that the group dropped
//! while it took a task over (a stall past its session timeout) and that claims after the task's
//! next owner is thereby outranked: its claim is void and its fence markers void nothing.
//! nullopt when `current` is of a later generation than `generation` (>= 1). With `generation`
//! < 1 (no group): current + 1.
std::optional<uint64_t> NextEpoch(uint64_t current, int32_t generation);

//! Makes `epoch` the task's epoch: a fence marker into every partition of every output, all
//! acknowledged, then the claim record in the task's changelog partition, acknowledged. Records
//! of older epochs that the changelog holds after the claim are void (TaskRestore skips them),
//! and so are those that reach a receiver after the fence marker. The caller then reads the
//! changelog to its end (TaskRestore::CatchUp) and checks that the claim held (epoch()).
Status ClaimTask(const kafka::ClientConfig& config, const ClaimSpec& spec, uint64_t epoch);
//! ClaimTask for several tasks: one round of fence markers for all, then one of claims.
Status ClaimTasks(const kafka::ClientConfig& config, const std::vector<std::pair<const ClaimSpec*, uint64_t>>& claims);
//! The changelog key of the claim of `task` at `epoch`: the task's epoch key (kMeta
//! TaskEpochKey), '\0', the epoch (8 bytes, big-endian). One key per epoch, so that compaction
//! keeps every claim: of two claims of one epoch, the first in the log wins.
std::string ClaimKey(uint64_t generation, std::string_view stage, int32_t task, uint64_t epoch);

struct TakeOverStats {
  uint64_t epoch = 0;  //!< the task's epoch now, this owner's
  RestoreStats restore;
  //! false: a claim of a later group generation is in force and the group does not count the
  //! claimer any more (ClaimSpec::confirm_member): nothing was claimed, the task is not its.
  bool ours = true;
};
//! What a member given a task does before it processes: reads the task's changelog into `store`,
//! claims the next epoch (ClaimTask) and reads on to the end. Aborted when another claim of that
//! epoch came first (the task is not this member's; nothing of it may be written).
//! With `spec.local`, the read begins at the copy's offset; NotFound when the copy is not current
//! (a claim follows it: another member owned the task since, and what it wrote may be compacted
//! away; or the log's start has passed it): the caller drops the task's rows and takes it over
//! from the changelog instead. The copy's rows may be changed by then.
//! `restore_lag`, when given, counts the changelog records left to read while it runs.
Result<TakeOverStats> TakeOverTask(const kafka::ClientConfig& config, kafka::Admin& admin, state::Store& store,
                                   const ClaimSpec& spec, std::atomic<int64_t>* restore_lag = nullptr);
//! TakeOverTask for several tasks (a member given them in one assignment): each changelog read,
//! then one round of fence markers and one of claims for all (ClaimTasks), then each read on.
//! One result per spec, in order; a task lost to another claim does not stop the others.
std::vector<Result<TakeOverStats>> TakeOverTasks(const kafka::ClientConfig& config, kafka::Admin& admin,
                                                 state::Store& store, const std::vector<ClaimSpec>& specs,
                                                 std::atomic<int64_t>* restore_lag = nullptr);

}  // namespace webindex::pipeline
