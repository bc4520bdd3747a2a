#include "cli/commands.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "app/bulk_builds.h"
#include "app/group_member.h"
#include "app/group_replay.h"
#include "app/instance_claim.h"
#include "app/instance_details.h"
#include "app/replay.h"
#include "app/table_members.h"
#include "cli/embedded.h"
#include "cli/exit_codes.h"
#include "cli/load_command.h"
#include "cli/query_command.h"
#include "model/url.h"
#include "common/crash_point.h"
#include "common/log.h"
#include "http/server.h"
#include "http/shard_client.h"
#include "kafka/embedded_broker.h"
#include "query/table_reader.h"
#include "state/data_dir.h"

namespace webindex::cli {
namespace {

std::atomic<bool> g_stop{false};

void OnSignal(int) {
  if (g_stop.exchange(true)) _exit(kExitInterrupted);  // second signal: now; state is safe at any instant
}

int Fail(const Status& st) {
  LOG_ERROR("{}", st.ToString());
  return kExitFailure;
}

int Usage(const Status& st) {
  LOG_ERROR("{}", st.message());
  return kExitUsage;
}

//! Starts the in-process broker when the configuration says "embedded".
Result<std::unique_ptr<kafka::EmbeddedBroker>> MaybeEmbedded(Settings* settings) {
  if (settings->processor.kafka.brokers != "embedded") return std::unique_ptr<kafka::EmbeddedBroker>();
  ASSIGN_OR_RETURN(auto broker, kafka::EmbeddedBroker::Start());
  for (const auto& spec : app::TopicSpecs(settings->processor)) {
    RETURN_IF_ERROR(broker->CreateTopic(spec.name, spec.partitions));
  }
  for (const auto& spec : app::ControlTopicSpecs(settings->processor)) {
    RETURN_IF_ERROR(broker->CreateTopic(spec.name, spec.partitions));
  }
  settings->processor.kafka.brokers = broker->bootstrap_servers();
  LOG_INFO("embedded broker listening on {}", settings->processor.kafka.brokers);
  return broker;
}

}  // namespace

const std::atomic<bool>& InstallStopSignals() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return g_stop;
}

int RunBroker(const Settings& settings, const BrokerOptions& options) {
  // A file left by an earlier broker would send `--brokers @FILE` to an address nobody listens on.
  if (!options.address_file.empty()) {
    std::error_code ec;
    std::filesystem::remove(options.address_file, ec);
  }
  auto broker = kafka::EmbeddedBroker::Start();
  if (!broker.ok()) return Fail(broker.status());
  for (const auto& spec : app::TopicSpecs(settings.processor)) {
    const int partitions = options.partitions > 0 ? options.partitions : spec.partitions;
    if (Status st = (*broker)->CreateTopic(spec.name, partitions); !st.ok()) return Fail(st);
  }
  for (const auto& spec : app::ControlTopicSpecs(settings.processor)) {
    if (Status st = (*broker)->CreateTopic(spec.name, spec.partitions); !st.ok()) return Fail(st);
  }
  const std::string address = (*broker)->bootstrap_servers();
  if (!options.address_file.empty()) {
    const std::string tmp = options.address_file + ".tmp";
    std::ofstream(tmp) << address << '\n';
    if (rename(tmp.c_str(), options.address_file.c_str()) != 0) {
      return Fail(Status::IoError("cannot write " + options.address_file));
    }
  }
  std::cout << address << std::endl;
  LOG_INFO("embedded broker on {}; in memory, about 5 MiB per partition, no real transactions. Ctrl-C stops it.",
           address);
  const auto& stop = InstallStopSignals();
  while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (!options.address_file.empty()) {
    std::ifstream in(options.address_file);
    std::string written;
    std::getline(in, written);
    std::error_code ec;
    if (written == address) std::filesystem::remove(options.address_file, ec);  // unless another broker's now
  }
  return kExitOk;
}

