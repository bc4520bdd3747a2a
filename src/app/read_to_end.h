// Reading a single-partition control topic (webindex.instances, webindex.generations) up to a
// known end: the loop both readers of such a topic share.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/status.h"
#include "kafka/admin.h"
#include "kafka/consumer.h"

namespace webindex::app {

//! Reads partition 0 of `topic` through `consumer`, assigned there at `*next` or before, until
//! `*next` (the offset after the last record read) reaches `end`, handing each record to `fn`.
//! Records that compaction or retention removed below the partition's start count as read.
//! Unavailable when `end` is not reached within `timeout_ms`.
Status ReadToEnd(kafka::Consumer& consumer, kafka::Admin& admin, const std::string& topic, int64_t end,
                 int timeout_ms, int64_t* next, const std::function<void(const InRecord&)>& fn);

}  // namespace webindex::app
