#include "http/hangup_watch.h"

#include <poll.h>

#include <vector>

namespace webindex::http {

HangupWatch::HangupWatch(std::chrono::milliseconds period) : period_(period), thread_([this] { Run(); }) {}

HangupWatch::~HangupWatch() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

HangupWatch::Registration::Registration(HangupWatch& watch, int fd, std::atomic<bool>* gone) : watch_(watch) {
  {
    std::lock_guard lock(watch_.mu_);
    id_ = ++watch_.next_id_;
    watch_.watched_.emplace(id_, Entry{fd, gone});
  }
  watch_.wake_.notify_all();
}

HangupWatch::Registration::~Registration() {
  // Under the lock: once erased, the watch never touches this entry's flag again (a poll in
  // flight sets flags only after taking the lock and finding the entry).
  std::lock_guard lock(watch_.mu_);
  watch_.watched_.erase(id_);
}

void HangupWatch::Run() {
  std::vector<pollfd> fds;
  std::vector<uint64_t> ids;
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (watched_.empty()) {
      wake_.wait(lock, [&] { return stopping_ || !watched_.empty(); });
      continue;
    }
    fds.clear();
    ids.clear();
    for (const auto& [id, e] : watched_) {
      fds.push_back(pollfd{e.fd, POLLRDHUP, 0});
      ids.push_back(id);
    }
    lock.unlock();
    // Requests registered meanwhile wait for the next round: at most one period.
    const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(period_.count()));
    lock.lock();
    if (ready > 0) {
      for (size_t i = 0; i < fds.size(); ++i) {
        if ((fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) == 0) continue;
        auto it = watched_.find(ids[i]);
        if (it != watched_.end()) it->second.gone->store(true, std::memory_order_relaxed);
      }
      // A socket that stays readable-hung-up would spin: wait out the period before polling again.
      wake_.wait_for(lock, period_, [&] { return stopping_; });
    }
  }
}

}  // namespace webindex::http
