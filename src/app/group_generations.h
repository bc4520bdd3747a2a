// The generations of a consumer group (docs/scale-out.md §9.6). A lone data dir keeps its
// generations in its GENERATION file; a group's stage state lives in changelogs shared by its
// members, so its generations are the group's: one compacted topic (topics/generations.toml),
// keyed by group, says which generation is current and which one a replay is building.
//
//   building N  (written by `webindex replay --group`): every member starts a second set of
//               runners for N beside the current generation's, in the groups "<group>.g<N>.<stage>";
//   switched N  (the replay, once N caught up): every member makes N current and retires the
//               older one (a member with the table once its N table caught up too);
//   aborted N   (`webindex replay --group --abort`): every member stops N's runners and drops N.
//
// Records are folded in log order; a member reads the topic when it starts and then follows it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "kafka/admin.h"
#include "kafka/common.h"
#include "kafka/consumer.h"

namespace webindex::app {

struct GroupGeneration {
  enum class State { kBuilding, kSwitched, kAborted };
  uint64_t generation = 1;
  State state = State::kSwitched;
  int64_t from_ms = -1;   //!< the replay's --from (ms since the epoch), -1: earliest
  std::string indexes;    //!< the replay's --indexes changes ("" none)
  int64_t switch_lag = 1000;  //!< a table member switches once its new table is this close to its inputs
  int64_t at_ms = 0;      //!< when it was written

  friend bool operator==(const GroupGeneration&, const GroupGeneration&) = default;
};

std::string_view StateName(GroupGeneration::State state);
//! The record's value: one JSON object (readable with kcat).
std::string EncodeGroupGeneration(const GroupGeneration& g);
Result<GroupGeneration> DecodeGroupGeneration(std::string_view json);

//! What a group's records say, folded in log order.
struct GroupGenerations {
  uint64_t current = 1;  //!< the last generation switched to (1: the group never replayed)
  std::optional<GroupGeneration> current_record;  //!< its `switched` record (none for 1 by default)
  std::optional<GroupGeneration> building;  //!< a replay in force (generation > current)
  //! The highest generation any record names: a new build takes the next one, so that no build
  //! gets the number of an earlier one, aborted or reserved (`aborted` written before a bulk
  //! build sends anything: group_bulk.h), whose records the changelogs may still hold.
  uint64_t highest = 1;

  void Apply(const GroupGeneration& g);
  //! Whether runners of `generation` may trim their changelogs at `now_ms`: each partition holds
  //! the records of every live generation, and a trim deletes everything before its offset, so
  //! only the current generation trims, nobody while another is being built, and not in the
  //! first kRetireGraceMs after a switch: members stop the retired generation's stages when they
  //! read the switch (within seconds), and until then one could still restore a task of it.
  bool TrimsAllowed(uint64_t generation, int64_t now_ms) const {
    return !building && generation == current && (!current_record || now_ms - current_record->at_ms >= kRetireGraceMs);
  }
  static constexpr int64_t kRetireGraceMs = 5 * 60 * 1000;
  //! The group name of `stage`'s runners of `generation`: "<group>.<stage>" for generation 1 (as
  //! before generations), "<group>.g<N>.<stage>" after.
  static std::string GroupIdOf(const std::string& group, uint64_t generation, std::string_view stage);
};

//! The key of `g`'s record for group `group`: "current:<group>" for `switched`, "build:<group>"
//! for `building` and `aborted`. Compaction keeps the last record of each key, so the current
//! generation survives any number of builds and aborts after it (the fold needs the last
//! `switched` and the last build record, in any order).
std::string GenerationKey(const std::string& group, GroupGeneration::State state);

//! Follows topic `topic`'s records of group `group`. Refresh reads what was appended since the
//! last call, up to the end the brokers report when it starts, so that what it returns includes
//! every record written before the call. A record that does not decode (written by a later
//! version, or by hand) is logged and passed over. Thread-safe.
class GenerationWatch {
 public:
  static Result<std::unique_ptr<GenerationWatch>> Open(const kafka::ClientConfig& config, std::string topic,
                                                       std::string group);
  ~GenerationWatch();
  Result<GroupGenerations> Refresh(int timeout_ms = 10000);
  //! What the last Refresh read.
  GroupGenerations last() const;

 private:
  GenerationWatch(std::string topic, std::string group) : topic_(std::move(topic)), group_(std::move(group)) {}
  std::string topic_, group_;
  mutable std::mutex mu_;
  std::unique_ptr<kafka::Admin> admin_;
  std::unique_ptr<kafka::Consumer> consumer_;
  int64_t next_ = 0;
  GroupGenerations state_;
};

//! Appends `g` as group `group`'s latest record and waits for the brokers' acknowledgement.
Status AppendGroupGeneration(const kafka::ClientConfig& config, const std::string& topic, const std::string& group,
                             const GroupGeneration& g);

}  // namespace webindex::app
