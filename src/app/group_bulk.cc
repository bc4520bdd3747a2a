#include "app/group_bulk.h"

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "codec/state_codec.h"
#include "common/log.h"
#include "kafka/common.h"
#include "pipeline/changelog.h"
#include "pipeline/page_stage.h"
#include "pipeline/runner_keys.h"
#include "pipeline/uri_stage.h"

namespace webindex::app {
namespace {

constexpr int kAdminTimeoutMs = 30000;
constexpr char kPageStage[] = "page";
using Clock = std::chrono::steady_clock;

//! A scratch directory, removed with this object.
class Scratch {
 public:
  static Result<std::unique_ptr<Scratch>> Make(const std::string& under) {
    std::error_code ec;
    const std::string base = under.empty() ? std::filesystem::temp_directory_path(ec).string() : under;
    std::filesystem::create_directories(base, ec);
    std::string tmpl = base + "/webindex-group-bulk-XXXXXX";
    if (ec || !mkdtemp(tmpl.data())) return Status::IoError("cannot create a scratch dir in " + base);
    return std::make_unique<Scratch>(tmpl);
  }
  explicit Scratch(std::string path) : path_(std::move(path)) {}
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

//! Where each page task begins reading: --from's offsets (a partition with no record after it:
//! its end), else each partition's start, as the page stage of a fresh task would.
Status WritePageStarts(const ProcessorConfig& config, kafka::Admin& admin, state::Store& store, int64_t from_ms) {
  const std::string& pages = config.topics.pages;
  ASSIGN_OR_RETURN(const int partitions, admin.PartitionCount(pages, kAdminTimeoutMs));
  std::vector<int64_t> at(static_cast<size_t>(partitions), -1);
  if (from_ms >= 0) {
    ASSIGN_OR_RETURN(at, admin.OffsetsForTime(pages, partitions, from_ms, kAdminTimeoutMs));
  }
  state::WriteBatch wb(store);
  for (int32_t p = 0; p < partitions; ++p) {
    ASSIGN_OR_RETURN(auto marks, admin.Watermarks(pages, p, kAdminTimeoutMs));
    const int64_t start = from_ms < 0 ? marks.first : at[p] >= 0 ? at[p] : marks.second;
    wb.Put(state::Family::kOffsets, pipeline::OffsetKey(kPageStage, pages, p), state::Fixed64(static_cast<uint64_t>(start)));
  }
  return store.Write(wb);
}

//! Writes one complete snapshot per task of `stage` from the bulk-built `store`: the stage's
//! state rows of the task, then its input position (the page tasks' where the build read up
//! to; the internal topics' their ends now, before which no record is this generation's) and,
//! for the page stage, its position in the forwards' topic.
Status WriteSnapshots(const ProcessorConfig& config, kafka::Admin& admin, state::Store& store,
                      const pipeline::Stage& stage, uint64_t generation, const std::string& instance,
                      const kafka::RecordLimits& limits, BulkSender& sender, GroupBulkStats* stats) {
  const std::string name(stage.name());
  const std::string topic = pipeline::ChangelogTopic(config.runner.changelog_prefix, name);
  const size_t budget = limits.BudgetOf(topic);
  ASSIGN_OR_RETURN(const int tasks, admin.PartitionCount(stage.input_topic(), kAdminTimeoutMs));
  // As a task's owner heads its records (TaskChangelog::ChangelogHeaders): no epoch, since no
  // member has claimed the task yet; a claim comes after the snapshot.
  const std::vector<std::pair<std::string, std::string>> headers = {{"gen", std::to_string(generation)},
                                                                    {"inst", instance}};
  const std::string id = instance + "/0/bulk";
  std::vector<pipeline::SnapshotWriter> writers;
  auto send = [&](const OutRecord& r) -> Status {
    if (const size_t size = kafka::RecordBytes(r); size > budget) {
      return Status::InvalidArgument(fmt::format(
          "stage {}: a state row of {} bytes does not fit changelog topic {} ({} bytes); raise that topic's "
          "max.message.bytes",
          name, size, topic, budget));
    }
    return sender.Send(r);
  };
  for (int32_t t = 0; t < tasks; ++t) {
    writers.emplace_back(topic, t, generation, headers, id);
    RETURN_IF_ERROR(send(writers.back().Begin()));
  }
  const state::Family family = *stage.StateFamily();
  {
    auto it = store.NewIterator(family);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const int32_t task = stage.TaskOfKey(it->key());
      if (task < 0 || task >= tasks) return Status::Internal("bulk snapshot: a key of no task of stage " + name);
      RETURN_IF_ERROR(send(writers[task].Row(family, it->key(), it->value())));
    }
    RETURN_IF_ERROR(it->status());
  }
  for (int32_t t = 0; t < tasks; ++t) {
    const std::string input_key = pipeline::OffsetKey(name, stage.input_topic(), t);
    uint64_t input_at = 0;
    if (name == kPageStage) {
      ASSIGN_OR_RETURN(auto read_to, state::GetFixed64(store, state::Family::kOffsets, input_key, "offset " + input_key));
      if (!read_to) return Status::Internal("bulk snapshot: no position of " + input_key);
      input_at = *read_to;
    } else {
      ASSIGN_OR_RETURN(auto marks, admin.Watermarks(stage.input_topic(), t, kAdminTimeoutMs));
      input_at = static_cast<uint64_t>(marks.second);
    }
    RETURN_IF_ERROR(send(writers[t].Row(state::Family::kOffsets, input_key, state::Fixed64(input_at))));
    if (const std::string& side = stage.side_input_topic(); !side.empty()) {
      ASSIGN_OR_RETURN(auto marks, admin.Watermarks(side, t, kAdminTimeoutMs));
      RETURN_IF_ERROR(send(writers[t].Row(state::Family::kOffsets, pipeline::OffsetKey(name, side, t),
                                          state::Fixed64(static_cast<uint64_t>(marks.second)))));
    }
    RETURN_IF_ERROR(send(writers[t].End()));
    stats->snapshot_rows += writers[t].rows();
    ++stats->tasks;
  }
  return Status::Ok();
}

//! The dead letters the build put in the page stage's outbox: sent now, as the stage's runner
//! would send them (the members' runners never see that outbox).
Status SendDeadLetters(state::Store& store, BulkSender& sender, GroupBulkStats* stats) {
  const std::string prefix = std::string(kPageStage) + "/";
  auto it = store.NewIterator(state::Family::kOutbox);
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    ASSIGN_OR_RETURN(std::vector<OutRecord> records, codec::DecodeOutBatch(it->value()));
    for (const auto& r : records) {
      RETURN_IF_ERROR(sender.Send(r));
      ++stats->dead_letters;
    }
  }
  return it->status();
}

}  // namespace

