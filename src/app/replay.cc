#include "app/replay.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include "app/binding.h"
#include "app/bulk_builds.h"
#include "app/instance_details.h"
#include "codec/records.h"
#include "codec/state_codec.h"
#include "common/crash_point.h"
#include "common/log.h"
#include "common/time.h"
#include "graph/graph_stage.h"
#include "graph/key_codec.h"
#include "graph/term.h"
#include "pipeline/runner_keys.h"

namespace webindex::app {
namespace {

constexpr int kAdminTimeoutMs = 10000;
//! kMeta key written last when a generation's start positions are in place; its value is
//! the replay's from (ms, -1 for earliest). Without it the generation is rolled back.
constexpr char kReplayKey[] = "generation/replay_from";

}  // namespace

std::string DescribeFrom(int64_t from_ms) { return from_ms < 0 ? "earliest" : FormatRfc3339Ms(from_ms); }

bool SameIndexes(const InstanceDetails& a, const InstanceDetails& b) {
  return a.web_triples == b.web_triples && a.indexes == b.indexes && a.pagerank == b.pagerank;
}

Result<InstanceDetails> DetailsForReplay(const ProcessorConfig& config, const state::DataDir& dir, uint64_t current,
                                         const std::string& changes) {
  InstanceDetails d = DetailsFromConfig(config, NowMs());
  std::error_code ec;
  if (std::filesystem::exists(dir.PathOf(current) + "/CURRENT", ec)) {
    state::StoreOptions options = config.store;
    options.read_only = true;
    options.create_if_missing = false;
    ASSIGN_OR_RETURN(auto store, state::Store::Open(dir.PathOf(current), options));
    ASSIGN_OR_RETURN(bool set_up, IsSetUp(*store));
    if (set_up) {
      ASSIGN_OR_RETURN(InstanceDetails recorded, ReadDetails(*store));
      d.name = recorded.name.empty() ? d.name : recorded.name;
      d.created_ms = recorded.created_ms >= 0 ? recorded.created_ms : d.created_ms;
      d.web_triples = recorded.web_triples;
      d.indexes.temporal = recorded.indexes.temporal;
      d.indexes.freetext = recorded.indexes.freetext;
      d.pagerank = recorded.pagerank;
    }
  }
  RETURN_IF_ERROR(ChangeIndexes(changes, &d));
  return d;
}

Result<std::optional<ReplayStart>> ReadReplayStart(const state::DataDir& dir, uint64_t gen,
                                                   const state::StoreOptions& o) {
  auto opened = state::Store::Open(dir.PathOf(gen), o);
  if (!opened.ok()) {
    LOG_WARN("generation {} cannot be opened ({}); it is not current and is rolled back", gen,
             opened.status().ToString());
    return std::optional<ReplayStart>();
  }
  auto store = std::move(opened).value();
  ASSIGN_OR_RETURN(auto value, store->Get(state::Family::kMeta, kReplayKey));
  if (!value) return std::optional<ReplayStart>();
  ReplayStart start;
  try {
    start.from_ms = std::stoll(*value);
  } catch (const std::exception&) {
    return Status::Corruption("replay start of generation " + std::to_string(gen));
  }
  ASSIGN_OR_RETURN(start.details, ReadDetails(*store));
  return std::optional<ReplayStart>(std::move(start));
}

Result<Missing> CountMissing(state::Store& old_store, state::Store& new_store, state::Family family,
                             const std::string& begin, const std::string& end,
                             const std::function<std::string(std::string_view)>& describe) {
  Missing out;
  auto old_it = old_store.NewIterator(family);
  auto new_it = new_store.NewIterator(family);
  old_it->Seek(begin);
  new_it->Seek(begin);
  for (; old_it->Valid() && (end.empty() || old_it->key() < end); old_it->Next()) {
    while (new_it->Valid() && new_it->key() < old_it->key()) new_it->Next();
    if (!new_it->Valid() || new_it->key() != old_it->key()) {
      if (out.examples.size() < 3) out.examples.push_back(describe(old_it->key()));
      ++out.count;
    }
  }
  RETURN_IF_ERROR(old_it->status());
  RETURN_IF_ERROR(new_it->status());
  return out;
}

Result<int64_t> Unread(kafka::Admin& admin, state::Store& store, const char* stage, const std::string& topic) {
  int64_t unread = 0;
  ASSIGN_OR_RETURN(int partitions, admin.PartitionCount(topic, kAdminTimeoutMs));
  for (int32_t p = 0; p < partitions; ++p) {
    const std::string key = pipeline::OffsetKey(stage, topic, p);
    ASSIGN_OR_RETURN(auto position, state::GetFixed64(store, state::Family::kOffsets, key, "offset " + key));
    ASSIGN_OR_RETURN(auto marks, admin.Watermarks(topic, p, kAdminTimeoutMs));
    const int64_t from = position ? static_cast<int64_t>(*position) : marks.first;
    unread += std::max<int64_t>(0, marks.second - from);
  }
  return unread;
}

namespace {

struct DropCheck {
  Missing pages;       //!< URIs of the page stage (every URI with an event, deleted ones too)
  Missing statements;  //!< statements of the graph stage (the web graph aside: pages cover it)
};

//! Compares generation `current` with the stopped generation `gen`. The new generation's
//! positions are read after its keys (it is stopped: they do not move) and the watermarks after
//! the current generation was read, so what the current generation has and the new one has not
//! is either in a record the new one has not read (counted in `unread`) or gone from the input.
Result<DropCheck> CheckForDropped(const ProcessorConfig& config, kafka::Admin& admin, const state::DataDir& dir,
                                  uint64_t current, uint64_t gen) {
  DropCheck out;
  std::error_code ec;
  const std::string current_path = dir.PathOf(current);
  if (!std::filesystem::exists(current_path + "/CURRENT", ec)) return out;  // never ran: nothing to drop
  state::StoreOptions options = config.store;
  options.read_only = true;
  options.create_if_missing = false;
  ASSIGN_OR_RETURN(auto old_store, state::Store::Open(current_path, options));
  ASSIGN_OR_RETURN(auto new_store, state::Store::Open(dir.PathOf(gen), options));
  ASSIGN_OR_RETURN(out.pages, CountMissing(*old_store, *new_store, state::Family::kPages, "", "",
                                           [](std::string_view uri) { return std::string(uri); }));
  // The graph's SPO rows, one per statement, graph by graph; the web graph's rows are left out.
  const graph::KeySpace space;
  const std::string spo = space.prefix + static_cast<char>(graph::Index::kSpo);
  std::string web = spo;
  graph::AppendGraph(graph::Term::Iri(graph::kWebGraph), &web);
  auto statement = [&](std::string_view key) {
    graph::Statement st;
    if (!graph::DecodeRowKey(key.substr(spo.size()), graph::Index::kSpo, &st)) return std::string("?");
    return graph::ToNQuads(st);
  };
  ASSIGN_OR_RETURN(Missing before_web,
                   CountMissing(*old_store, *new_store, space.family, spo, web, statement));
  ASSIGN_OR_RETURN(Missing after_web, CountMissing(*old_store, *new_store, space.family,
                                                   graph::PrefixEnd(web), graph::PrefixEnd(spo), statement));
  out.statements = std::move(before_web);
  out.statements.count += after_web.count;
  for (auto& e : after_web.examples) {
    if (out.statements.examples.size() < 3) out.statements.examples.push_back(std::move(e));
  }
  if (out.pages.count > 0) {
    ASSIGN_OR_RETURN(out.pages.unread, Unread(admin, *new_store, "page", config.topics.pages));
  }
  if (out.statements.count > 0) {
    ASSIGN_OR_RETURN(out.statements.unread, Unread(admin, *new_store, "graph", config.topics.triples));
  }
  return out;
}

}  // namespace

Status CreateGeneration(const ProcessorConfig& config, const InstanceDetails& details, kafka::Admin& admin,
                        const state::DataDir& dir, uint64_t gen, int64_t from_ms) {
  RETURN_IF_ERROR(admin.EnsureTopics(TopicSpecs(config), kAdminTimeoutMs)
                      .WithContext("cannot reach Kafka at " + config.kafka.brokers));
  std::error_code ec;
  std::filesystem::create_directories(dir.PathOf(gen), ec);  // RocksDB logs an error for a missing dir
  if (ec) return Status::IoError("cannot create " + dir.PathOf(gen) + ": " + ec.message());
  ASSIGN_OR_RETURN(auto store, state::Store::Open(dir.PathOf(gen), config.store));
  state::WriteBatch wb(*store);
  InstanceDetails fresh = details;
  fresh.generation_created_ms = NowMs();
  RETURN_IF_ERROR(SetUpGeneration(config, fresh, admin, *store, from_ms, &wb));
  wb.Put(state::Family::kMeta, kReplayKey, std::to_string(from_ms));
  RETURN_IF_ERROR(store->Write(wb));
  return store->Flush();
}

namespace {

//! Commits, into the sink's outbox of generation `gen`, one generation record per partition of
//! the exports topic: whichever processor runs the generation next sends them, as it sends any
//! committed record. Once per generation.
Status CommitAnnouncement(const ProcessorConfig& config, kafka::Admin& admin, const state::DataDir& dir, uint64_t gen) {
  constexpr char kAnnouncedKey[] = "generation/announced";
  ASSIGN_OR_RETURN(int partitions, admin.PartitionCount(config.topics.exports, kAdminTimeoutMs));
  ASSIGN_OR_RETURN(auto store, state::Store::Open(dir.PathOf(gen), config.store));
  ASSIGN_OR_RETURN(auto announced, store->Get(state::Family::kMeta, kAnnouncedKey));
  if (announced) return Status::Ok();
  const std::string seq_key = pipeline::SeqKey("sink");
  ASSIGN_OR_RETURN(auto stored_seq,
                   state::GetFixed64(*store, state::Family::kMeta, seq_key, "seq counter of stage sink"));
  uint64_t seq = stored_seq.value_or(1);
  codec::ExportRecord record;
  record.type = codec::ExportRecord::Type::kGeneration;
  record.key = std::to_string(gen);
  record.gen = gen;
  ASSIGN_OR_RETURN(record.inst, dir.InstanceId());
  const std::string value = codec::Encode(record);
  std::vector<OutRecord> out;
  for (int32_t p = 0; p < partitions; ++p) out.push_back({config.topics.exports, p, record.key, value, {}});
  state::WriteBatch wb(*store);
  wb.Put(state::Family::kOutbox, pipeline::OutboxKey("sink", seq), codec::EncodeOutBatch(out));
  wb.Put(state::Family::kMeta, seq_key, state::Fixed64(seq + out.size()));
  wb.Put(state::Family::kMeta, kAnnouncedKey, "1");
  return store->Write(wb);
}

//! Makes `gen` current and removes the older generations, or leaves their removal to the
//! running `webindex run` that takes generation `gen` over.
Status Switch(state::DataDir& dir, uint64_t gen, const ReplayOptions& options) {
  ASSIGN_OR_RETURN(auto run_lock, state::FileLock::TryAcquire(RunLockPath(dir), "replay"));
  RETURN_IF_ERROR(dir.SetCurrent(gen));
  CrashPoint("replay-after-switch");
  if (run_lock) {
    ASSIGN_OR_RETURN(int removed, dir.RemoveOlder());
    LOG_INFO("replay done: generation {} is current; removed {} older generation(s)", gen, removed);
    return Status::Ok();
  }
  LOG_INFO("generation {} is current; waiting for the running `webindex run` to take it over", gen);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.takeover_timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    ASSIGN_OR_RETURN(auto all, dir.List());
    if (std::none_of(all.begin(), all.end(), [gen](uint64_t g) { return g < gen; })) {
      LOG_INFO("replay done: the running processor took over generation {} and removed the older one", gen);
      return Status::Ok();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  LOG_WARN("replay done: generation {} is current, but the running processor has not released the older "
           "generation after {} ms; it removes it when it switches or restarts",
           gen, options.takeover_timeout_ms);
  return Status::Ok();
}

}  // namespace

std::string RunLockPath(const state::DataDir& dir) { return dir.path() + "/run.lock"; }

Result<int64_t> ParseReplayFrom(const std::string& from) {
  if (from == "earliest") return int64_t{-1};
  auto t = ParseRfc3339(from);
  if (!t || t->seconds < 0) {
    return Status::InvalidArgument("--from expects 'earliest' or an RFC 3339 time such as 2026-11-21T08:00:00Z, got '" +
                                   from + "'");
  }
  return t->seconds * 1000 + t->nanos / 1000000;
}

Status Replay(ProcessorConfig config, const ReplayOptions& options, const std::atomic<bool>& stop) {
  ASSIGN_OR_RETURN(const int64_t from_ms, ParseReplayFrom(options.from));
  ASSIGN_OR_RETURN(state::DataDir dir, state::DataDir::Open(config.data_dir, /*create=*/true));
  ASSIGN_OR_RETURN(auto replay_lock, state::FileLock::TryAcquire(dir.path() + "/replay.lock", "replay"));
  if (!replay_lock) {
    const std::string holder = state::FileLock::Holder(dir.path() + "/replay.lock");
    return Status::Aborted("another replay is running on " + dir.path() + (holder.empty() ? "" : " (pid " + holder + ")"));
  }
  {
    // Leftovers of an earlier switch, unless a running processor still has them open.
    ASSIGN_OR_RETURN(auto run_lock, state::FileLock::TryAcquire(RunLockPath(dir), "replay"));
    if (run_lock) RETURN_IF_ERROR(dir.RemoveOlder().status());
  }

  ASSIGN_OR_RETURN(const uint64_t current, dir.Current());
  ASSIGN_OR_RETURN(auto all, dir.List());
  ASSIGN_OR_RETURN(const InstanceDetails details, DetailsForReplay(config, dir, current, options.indexes));
  std::optional<uint64_t> resume;
  for (uint64_t gen : all) {
    if (gen <= current) continue;
    ASSIGN_OR_RETURN(auto started, ReadReplayStart(dir, gen, config.store));
    std::optional<int64_t> started_from;
    if (started) started_from = started->from_ms;
    // Resumed when it was started with the same --from and builds the same indexes.
    if (!options.abort && !resume && started && started->from_ms == from_ms &&
        SameIndexes(started->details, details)) {
      resume = gen;
      LOG_INFO("resuming the replay of generation {} (from {})", gen, DescribeFrom(from_ms));
      continue;
    }
    LOG_INFO("rolling back the unfinished replay of generation {} (from {})", gen,
             started_from ? DescribeFrom(*started_from) : "an unfinished setup");
    RETURN_IF_ERROR(dir.Remove(gen));
  }
  if (options.abort) {
    LOG_INFO("generation {} stays current", current);
    return Status::Ok();
  }

  ASSIGN_OR_RETURN(auto admin, kafka::Admin::Create(config.kafka));
  uint64_t gen = 0;
  if (resume) {
    gen = *resume;
  } else {
    gen = std::max(current, all.empty() ? 0 : all.back()) + 1;
    LOG_INFO("replay from {} into generation {} of {}; generation {} keeps answering", DescribeFrom(from_ms), gen,
             dir.path(), current);
    RETURN_IF_ERROR(CreateGeneration(config, details, *admin, dir, gen, from_ms));
  }

  if (options.use_bulk && config.table) {
    // As batches first: the stages then go on from where the builds stopped.
    RETURN_IF_ERROR(RunBulkBuilds(config, dir, gen, *admin, from_ms, options.bulk, stop));
    CrashPoint("replay-after-bulk");
  }

  config.generation = gen;
  // A generation being rebuilt has no PageRank to offer yet: the `run` that takes it over
  // computes and publishes its results.
  config.compute_rank = false;
  {
    Processor processor(config);
    RETURN_IF_ERROR(processor.Start());
    int64_t first_lag = -1;
    auto last_report = std::chrono::steady_clock::now();
    Status run = processor.RunUntilCaughtUp(options.switch_lag, stop, [&](int64_t lag) {
      if (first_lag < 0) first_lag = std::max<int64_t>(lag, 1);
      if (std::chrono::steady_clock::now() - last_report < std::chrono::seconds(5)) return;
      last_report = std::chrono::steady_clock::now();
      const double done = 100.0 * static_cast<double>(first_lag - std::min(lag, first_lag)) / first_lag;
      LOG_INFO("replay of generation {}: {} records to go ({:.0f}% done)", gen, lag, done);
    });
    Status stopped = processor.Stop();
    RETURN_IF_ERROR(run);
    RETURN_IF_ERROR(stopped);
  }
  if (stop) {
    return Status::Aborted("replay of generation " + std::to_string(gen) +
                           " interrupted; run the same command again to resume it, or `webindex replay --abort` "
                           "to roll it back");
  }
  {
    ASSIGN_OR_RETURN(const DropCheck drop, CheckForDropped(config, *admin, dir, current, gen));
    // A statement record may hold many statements: only with nothing unread is the count exact.
    const bool pages_lost = drop.pages.count > 0 && static_cast<int64_t>(drop.pages.count) > drop.pages.unread;
    const bool statements_lost = drop.statements.count > 0 && drop.statements.unread == 0;
    auto describe = [&](const Missing& m, const char* what, const std::string& topic) {
      std::string examples;
      for (const auto& e : m.examples) examples += (examples.empty() ? "" : ", ") + e;
      return fmt::format("{} {} (e.g. {}) whose input is no longer in topic {} (removed by retention){}", m.count,
                         what, examples, topic,
                         from_ms < 0 ? "" : " or is stamped before --from " + DescribeFrom(from_ms));
    };
    std::string what;
    if (drop.pages.count > 0) what = describe(drop.pages, "page(s)", config.topics.pages);
    if (drop.statements.count > 0) {
      what += (what.empty() ? "" : ", and ") + describe(drop.statements, "statement(s)", config.topics.triples);
    }
    if (!what.empty()) {
      what = fmt::format("generation {} would lack what generation {} has: {}; a replay sees only what the topics "
                         "still hold",
                         gen, current, what);
      if (!pages_lost && !statements_lost) {
        // Could be records it has not read yet (a live input): the running `run` continues it.
        LOG_WARN("{} - unless they are in the {} input records it has yet to read", what,
                 drop.pages.unread + drop.statements.unread);
      } else if (!options.force) {
        return Status::Aborted(what + ". Generation " + std::to_string(current) +
                               " stays current. Switch anyway with --force (the same command resumes this "
                               "replay), or roll it back with --abort");
      } else {
        LOG_WARN("{}; switching anyway (--force)", what);
      }
    }
  }
  CrashPoint("replay-before-announce");
  RETURN_IF_ERROR(CommitAnnouncement(config, *admin, dir, gen));
  CrashPoint("replay-before-switch");
  return Switch(dir, gen, options);
}

}  // namespace webindex::app
