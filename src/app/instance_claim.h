// The claim a `webindex run` holds on its topics: one lone processor (data dir) or the members of
// one group at a time work on them. A running one says so every second on topic
// `webindex.instances`; a lone run of another data dir, or a member of another group, started
// on the same topics meets the claim and is refused before it writes anything, instead of
// writing records that would stop the first (docs/reliability.md, "Who may write which topic").
// The members of one group share the claim: each beats under the group's name.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/status.h"
#include "kafka/common.h"
#include "kafka/producer.h"

namespace webindex::app {

//! Who holds the claim: the record on the instances topic (JSON, key "lone").
struct ClaimHolder {
  std::string instance;  //!< the data dir's id (state::DataDir::InstanceId)
  std::string group;     //!< the consumer group of a member; "" for a lone run
  std::string data_dir;  //!< as its process was given it
  std::string host;
  int64_t pid = 0;
  int64_t heartbeat_ms = 0;   //!< its wall clock when it wrote the record
  int64_t interval_ms = 0;    //!< how often it writes one
  bool stopped = false;       //!< written by a clean stop: the claim is free
};

std::string EncodeClaim(const ClaimHolder& holder);
Result<ClaimHolder> DecodeClaim(std::string_view json);

//! Holds the claim from Acquire until Release or destruction, writing a heartbeat every
//! `interval_ms` on a thread of its own.
class InstanceClaim {
 public:
  struct Options {
    std::string topic = "webindex.instances";
    int64_t interval_ms = 1000;
    int timeout_ms = 10000;
  };

  //! Checks the topic's last claim: free (none, stopped, this data dir's own on this host, its
  //! group's when `group` is set, or one whose holder wrote no heartbeat for three of its
  //! intervals) and this process takes it; otherwise Aborted, naming the holder (its data dir,
  //! host and process, and its group). `instance` is this data dir's id
  //! (state::DataDir::InstanceId), `group` a member's consumer group ("" for a lone run).
  //! Writes nothing when refused.
  static Result<std::unique_ptr<InstanceClaim>> Acquire(const kafka::ClientConfig& config, const Options& options,
                                                        const std::string& instance, const std::string& data_dir,
                                                        const std::string& group = "");
  //! Acquire's check alone, for a process that writes on these topics beside its data dir's run
  //! (a lone `replay`): Ok when the claim is free or its own, else Aborted naming the holder.
  //! Writes nothing.
  static Status Check(const kafka::ClientConfig& config, const Options& options, const std::string& instance,
                      const std::string& data_dir, const std::string& group = "");
  ~InstanceClaim();
  InstanceClaim(const InstanceClaim&) = delete;
  InstanceClaim& operator=(const InstanceClaim&) = delete;

  //! Stops the heartbeats; a lone run also writes the record that frees the claim (a member
  //! does not: the others of its group may run on). Idempotent.
  Status Release();

 private:
  InstanceClaim(Options options, kafka::ClientConfig config, ClaimHolder self,
                std::unique_ptr<kafka::Producer> producer);
  //! The check of Acquire and Check; the holder this process would be.
  static Result<ClaimHolder> CheckFree(const kafka::ClientConfig& config, const Options& options,
                                       const std::string& instance, const std::string& data_dir,
                                       const std::string& group);
  void Beat();
  //! Produces a claim record; waits for its acknowledgement when flush_timeout_ms > 0.
  Status Send(bool stopped, int flush_timeout_ms);

  const Options options_;
  const kafka::ClientConfig config_;
  std::unique_ptr<kafka::Producer> producer_;
  std::mutex mu_;
  std::condition_variable wake_;
  ClaimHolder self_;
  bool released_ = false;
  std::thread beat_;
};

}  // namespace webindex::app
