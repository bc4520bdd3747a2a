#include "app/bulk_builds.h"

#include <filesystem>
#include <string>

#include "app/binding.h"
#include "app/bulk_crawl.h"
#include "app/bulk_graph.h"
#include "app/instance_details.h"
#include "common/log.h"
#include "common/time.h"
#include "state/store.h"

namespace webindex::app {
namespace {

constexpr int kAdminTimeoutMs = 10000;

}  // namespace

Status RunBulkBuilds(const ProcessorConfig& config, const state::DataDir& dir, uint64_t gen, kafka::Admin& admin,
                     int64_t from_ms, BulkOptions options, const std::atomic<bool>& stop) {
  if (options.temp_dir.empty()) options.temp_dir = dir.path() + "/bulk-tmp";
  std::error_code ec;
  std::filesystem::remove_all(options.temp_dir, ec);  // run files of a build that was killed
  std::filesystem::create_directories(options.temp_dir, ec);
  if (ec) return Status::IoError("cannot create " + options.temp_dir + ": " + ec.message());
  ASSIGN_OR_RETURN(const std::string instance, dir.InstanceId());
  ASSIGN_OR_RETURN(auto store, state::Store::Open(dir.PathOf(gen), config.store));
  const std::string of = " of generation " + std::to_string(gen);
  Status built = [&]() -> Status {
    auto graph = BulkBuildGraph(config, *store, admin, from_ms, options, stop);
    RETURN_IF_ERROR(graph.status().WithContext("bulk graph build" + of));
    if (!graph->ran) LOG_INFO("no bulk graph build: {}", graph->skipped_because);
    auto crawl = BulkBuildCrawl(config, *store, admin, gen, instance, from_ms, options, stop);
    RETURN_IF_ERROR(crawl.status().WithContext("bulk crawl build" + of));
    if (!crawl->ran) LOG_INFO("no bulk crawl build: {}", crawl->skipped_because);
    return Status::Ok();
  }();
  store.reset();
  std::filesystem::remove_all(options.temp_dir, ec);
  return built;
}

Status BulkBeforeRun(const ProcessorConfig& config, const BulkOptions& options, const std::atomic<bool>& stop) {
  ASSIGN_OR_RETURN(auto admin, kafka::Admin::Create(config.kafka));
  RETURN_IF_ERROR(admin->EnsureTopics(TopicSpecs(config), kAdminTimeoutMs)
                      .WithContext("cannot reach Kafka at " + config.kafka.brokers + " (check --brokers / bootstrap.servers)"));
  ASSIGN_OR_RETURN(state::DataDir dir, state::DataDir::Open(config.data_dir, /*create=*/true));
  ASSIGN_OR_RETURN(const uint64_t gen, dir.Current());
  const std::string where = "generation " + std::to_string(gen) + " of data dir " + config.data_dir;
  {
    std::error_code ec;
    std::filesystem::create_directories(dir.PathOf(gen), ec);  // RocksDB logs an error for a missing dir
    if (ec) return Status::IoError("cannot create " + dir.PathOf(gen) + ": " + ec.message());
    ASSIGN_OR_RETURN(auto store, state::Store::Open(dir.PathOf(gen), config.store));
    ASSIGN_OR_RETURN(const bool set_up, IsSetUp(*store));
    if (!set_up) {
      LOG_INFO("{} is new: reading {} from its start, the internal topics from their current ends", where,
               config.topics.pages);
      RETURN_IF_ERROR(SetUpGeneration(config, DetailsFromConfig(config, NowMs()), *admin, *store, -1));
    }
    RETURN_IF_ERROR(CheckBinding(config, *admin, *store, where));
  }
  return RunBulkBuilds(config, dir, gen, *admin, -1, options, stop);
}

}  // namespace webindex::app
