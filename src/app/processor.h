// Processor: the startup class. Builds every service of `webindex run` (store, producer,
// the page/uri/domain stages and the sink), starts them in data-flow order and stops them
// in reverse. Start/Run/Stop are called from one thread; Stop is idempotent.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/progress_line.h"
#include "app/rank_publisher.h"
#include "app/table_shards.h"
#include "codec/event.h"
#include "graph/index_set.h"
#include "kafka/admin.h"
#include "kafka/common.h"
#include "kafka/producer.h"
#include "pipeline/metrics.h"
#include "pipeline/rate_meter.h"
#include "pipeline/stage_runner.h"
#include "pipeline/topics.h"
#include "rank/rank_service.h"
#include "state/data_dir.h"
#include "state/store.h"

namespace webindex::app {

struct ProcessorConfig {
  //! The store's defaults, with the graph's scan-only rows kept out of the memtables' Bloom
  //! filter (graph::ScanOnlyRows).
  static state::StoreOptions DefaultStore() {
    state::StoreOptions store;
    store.scan_only.push_back(graph::ScanOnlyRows({}));
    return store;
  }

  kafka::ClientConfig kafka;
  std::string data_dir;  //!< see state::DataDir
  //! 0: the data dir's current generation, switching when a replay makes another one
  //! current (Run returns, switch_to() says which); N: generation N only (a replay).
  uint64_t generation = 0;
  pipeline::TopicNames topics;
  std::map<std::string, int> partitions;  //!< topic -> partitions to create it with
  std::map<std::string, std::map<std::string, std::string>> topic_config;  //!< topic -> broker config
  codec::DecodeLimits limits;
  state::StoreOptions store = DefaultStore();
  pipeline::RunnerOptions runner;
  //! Flow control of a lone run (pipeline/flow_control.h): unread bytes one partition of an
  //! internal topic may hold at most before the stages writing it wait. 0: no limit. Unset:
  //! kEmbeddedBacklogBytes on the embedded broker (it keeps ~5 MiB per partition), else none.
  std::optional<uint64_t> max_backlog_bytes;
  static constexpr uint64_t kEmbeddedBacklogBytes = 3ull << 20;
  int progress_interval_ms = 5000;
  //! The background PageRank of the live graph; interval 0 turns it off.
  rank::RankServiceOptions rank;
  //! Pages of each PageRank result published to topics.pagerank (0: none).
  size_t rank_publish_top = 1000;
  //! Keep the web graph as statements (graph <urn:webindex:web>, docs/graph.md). Recorded when a
  //! generation is set up; later starts keep what was recorded (a replay changes it).
  bool web_triples = false;
  //! The application id (app/app_id.h): the prefix of the topics and consumer groups this index
  //! owns. Set through app::ApplyAppId, which names them.
  std::string app_id = "webindex";
  //! The instance's name (instance.name), recorded with its details when it is made.
  std::string instance_name = "webindex";
  //! Compute PageRank when the instance keeps it (a replay's builder does not: the `run` that
  //! takes the generation over does).
  bool compute_rank = true;
  //! The indexes derived from statements; recorded like web_triples.
  graph::IndexSet indexes{.temporal = true, .temporal_predicates = {}, .freetext = true};
  //! Consumer group (docs/scale-out.md): with a name, the page, uri and domain stages of every
  //! process started with it share their partitions as groups "<group>.<stage>", state following
  //! each task through its changelog; a member with `table` keeps the whole table (graph stage
  //! and sink read every partition). "": this process runs every partition.
  std::string group;
  std::string group_instance_id;  //!< KIP-345 static membership ("" dynamic), suffixed ".<stage>"
  int group_session_timeout_ms = 10000;
  //! What this process runs: the page, uri and domain stages (in a group, its share of them), and
  //! the table (graph stage, sink, PageRank). A lone run does both; a group member either or both.
  bool stages = true;
  bool table = true;
  //! Group members with `table`: keep only this member's share of the table, the shards of the
  //! webindex.exports partitions the consumer group "<group>.table" assigns it (table_shards.h),
  //! instead of the whole table; no graph stage or PageRank then (docs/scale-out.md §6).
  bool table_shards = false;
  //! Group members: asked, with the generation, right before a runner trims its changelog
  //! (GroupGenerations::TrimsAllowed); unset: trims are allowed.
  std::function<bool(uint64_t generation)> trims_allowed;
};

class Processor {
 public:
  explicit Processor(ProcessorConfig config);
  ~Processor();

