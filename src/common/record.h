// A record bound for a Kafka topic, independent of any client library.
#pragma once

#include <cstdint>
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
};

//! A record read from a Kafka topic; views are valid until the batch that holds it is freed.
struct InRecord {
  std::string_view topic;
  int32_t partition = 0;
  int64_t offset = 0;
  int64_t timestamp_ms = -1;  //!< the record's Kafka timestamp, -1 when it has none
  std::string_view key;
  std::string_view value;
};

}  // namespace webindex
