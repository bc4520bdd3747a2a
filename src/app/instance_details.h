// Instance details (docs/graph.md, "Instance details"; Rya's RyaDetails): what a data dir's table
// is and keeps: its name, the webindex version and time that set it up, and the indexes it
// maintains. Recorded in a generation's kMeta family in the commit that sets the generation up;
// every later start maintains exactly what is recorded, whatever its configuration says, so no
// index ever misses statements. `webindex replay --indexes +X,-Y` builds a generation with
// another set.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "app/processor.h"
#include "common/status.h"
#include "graph/index_set.h"
#include "state/store.h"

namespace webindex::app {

struct InstanceDetails {
  std::string name;           //!< instance.name when the instance was made
  std::string version;        //!< the webindex version that set this generation up ("" if unknown)
  int64_t created_ms = -1;    //!< when the instance's first generation was set up (-1: unknown)
  int64_t generation_created_ms = -1;  //!< when this generation was set up (-1: unknown)
  bool web_triples = false;
  graph::IndexSet indexes;
  bool pagerank = true;

  bool operator==(const InstanceDetails&) const = default;
};

//! The webindex version compiled in.
std::string_view Version();

//! What a new instance records: its configuration, set up at `now_ms`.
InstanceDetails DetailsFromConfig(const ProcessorConfig& config, int64_t now_ms);

//! The details recorded in a generation's store. Keys a generation set up before they existed
//! lacks read as: web_triples, temporal, freetext off; pagerank on; name, version, times unknown.
Result<InstanceDetails> ReadDetails(state::Store& store);

//! Records `details` in `batch` (with the generation's set-up).
void RecordDetails(const InstanceDetails& details, state::WriteBatch* batch);

//! The details as the JSON `webindex details` prints, with the data dir's id and generation.
std::string DetailsJson(const InstanceDetails& details, std::string_view instance_id, uint64_t generation);

//! The index names --indexes takes: web_triples, temporal, freetext, pagerank.
inline constexpr std::string_view kIndexNames[] = {"web_triples", "temporal", "freetext", "pagerank"};

//! Applies changes such as "+temporal,-freetext" (a name without a sign adds it).
//! InvalidArgument naming the valid names for anything else.
Status ChangeIndexes(std::string_view changes, InstanceDetails* details);

//! How the configuration differs from the recorded details, as "temporal: on in this table, off in
//! the configuration; ..." and the --indexes argument that would make the table follow it
//! ("+temporal,-freetext"); both empty when they agree.
struct Drift {
  std::string description;
  std::string changes;
};
Drift DriftFrom(const InstanceDetails& recorded, const ProcessorConfig& config);

}  // namespace webindex::app
