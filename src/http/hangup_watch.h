// Notices clients that hang up while their request is being answered: a request that runs
// long (a SPARQL query) holds its connection's thread, so nothing reads the socket until it
// ends. One thread polls the sockets of the requests registered at the moment (POLLRDHUP: the
// peer closed its side) and sets each one's flag when its client is gone, so the work stops at
// its next check instead of running to its time budget for nobody. Any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>

namespace webindex::http {

class HangupWatch {
 public:
  //! Polls the registered sockets every `period` (the longest a hang-up goes unnoticed).
  explicit HangupWatch(std::chrono::milliseconds period = std::chrono::milliseconds(50));
  ~HangupWatch();
  HangupWatch(const HangupWatch&) = delete;
  HangupWatch& operator=(const HangupWatch&) = delete;

  //! Watches socket `fd` while a Registration lives: `gone` becomes true once the client has
  //! closed its side of the connection (or the connection failed). `fd` and `gone` must
  //! outlive the Registration.
  class Registration {
   public:
    Registration(HangupWatch& watch, int fd, std::atomic<bool>* gone);
    ~Registration();
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;

   private:
    HangupWatch& watch_;
    uint64_t id_;
  };

 private:
  struct Entry {
    int fd;
    std::atomic<bool>* gone;
  };
  void Run();

  const std::chrono::milliseconds period_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::map<uint64_t, Entry> watched_;  // guarded by mu_
  uint64_t next_id_ = 0;               // guarded by mu_
  bool stopping_ = false;              // guarded by mu_
  std::thread thread_;
};

}  // namespace webindex::http
