// The application id (`--app-id`, `[kafka] app_id`; "webindex" by default): the name of one
// index on a Kafka cluster. It prefixes every topic and consumer group the index owns (its
// internal, output and control topics, the groups its readers report under), so that two ids on
// one cluster are two independent indexes of the same input topics (`pages`, `triples`), each
// exact, each with its own claim (app/instance_claim.h). A data dir is built under one id and
// keeps it (app/binding.h).
#pragma once

#include <string>
#include <string_view>

#include "app/processor.h"
#include "common/status.h"

namespace webindex::app {

inline constexpr char kDefaultAppId[] = "webindex";

//! Ok for 1 to 100 characters of [A-Za-z0-9._-] starting with a letter or digit (a Kafka topic
//! name's characters, with room for the suffixes).
Status CheckAppId(std::string_view id);

//! Gives `config`'s owned topics (those named "webindex.*"), their partition counts and settings,
//! the changelog prefix and the runners' consumer groups the prefix of `config->app_id`. The
//! input topics keep their names. Idempotent; a no-op for the default id.
void ApplyAppId(ProcessorConfig* config);

//! The consumer group name of `config`'s group as Kafka knows it: the group's own name under the
//! default id, "<app_id>.<group>" under another, so that two indexes' groups of one name differ.
std::string KafkaGroupName(const ProcessorConfig& config);

}  // namespace webindex::app
