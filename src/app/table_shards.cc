#include "app/table_shards.h"

#include <filesystem>

#include "common/log.h"
#include "pipeline/runner_keys.h"
#include "sink/sink_stage.h"

namespace webindex::app {
namespace {

constexpr int kAdminTimeoutMs = 10000;
constexpr auto kConfirmEvery = std::chrono::seconds(1);

//! A shard's store read as a table; keeps the store open while a query reads it.
class ShardSource final : public query::TableSource {
 public:
  explicit ShardSource(std::shared_ptr<state::Store> store) : store_(std::move(store)), source_(*store_) {}
  std::unique_ptr<query::TableRead> Read() override { return source_.Read(); }

 private:
  std::shared_ptr<state::Store> store_;
  query::StoreTableSource source_;
};

}  // namespace

TableShards::TableShards(TableShardsOptions options, pipeline::Metrics& metrics)
    : options_(std::move(options)), metrics_(metrics) {}

Result<std::unique_ptr<TableShards>> TableShards::Start(TableShardsOptions options, pipeline::Metrics& metrics) {
  std::unique_ptr<TableShards> shards(new TableShards(std::move(options), metrics));
  RETURN_IF_ERROR(shards->Join());
  return shards;
}

Status TableShards::Join() {
  const std::string& exports = options_.layout.names.exports;
  ASSIGN_OR_RETURN(admin_, kafka::Admin::Create(options_.kafka));
  ASSIGN_OR_RETURN(partitions_, admin_->PartitionCount(exports, kAdminTimeoutMs));
  if (partitions_ > 256) {
    return Status::InvalidArgument("topic " + exports + " has " + std::to_string(partitions_) +
                                   " partitions; a partitioned table has at most 256 shards");
  }
  std::filesystem::create_directories(options_.dir);
  ASSIGN_OR_RETURN(producer_, kafka::Producer::Create(options_.kafka, [this](uint64_t opaque, const Status& st,
                                                                               int64_t offset) {
    std::lock_guard lock(mu_);
    auto it = shards_.find(pipeline::RunnerIndexOf(opaque));
    if (it == shards_.end()) return;
    // A retiring sink's outputs still count: it commits what was acknowledged when it stops.
    pipeline::StageRunner* runner = it->second.runner ? it->second.runner.get() : it->second.retiring.get();
    if (runner) runner->OnDelivered(pipeline::RunnerSeqOf(opaque), st, offset);
  }));
  kafka::GroupMembership membership;
  membership.group_id = options_.group_id;
  membership.session_timeout_ms = options_.session_timeout_ms;
  ASSIGN_OR_RETURN(consumer_, kafka::Consumer::Join(options_.kafka, membership, this));
  RETURN_IF_ERROR(consumer_->Hold(true));  // the shards' sinks read; the member only holds its share
  RETURN_IF_ERROR(consumer_->Subscribe({exports}));
  LOG_INFO("table shards: member of group {} on {} ({} shards in all), keeping its shards in {}", options_.group_id,
           exports, partitions_, options_.dir);
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

TableShards::~TableShards() { Stop(); }

void TableShards::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (consumer_) {
    consumer_->Close();
    consumer_.reset();
  }
  std::vector<int32_t> owned;
  {
    std::lock_guard lock(mu_);
    for (auto& [p, shard] : shards_) {
      shard.pending = false;
      if (shard.runner) owned.push_back(p);
    }
  }
  for (int32_t p : owned) TakeAway(p);
  std::vector<std::future<Status>*> stopping;
  {
    std::lock_guard lock(mu_);
    for (auto& [p, shard] : shards_) {
      if (shard.retiring) stopping.push_back(&shard.retired);
    }
  }
  for (auto* f : stopping) f->wait();  // shards_ keeps its elements: this thread is the only writer now
  Settle();
  if (producer_) (void)producer_->Flush(10000);
}

void TableShards::Loop() {
  auto confirmed = std::chrono::steady_clock::time_point{};
  while (!stop_) {
    kafka::MessageBatch batch;  // held: the poll serves the group only
    if (Status st = consumer_->PollBatch(1, 100, &batch); !st.ok()) {
      Fail(st);
      return;
    }
    Settle();
    WatchShards();
    if (std::chrono::steady_clock::now() - confirmed >= kConfirmEvery) {
      Confirm();
      confirmed = std::chrono::steady_clock::now();
    }
  }
}

std::vector<kafka::TopicPartitionOffset> TableShards::OnAssigned(
    const std::vector<kafka::TopicPartitionOffset>& partitions) {
  std::vector<kafka::TopicPartitionOffset> out;
  std::lock_guard lock(mu_);
  for (const auto& tp : partitions) {
    shards_[tp.partition].pending = true;  // Settle starts its sink, once an earlier one stopped
    out.push_back({tp.topic, tp.partition, kafka::kEnd});
  }
  return out;
}

void TableShards::OnRevoked(const std::vector<kafka::TopicPartitionOffset>& partitions, bool lost) {
  {
    std::lock_guard lock(mu_);
    // Lost: another member may own them already: nothing is served until confirmed again.
    if (lost) confirmed_at_ = {};
    for (const auto& tp : partitions) shards_[tp.partition].pending = false;
  }
  for (const auto& tp : partitions) TakeAway(tp.partition);
}

void TableShards::Settle() {
  std::vector<int32_t> give;
  {
    std::lock_guard lock(mu_);
    for (auto& [p, shard] : shards_) {
      if (shard.retiring && shard.retired.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        if (Status st = shard.retired.get(); !st.ok()) {
          LOG_WARN("table shard {}: its sink stopped with: {}", p, st.ToString());
        }
        shard.retiring.reset();
        LOG_INFO("table shard {}: taken away; its store stays as this member's copy", p);
      }
      if (shard.pending && !shard.runner && !shard.retiring) give.push_back(p);
    }
  }
  for (int32_t p : give) {
    if (Status st = Give(p); !st.ok()) {
      Fail(st.WithContext("table shard " + std::to_string(p)));
      return;
    }
  }
}

Status TableShards::Give(int32_t p) {
  const std::string& exports = options_.layout.names.exports;
  std::shared_ptr<state::Store> store;
  {
    std::lock_guard lock(mu_);
    store = shards_[p].store;
  }
  if (!store) {
    ASSIGN_OR_RETURN(auto opened, state::Store::Open(options_.dir + "/shard-" + std::to_string(p), options_.store));
    store = std::move(opened);
  }
  ASSIGN_OR_RETURN(auto at, state::GetFixed64(*store, state::Family::kOffsets, pipeline::OffsetKey("sink", exports, p),
                                              "table shard " + std::to_string(p) + "'s position in " + exports));
  ASSIGN_OR_RETURN(auto marks, admin_->Watermarks(exports, p, kAdminTimeoutMs));
  const int64_t position = at ? static_cast<int64_t>(*at) : 0;
  std::string refusal;
  if (position < marks.first) {
    refusal = "partition " + std::to_string(p) + " of " + exports + " starts at offset " + std::to_string(marks.first) +
              " but this shard has read it up to " + std::to_string(position) +
              ": the records in between are gone (retention), so the shard cannot be built exactly from it. Keep " +
              exports + " without a retention limit (retention.ms=-1) for a partitioned table";
  }
  pipeline::RunnerOptions runner = options_.runner;
  runner.partitions = {p};
  runner.group.reset();
  runner.admin = nullptr;
  runner.flow = nullptr;
  runner.changelog = false;
  auto made = std::make_unique<pipeline::StageRunner>(std::make_unique<sink::SinkStage>(options_.layout), p,
                                                      partitions_, *store, *producer_, options_.kafka, metrics_,
                                                      runner);
  pipeline::StageRunner* started = nullptr;
  {
    std::lock_guard lock(mu_);
    Shard& shard = shards_[p];
    shard.store = store;
    shard.ready = false;
    shard.ready_at = marks.second;
    shard.pending = false;  // a refused shard is tried again only when the group gives it again
    if (refusal.empty()) {
      shard.runner = std::move(made);
      started = shard.runner.get();
    }
  }
  if (!refusal.empty()) {
    LOG_ERROR("table shard {}: refused: {}", p, refusal);
    return Status::Ok();
  }
  if (at) ++resumed_locally_;
  LOG_INFO("table shard {}: given to this member; {} from offset {} to {} before it serves", p,
           at ? "reading on" : "building it", position, marks.second);
  return started->Start();
}

void TableShards::TakeAway(int32_t p) {
  std::lock_guard lock(mu_);
  auto it = shards_.find(p);
  if (it == shards_.end() || !it->second.runner) return;
  Shard& shard = it->second;
  shard.ready = false;
  shard.retiring = std::move(shard.runner);
  shard.retired = std::async(std::launch::async, [this, p, runner = shard.retiring.get()] {
    if (options_.before_sink_stops) options_.before_sink_stops(p);
    runner->RequestStop();
    Status st = runner->Join();
    if (st.ok()) st = runner->CommitAcked();
    return st;
  });
}

void TableShards::WatchShards() {
  std::lock_guard lock(mu_);
  for (auto& [p, shard] : shards_) {
    if (!shard.runner) continue;
    if (shard.runner->failed()) {
      failure_ = Status::Internal("table shard " + std::to_string(p) + ": its sink stopped (see the log)");
      stop_ = true;
      return;
    }
    if (!shard.ready && shard.runner->Positions()[p] >= shard.ready_at) {
      shard.ready = true;
      LOG_INFO("table shard {}: caught up to offset {}; serving", p, shard.ready_at);
    }
  }
}

void TableShards::Confirm() {
  if (consumer_->RebalanceUnderWay()) return;
  std::vector<kafka::TopicPartitionOffset> positions;
  {
    std::lock_guard lock(mu_);
    for (const auto& [p, shard] : shards_) {
      if (shard.runner) positions.push_back({options_.layout.names.exports, p, std::max<int64_t>(shard.runner->Positions()[p], 0)});
    }
  }
  if (positions.empty()) return;
  const Status st = consumer_->ConfirmAssignment(positions, 2000);
  std::lock_guard lock(mu_);
  if (st.ok()) {
    confirmed_at_ = std::chrono::steady_clock::now();
    generation_ = consumer_->GroupGeneration();
  } else if (st.code() == Status::Code::kAborted) {
    confirmed_at_ = {};
    LOG_WARN("table shards: the group no longer counts this member ({}); serving nothing until it assigns again",
             st.ToString());
  }
}

void TableShards::Fail(Status st) {
  LOG_ERROR("table shards: {}", st.ToString());
  std::lock_guard lock(mu_);
  if (!failure_) failure_ = std::move(st);
  stop_ = true;
}

std::set<int32_t> TableShards::Ready() const {
  std::lock_guard lock(mu_);
  std::set<int32_t> out;
  for (const auto& [p, shard] : shards_) {
    if (shard.ready) out.insert(p);
  }
  return out;
}

std::vector<std::shared_ptr<query::TableSource>> TableShards::Sources() const {
  std::vector<std::shared_ptr<query::TableSource>> out(partitions_);
  std::lock_guard lock(mu_);
  const auto session = std::chrono::milliseconds(options_.session_timeout_ms);
  if (confirmed_at_ == std::chrono::steady_clock::time_point{} ||
      std::chrono::steady_clock::now() - confirmed_at_ > session) {
    return out;  // the group may have given this member's shards to others meanwhile
  }
  for (const auto& [p, shard] : shards_) {
    if (shard.ready && shard.runner) out[p] = std::make_shared<ShardSource>(shard.store);
  }
  return out;
}

std::optional<Status> TableShards::failure() const {
  std::lock_guard lock(mu_);
  return failure_;
}

}  // namespace webindex::app
