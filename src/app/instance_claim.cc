#include "app/instance_claim.h"

#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "app/binding.h"
#include "app/read_to_end.h"
#include "codec/json_writer.h"
#include "common/log.h"
#include "common/time.h"

namespace webindex::app {
namespace {

constexpr char kClaimKey[] = "lone";
constexpr int64_t kRecordsRead = 64;  // of the topic's end: heartbeats of one holder, a few holders
constexpr int kReleaseTimeoutMs = 2000;  // a stop with the brokers gone must not wait long  // of the topic's end: heartbeats of one holder, a few holders

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "unknown host";
  return name;
}

//! The newest claim on the topic and its offset; nullopt when there is none.
//! `settle`: ask again while the topic has no leader yet (a topic just made), for up to 10 s.
Result<std::optional<std::pair<ClaimHolder, int64_t>>> LastClaim(const kafka::ClientConfig& config,
                                                                  kafka::Admin& admin, const std::string& topic,
                                                                  int timeout_ms, bool settle) {
  ASSIGN_OR_RETURN(auto marks, settle ? SettledWatermarks(admin, topic, 0) : admin.Watermarks(topic, 0, timeout_ms));
  std::optional<std::pair<ClaimHolder, int64_t>> last;
  if (marks.second <= marks.first) return last;
  ASSIGN_OR_RETURN(auto consumer, kafka::Consumer::Create(config, "webindex-instances-check"));
  RETURN_IF_ERROR(consumer->Assign({{topic, 0, std::max(marks.first, marks.second - kRecordsRead)}}));
  int64_t next = 0;
  RETURN_IF_ERROR(ReadToEnd(*consumer, admin, topic, marks.second, timeout_ms, &next, [&](const InRecord& r) {
    if (r.tombstone || r.key != kClaimKey) return;
    auto holder = DecodeClaim(r.value);
    if (!holder.ok()) {
      LOG_WARN("{}[0] offset {}: {}; passed over", topic, r.offset, holder.status().ToString());
      return;
    }
    last.emplace(std::move(holder).value(), r.offset);
  }));
  consumer->Close();
  return last;
}

//! Why `group` ("" for a lone run) may not take the topics `holder` works on, and what to do.
Status Refusal(const ClaimHolder& holder, const std::string& group) {
  if (!holder.group.empty()) {
    return Status::Aborted(fmt::format(
        "the members of group {} work on these topics (the last to say so: data dir {} on {}, process {}). {} would "
        "write records that stop them. Stop them first, or use another Kafka cluster{}",
        holder.group, holder.data_dir, holder.host, holder.pid, group.empty() ? "A lone run" : "Another group",
        group.empty() ? fmt::format("; to share the work, start this one as a member: --group {}", holder.group)
                      : fmt::format("; to share the work, join group {} (--group {}) with a new data dir",
                                    holder.group, holder.group)));
  }
  return Status::Aborted(fmt::format(
      "another webindex run works on these topics: data dir {} on {} (process {}) holds them and is running. "
      "A {} would write records that stop it. Stop that one first, or run this one against another Kafka "
      "cluster{}",
      holder.data_dir, holder.host, holder.pid, group.empty() ? "second data dir" : "group's member",
      group.empty() ? "; to share the work, start both as members of one group (--group NAME)" : ""));
}

}  // namespace

std::string EncodeClaim(const ClaimHolder& h) {
  codec::JsonWriter w;
  w.BeginObject().Key("instance").String(h.instance);
  if (!h.group.empty()) w.Key("group").String(h.group);
  w.Key("dataDir").String(h.data_dir).Key("host").String(h.host);
  w.Key("pid").Int(h.pid).Key("heartbeatMs").Int(h.heartbeat_ms).Key("intervalMs").Int(h.interval_ms);
  w.Key("stopped").Bool(h.stopped);
  return w.EndObject().Take();
}

Result<ClaimHolder> DecodeClaim(std::string_view json) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  auto bad = [&](const std::string& why) {
    return Status::Corruption("instance claim " + std::string(json.substr(0, 200)) + ": " + why);
  };
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (parser.iterate(padded).get(doc) || doc.get_object().get(obj)) return bad("not a JSON object");
  ClaimHolder h;
  for (auto field : obj) {
    std::string_view key, text;
    if (field.unescaped_key().get(key)) return bad("bad key");
    auto value = field.value();
    if (key == "instance" || key == "group" || key == "dataDir" || key == "host") {
      if (value.get_string().get(text)) return bad(std::string(key) + " must be a string");
      (key == "instance" ? h.instance : key == "group" ? h.group : key == "dataDir" ? h.data_dir : h.host) =
          std::string(text);
    } else if (key == "pid" || key == "heartbeatMs" || key == "intervalMs") {
      int64_t v = 0;
      if (value.get_int64().get(v)) return bad(std::string(key) + " must be a number");
      (key == "pid" ? h.pid : key == "heartbeatMs" ? h.heartbeat_ms : h.interval_ms) = v;
    } else if (key == "stopped") {
      if (value.get_bool().get(h.stopped)) return bad("stopped must be true or false");
    }
  }
  if (h.instance.empty() && !h.stopped) return bad("no instance");
  return h;
}

Status InstanceClaim::Check(const kafka::ClientConfig& config, const Options& options, const std::string& instance,
                            const std::string& data_dir, const std::string& group) {
  return CheckFree(config, options, instance, data_dir, group).status();
}

