// The claim a lone `webindex run` holds on its topics: one processor (data dir) at a time reads
// them. A running one says so every few seconds on topic `webindex.instances`; another data dir
// started on the same topics meets its claim and is refused before it writes anything, instead
// of writing records that would stop the first (docs/reliability.md, "Who may write which topic").
// Members of a group share the topics by design and hold no such claim.
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
#include "kafka/client.h"

namespace webindex::app {

//! Who holds the claim: the record on the instances topic (JSON, key "lone").
struct ClaimHolder {
  std::string instance;  //!< the data dir's id (state::DataDir::InstanceId)
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

  //! Checks the topic's last claim: free (none, stopped, this data dir's own on this host, or
  //! one whose holder wrote no heartbeat for three of its intervals) and this process takes it;
  //! otherwise
  //! Aborted, naming the holder's data dir, host and process. `instance` is this data dir's id
  //! (state::DataDir::InstanceId). Writes nothing when refused.
  static Result<std::unique_ptr<InstanceClaim>> Acquire(const kafka::ClientConfig& config, const Options& options,
                                                        const std::string& instance, const std::string& data_dir);
  ~InstanceClaim();
  InstanceClaim(const InstanceClaim&) = delete;
  InstanceClaim& operator=(const InstanceClaim&) = delete;

  //! Writes the record that frees the claim and stops the heartbeats. Idempotent.
  Status Release();

 private:
  InstanceClaim(Options options, kafka::ClientConfig config, ClaimHolder self,
                std::unique_ptr<kafka::Producer> producer);
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