  //! Creates missing topics, opens the data dir, resumes every stage where it committed.
  Status Start();
  //! Returns when `stop` becomes true, a stage fails, (with exit_when_idle) every stage has
  //! consumed all of its input and nothing is in flight, or `interrupt` (asked about twice a
  //! second) says so.
  Status Run(bool exit_when_idle, const std::atomic<bool>& stop, const std::function<bool()>& interrupt = {});
  //! The error of a stage that failed, Ok while none has (for a caller that runs no Run loop).
  Status Failure();
  //! Returns when `stop` becomes true, a stage fails, or the stages are at most `max_lag`
  //! records behind the ends of their inputs, all together, the records they committed and the
  //! brokers have not acknowledged counted too. At 0 nothing is in flight then: the table holds
  //! every input record read. Calls `progress` with that lag about once a second.
  Status RunUntilCaughtUp(int64_t max_lag, const std::atomic<bool>& stop,
                          const std::function<void(int64_t lag)>& progress);
  //! Finishes the current batches, waits for Kafka's acknowledgements, commits, closes.
  Status Stop();
  //! Group members: stops the runners of the stages the group shares (page, uri, domain), leaving
  //! their groups; the table (graph stage, sink, PageRank) goes on. For a generation the group
  //! retired while this member's table still answers from it.
  Status StopGroupStages();
  //! Starts the background PageRank when the generation keeps it and this process keeps the table
  //! (Start does unless config.compute_rank is off). Between Start and Stop.
  Status StartRank();
  //! Partitioned tables (config.table_shards): starts the PageRank of the whole table, read
  //! through `table` (every member's shards, app/table_members.h), checked while this member
  //! serves table shard 0, results in a store of their own (<generation dir>-shards/rank) and
  //! published as a whole table's are. Off when the generation keeps no PageRank or
  //! config.compute_rank is. Call StopShardRank before `table` goes. Between Start and Stop.
  //! `first_id`: the least id of its next result (the highest another member gave out, plus one).
  Status StartShardRank(std::shared_ptr<query::TableSource> table, std::function<uint64_t()> first_id);
  void StopShardRank();
  //! The store of this member's PageRank results of a partitioned table while it computes them
  //! (it serves shard 0), else null (thread-safe; valid until StopShardRank).
  state::Store* ShardRankResults() const;
  //! The id of the current result in this member's PageRank results store (0: none; thread-safe).
  uint64_t ShardRankResultId() const { return shard_rank_id_; }
  //! True when every input partition is read to its end and every output acknowledged.
  Result<bool> Idle();
  const pipeline::Metrics& metrics() const { return metrics_; }
  //! The data dir's store, for readers of the query table (after Start, until Stop).
  state::Store* store() { return store_.get(); }
  //! With config.table_shards: this member's table shards (after Start, until Stop); else null.
  TableShards* table_shards() { return table_shards_.get(); }
  //! The background PageRank's counters (zeros when it is off).
  rank::RankService::Stats rank_stats() const { return rank_ ? rank_->stats() : rank::RankService::Stats{}; }
  //! Whether the background PageRank runs (pagerank.interval_s > 0), and how often it checks.
  bool rank_enabled() const { return rank_ != nullptr; }
  std::chrono::milliseconds rank_interval() const { return config_.rank.interval; }
  //! Crawl events consumed per second over the last 10 s (sampled by Run); nullopt before a
  //! second of Run, or when Run no longer samples.
  std::optional<pipeline::RateMeter::Rate> EventRate() const {
    return event_rate_.Get(pipeline::RateMeter::Clock::now());
  }
  //! The generation of the data dir this processor runs (after Start).
  uint64_t generation() const { return generation_; }
  //! Set when Run returned because another generation became current.
  std::optional<uint64_t> switch_to() const { return switch_to_; }

