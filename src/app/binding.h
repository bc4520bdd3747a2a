// Binding of a data-dir generation to the Kafka cluster and topic positions it was built from.
// A generation's state only means something together with the topics it read: started on
// another cluster, on re-created topics, or with its positions ahead of what the topics hold,
// it would skip or re-apply input and give a wrong table. So a generation records, when it is
// set up, its cluster id and its start positions in one commit, and every start checks them.
#pragma once

#include <cstdint>

#include "app/instance_details.h"
#include "app/processor.h"
#include "kafka/admin.h"
#include "state/store.h"

namespace webindex::app {

//! Watermarks, asked again while the cluster answers with a transient error (a leader moving, a
//! topic just created) for up to 10 s.
Result<std::pair<int64_t, int64_t>> SettledWatermarks(kafka::Admin& admin, const std::string& topic,
                                                      int32_t partition);

//! Writes a new generation's start positions in one commit: `pages` at `from_ms` (< 0: where
//! each partition starts now, and `triples` so; records retention deleted before are logged and
//! added to `deleted_before`), the internal topics at their current ends (what they hold was
//! written by other generations or data dirs), the cluster id, and last the set-up marker.
//! `extra` is added to the same commit, with the instance's `details`.
Status SetUpGeneration(const ProcessorConfig& config, const InstanceDetails& details, kafka::Admin& admin,
                       state::Store& store, int64_t from_ms, state::WriteBatch* extra = nullptr,
                       uint64_t* deleted_before = nullptr);

//! True when the generation in `store` was set up (or adopted from a data dir made before
//! generations recorded their binding).
Result<bool> IsSetUp(state::Store& store);

//! Refuses, with what to do, a generation set up under another application id (app/app_id.h),
//! by a lone run when `config` is a group's member, or by another group (or a member when
//! `config` is a lone run): a data dir never changes sides.
Status CheckSide(const ProcessorConfig& config, state::Store& store, const std::string& where);

//! Refuses, with what to do, a generation on another side (CheckSide), bound to another cluster or whose committed position
//! in an input partition lies beyond that partition's end (topic re-created or truncated).
Status CheckBinding(const ProcessorConfig& config, kafka::Admin& admin, state::Store& store, const std::string& where);

}  // namespace webindex::app