namespace {

//! $TMPDIR, or /tmp.
std::string TempDir() {
  std::error_code ec;
  const auto dir = std::filesystem::temp_directory_path(ec);
  return ec ? "/tmp" : dir.string();
}

//! The demo's steps on a data dir of its own; the caller removes a temporary one on failure.
Status Demo(const Settings& settings, const DemoOptions& options) {
  LoadOptions load;
  load.files = {options.file};
  if (options.file.empty()) {
    const auto& files = EmbeddedFiles();
    const auto sample = std::find_if(files.begin(), files.end(), [](const EmbeddedFile& f) {
      return f.path == "tests/data/5-pages.txt";
    });
    if (sample == files.end()) return Status::Internal("the sample crawl is not in this binary");
    std::string tmpl = TempDir() + "/webindex-demo-sample-XXXXXX";
    const int fd = mkstemp(tmpl.data());
    if (fd < 0) return Status::IoError("cannot create a temporary file for the sample crawl in " + TempDir());
    ::close(fd);
    load.files = {tmpl};
    std::ofstream out(tmpl, std::ios::binary);
    if (!(out << sample->text).flush()) return Status::IoError("cannot write " + tmpl);
  }
  LoadSummary loaded;
  Status st = LoadFiles(settings, settings.processor.topics.pages, load, &loaded);
  if (options.file.empty()) {
    std::error_code ec;
    std::filesystem::remove(load.files[0], ec);
  }
  RETURN_IF_ERROR(st);
  const auto& stop = InstallStopSignals();
  {
    app::Processor processor(settings.processor);
    RETURN_IF_ERROR(processor.Start());
    Status run = processor.Run(/*exit_when_idle=*/true, stop);
    Status stopped = processor.Stop();
    RETURN_IF_ERROR(run);
    RETURN_IF_ERROR(stopped);
  }
  ASSIGN_OR_RETURN(auto store, OpenTableReadOnly(settings));
  ASSIGN_OR_RETURN(auto top, query::TopUris(*store, 10));
  auto show = [](const query::RankedUri& r) {
    auto url = model::UrlFromUri(r.uri);
    std::cout << fmt::format("  {:>6}  {}\n", r.count, url.ok() ? url->ToString() : r.uri);
  };
  std::cout << "\nMost linked-to pages (inlinks, URL):\n";
  for (const auto& r : top) show(r);
  std::string domain = options.domain;
  if (domain.empty()) {
    ASSIGN_OR_RETURN(domain, query::LargestDomain(*store));
  } else if (auto url = model::ParseUrl("http://" + domain + "/"); url.ok()) {
    domain = url->ReverseDomain();
  }
  uint64_t pagecount = 0;
  ASSIGN_OR_RETURN(auto pages, query::DomainUris(*store, domain, 10, &pagecount));
  auto domain_url = model::UrlFromUri(domain + ">>o>/");
  std::cout << "\nMost linked-to pages of domain " << (domain_url.ok() ? domain_url->domain : domain) << " ("
            << pagecount << " pages known):\n";
  for (const auto& r : pages) show(r);
  std::cout << "\nThe whole table: webindex dump --data-dir " << settings.processor.data_dir << "\n";
  return Status::Ok();
}

}  // namespace

int RunDemo(Settings settings, const DemoOptions& options) {
  auto embedded = MaybeEmbedded(&settings);
  if (!embedded.ok()) return Fail(embedded.status());
  bool temporary = false;
  if (settings.processor.data_dir.empty()) {
    std::string tmpl = TempDir() + "/webindex-demo-XXXXXX";
    if (!mkdtemp(tmpl.data())) return Fail(Status::IoError("cannot create a temporary data dir in " + TempDir()));
    settings.processor.data_dir = tmpl;
    temporary = true;
  }
  Status st = Demo(settings, options);
  if (st.ok()) return kExitOk;
  if (temporary) {
    std::error_code ec;
    std::filesystem::remove_all(settings.processor.data_dir, ec);
  }
  return Fail(st);
}

