#include "app/processor.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "app/app_id.h"
#include "app/binding.h"
#include "app/group_generations.h"
#include "app/instance_details.h"
#include "common/log.h"
#include "common/time.h"
#include "graph/graph_stage.h"
#include "pipeline/page_stage.h"
#include "pipeline/uri_stage.h"
#include "rank/rank_store.h"
#include "sink/sink_stage.h"

namespace webindex::app {
namespace {
constexpr int kAdminTimeoutMs = 10000;
constexpr int kLagTimeoutMs = 2000;  // a metrics scrape must not hang on a slow broker
}  // namespace

std::vector<std::pair<std::string, std::string>> ChangelogInputs(const ProcessorConfig& config) {
  const auto& n = config.topics;
  return {{"page", n.pages}, {"uri", n.uri_deltas}, {"domain", n.domain_deltas}};
}

std::vector<kafka::TopicSpec> TopicSpecs(const ProcessorConfig& config) {
  const auto& n = config.topics;
  std::vector<std::string> names = {n.pages,   n.triples,      n.uri_deltas, n.domain_deltas,
                                    n.exports, n.dead_letters, n.pagerank};
  if (!config.group.empty()) names.push_back(n.generations);  // only groups have generations of their own
  auto partitions_of = [&](const std::string& name, int fallback) {
    auto it = config.partitions.find(name);
    return it == config.partitions.end() ? fallback : it->second;
  };
  std::vector<kafka::TopicSpec> specs;
  for (const std::string& name : names) {
    kafka::TopicSpec spec;
    spec.name = name;
    spec.partitions = partitions_of(name, 1);
    if (auto c = config.topic_config.find(name); c != config.topic_config.end()) spec.config = c->second;
    specs.push_back(std::move(spec));
  }
  {  // Task p forwards to partition p: as many partitions as pages, unless declared otherwise.
    kafka::TopicSpec spec;
    spec.name = n.page_forwards;
    spec.partitions = partitions_of(spec.name, partitions_of(n.pages, 1));
    if (auto c = config.topic_config.find(spec.name); c != config.topic_config.end()) spec.config = c->second;
    specs.push_back(std::move(spec));
  }
  // Changelogs: as many partitions as their stage's input, unless declared otherwise.
  for (const auto& [stage, input] : ChangelogInputs(config)) {
    kafka::TopicSpec spec;
    spec.name = pipeline::ChangelogTopic(config.runner.changelog_prefix, stage);
    spec.partitions = partitions_of(spec.name, partitions_of(input, 1));
    // Kept until trimmed: the runners delete what their snapshots make unneeded (changelog_trim.h).
    // Compaction could let a former owner's void record hide a key's last valid value.
    spec.config = {{"cleanup.policy", "delete"}, {"retention.ms", "-1"}, {"retention.bytes", "-1"}};
    if (auto c = config.topic_config.find(spec.name); c != config.topic_config.end()) spec.config = c->second;
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::vector<kafka::TopicSpec> ControlTopicSpecs(const ProcessorConfig& config) {
  // Compacted: only each key's newest record matters.
  std::vector<kafka::TopicSpec> specs;
  for (const std::string& name : {config.topics.instances, config.topics.generations, config.topics.table_members}) {
    specs.push_back({name, 1, 1, {{"cleanup.policy", "compact"}}});
  }
  return specs;
}

Result<bool> KeepsTable(state::Store& store) {
  ASSIGN_OR_RETURN(auto value, store.Get(state::Family::kMeta, kKeepsTableKey));
  return !value || *value != "0";
}

Processor::Processor(ProcessorConfig config) : config_(std::move(config)) {}

Processor::~Processor() { Stop().PermitUncheckedError(); }

Status Processor::EnsureTopics() {
  ASSIGN_OR_RETURN(admin_, kafka::Admin::Create(config_.kafka));
  return admin_->EnsureTopics(TopicSpecs(config_), kAdminTimeoutMs)
      .WithContext("cannot reach Kafka at " + config_.kafka.brokers + " (check --brokers / bootstrap.servers)");
}

Status Processor::Start() {
  const bool group = !config_.group.empty();
  if (group) config_.runner.changelog = true;  // tasks move only with their state
  RETURN_IF_ERROR(EnsureTopics());
  pipeline::TopicLayout layout;
  layout.names = config_.topics;
  ASSIGN_OR_RETURN(layout.page_partitions, admin_->PartitionCount(config_.topics.pages, kAdminTimeoutMs));
  ASSIGN_OR_RETURN(layout.uri_delta_partitions, admin_->PartitionCount(config_.topics.uri_deltas, kAdminTimeoutMs));
  ASSIGN_OR_RETURN(layout.domain_delta_partitions,
                   admin_->PartitionCount(config_.topics.domain_deltas, kAdminTimeoutMs));
  ASSIGN_OR_RETURN(layout.export_partitions, admin_->PartitionCount(config_.topics.exports, kAdminTimeoutMs));
  ASSIGN_OR_RETURN(dir_, state::DataDir::Open(config_.data_dir, /*create=*/true));
  if (config_.generation == 0) {
    ASSIGN_OR_RETURN(generation_, dir_->Current());
  } else {
    generation_ = config_.generation;
  }
  layout.generation = generation_;
  ASSIGN_OR_RETURN(const std::string instance, dir_->InstanceId());
  // Records name their writer: this data dir, or the group whose members' records are each other's.
  layout.instance = group ? "group:" + config_.group : instance;
  ASSIGN_OR_RETURN(store_, state::Store::Open(dir_->PathOf(generation_), config_.store));
  const std::string where = "generation " + std::to_string(generation_) + " of data dir " + config_.data_dir;
  ASSIGN_OR_RETURN(bool set_up, IsSetUp(*store_));
  if (!set_up) {
    if (group) {
      LOG_INFO("{} is new: its stage tasks start where group {}'s changelogs say, its table from the start of {}",
               where, config_.group, config_.topics.exports);
    } else {
      LOG_INFO("{} is new: reading {} from its start, the internal topics from their current ends", where,
               config_.topics.pages);
    }
    uint64_t deleted_before = 0;
    RETURN_IF_ERROR(
        SetUpGeneration(config_, DetailsFromConfig(config_, NowMs()), *admin_, *store_, -1, nullptr, &deleted_before));
    metrics_.deleted_before_start += deleted_before;
  }
  RETURN_IF_ERROR(CheckBinding(config_, *admin_, *store_, where));
  {  // for `query` and `dump`, which must not answer from a table nobody keeps
    state::WriteBatch wb(*store_);
    wb.Put(state::Family::kMeta, kKeepsTableKey, config_.table ? "1" : "0");
    RETURN_IF_ERROR(store_->Write(wb));
  }
  ASSIGN_OR_RETURN(auto from, state::GetFixed64(*store_, state::Family::kMeta, kFromMsKey,
                                                "generation start time in " + dir_->PathOf(generation_)));
  const int64_t from_ms = from ? static_cast<int64_t>(*from) : -1;

  auto route = [this](uint64_t opaque, const Status& st, int64_t offset) {
    const int index = pipeline::RunnerIndexOf(opaque);
    if (index >= 0 && index < static_cast<int>(runners_.size())) {
      runners_[index]->OnDelivered(pipeline::RunnerSeqOf(opaque), st, offset);
    }
  };
  const auto& n = config_.topics;
  std::vector<std::string> outputs = {n.uri_deltas, n.domain_deltas, n.exports, n.dead_letters, n.pagerank};
  if (config_.runner.changelog) {
    // The page stage forwards events to their page's task, partition p to task p (PageStage).
    outputs.push_back(n.page_forwards);
    {
      ASSIGN_OR_RETURN(int want, admin_->PartitionCount(n.pages, kAdminTimeoutMs));
      ASSIGN_OR_RETURN(int have, admin_->PartitionCount(n.page_forwards, kAdminTimeoutMs));
      if (have != want) {
        return Status::InvalidArgument(fmt::format(
            "topic {} has {} partitions, but {} has {}: they must be equal (create {} with {} partitions)",
            n.page_forwards, have, n.pages, want, n.page_forwards, want));
      }
    }
    // Task (stage, p) writes partition p of its stage's changelog: partitioned like the input.
    for (const auto& [stage, input] : ChangelogInputs(config_)) {
      const std::string topic = pipeline::ChangelogTopic(config_.runner.changelog_prefix, stage);
      ASSIGN_OR_RETURN(int want, admin_->PartitionCount(input, kAdminTimeoutMs));
      ASSIGN_OR_RETURN(int have, admin_->PartitionCount(topic, kAdminTimeoutMs));
      if (have != want) {
        return Status::InvalidArgument(fmt::format(
            "changelog topic {} has {} partitions, but the {} stage's input {} has {}: they must be equal (create {} "
            "with {} partitions, cleanup.policy=delete, retention.ms=-1)",
            topic, have, stage, input, want, topic, want));
      }
      outputs.push_back(topic);
    }
  }
  // Records are built to fit their topics; batches of small ones must fit the smallest topic.
  const kafka::RecordLimits limits = admin_->LimitsOf(outputs, config_.kafka, kAdminTimeoutMs);
  kafka::ClientConfig producer_config = config_.kafka;
  producer_config.properties["message.max.bytes"] = std::to_string(limits.producer_max_message_bytes);
  ASSIGN_OR_RETURN(producer_, kafka::Producer::Create(producer_config, route));
  limits_ = limits;
  producer_config_ = producer_config;
  export_partitions_ = layout.export_partitions;
  RETURN_IF_ERROR(producer_->WarmUp({n.uri_deltas, n.domain_deltas, n.exports, n.dead_letters}, kAdminTimeoutMs));

  std::vector<std::unique_ptr<pipeline::Stage>> stages;
  if (config_.stages) stages.push_back(std::make_unique<pipeline::PageStage>(layout, config_.limits, from_ms));
  // The table maintains exactly the indexes it recorded when it was set up, whatever the
  // configuration says now: an index never misses statements.
  ASSIGN_OR_RETURN(const InstanceDetails details, ReadDetails(*store_));
  if (const Drift drift = DriftFrom(details, config_); !drift.description.empty() && config_.compute_rank) {
    LOG_WARN("{}: {}. The table keeps the indexes it was built with; `webindex replay --data-dir {} --indexes {}` "
             "rebuilds it with the configured ones (`webindex details` shows what it keeps)",
             where, drift.description, config_.data_dir, drift.changes.empty() ? "..." : drift.changes);
  }
  const graph::IndexSet& indexes = details.indexes;
  const bool whole_table = config_.table && !config_.table_shards;
  if (whole_table) stages.push_back(std::make_unique<graph::GraphStage>(layout, from_ms, indexes));
  if (config_.stages) {
    stages.push_back(std::make_unique<pipeline::UriStage>(layout));
    stages.push_back(std::make_unique<pipeline::DomainStage>(layout));
  }
  if (whole_table) stages.push_back(std::make_unique<sink::SinkStage>(layout, details.web_triples, indexes));
  uint64_t max_backlog = 0;
  if (config_.max_backlog_bytes) {
    max_backlog = *config_.max_backlog_bytes;
  } else if (admin_->IsEmbedded(kAdminTimeoutMs)) {
    max_backlog = ProcessorConfig::kEmbeddedBacklogBytes;  // a real cluster keeps what its retention says
  }
  if (!group && max_backlog > 0) {
    // A lone run reads every partition of its internal topics: its stages wait for each other.
    flow_ = std::make_unique<pipeline::FlowControl>(max_backlog);
    for (const auto& stage : stages) {
      const std::string& topic = stage->input_topic();
      if (topic != n.uri_deltas && topic != n.domain_deltas && topic != n.exports) continue;
      ASSIGN_OR_RETURN(int partitions, admin_->PartitionCount(topic, kAdminTimeoutMs));
      pipeline::FlowControl::Topic* watched = flow_->Watch(topic, partitions);
      for (int32_t p = 0; p < partitions; ++p) {  // what was written before this start and is unread
        ASSIGN_OR_RETURN(auto marks, admin_->Watermarks(topic, p, kAdminTimeoutMs));
        ASSIGN_OR_RETURN(auto at, state::GetFixed64(*store_, state::Family::kOffsets,
                                                    pipeline::OffsetKey(stage->name(), topic, p),
                                                    "position in " + topic));
        const int64_t position = at ? static_cast<int64_t>(*at) : marks.first;
        pipeline::FlowControl::Resync(watched, p, marks.second - std::max(position, marks.first));
      }
    }
  }
  for (auto& stage : stages) {
    ASSIGN_OR_RETURN(int partitions, admin_->PartitionCount(stage->input_topic(), kAdminTimeoutMs));
    const int index = static_cast<int>(runners_.size());
    pipeline::RunnerOptions options = config_.runner;
    options.generation = generation_;
    options.limits = limits;
    options.dead_letters = n.dead_letters;
    options.instance = instance;  // claims a task for this data dir
    options.records_instance = layout.instance;
    options.flow = flow_.get();
    if (group && stage->StateFamily()) {
      kafka::GroupMembership membership;
      membership.group_id = GroupGenerations::GroupIdOf(KafkaGroupName(config_), generation_, stage->name());
      if (!config_.group_instance_id.empty()) {
        membership.instance_id = config_.group_instance_id + "." + std::string(stage->name());
      }
      membership.session_timeout_ms = config_.group_session_timeout_ms;
      options.group = membership;
      if (config_.trims_allowed) {
        options.trims_allowed = [allowed = config_.trims_allowed, gen = generation_] { return allowed(gen); };
      }
      // For takeovers and changelog trims; one per runner thread.
      ASSIGN_OR_RETURN(auto admin, kafka::Admin::Create(config_.kafka));
      options.admin = admin.get();
      group_admins_.push_back(std::move(admin));
    }
    runners_.push_back(std::make_unique<pipeline::StageRunner>(std::move(stage), index, partitions, *store_,
                                                               *producer_, config_.kafka, metrics_, options));
  }
  // Build every runner before starting any, so delivery reports always find their runner.
  for (auto& runner : runners_) RETURN_IF_ERROR(runner->Start());
  if (config_.table_shards) {
    TableShardsOptions shards;
    shards.dir = dir_->PathOf(generation_) + "-shards";
    shards.group_id = GroupGenerations::GroupIdOf(KafkaGroupName(config_), generation_, "table");
    shards.session_timeout_ms = config_.group_session_timeout_ms;
    shards.kafka = config_.kafka;
    shards.layout = layout;
    shards.runner = config_.runner;
    shards.runner.generation = generation_;
    shards.runner.limits = limits;
    shards.runner.dead_letters = n.dead_letters;
    shards.runner.instance = instance;
    shards.runner.records_instance = layout.instance;
    shards.store = config_.store;
    ASSIGN_OR_RETURN(table_shards_, TableShards::Start(std::move(shards), metrics_));
  }
  if (config_.compute_rank) RETURN_IF_ERROR(StartRank());
  if (config_.table_shards) {
    LOG_INFO("processing {} -> this member's shards of the query table in {}-shards (brokers {})", config_.topics.pages,
             dir_->PathOf(generation_), config_.kafka.brokers);
  } else if (config_.table) {
    LOG_INFO("processing {} -> query table in {} (brokers {})", config_.topics.pages, dir_->PathOf(generation_),
             config_.kafka.brokers);
  } else {
    LOG_INFO("processing {} -> stage state in {}, no query table (brokers {})", config_.topics.pages,
             dir_->PathOf(generation_), config_.kafka.brokers);
  }
  if (group) {
    const std::string shards_group = GroupGenerations::GroupIdOf(KafkaGroupName(config_), generation_, "table");
    LOG_INFO("member of group {}: {}{}", config_.group,
             config_.stages ? fmt::format("the page, uri and domain stages read the partitions the groups {}.<stage> "
                                          "assign this process",
                                          config_.group)
                            : "no stages (--no-stages)",
             config_.table_shards ? "; the table's shards: those its group " + shards_group + " assigns"
             : config_.table       ? std::string("; the graph stage and the table read every partition (a replica)")
                                   : std::string("; no table (start a member with --table or --http for one)"));
  }
  return Status::Ok();
}

Status Processor::StartRank() {
  if (rank_ || !config_.table || config_.table_shards || !store_) return Status::Ok();
  return StartRankOn(*store_, nullptr, {});
}

Status Processor::StartShardRank(std::shared_ptr<query::TableSource> table, std::function<uint64_t()> first_id) {
  if (rank_ || !config_.table_shards || !table_shards_ || !config_.compute_rank) return Status::Ok();
  ASSIGN_OR_RETURN(const InstanceDetails details, ReadDetails(*store_));
  if (!details.pagerank) return Status::Ok();
  const std::string dir = dir_->PathOf(generation_) + "-shards/rank";
  ASSIGN_OR_RETURN(auto results, state::Store::Open(dir, config_.store));
  ASSIGN_OR_RETURN(auto current, rank::CurrentRankResult(*results));
  shard_rank_id_ = current ? current->id : 0;
  rank_store_ = std::move(results);
  TableShards* shards = table_shards_.get();
  auto computes = [shards] {
    const auto sources = shards->Sources();
    return !sources.empty() && sources[0] != nullptr;
  };
  if (Status st = StartRankOn(*rank_store_, std::move(table), std::move(computes), std::move(first_id)); !st.ok()) {
    StopShardRank();
    return st;
  }
  if (rank_) {
    LOG_INFO("pagerank: of the whole partitioned table, computed while this member serves table shard 0; "
             "results in {}",
             dir);
  }
  return Status::Ok();
}

void Processor::StopShardRank() {
  if (!rank_store_) return;
  if (rank_) rank_->Stop();
  rank_.reset();
  publisher_.reset();
  rank_store_.reset();
  shard_rank_id_ = 0;
}

state::Store* Processor::ShardRankResults() const {
  if (!rank_store_ || !rank_ || !table_shards_) return nullptr;
  const auto sources = table_shards_->Sources();
  return !sources.empty() && sources[0] != nullptr ? rank_store_.get() : nullptr;
}

Status Processor::StartRankOn(state::Store& results, std::shared_ptr<query::TableSource> table,
                              std::function<bool()> active, std::function<uint64_t()> first_id) {
  ASSIGN_OR_RETURN(const InstanceDetails details, ReadDetails(*store_));
  if (!details.pagerank) return Status::Ok();
  const auto& n = config_.topics;
  rank::RankServiceOptions rank = config_.rank;
  if (rank.interval.count() <= 0) rank.interval = rank::RankServiceOptions{}.interval;
  rank.exports_topic = n.exports;
  rank.exports_partitions = export_partitions_;
  rank.active = std::move(active);
  rank.first_id = std::move(first_id);
  // A partitioned table's members advertise the id of the current result (app/table_members.h).
  auto note_id = [this, &results, sharded = table != nullptr] {
    if (!sharded) return;
    if (auto current = rank::CurrentRankResult(results); current.ok() && *current) shard_rank_id_ = (*current)->id;
  };
  rank.after_check = note_id;
  if (config_.rank_publish_top > 0) {
    RankPublisherOptions publish;
    publish.topic = n.pagerank;
    publish.generation = generation_;
    publish.top = config_.rank_publish_top;
    publish.record_budget = limits_.BudgetOf(n.pagerank);
    ASSIGN_OR_RETURN(publisher_, RankPublisher::Create(producer_config_, results, publish));
    rank.after_check = [p = publisher_.get(), note_id] {
      note_id();
      if (Status st = p->PublishCurrent(); !st.ok()) LOG_WARN("pagerank: {}", st.ToString());
    };
  }
  rank_ = table ? std::make_unique<rank::RankService>(results, std::move(table), rank)
                : std::make_unique<rank::RankService>(results, rank);
  rank_->Start();
  return Status::Ok();
}

void Processor::ResyncFlow() {
  constexpr auto kEvery = std::chrono::seconds(1);
  if (!flow_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - flow_synced_ < kEvery) return;
  flow_synced_ = now;
  for (auto& runner : runners_) {
    pipeline::FlowControl::Topic* topic = flow_->Find(runner->stage().input_topic());
    if (!topic) continue;
    const auto positions = runner->Positions();
    for (int32_t p = 0; p < topic->partitions() && p < runner->input_partitions(); ++p) {
      auto marks = admin_->Watermarks(topic->name(), p, kLagTimeoutMs);
      if (!marks.ok()) return;  // the next round, then
      pipeline::FlowControl::Resync(topic, p, marks->second - std::max(positions[p], marks->first));
    }
  }
}

bool Processor::Quiet() const {
  return std::all_of(runners_.begin(), runners_.end(), [](const auto& r) {
    return !r->busy() && r->unacked() == 0 && (!r->in_group() || r->settled());
  });
}

Result<bool> Processor::Idle() {
  if (!Quiet()) return false;
  auto lag = Lag();  // runners in flow order: upstream positions are read before downstream ends
  if (!lag.ok()) {
    LOG_WARN("idle check: {}; trying again", lag.status().ToString());
    return false;
  }
  for (const auto& s : *lag) {
    if (s.lag > 0) return false;
  }
  return Quiet();
}

Result<std::vector<Processor::LagSample>> Processor::Lag() {
  std::vector<LagSample> out;
  for (auto& runner : runners_) {
    const auto positions = runner->Positions();
    const std::set<int32_t> owned = runner->in_group() ? runner->Owned() : std::set<int32_t>{};
    for (int32_t p = 0; p < runner->input_partitions(); ++p) {
      if (runner->in_group() && !owned.count(p)) continue;  // another member's
      LagSample s{std::string(runner->stage().name()), runner->stage().input_topic(), p};
      ASSIGN_OR_RETURN(auto marks, admin_->Watermarks(s.topic, p, kLagTimeoutMs));
      s.position = positions[p] < 0 ? marks.first : positions[p];
      s.end = marks.second;
      s.lag = std::max<int64_t>(0, s.end - s.position);
      out.push_back(std::move(s));
    }
  }
  return out;
}

Result<int64_t> Processor::StoredDeadLetters() {
  const std::string& topic = config_.topics.dead_letters;
  ASSIGN_OR_RETURN(const int32_t partitions, admin_->PartitionCount(topic, kLagTimeoutMs));
  int64_t stored = 0;
  for (int32_t p = 0; p < partitions; ++p) {
    ASSIGN_OR_RETURN(auto marks, admin_->Watermarks(topic, p, kLagTimeoutMs));
    stored += std::max<int64_t>(0, marks.second - marks.first);
  }
  return stored;
}

Result<std::vector<Processor::InputLagSample>> Processor::InputLag() {
  std::vector<InputLagSample> out;
  for (auto& runner : runners_) {
    const std::string stage(runner->stage().name());
    const std::string& topic = runner->stage().input_topic();
    const auto positions = runner->Positions();
    const std::set<int32_t> owned = runner->in_group() ? runner->Owned() : std::set<int32_t>{};
    std::vector<int64_t> committed;
    if (runner->in_group() && owned.size() < static_cast<size_t>(runner->input_partitions())) {
      std::lock_guard<std::mutex> lock(offset_readers_mu_);
      const std::string group_id = GroupGenerations::GroupIdOf(KafkaGroupName(config_), generation_, stage);
      auto& reader = offset_readers_[group_id];
      if (!reader) {
        ASSIGN_OR_RETURN(reader, kafka::Consumer::Create(config_.kafka, group_id));
      }
      ASSIGN_OR_RETURN(committed, reader->Committed(topic, runner->input_partitions(), kLagTimeoutMs));
    }
    for (int32_t p = 0; p < runner->input_partitions(); ++p) {
      InputLagSample s{LagSample{stage, topic, p}};
      ASSIGN_OR_RETURN(auto marks, admin_->Watermarks(topic, p, kLagTimeoutMs));
      s.sample.end = marks.second;
      s.member = !runner->in_group() || owned.count(p) > 0;
      const int64_t position = s.member ? positions[p] : committed[p];
      // No position: from the start of the partition for this process's own (nothing read yet);
      // unknown for the group's, unless the partition holds nothing.
      s.known = s.member || position >= 0 || marks.second <= marks.first;
      s.sample.position = position < 0 ? marks.first : std::max(position, marks.first);
      s.sample.lag = s.known ? std::max<int64_t>(0, s.sample.end - s.sample.position) : 0;
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::vector<Processor::StageTiming> Processor::Timings() const {
  std::vector<StageTiming> out;
  for (const auto& runner : runners_) {
    out.push_back({std::string(runner->stage().name()), runner->batches(), runner->batch_nanos() / 1e9});
  }
  return out;
}

void Processor::LogProgress() {
  std::optional<int64_t> lag;
  if (auto samples = Lag(); samples.ok()) {
    lag = 0;
    for (const auto& s : *samples) *lag += s.lag;
  }
  if (auto line = progress_line_.Next(metrics_, lag, std::chrono::steady_clock::now())) {
    LOG_INFO("progress: {}", *line);
  }
}

bool Processor::GenerationChanged() {
  if (config_.generation != 0 || !dir_) return false;
  auto current = dir_->Current();
  if (!current.ok()) {
    LOG_WARN("cannot read the current generation: {}", current.status().ToString());
    return false;
  }
  if (*current == generation_) return false;
  LOG_INFO("generation {} of {} became current (a replay finished); switching from generation {}", *current,
           config_.data_dir, generation_);
  switch_to_ = *current;
  return true;
}

Status Processor::Failure() {
  for (auto& runner : runners_) {
    if (runner->failed()) return runner->Join();
  }
  if (table_shards_) {
    if (auto failure = table_shards_->failure()) return *failure;
  }
  // A flush or compaction that failed while no stage commits (an idle run) stops it too.
  if (store_) return store_->Health();
  return Status::Ok();
}

Status Processor::Run(bool exit_when_idle, const std::atomic<bool>& stop, const std::function<bool()>& interrupt) {
  using Clock = std::chrono::steady_clock;
  auto last_progress = Clock::now();
  auto last_generation_check = Clock::now();
  auto last_views_check = Clock::now();
  auto last_rate_sample = Clock::now();
  event_rate_.Sample(last_rate_sample, metrics_.events);
  int idle_checks = 0;
  while (!stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (const auto now = Clock::now(); now - last_rate_sample >= std::chrono::seconds(1)) {
      event_rate_.Sample(now, metrics_.events);
      last_rate_sample = now;
    }
    RETURN_IF_ERROR(Failure());
    if (Clock::now() - last_generation_check > std::chrono::milliseconds(500)) {
      last_generation_check = Clock::now();
      if (GenerationChanged()) break;
      if (interrupt && interrupt()) break;
    }
    ResyncFlow();
    if (Clock::now() - last_progress > std::chrono::milliseconds(config_.progress_interval_ms)) {
      LogProgress();
      last_progress = Clock::now();
    }
    if (Clock::now() - last_views_check > std::chrono::minutes(1)) {
      if (store_) store_->RemoveStaleViews();  // of `query`, `dump`... processes killed while they read
      last_views_check = Clock::now();
    }
    if (!exit_when_idle) continue;
    ASSIGN_OR_RETURN(bool idle, Idle());
    idle_checks = idle ? idle_checks + 1 : 0;
    if (idle_checks >= 3) {
      LOG_INFO("all input consumed and every output acknowledged; exiting");
      break;
    }
  }
  return Status::Ok();
}

Status Processor::RunUntilCaughtUp(int64_t max_lag, const std::atomic<bool>& stop,
                                   const std::function<void(int64_t lag)>& progress) {
  using Clock = std::chrono::steady_clock;
  auto last_check = Clock::now() - std::chrono::seconds(1);  // the first check after one nap: little may be left
  while (!stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ResyncFlow();
    RETURN_IF_ERROR(Failure());
    if (Clock::now() - last_check < std::chrono::seconds(1)) continue;
    last_check = Clock::now();
    // Read before the lag: a commit while it is read (positions moved, records sent) shows here.
    const uint64_t commits = metrics_.commits;
    const bool quiet = Quiet();
    auto lag = Lag();
    if (!lag.ok()) {
      LOG_WARN("lag check: {}; trying again", lag.status().ToString());
      continue;
    }
    int64_t total = 0;
    for (const auto& s : *lag) total += s.lag;
    // A stage's committed records that the brokers have not acknowledged are in no topic's end
    // yet: with its input read to the end, the stages downstream would look caught up.
    for (const auto& runner : runners_) total += static_cast<int64_t>(runner->unacked());
    if (progress) progress(total);
    if (total > max_lag) continue;
    // At 0 the lags must be of one instant: nothing in flight before they were read, nothing
    // committed while they were (its records could land after their topic's end was read).
    if (max_lag > 0 || (quiet && Quiet() && metrics_.commits == commits)) break;
  }
  return Status::Ok();
}

Status Processor::StopRunners(const std::vector<pipeline::StageRunner*>& runners) {
  for (auto* runner : runners) runner->RequestStop();
  Status first;
  for (auto* runner : runners) {
    Status st = runner->Join();
    if (first.ok() && !st.ok()) first = st;
  }
  if (producer_ && !runners.empty()) {
    Status st = producer_->Flush(10000);
    if (!st.ok()) LOG_WARN("not every record was acknowledged before stopping; they are re-sent on start");
  }
  for (auto* runner : runners) {
    Status st = runner->CommitAcked();
    if (first.ok() && !st.ok()) first = st;
  }
  return first;
}

Status Processor::StopGroupStages() {
  std::vector<pipeline::StageRunner*> stopping;
  for (auto& runner : runners_) {
    if (runner->in_group()) stopping.push_back(runner.get());
  }
  return StopRunners(stopping);
}

Status Processor::Stop() {
  if (stopped_) return Status::Ok();
  stopped_ = true;
  if (rank_) rank_->Stop();  // it reads the store only; the stages never wait for it
  if (table_shards_) table_shards_->Stop();
  std::vector<pipeline::StageRunner*> stopping;  // downstream first
  for (auto it = runners_.rbegin(); it != runners_.rend(); ++it) stopping.push_back(it->get());
  Status first = StopRunners(stopping);
  if (store_) {
    Status st = store_->Flush();
    if (first.ok() && !st.ok()) first = st;
  }
  LOG_INFO("stopped; counters of this run: {}", ProgressLine::Totals(metrics_));
  producer_.reset();  // stops delivery reports before the runners they reach go away
  {
    std::lock_guard<std::mutex> lock(offset_readers_mu_);
    offset_readers_.clear();
  }
  runners_.clear();
  rank_.reset();
  table_shards_.reset();
  publisher_.reset();
  rank_store_.reset();
  store_.reset();
  group_admins_.clear();
  admin_.reset();
  return first;
}

}  // namespace webindex::app