  //! How far one stage's consumer is behind the end of one input partition.
  struct LagSample {
    std::string stage, topic;
    int32_t partition = 0;
    int64_t position = 0;  //!< next offset to read, as committed
    int64_t end = 0;       //!< high watermark
    int64_t lag = 0;       //!< end - position, at least 0
  };
  //! Asks the brokers for every stage's input watermarks. Any thread, between Start and Stop.
  //! A group member's stages: the partitions it owns only (what it has left to do).
  Result<std::vector<LagSample>> Lag();
  //! Where every input partition of every stage stands, for status and metrics: a lone run's
  //! positions; a group member's own for the partitions it owns, its group's committed offsets
  //! for the others (another member's, or nobody's while the group rebalances).
  struct InputLagSample {
    LagSample sample;
    bool member = true;  //!< this process owns the partition (false: the group's offset)
    bool known = true;   //!< false: nobody reported a position (position and lag unknown)
  };
  Result<std::vector<InputLagSample>> InputLag();
  //! Records the dead-letter topic holds now (high minus low watermark over its partitions: every
  //! generation's and process's, as retention left them). Any thread, between Start and Stop.
  Result<int64_t> StoredDeadLetters();
  //! The background PageRank, results in `results`, its graph from `table` (null: `results`),
  //! checking while `active` says so (empty: always).
  Status StartRankOn(state::Store& results, std::shared_ptr<query::TableSource> table, std::function<bool()> active,
                     std::function<uint64_t()> first_id = {});
  //! The cluster this processor reads and writes (an embedded broker's address included).
  const std::string& brokers() const { return config_.kafka.brokers; }
  const pipeline::TopicNames& topics() const { return config_.topics; }
  //! Per stage: batches committed and seconds spent processing and committing them.
  struct StageTiming {
    std::string stage;
    uint64_t batches = 0;
    double seconds = 0;
  };
  std::vector<StageTiming> Timings() const;

 private:
  Status EnsureTopics();
  //! Stops `runners` in that order, waits for what they sent, deletes what is acknowledged.
  Status StopRunners(const std::vector<pipeline::StageRunner*>& runners);
  //! The `progress:` line (ProgressLine), when something moved since the last one.
  void LogProgress();
  //! Flow control: once a second, each watched partition's count reset to its unread records as
  //! the broker and its reader say (FlowControl::Resync).
  void ResyncFlow();
  //! True (and switch_to_ set) when the data dir's current generation is no longer ours.
  bool GenerationChanged();
  //! No stage is on a batch and every record they committed is acknowledged (group members:
  //! their assignments settled).
  bool Quiet() const;

  ProcessorConfig config_;
  pipeline::Metrics metrics_;
  pipeline::RateMeter event_rate_;
  ProgressLine progress_line_;
  std::unique_ptr<state::Store> store_;
  std::unique_ptr<kafka::Admin> admin_;
  //! One per group runner (an admin serves one thread).
  std::vector<std::unique_ptr<kafka::Admin>> group_admins_;
  //! Readers of the group's committed offsets (InputLag), one per group stage, made on first use.
  std::mutex offset_readers_mu_;
  std::map<std::string, std::unique_ptr<kafka::Consumer>> offset_readers_;
  std::unique_ptr<kafka::Producer> producer_;
  kafka::ClientConfig producer_config_;
  kafka::RecordLimits limits_;
  int export_partitions_ = 1;
  std::unique_ptr<pipeline::FlowControl> flow_;
  std::chrono::steady_clock::time_point flow_synced_{};
  std::vector<std::unique_ptr<pipeline::StageRunner>> runners_;
  std::unique_ptr<RankPublisher> publisher_;
  std::unique_ptr<rank::RankService> rank_;
  std::unique_ptr<state::Store> rank_store_;  //!< a partitioned table's PageRank results (StartShardRank)
  std::atomic<uint64_t> shard_rank_id_{0};    //!< its current result's id
  std::unique_ptr<TableShards> table_shards_;
  std::optional<state::DataDir> dir_;
  uint64_t generation_ = 0;
  std::optional<uint64_t> switch_to_;
  bool stopped_ = false;
};

//! The topics of `names` with their partition counts from `config` (default 1), and the
//! changelog topics of the stages that keep one (partitioned like their input by default).
std::vector<kafka::TopicSpec> TopicSpecs(const ProcessorConfig& config);
//! The control topics (the instances claim, the groups' generations): one partition each,
//! compacted. Made by whoever first needs them; the embedded brokers make them at start.
std::vector<kafka::TopicSpec> ControlTopicSpecs(const ProcessorConfig& config);
//! (stage, input topic) of every stage that keeps a changelog.
std::vector<std::pair<std::string, std::string>> ChangelogInputs(const ProcessorConfig& config);

//! kMeta key: "1" when the last process that ran the generation kept its table, "0" for a group
//! member that ran only stages (absent: written before members recorded it, taken as "1").
inline constexpr char kKeepsTableKey[] = "member/table";
//! False when the generation in `store` keeps no up-to-date table (kKeepsTableKey "0").
Result<bool> KeepsTable(state::Store& store);

//! kMeta key of a generation's start time (--from of its replay), in ms since the epoch.
inline constexpr char kFromMsKey[] = "generation/from_ms";
//! kMeta key of a generation's recorded web_triples choice: "1" or "0" (absent: "0").
inline constexpr char kWebTriplesKey[] = "indexes/web_triples";

}  // namespace webindex::app