namespace {

//! Takes the data dir's run lock. Another run holding it fails at once, naming its pid; a
//! replay holds it for a moment while it switches generations, so that is waited for.
Result<std::unique_ptr<state::FileLock>> LockForRun(const state::DataDir& dir) {
  const std::string path = app::RunLockPath(dir);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool said = false;
  while (true) {
    ASSIGN_OR_RETURN(auto lock, state::FileLock::TryAcquire(path, "run"));
    if (lock) return lock;
    const std::string holder = state::FileLock::Holder(path);
    if (!holder.ends_with(" replay") || std::chrono::steady_clock::now() > deadline) {
      return Status::Aborted("another webindex process uses " + dir.path() + " (" +
                             (holder.empty() ? "it holds " + path : "pid " + holder) +
                             "); stop it first, or give this one another --data-dir");
    }
    if (!said) LOG_INFO("waiting for the replay (pid {}) that is switching generations of {}", holder, dir.path());
    said = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

//! `run --reset`: removes every generation under the run lock, so that the run starts afresh.
Status ResetDataDir(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Status::IoError("cannot create data dir " + path + ": " + ec.message());
  ASSIGN_OR_RETURN(auto lock, state::FileLock::TryAcquire(path + "/run.lock", "run"));
  if (!lock) {
    const std::string holder = state::FileLock::Holder(path + "/run.lock");
    return Status::Aborted("another webindex process uses " + path + (holder.empty() ? "" : " (pid " + holder + ")") +
                           "; stop it before --reset");
  }
  LOG_WARN("--reset: removing the state and query table in {}; they are rebuilt from the input topic", path);
  return state::DataDir::Reset(path);
}

void RemoveOlderGenerations(state::DataDir& dir) {
  auto removed = dir.RemoveOlder();
  if (!removed.ok()) {
    LOG_WARN("cannot remove old generations: {}", removed.status().ToString());
  } else if (*removed > 0) {
    LOG_INFO("removed {} old generation(s) of {}", *removed, dir.path());
  }
}

int ExitFor(Status run, Status stopped, uint64_t lost) {
  if (!run.ok()) return Fail(run);
  if (!stopped.ok()) return Fail(stopped);
  if (lost > 0) {
    LOG_ERROR("DATA LOSS: {} input records were removed by retention before they were read (the log above names "
              "each range); the table lacks them. Exit code {}.",
              lost, static_cast<int>(kExitDataLoss));
    return kExitDataLoss;
  }
  return kExitOk;
}

//! Where the other members of a partitioned table reach this member's API: `advertise`, else the
//! --http address when it names a host others can reach (not a wildcard); `port` replaces a port 0.
Result<std::string> AdvertisedAddress(const std::string& listen, const std::string& advertise, uint16_t port = 0) {
  if (!advertise.empty()) {
    auto address = http::ParseListenAddress(advertise);
    if (!address.ok()) return Status::InvalidArgument("--http-advertise: " + address.status().message());
    if (address->port == 0) return Status::InvalidArgument("--http-advertise needs a port other than 0");
    return advertise;
  }
  ASSIGN_OR_RETURN(auto address, http::ParseListenAddress(listen));
  if (address.host == "0.0.0.0" || address.host == "::" || address.host.empty()) {
    return Status::InvalidArgument("--http " + listen +
                                   " listens on every interface: give --http-advertise HOST:PORT, the address the "
                                   "other members of the partitioned table reach this member's API at");
  }
  const std::string host = address.host.find(':') != std::string::npos ? "[" + address.host + "]" : address.host;
  return host + ":" + std::to_string(port != 0 ? port : address.port);
}

//! A member with --table-shard and --http: its API answers for the whole table, from its own
//! shards and, through the other members' APIs, theirs (app/table_members.h).
class ShardedApi {
 public:
  //! Moves `server` over to `processor` (SwitchHttp), answering from its shards when it keeps
  //! some. The previous processor's members go only once the API no longer reads through them.
  Status Serve(const Settings& settings, const RunOptions& options, app::Processor& processor,
               http::Server& server) {
    StopRank();
    app::TableShards* shards = processor.table_shards();
    if (shards == nullptr) {
      SwitchHttp(server, processor);
      server.api().SetShardLookup(nullptr);
      members_.reset();
      return Status::Ok();
    }
    ASSIGN_OR_RETURN(auto dir, state::DataDir::Open(settings.processor.data_dir, /*create=*/false));
    app::TableMembersOptions o;
    o.kafka = settings.processor.kafka;
    o.topic = settings.processor.topics.table_members;
    o.group_id = shards->group_id();
    ASSIGN_OR_RETURN(o.member, dir.InstanceId());
    o.pagerank_result = [&processor] { return processor.ShardRankResultId(); };
    ASSIGN_OR_RETURN(o.http, AdvertisedAddress(settings.http.listen, options.http_advertise, server.port()));
    ASSIGN_OR_RETURN(auto members, app::TableMembers::Start(o, *shards, [](const std::string& http, const std::vector<int32_t>& shards,
                                                                         int32_t partitions) {
                       return std::make_shared<http::RemoteShardSource>(http, shards, partitions);
                     }));
    SwitchHttp(server, processor, members->Table());
    server.api().SetShardLookup([shards](int32_t shard) -> std::shared_ptr<query::TableSource> {
      const auto sources = shards->Sources();
      return shard >= 0 && shard < static_cast<int32_t>(sources.size()) ? sources[shard] : nullptr;
    });
    // The PageRank of the whole table: computed by the member serving shard 0, which the
    // others forward /api/pagerank to.
    auto first_id = [m = members.get()] { return m->HighestPageRankResult() + 1; };
    if (Status st = processor.StartShardRank(members->Table(), first_id); !st.ok()) {
      LOG_ERROR("pagerank: this member cannot compute the partitioned table's PageRank: {}", st.ToString());
    }
    server.api().SetPageRank([&processor, m = members.get()] {
      http::PageRankHome home;
      home.results = processor.ShardRankResults();
      if (home.results == nullptr) home.forward_to = m->AddressOf(0);
      return home;
    });
    ranked_ = &processor;
    server_ = &server;
    members_ = std::move(members);
    return Status::Ok();
  }
  void Stop() {
    StopRank();
    members_.reset();
  }

 private:
  //! Before the members it reads through go: the API stops asking for the PageRank, then the
  //! processor (still running: on_switch comes before it stops) stops computing it.
  void StopRank() {
    if (server_) server_->api().SetPageRank(nullptr);
    if (ranked_) ranked_->StopShardRank();
    ranked_ = nullptr;
    server_ = nullptr;
  }

  std::unique_ptr<app::TableMembers> members_;
  app::Processor* ranked_ = nullptr;  //!< the processor computing the PageRank through members_
  http::Server* server_ = nullptr;
};

//! `run --group`: the group's generations (app/group_member.h), the API following the current one.
int RunMember(const Settings& settings, const RunOptions& options, const std::atomic<bool>& stop) {
  std::unique_ptr<http::Server>* served = nullptr;
  ShardedApi sharded;
  app::GroupMember member(settings.processor, [&](app::Processor& next) {
    if (!served || !*served) return;
    if (Status st = sharded.Serve(settings, options, next, **served); !st.ok()) {
      LOG_ERROR("the API cannot ask the other members for their shards: {}", st.ToString());
    }
  });
  if (Status st = member.Start(); !st.ok()) return Fail(st);
  auto server = StartHttp(settings, member.current());
  if (!server.ok()) return Fail(server.status());
  served = &*server;
  if (*server) {
    if (Status st = sharded.Serve(settings, options, member.current(), **server); !st.ok()) {
      (*server)->Stop();
      member.Stop().PermitUncheckedError();
      return Fail(st);
    }
  }
  Status run = member.Run(options.exit_when_idle, stop);
  if (*server) (*server)->Stop();  // before the processors close the stores it serves
  sharded.Stop();                  // before the processors' shards go
  Status stopped = member.Stop();
  return ExitFor(run, stopped, member.lost_records());
}

}  // namespace

int RunProcessor(Settings settings, const RunOptions& options) {
  // Every argument is checked before anything touches the disk or the network (the brokers by
  // main, as for every subcommand that talks to Kafka: cli/brokers.h).
  if (!settings.http.listen.empty()) {
    if (auto listen = http::ParseListenAddress(settings.http.listen); !listen.ok()) {
      return Usage(Status::InvalidArgument("--http: " + listen.status().message()));
    }
  }
  auto& run_config = settings.processor;
  if (!run_config.group_instance_id.empty() && run_config.group.empty()) {
    return Usage(Status::InvalidArgument("--group-instance-id names a member of a group: give --group NAME too"));
  }
  if ((options.table || options.no_stages || options.table_shard) && run_config.group.empty()) {
    return Usage(Status::InvalidArgument(
        "--table, --table-shard and --no-stages choose what a member of a group runs: give --group NAME too (a lone "
        "run keeps both the stages and the table)"));
  }
  if (!options.http_advertise.empty() && (!options.table_shard || settings.http.listen.empty())) {
    return Usage(Status::InvalidArgument(
        "--http-advertise tells the other members of a partitioned table where this member's API is: give "
        "--table-shard and --http too"));
  }
  if (options.table_shard && !settings.http.listen.empty()) {
    auto advertised = AdvertisedAddress(settings.http.listen, options.http_advertise);
    if (!advertised.ok()) return Usage(advertised.status());
  }
  if (!run_config.group.empty()) {
    run_config.table_shards = options.table_shard;
    run_config.table = options.table || options.table_shard || !settings.http.listen.empty();
    run_config.stages = !options.no_stages;
    if (!run_config.table && !run_config.stages) {
      return Usage(Status::InvalidArgument("--no-stages without --table or --http leaves this member nothing to do"));
    }
  }
  if (!run_config.group.empty() && run_config.kafka.brokers == "embedded") {
    return Usage(Status::InvalidArgument(
        "--group shares the work with other processes through Kafka, which an in-process broker cannot: start one "
        "with `webindex broker` (or use a Kafka cluster) and give its address as --brokers"));
  }
  auto embedded = MaybeEmbedded(&settings);
  if (!embedded.ok()) return Fail(embedded.status());
  const auto& stop = InstallStopSignals();
  if (options.reset) {
    if (Status st = ResetDataDir(settings.processor.data_dir); !st.ok()) return Fail(st);
  }
  auto dir = state::DataDir::Open(settings.processor.data_dir, /*create=*/true);
  if (!dir.ok()) return Fail(dir.status());
  auto run_lock = LockForRun(*dir);
  if (!run_lock.ok()) return Fail(run_lock.status());
  RemoveOlderGenerations(*dir);

  // A run claims its topics before it writes to Kafka: another data dir running on them alone, or
  // the members of another group, are named and this one refused (app/instance_claim.h). The
  // members of one group share the claim.
  app::InstanceClaim::Options claim_options;
  claim_options.topic = settings.processor.topics.instances;
  auto id = dir->InstanceId();  // a new data dir's is made here, before its database
  if (!id.ok()) return Fail(id.status());
  auto held = app::InstanceClaim::Acquire(settings.processor.kafka, claim_options, *id, settings.processor.data_dir,
                                          settings.processor.group);
  if (!held.ok()) return Fail(held.status());
  std::unique_ptr<app::InstanceClaim> claim = std::move(held).value();
  if (!settings.processor.group.empty()) return RunMember(settings, options, stop);
  if (options.bulk) {
    if (Status st = app::BulkBeforeRun(settings.processor, settings.bulk, stop); !st.ok()) {
      claim->Release().PermitUncheckedError();
      if (st.code() == Status::Code::kAborted && stop) {
        LOG_INFO("stopped during the bulk build; the next run builds again");
        return kExitInterrupted;
      }
      return Fail(st);
    }
  }
  auto processor = std::make_unique<app::Processor>(settings.processor);
  if (Status st = processor->Start(); !st.ok()) return Fail(st);
  auto server = StartHttp(settings, *processor);
  if (!server.ok()) return Fail(server.status());
  Status run;
  uint64_t lost = 0;  // input records removed by retention before they were read, by retired processors
  while (true) {
    run = processor->Run(options.exit_when_idle, stop);
    if (!run.ok() || !processor->switch_to()) break;
    // A replay made another generation current: start it, move the API over, retire ours.
    auto next = std::make_unique<app::Processor>(settings.processor);
    if (run = next->Start(); !run.ok()) break;
    CrashPoint("run-switch-started");
    if (*server) SwitchHttp(**server, *next);
    std::swap(processor, next);  // the server serves the new one from now on, whatever follows
    run = next->Stop();
    lost += next->metrics().lost_records;
    next.reset();
    if (!run.ok()) break;
    RemoveOlderGenerations(*dir);
    LOG_INFO("now running generation {}", processor->generation());
  }
  if (*server) (*server)->Stop();  // before the processor closes the store it serves
  Status stopped = processor->Stop();
  lost += processor->metrics().lost_records;
  if (Status released = claim->Release(); !released.ok()) {
    LOG_WARN("could not free the claim on {}: {}; the next run of another data dir waits a few seconds to see it "
             "is stale", settings.processor.topics.instances, released.ToString());
  }
  return ExitFor(run, stopped, lost);
}

int RunReplay(Settings settings, const app::ReplayOptions& options) {
  if (auto from = app::ParseReplayFrom(options.from); !from.ok()) return Usage(from.status());
  const bool group = !settings.processor.group.empty();
  if (!group && settings.processor.data_dir.empty()) {
    return Usage(Status::InvalidArgument(
        "replay needs the --data-dir whose table it rebuilds (or --group NAME to replay a consumer group's)"));
  }
  if (app::InstanceDetails check; !options.indexes.empty()) {
    if (Status st = app::ChangeIndexes(options.indexes, &check); !st.ok()) return Usage(st);
  }
  if (!group) {
    // A replay writes internal records of its data dir on the topics: refused, before it writes
    // anything, while another data dir's run (or a group) holds them (app/instance_claim.h).
    // Beside its own data dir's run it goes on; it takes no claim of its own.
    auto dir = state::DataDir::Open(settings.processor.data_dir, /*create=*/true);
    if (!dir.ok()) return Fail(dir.status());
    auto id = dir->InstanceId();
    if (!id.ok()) return Fail(id.status());
    app::InstanceClaim::Options claim_options;
    claim_options.topic = settings.processor.topics.instances;
    if (Status st = app::InstanceClaim::Check(settings.processor.kafka, claim_options, *id,
                                              settings.processor.data_dir);
        !st.ok()) {
      return Fail(st);
    }
  }
  const auto& stop = InstallStopSignals();
  Status st = group ? app::ReplayGroup(settings.processor, options, stop) : app::Replay(settings.processor, options, stop);
  if (!st.ok()) {
    LOG_ERROR("{}", st.ToString());
    return st.code() == Status::Code::kAborted && stop ? kExitInterrupted : kExitFailure;
  }
  return kExitOk;
}

int RunVerify(const Settings& settings) {
  auto store = OpenTableReadOnly(settings);
  if (!store.ok()) return Fail(store.status());
  if (Status st = (*store)->VerifyChecksums(); !st.ok()) return Fail(st);
  LOG_INFO("{}: every checksum verified", (*store)->dir());
  return kExitOk;
}

int RunDetails(const Settings& settings) {
  auto dir = state::DataDir::Open(settings.processor.data_dir, /*create=*/false);
  if (!dir.ok()) return Fail(dir.status());
  auto generation = dir->Current();
  if (!generation.ok()) return Fail(generation.status());
  auto id = dir->InstanceId();
  if (!id.ok()) return Fail(id.status());
  auto store = OpenTableReadOnly(settings);
  if (!store.ok()) return Fail(store.status());
  auto details = app::ReadDetails(**store);
  if (!details.ok()) return Fail(details.status());
  std::cout << app::DetailsJson(*details, *id, *generation) << std::endl;
  return kExitOk;
}

int RunDump(const Settings& settings) {
  bool no_table = false;
  auto store = OpenQueryTable(settings, &no_table);
  if (no_table) {
    LOG_ERROR("{}", store.status().message());
    return kExitNotFound;
  }
  if (!store.ok()) return Fail(store.status());
  std::ios::sync_with_stdio(false);
  auto lines = query::DumpTable(**store, std::cout);
  if (!lines.ok()) return Fail(lines.status());
  std::cout.flush();
  return kExitOk;
}

}  // namespace webindex::cli
