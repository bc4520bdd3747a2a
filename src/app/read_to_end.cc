#include "app/read_to_end.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

namespace webindex::app {

Status ReadToEnd(kafka::Consumer& consumer, kafka::Admin& admin, const std::string& topic, int64_t end,
                 int timeout_ms, int64_t* next, const std::function<void(const InRecord&)>& fn) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  kafka::MessageBatch batch;
  while (*next < end) {
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::Unavailable(fmt::format("reading {} timed out at offset {} of {}", topic, *next, end));
    }
    RETURN_IF_ERROR(consumer.PollBatch(100, 100, &batch));
    for (const InRecord& r : batch.records()) {
      *next = std::max(*next, r.offset + 1);
      fn(r);
    }
    if (batch.empty()) {  // gaps: what is below the partition's start counts as read
      auto now = admin.Watermarks(topic, 0, timeout_ms);
      if (now.ok()) *next = std::max(*next, now->first);
    }
  }
  return Status::Ok();
}

}  // namespace webindex::app