Result<GroupBulkStats> GroupBulkBuild(const ProcessorConfig& config, kafka::Admin& admin, uint64_t generation,
                                      int64_t from_ms, BulkOptions options, const std::function<Status()>& reserve,
                                      const std::atomic<bool>& stop) {
  const auto started = Clock::now();
  GroupBulkStats stats;
  const auto& names = config.topics;
  ASSIGN_OR_RETURN(auto scratch, Scratch::Make(options.temp_dir));
  const std::string store_dir = scratch->path() + "/store";
  options.temp_dir = scratch->path() + "/sort";
  std::error_code ec;
  std::filesystem::create_directories(store_dir, ec);  // RocksDB logs an error for a missing dir
  std::filesystem::create_directories(options.temp_dir, ec);
  if (ec) return Status::IoError("cannot create " + options.temp_dir + ": " + ec.message());
  state::StoreOptions store_options = config.store;
  store_options.sync_commits = false;  // a scratch store: a crash starts the build again anyway
  ASSIGN_OR_RETURN(auto store, state::Store::Open(store_dir, store_options));
  RETURN_IF_ERROR(WritePageStarts(config, admin, *store, from_ms));
  {
    std::string missing;
    ASSIGN_OR_RETURN(const BulkRange range, UnreadRange(*store, admin, kPageStage, names.pages, &missing));
    if (!missing.empty()) return Status::Internal("group bulk build: " + missing);
    if (range.unread < options.min_records) {
      stats.skipped_because = fmt::format("{} records to read, fewer than the bulk threshold {}", range.unread,
                                          options.min_records);
      return stats;
    }
  }
  RETURN_IF_ERROR(reserve());

  // The crawl stages' state, built as a lone replay builds it (its table rows stay in the scratch
  // store: the members' tables are built from the exports). Records are the group's.
  const std::string instance = "group:" + config.group;
  ProcessorConfig lone = config;
  lone.group.clear();
  lone.runner.changelog = false;
  lone.stages = lone.table = true;
  options.min_records = 0;
  ASSIGN_OR_RETURN(stats.crawl, BulkBuildCrawl(lone, *store, admin, generation, instance, from_ms, options, stop));
  if (!stats.crawl.ran) {
    stats.skipped_because = stats.crawl.skipped_because;
    return stats;
  }
  stats.ran = true;

  pipeline::TopicLayout layout;
  layout.names = names;
  layout.generation = generation;
  layout.instance = instance;
  ASSIGN_OR_RETURN(layout.page_partitions, admin.PartitionCount(names.pages, kAdminTimeoutMs));
  ASSIGN_OR_RETURN(layout.uri_delta_partitions, admin.PartitionCount(names.uri_deltas, kAdminTimeoutMs));
  ASSIGN_OR_RETURN(layout.domain_delta_partitions, admin.PartitionCount(names.domain_deltas, kAdminTimeoutMs));
  ASSIGN_OR_RETURN(layout.export_partitions, admin.PartitionCount(names.exports, kAdminTimeoutMs));
  std::vector<std::unique_ptr<pipeline::Stage>> stages;
  stages.push_back(std::make_unique<pipeline::PageStage>(layout, config.limits, from_ms));
  stages.push_back(std::make_unique<pipeline::UriStage>(layout));
  stages.push_back(std::make_unique<pipeline::DomainStage>(layout));
  std::vector<std::string> topics = {names.dead_letters};
  for (const auto& stage : stages) topics.push_back(pipeline::ChangelogTopic(config.runner.changelog_prefix, stage->name()));
  const kafka::RecordLimits limits = admin.LimitsOf(topics, config.kafka, kAdminTimeoutMs);
  ASSIGN_OR_RETURN(auto sender, BulkSender::Create(config, limits.producer_max_message_bytes,
                                                   "a record of the group's bulk build"));
  RETURN_IF_ERROR(SendDeadLetters(*store, *sender, &stats));
  for (const auto& stage : stages) {
    if (stop) return Status::Aborted("bulk build interrupted");
    RETURN_IF_ERROR(WriteSnapshots(config, admin, *store, *stage, generation, instance, limits, *sender, &stats));
  }
  LOG_INFO("group bulk build: waiting for {} snapshot records and dead letters to be acknowledged", sender->sent());
  RETURN_IF_ERROR(sender->Wait(stop));
  stats.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  LOG_INFO("group bulk build of generation {}: {} events folded, snapshots of {} tasks ({} rows) in the changelogs, "
           "{} exports, {} dead letters in {:.1f} s",
           generation, stats.crawl.events, stats.tasks, stats.snapshot_rows, stats.crawl.exports, stats.dead_letters,
           stats.seconds);
  return stats;
}

}  // namespace webindex::app
