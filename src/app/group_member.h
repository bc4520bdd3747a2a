// GroupMember: `webindex run --group NAME` (docs/scale-out.md). Runs the group's current
// generation (group_generations.h) in the data dir's generation of that number and, while a
// `webindex replay --group` builds the next one, that one beside it: a second Processor whose
// stages join the groups "<group>.g<N>.<stage>" (its tasks, changelog records, claims and fences
// carry N, so the generations share every topic and skip each other's records). When the replay
// writes `switched`, the member makes the new generation current: a member with the table once
// its new table is within the replay's switch lag of its inputs, others at once; then it stops
// the old generation's runners and removes it. `aborted` stops the build and removes it.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

#include "app/group_generations.h"
#include "app/processor.h"
#include "state/data_dir.h"

namespace webindex::app {

class GroupMember {
 public:
  //! `on_switch` gets the processor of the generation becoming current before the one it replaces
  //! stops (the HTTP API moves over then).
  GroupMember(ProcessorConfig config, std::function<void(Processor&)> on_switch);
  ~GroupMember();

  //! Reads the group's generations, makes the data dir's current generation the group's (set up
  //! from the replay's record when the data dir lacks it), starts it, and the build in force.
  Status Start();
  //! Until `stop`, a stage fails, or (exit_when_idle) the current generation is idle.
  Status Run(bool exit_when_idle, const std::atomic<bool>& stop);
  Status Stop();

  Processor& current() { return *current_; }
  //! Input records lost to retention, over every generation this member ran.
  uint64_t lost_records() const;

 private:
  //! Refuses the data dir when `generation` was set up by a lone run or another group.
  Status CheckSideOf(uint64_t generation);
  Result<std::unique_ptr<Processor>> StartGeneration(uint64_t generation);
  //! Makes generation g.generation of the data dir the one `g` describes, its indexes `g`'s changes
  //! applied to generation `base`'s: true when a setup of it from the same --from and indexes is
  //! there already (kept), false when it was made now (anything else there removed first).
  Result<bool> PrepareGeneration(const GroupGeneration& g, uint64_t base);
  //! Creates (or resumes) generation g.generation in the data dir and starts it beside the current.
  Status StartBuilder(const GroupGeneration& g);
  Status StopBuilder(const char* why);
  //! Makes the builder's generation current.
  Status SwitchToBuilder();
  //! What the member has to do next for the group's generations to be its own.
  enum class Step {
    kNone,
    kBuild,        //!< start the build in force (stopping another one)
    kDropBuild,    //!< stop the build: it was aborted
    kBuildTarget,  //!< the group switched to a generation this member does not build: build it
    kSwitch,       //!< make the build current (a member with the table: once it caught up)
  };
  Step Next(const GroupGenerations& generations) const;
  //! Twice a second from Run's loop: true when the member must act (Act).
  bool Due();
  Status Act();
  //! Stops the current generation's stages once the group switched away from it (its table goes on).
  Status StopOldStages();

  ProcessorConfig config_;
  std::function<void(Processor&)> on_switch_;
  std::unique_ptr<GenerationWatch> watch_;
  std::optional<state::DataDir> dir_;
  std::unique_ptr<kafka::Admin> admin_;
  std::unique_ptr<Processor> current_, builder_;
  std::optional<GroupGeneration> building_;  // what builder_ builds
  bool old_stages_stopped_ = false;          // current_'s stages, after the group switched away
  std::chrono::steady_clock::time_point refreshed_{};
  std::chrono::steady_clock::time_point waiting_said_{};
  uint64_t lost_ = 0;
};

}  // namespace webindex::app