Result<std::unique_ptr<InstanceClaim>> InstanceClaim::Acquire(const kafka::ClientConfig& config,
                                                              const Options& options, const std::string& instance,
                                                              const std::string& data_dir, const std::string& group) {
  ASSIGN_OR_RETURN(ClaimHolder self, CheckFree(config, options, instance, data_dir, group));
  ASSIGN_OR_RETURN(auto producer, kafka::Producer::Create(config, [](uint64_t, const Status&) {}));
  std::unique_ptr<InstanceClaim> claim(
      new InstanceClaim(options, config, std::move(self), std::move(producer)));
  RETURN_IF_ERROR(claim->Send(false, options.timeout_ms));
  claim->beat_ = std::thread([c = claim.get()] { c->Beat(); });
  return claim;
}

Result<ClaimHolder> InstanceClaim::CheckFree(const kafka::ClientConfig& config, const Options& options,
                                             const std::string& instance, const std::string& data_dir,
                                             const std::string& group) {
  const std::string context = "cannot reach Kafka at " + config.brokers + " (check --brokers / bootstrap.servers)";
  ASSIGN_OR_RETURN(auto admin, kafka::Admin::Create(config));
  // Compacted: only each key's newest record matters.
  RETURN_IF_ERROR(admin->EnsureTopics({{options.topic, 1, 1, {{"cleanup.policy", "compact"}}}}, options.timeout_ms)
                      .WithContext(context));
  ClaimHolder self;
  self.instance = instance;
  self.group = group;
  std::error_code ec;
  self.data_dir = std::filesystem::absolute(data_dir, ec).string();
  if (ec) self.data_dir = data_dir;
  self.host = HostName();
  self.pid = ::getpid();
  self.interval_ms = options.interval_ms;
  auto last = LastClaim(config, *admin, options.topic, options.timeout_ms, true);
  if (!last.ok()) return last.status().WithContext(context);
  // This data dir's own claim, from an earlier run on this host (its run lock keeps two runs of
  // one data dir on a host apart); on another host (a copied data dir) it is checked like any.
  // A member's group's claim is its own too, whichever member beat last.
  auto own = [&](const ClaimHolder& h) {
    return group.empty() ? h.group.empty() && h.instance == instance && h.host == self.host : h.group == group;
  };
  if (*last && !(*last)->first.stopped && !own((*last)->first)) {
    // Alive when it writes again within three of its intervals: no clocks of two hosts compared.
    const ClaimHolder& holder = (*last)->first;
    const int64_t wait_ms = std::clamp<int64_t>(holder.interval_ms * 3, 1000, 10000);
    LOG_INFO("{} was last claimed by data dir {} on {} (process {}{}); checking for {} ms whether it still runs",
             options.topic, holder.data_dir, holder.host, holder.pid,
             holder.group.empty() ? "" : ", a member of group " + holder.group, wait_ms);
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    auto now = LastClaim(config, *admin, options.topic, options.timeout_ms, true);
    if (!now.ok()) return now.status().WithContext(context);
    if (*now && (*now)->second > (*last)->second && !(*now)->first.stopped && !own((*now)->first)) {
      return Refusal((*now)->first, group);
    }
  }
  return self;
}

InstanceClaim::InstanceClaim(Options options, kafka::ClientConfig config, ClaimHolder self,
                             std::unique_ptr<kafka::Producer> producer)
    : options_(std::move(options)), config_(std::move(config)), producer_(std::move(producer)), self_(std::move(self)) {}

InstanceClaim::~InstanceClaim() { Release().PermitUncheckedError(); }

Status InstanceClaim::Send(bool stopped, int flush_timeout_ms) {
  OutRecord r;
  r.topic = options_.topic;
  r.partition = 0;
  r.key = kClaimKey;
  {
    std::lock_guard<std::mutex> lock(mu_);
    self_.heartbeat_ms = NowMs();
    self_.stopped = stopped;
    r.value = EncodeClaim(self_);
  }
  RETURN_IF_ERROR(producer_->Produce(r, 0));
  return flush_timeout_ms > 0 ? producer_->Flush(flush_timeout_ms) : Status::Ok();
}

void InstanceClaim::Beat() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!released_) {
    wake_.wait_for(lock, std::chrono::milliseconds(options_.interval_ms));
    if (released_) break;
    lock.unlock();
    try {
      if (Status st = Send(false, 0); !st.ok()) LOG_WARN("cannot renew the claim on {}: {}", options_.topic, st.ToString());
    } catch (const std::exception& e) {  // out of memory: the next beat tries again
      LOG_WARN("cannot renew the claim on {}: {}", options_.topic, e.what());
    }
    lock.lock();
  }
}

Status InstanceClaim::Release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (released_) return Status::Ok();
    released_ = true;
  }
  wake_.notify_all();
  if (beat_.joinable()) beat_.join();
  if (!self_.group.empty()) return Status::Ok();  // the group's other members may run on
  // A holder that stalled past its heartbeats may have been followed by another data dir, whose
  // claim a "stopped" record of this one would free.
  auto admin = kafka::Admin::Create(config_);
  if (!admin.ok()) return admin.status();
  auto last = LastClaim(config_, **admin, options_.topic, kReleaseTimeoutMs, false);
  if (!last.ok()) return last.status();
  if (*last && ((*last)->first.instance != self_.instance || !(*last)->first.group.empty()) &&
      !(*last)->first.stopped) {
    LOG_WARN("{} is claimed by data dir {} on {} since this run stalled; left to it", options_.topic,
             (*last)->first.data_dir, (*last)->first.host);
    return Status::Ok();
  }
  return Send(true, kReleaseTimeoutMs);
}

}  // namespace webindex::app
