// A record bound for a Kafka topic, independent of any client library.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

namespace webindex {

struct OutRecord {
  std::string topic;
  int32_t partition = -1;  //!< chosen by the writer so that replays land where the original did
  std::string key;
  std::string value;
  std::vector<std::pair<std::string, std::string>> headers;
  //! Sent with a null value (value must be empty): a compacted topic then forgets the key.
  bool tombstone = false;
};

//! A record read from a Kafka topic; views are valid until the batch that holds it is freed.
struct InRecord {
  std::string_view topic;
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp_ms = -1;  //!< the record's Kafka timestamp, -1 when it has none
  std::string_view key;
  std::string_view value;
  bool tombstone = false;  //!< the value is null (not merely empty)
  //! The record's headers (name, value) in order; views valid like key and value.
  std::vector<std::pair<std::string_view, std::string_view>> headers;

  //! The value of the first header called `name`, or nullopt.
  std::optional<std::string_view> Header(std::string_view name) const {
    for (const auto& [n, v] : headers) {
      if (n == name) return v;
    }
    return std::nullopt;
  }
};

}  // namespace webindex
