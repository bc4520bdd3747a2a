// One type, one file (~600 lines): assignment, group rebalances, holds, polling and offset
// resets all act on the one librdkafka handle and the state in Consumer::Impl.
#include "kafka/consumer.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string_view>
#include <tuple>

#include "common/log.h"
#include "kafka/rdkafka_handle.h"

namespace webindex::kafka {
namespace {

int64_t SteadyNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct MessageDeleter {
  void operator()(rd_kafka_message_t* m) const { rd_kafka_message_destroy(m); }
};
using MessagePtr = std::unique_ptr<rd_kafka_message_t, MessageDeleter>;

//! The client's list of `parts`, each at `offset_of(part)`, or at its own offset without one.
PartitionList MakeList(const std::vector<TopicPartitionOffset>& parts,
                       const std::function<int64_t(const TopicPartitionOffset&)>& offset_of = {}) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(parts.size())));
  for (const auto& p : parts) {
    rd_kafka_topic_partition_list_add(list.get(), p.topic.c_str(), p.partition)->offset =
        offset_of ? offset_of(p) : p.offset;
  }
  return list;
}

}  // namespace

struct MessageBatch::Impl {
  std::vector<MessagePtr> messages;
};
MessageBatch::MessageBatch() : impl_(std::make_unique<Impl>()) {}
MessageBatch::~MessageBatch() = default;
MessageBatch::MessageBatch(MessageBatch&&) noexcept = default;
std::vector<std::pair<std::string, std::string>> MessageBatch::Headers(size_t i) const {
  std::vector<std::pair<std::string, std::string>> out;
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(impl_->messages[i].get(), &hdrs) || !hdrs) return out;
  const char* name;
  const void* value;
  size_t size;
  for (size_t idx = 0; !rd_kafka_header_get_all(hdrs, idx, &name, &value, &size); ++idx) {
    out.emplace_back(name, std::string(static_cast<const char*>(value), size));
  }
  return out;
}

void MessageBatch::Clear() {
  records_.clear();
  impl_->messages.clear();
}

namespace {
//! A lone consumer (no group member) still has a session timeout: it bounds how long closing
//! waits for offset commits the coordinator cannot take. 6 s, the brokers' minimum.
constexpr int kLoneSessionTimeoutMs = 6000;
}  // namespace

struct Consumer::Impl {
  RdKafkaPtr rk;
  //! The handle goes first: its callbacks, which read the members below, run until it is gone.
  ~Impl() { rk.reset(); }
  RebalanceListener* listener = nullptr;
  MessageBatch* polling = nullptr;  // the batch PollBatch is filling, while it does
  bool cooperative_member = false;  // joins a group with the cooperative-sticky assignor
  bool ever_assigned = false;       // the group completed an assignment to it (maybe of nothing)
  bool closed = false;
  //! Group members: the client's join state is "steady" (JoinStateLog); false from the join until
  //! the first assignment is served, and again from the moment the client learns of a rebalance
  //! until it has served its end. Written on librdkafka's threads.
  std::atomic<bool> steady{false};
  //! Group members: when (steady clock, ms) the member last left the steady state; -1 while steady.
  std::atomic<int64_t> unsettled_since_ms{-1};
  mutable std::mutex join_state_mu;
  std::string join_state = "init";  // guarded by join_state_mu
  bool held = false;                // Hold: the assignment is paused
  bool debug_asked = false;  // the user's `debug` property: librdkafka's debug lines are logged
  int close_wait_ms = kLoneSessionTimeoutMs + 5000;  // how long Close waits for the close to finish
  std::atomic<uint64_t> errors{0};
  std::vector<Consumer::DataLoss> losses;
  std::map<std::pair<std::string, int32_t>, int64_t> lost_below;  // per partition: losses reported below this offset
  std::map<std::pair<std::string, int32_t>, int64_t> assigned_at;  // where each partition started

  //! A group member's log callback: follows the client's join state from its "changed join
  //! state" lines (librdkafka 2.0 tells it nowhere else), and passes on what the user asked for.
  static void JoinStateLog(const rd_kafka_t* rk, int level, const char* fac, const char* buf);

  //! A group member's rebalance: tells the listener, then takes or gives up the partitions.
  void OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts);

  //! While held, partitions (re)assigned are paused as they arrive.
  void PauseIfHeld(rd_kafka_topic_partition_list_t* parts) {
    if (!held || !parts || parts->cnt == 0) return;
    if (rd_kafka_resp_err_t err = rd_kafka_pause_partitions(rk.get(), parts)) {
      LOG_ERROR("kafka: holding assigned partitions: {}", rd_kafka_err2str(err));
    }
  }

  //! The committed position fell below the partition's start: report the gap, go on from the start.
  void OnOffsetReset(const rd_kafka_message_t* m) {
    const char* topic = rd_kafka_topic_name(m->rkt);
    int64_t lo = 0, hi = 0;
    if (rd_kafka_query_watermark_offsets(rk.get(), topic, m->partition, &lo, &hi, 5000)) {
      LOG_ERROR("consuming {}[{}]: offset {} is out of range and the range could not be read; retrying", topic,
                m->partition, m->offset);
      return;
    }
    if (m->offset >= 0 && m->offset < lo) {
      // A fetch already in flight can report the same range again: each lost record counts once.
      int64_t& reported = lost_below[{topic, m->partition}];
      const int64_t from = std::max<int64_t>(m->offset, reported);
      if (from < lo) {
        losses.push_back({topic, m->partition, from, lo});
        LOG_ERROR("DATA LOSS: {}[{}] offsets [{}, {}) were removed by retention before they were read; "
                  "continuing at {}",
                  topic, m->partition, from, lo, lo);
      }
      reported = std::max(reported, lo);
    } else {
      LOG_ERROR("consuming {}[{}]: offset {} is out of range [{}, {}); continuing at {}", topic, m->partition,
                m->offset, lo, hi, m->offset < lo ? lo : hi);
    }
    const int64_t restart = m->offset < lo ? lo : hi;
    if (std::string_view(rd_kafka_rebalance_protocol(rk.get())) == "COOPERATIVE") {
      // A group member changes its assignment incrementally only: this partition out and back in.
      PartitionList one(rd_kafka_topic_partition_list_new(1));
      rd_kafka_topic_partition_list_add(one.get(), topic, m->partition)->offset = restart;
      rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk.get(), one.get());
      if (!e) e = rd_kafka_incremental_assign(rk.get(), one.get());
      if (e) {
        LOG_ERROR("re-assigning {}[{}] at {}: {}", topic, m->partition, restart, rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
      } else {
        assigned_at[{topic, m->partition}] = restart;
        PauseIfHeld(one.get());
      }
      return;
    }
    // Assign again: every partition at its current position, this one at `restart`.
    PartitionList list;
    rd_kafka_topic_partition_list_t* current = nullptr;
    if (rd_kafka_assignment(rk.get(), &current)) return;
    list.reset(current);
    rd_kafka_position(rk.get(), list.get());
    for (int i = 0; i < list->cnt; ++i) {
      auto& tp = list->elems[i];
      if (tp.partition == m->partition && std::string_view(tp.topic) == topic) {
        tp.offset = restart;
        assigned_at[{topic, m->partition}] = restart;
      } else if (tp.offset < 0) {  // nothing consumed there yet
        tp.offset = assigned_at[{tp.topic, tp.partition}];
      }
    }
    if (rd_kafka_resp_err_t err = rd_kafka_assign(rk.get(), list.get())) {
      LOG_ERROR("re-assigning {}[{}] at {}: {}", topic, m->partition, restart, rd_kafka_err2str(err));
    } else {
      PauseIfHeld(list.get());
    }
  }
};

namespace {

//! Every consumer's settings: positions are ours (never committed to Kafka, never reset
//! silently), fetches are prompt, and the local queue is bounded.
std::map<std::string, std::string> ConsumerDefaults(const std::string& group) {
  return {{"group.id", group},
          {"enable.auto.commit", "false"},
          {"enable.auto.offset.store", "false"},
          {"auto.offset.reset", "error"},
          {"enable.partition.eof", "false"},
          {"fetch.wait.max.ms", "20"},
          {"fetch.error.backoff.ms", "10"},
          {"queued.max.messages.kbytes", "65536"},
          {"session.timeout.ms", std::to_string(kLoneSessionTimeoutMs)},  // a member's: Join
          // A request to a broker that went away fails after this long (librdkafka's default: 60 s),
          // among them the commits a consumer that did not close in time drops (Consumer::Close).
          // Fetches wait 20 ms at the broker; 10 s leaves a loaded broker room for the rest.
          {"socket.timeout.ms", "10000"}};
}

std::vector<TopicPartitionOffset> ToVector(const rd_kafka_topic_partition_list_t* list) {
  std::vector<TopicPartitionOffset> out;
  for (int i = 0; list && i < list->cnt; ++i) {
    out.push_back({list->elems[i].topic, list->elems[i].partition, list->elems[i].offset});
  }
  return out;
}

//! The first offset of a partition, asked of the broker (RD_KAFKA_OFFSET_BEGINNING if it cannot tell).
int64_t ResolveBeginning(rd_kafka_t* rk, const std::string& topic, int32_t partition) {
  int64_t lo = 0, hi = 0;
  return rd_kafka_query_watermark_offsets(rk, topic.c_str(), partition, &lo, &hi, 5000) ? RD_KAFKA_OFFSET_BEGINNING
                                                                                        : lo;
}

}  // namespace

Consumer::Consumer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Consumer::~Consumer() {
  Close();
  // A consumer whose close did not finish: destroyed without closing again (which would wait for
  // the same commits); no more retries then, and the pending ones fail within socket.timeout.ms.
  if (impl_->rk && !rd_kafka_consumer_closed(impl_->rk.get())) {
    rd_kafka_destroy_flags(impl_->rk.release(), RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  }
}

void Consumer::Close() {
  if (!impl_->rk || impl_->closed) return;
  impl_->closed = true;
  rd_kafka_t* rk = impl_->rk.get();
  // Serves the last revocation through the listener and waits for the offset commits still
  // pending (the stages' reported positions). With the brokers gone, commits waiting for a
  // coordinator fail after session.timeout.ms, but librdkafka (2.0) retries a commit queued for
  // a coordinator that went away, never sent, without end, and its own close would wait for it.
  // This one waits the session timeout and 5 s more, then lets such commits go.
  bool closed = false;
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  if (rd_kafka_error_t* e = rd_kafka_consumer_close_queue(rk, q)) {
    LOG_WARN("kafka: closing the consumer: {}", rd_kafka_error_string(e));
    rd_kafka_error_destroy(e);
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(impl_->close_wait_ms);
    // Served as librdkafka's own close serves it: a revocation goes to the listener, the rest
    // (records, errors) is dropped. Once the wait is over, what is queued still gets served: a
    // revocation left unanswered would keep the client waiting for it in its destroy.
    auto serve = [&](int timeout_ms) {
      rd_kafka_event_t* ev = rd_kafka_queue_poll(q, timeout_ms);
      if (!ev) return false;
      if (rd_kafka_event_type(ev) == RD_KAFKA_EVENT_REBALANCE && impl_->listener) {
        impl_->OnRebalance(rk, rd_kafka_event_error(ev), rd_kafka_event_topic_partition_list(ev));
      }
      rd_kafka_event_destroy(ev);
      return true;
    };
    while (!(closed = rd_kafka_consumer_closed(rk)) && std::chrono::steady_clock::now() < deadline) serve(100);
    while (!closed && serve(0)) closed = rd_kafka_consumer_closed(rk);
  }
  rd_kafka_queue_destroy(q);
  if (!closed) {
    LOG_WARN("kafka: the consumer did not close within {} s (offset commits to an unreachable coordinator); "
             "they are dropped",
             impl_->close_wait_ms / 1000);
  }
  // librdkafka before 2.3.0 aborts destroying a cooperative-sticky member that joined but never
  // completed an assignment (its assignor state is still null: librdkafka issue 4312). Such a
  // handle, closed and out of the group, is kept instead: a few threads idle until exit. Its
  // Impl with it, which its callbacks' opaque points to.
  if (impl_->cooperative_member && !impl_->ever_assigned && rd_kafka_version() < 0x020300ff) {
    static std::mutex mu;
    static auto* kept = new std::vector<std::unique_ptr<Impl>>();  // reachable: not a leak
    std::lock_guard<std::mutex> lock(mu);
    kept->push_back(std::exchange(impl_, std::make_unique<Impl>()));
    impl_->closed = true;
    LOG_DEBUG("kafka: a group member closed before its first assignment is kept until exit (librdkafka < 2.3.0)");
  }
}

void Consumer::Impl::JoinStateLog(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  auto* impl = static_cast<Impl*>(rd_kafka_opaque(rk));
  if (std::string_view(fac) == "CGRPJOINSTATE") {
    // `Group "<id>" changed join state <from> -> <to> (state <state>)`
    const std::string_view line(buf);
    if (const size_t arrow = line.rfind(" -> "); arrow != std::string_view::npos) {  // not one in the group's id
      const std::string_view to = line.substr(arrow + 4, line.find(' ', arrow + 4) - (arrow + 4));
      impl->steady = to == "steady";
      if (to == "steady") {
        impl->unsettled_since_ms = -1;
      } else if (impl->unsettled_since_ms.load() < 0) {
        impl->unsettled_since_ms = SteadyNowMs();
      }
      std::lock_guard<std::mutex> lock(impl->join_state_mu);
      impl->join_state = std::string(to);
    }
  }
  // A position report that met a rebalance the client had not learnt of yet: refused, harmless.
  if (std::string_view(fac) == "COMMITFAIL" && std::strstr(buf, "Group rebalance in progress") &&
      !std::strstr(buf, "generation")) {
    level = 7;
  }
  if (level >= 7 && !impl->debug_asked) return;  // debug lines: the cgrp ones were asked for here only
  LogCallback(rk, level, fac, buf);
}

void Consumer::Impl::OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts) {
  // NULL while the consumer closes (its group handle's queue is shut): the assignor it joined with.
  const char* protocol = rd_kafka_rebalance_protocol(rk);
  const bool cooperative = protocol ? std::string_view(protocol) == "COOPERATIVE" : cooperative_member;
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    ever_assigned = true;
    std::vector<TopicPartitionOffset> given = ToVector(parts);
    std::vector<TopicPartitionOffset> start = listener->OnAssigned(given);
    PartitionList list = MakeList(start, [&](const TopicPartitionOffset& p) {
      // The client resolves the logical start itself: no blocking broker query inside its callback.
      const int64_t offset = p.offset == kBeginning ? RD_KAFKA_OFFSET_BEGINNING : p.offset;
      assigned_at[{p.topic, p.partition}] = offset;
      return offset;
    });
    if (cooperative) {
      if (rd_kafka_error_t* e = rd_kafka_incremental_assign(rk, list.get())) {
        LOG_ERROR("kafka: taking assigned partitions: {}", rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
      } else {
        PauseIfHeld(list.get());
      }
    } else if (rd_kafka_resp_err_t e = rd_kafka_assign(rk, list.get())) {
      LOG_ERROR("kafka: taking assigned partitions: {}", rd_kafka_err2str(e));
    } else {
      PauseIfHeld(list.get());
    }
  } else {
    const bool lost = rd_kafka_assignment_lost(rk) != 0;
    // Records of these partitions that this poll collected before the revocation belong
    // to the assignment that ends: were a partition given back within the same poll, they
    // would pass for records of the new one.
    if (polling) {
      std::set<std::pair<std::string, int32_t>> gone;
      for (int i = 0; i < parts->cnt; ++i) gone.emplace(parts->elems[i].topic, parts->elems[i].partition);
      std::erase_if(polling->records_, [&](const InRecord& r) {
        return gone.count({std::string(r.topic), r.partition}) > 0;
      });
    }
    listener->OnRevoked(ToVector(parts), lost);
    for (int i = 0; i < parts->cnt; ++i) assigned_at.erase({parts->elems[i].topic, parts->elems[i].partition});
    if (cooperative) {
      if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk, parts)) {
        LOG_ERROR("kafka: giving up revoked partitions: {}", rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
      }
    } else {
      rd_kafka_assign(rk, nullptr);
    }
  }
}

Result<std::unique_ptr<Consumer>> Consumer::Join(const ClientConfig& config, const GroupMembership& membership,
                                                 RebalanceListener* listener) {
  if (!listener) return Status::InvalidArgument("a group member needs a rebalance listener");
  std::map<std::string, std::string> defaults = ConsumerDefaults(membership.group_id);
  defaults["partition.assignment.strategy"] = membership.assignment_strategy;
  defaults["session.timeout.ms"] = std::to_string(membership.session_timeout_ms);
  defaults["heartbeat.interval.ms"] = std::to_string(std::max(100, membership.session_timeout_ms / 5));
  // Kafka's rebalance timeout: how long the coordinator waits for every member to join again,
  // and a JoinGroup request for its answer (and 3 s). librdkafka's default, 5 minutes, kept a
  // group that met a broker pause during a join waiting that long; with this, members join
  // again within the session timeout and a few seconds. The price: a member must poll at least
  // this often (Hold keeps a member that takes no records polled).
  defaults["max.poll.interval.ms"] = std::to_string(membership.session_timeout_ms + 5000);
  if (!membership.instance_id.empty()) defaults["group.instance.id"] = membership.instance_id;
  ASSIGN_OR_RETURN(ConfPtr conf, MakeConf(config, defaults));
  auto impl = std::make_unique<Impl>();
  // The client tells its join state only in its cgrp debug lines: asked for, read by
  // JoinStateLog, logged only when the user asked for debug lines too.
  std::string debug = "cgrp";
  if (auto it = config.properties.find("debug"); it != config.properties.end() && !it->second.empty()) {
    impl->debug_asked = true;
    debug = it->second + ",cgrp";
  }
  char err[512];
  if (rd_kafka_conf_set(conf.get(), "debug", debug.c_str(), err, sizeof(err)) != RD_KAFKA_CONF_OK) {
    return Status::InvalidArgument("kafka property debug=" + debug + ": " + err);
  }
  // Log lines on a queue would wait for a poll of it that never comes: the join state unread.
  if (rd_kafka_conf_set(conf.get(), "log.queue", "false", err, sizeof(err)) != RD_KAFKA_CONF_OK) {
    return Status::InvalidArgument(std::string("kafka property log.queue=false: ") + err);
  }
  rd_kafka_conf_set_log_cb(conf.get(), &Impl::JoinStateLog);
  impl->listener = listener;
  impl->unsettled_since_ms = SteadyNowMs();  // joining
  impl->close_wait_ms = membership.session_timeout_ms + 5000;
  impl->cooperative_member = membership.assignment_strategy == "cooperative-sticky";
  rd_kafka_conf_set_opaque(conf.get(), impl.get());
  rd_kafka_conf_set_rebalance_cb(
      conf.get(), [](rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts, void* opaque) noexcept {
        static_cast<Impl*>(opaque)->OnRebalance(rk, err, parts);
      });
  ASSIGN_OR_RETURN(impl->rk, MakeHandle(RD_KAFKA_CONSUMER, std::move(conf)));
  rd_kafka_poll_set_consumer(impl->rk.get());
  return std::unique_ptr<Consumer>(new Consumer(std::move(impl)));
}

Status Consumer::Subscribe(const std::vector<std::string>& topics) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(topics.size())));
  for (const auto& t : topics) rd_kafka_topic_partition_list_add(list.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
  if (rd_kafka_resp_err_t err = rd_kafka_subscribe(impl_->rk.get(), list.get())) {
    return KafkaError(err, "subscribing to topics");
  }
  return Status::Ok();
}

std::vector<TopicPartitionOffset> Consumer::Assignment() const {
  rd_kafka_topic_partition_list_t* list = nullptr;
  if (rd_kafka_assignment(impl_->rk.get(), &list)) return {};
  PartitionList owned(list);
  auto out = ToVector(list);
  for (auto& p : out) p.offset = 0;
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition); });
  return out;
}

std::string Consumer::RebalanceProtocol() const {
  const char* protocol = rd_kafka_rebalance_protocol(impl_->rk.get());
  return protocol ? protocol : "NONE";
}

int32_t Consumer::GroupGeneration() const {
  // librdkafka 2.0 tells the generation only inside its serialized group metadata: the magic
  // "CGMDv2:" (7 bytes), then the generation id (int32, host order), then the ids.
  rd_kafka_consumer_group_metadata_t* cgmd = rd_kafka_consumer_group_metadata(impl_->rk.get());
  if (!cgmd) return -1;
  void* buffer = nullptr;
  size_t size = 0;
  int32_t generation = -1;
  constexpr std::string_view kMagic("CGMDv2:", 7);
  if (rd_kafka_error_t* error = rd_kafka_consumer_group_metadata_write(cgmd, &buffer, &size)) {
    rd_kafka_error_destroy(error);
  } else {
    if (size >= kMagic.size() + sizeof(generation) &&
        std::string_view(static_cast<const char*>(buffer), kMagic.size()) == kMagic) {
      std::memcpy(&generation, static_cast<const char*>(buffer) + kMagic.size(), sizeof(generation));
    }
    rd_kafka_mem_free(nullptr, buffer);
  }
  rd_kafka_consumer_group_metadata_destroy(cgmd);
  return generation;
}

Result<std::unique_ptr<Consumer>> Consumer::Create(const ClientConfig& config, const std::string& group) {
  ASSIGN_OR_RETURN(ConfPtr conf, MakeConf(config, ConsumerDefaults(group)));
  auto impl = std::make_unique<Impl>();
  ASSIGN_OR_RETURN(impl->rk, MakeHandle(RD_KAFKA_CONSUMER, std::move(conf)));
  rd_kafka_poll_set_consumer(impl->rk.get());
  return std::unique_ptr<Consumer>(new Consumer(std::move(impl)));
}

Status Consumer::Assign(const std::vector<TopicPartitionOffset>& partitions) {
  PartitionList list = MakeList(partitions, [&](const TopicPartitionOffset& p) {
    // Resolving the start here saves the client's delayed logical-offset lookup.
    const int64_t offset = p.offset == kBeginning ? ResolveBeginning(impl_->rk.get(), p.topic, p.partition) : p.offset;
    impl_->assigned_at[{p.topic, p.partition}] = offset;
    return offset;
  });
  rd_kafka_resp_err_t err = rd_kafka_assign(impl_->rk.get(), list.get());
  if (err) return KafkaError(err, "assigning partitions");
  impl_->PauseIfHeld(list.get());
  return Status::Ok();
}

Status Consumer::Hold(bool held) {
  if (impl_->held == held || !impl_->rk) return Status::Ok();
  rd_kafka_topic_partition_list_t* current = nullptr;
  if (rd_kafka_resp_err_t err = rd_kafka_assignment(impl_->rk.get(), &current)) {
    return KafkaError(err, "reading the assignment");
  }
  PartitionList list(current);
  rd_kafka_resp_err_t err = held ? rd_kafka_pause_partitions(impl_->rk.get(), list.get())
                                 : rd_kafka_resume_partitions(impl_->rk.get(), list.get());
  if (err) return KafkaError(err, held ? "holding the assigned partitions" : "releasing the assigned partitions");
  impl_->held = held;
  return Status::Ok();
}

int64_t Consumer::UnsettledForMs() const {
  const int64_t since = impl_->unsettled_since_ms.load();
  return since < 0 || !impl_->listener ? 0 : std::max<int64_t>(1, SteadyNowMs() - since);
}

std::string Consumer::JoinState() const {
  std::lock_guard<std::mutex> lock(impl_->join_state_mu);
  return impl_->join_state;
}

Status Consumer::PollBatch(size_t max, int timeout_ms, MessageBatch* out, size_t max_bytes) {
  out->Clear();
  impl_->polling = out;  // a revocation served by the polls below prunes it
  struct Done {
    Impl* impl;
    ~Done() { impl->polling = nullptr; }
  } done{impl_.get()};
  int wait = timeout_ms;
  size_t bytes = 0;
  while (out->records_.size() < max && bytes < max_bytes) {
    MessagePtr m(rd_kafka_consumer_poll(impl_->rk.get(), wait));
    if (!m) break;
    wait = 0;
    if (m->err) {
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) continue;
      ++impl_->errors;
      if (m->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET && m->rkt) {
        impl_->OnOffsetReset(m.get());
        continue;
      }
      const char* topic = m->rkt ? rd_kafka_topic_name(m->rkt) : "?";
      LOG_ERROR("consuming {}[{}] at offset {}: {}", topic, m->partition, m->offset, rd_kafka_message_errstr(m.get()));
      continue;
    }
    InRecord r;
    r.topic = rd_kafka_topic_name(m->rkt);
    r.partition = m->partition;
    r.offset = m->offset;
    r.timestamp_ms = rd_kafka_message_timestamp(m.get(), nullptr);
    r.key = std::string_view(static_cast<const char*>(m->key), m->key_len);
    r.value = std::string_view(static_cast<const char*>(m->payload), m->len);
    r.tombstone = m->payload == nullptr;
    rd_kafka_headers_t* hdrs = nullptr;
    if (!rd_kafka_message_headers(m.get(), &hdrs) && hdrs) {
      const char* name;
      const void* value;
      size_t size;
      for (size_t idx = 0; !rd_kafka_header_get_all(hdrs, idx, &name, &value, &size); ++idx) {
        r.headers.emplace_back(name, std::string_view(static_cast<const char*>(value), value ? size : 0));
      }
    }
    bytes += m->key_len + m->len;
    out->records_.push_back(std::move(r));
    out->impl_->messages.push_back(std::move(m));
  }
  return Status::Ok();
}

uint64_t Consumer::error_count() const { return impl_->errors; }

bool Consumer::RebalanceUnderWay() const { return impl_->listener && !impl_->steady; }

void Consumer::ReportPositions(const std::vector<TopicPartitionOffset>& positions) {
  if (positions.empty() || !impl_->rk || impl_->closed || RebalanceUnderWay()) return;
  PartitionList list = MakeList(positions);
  rd_kafka_commit(impl_->rk.get(), list.get(), /*async=*/1);  // a failure costs only a stale lag figure
}

Status Consumer::ConfirmAssignment(const std::vector<TopicPartitionOffset>& positions, int timeout_ms) {
  if (positions.empty()) return Status::Ok();
  rd_kafka_t* rk = impl_->rk.get();
  PartitionList list = MakeList(positions);
  // The answer comes on a queue of its own, polled with a deadline (rd_kafka_commit would wait
  // for the socket timeout with the brokers gone).
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  // Aborted when the answer says this member's generation is over; Unavailable when it says
  // nothing about that (a rebalance under way, no coordinator, no answer).
  auto refused = [](rd_kafka_resp_err_t err, const std::string& message) {
    switch (err) {
      case RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID:
      case RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION:
      case RD_KAFKA_RESP_ERR_FENCED_INSTANCE_ID:
      case RD_KAFKA_RESP_ERR__ASSIGNMENT_LOST:
        return Status::Aborted(message);
      default:
        return Status::Unavailable(message);
    }
  };
  Status st;
  if (rd_kafka_resp_err_t err = rd_kafka_commit_queue(rk, list.get(), q, nullptr, nullptr)) {
    st = KafkaError(err, "committing positions");
  } else if (rd_kafka_event_t* ev = rd_kafka_queue_poll(q, timeout_ms)) {
    if (rd_kafka_resp_err_t err = rd_kafka_event_error(ev)) {
      st = refused(err, std::string("the group refused the commit: ") + rd_kafka_event_error_string(ev));
    } else if (const rd_kafka_topic_partition_list_t* done = rd_kafka_event_topic_partition_list(ev)) {
      for (int i = 0; i < done->cnt && st.ok(); ++i) {
        if (done->elems[i].err) {
          st = refused(done->elems[i].err, std::string("the group refused the commit of ") + done->elems[i].topic +
                                               "[" + std::to_string(done->elems[i].partition) +
                                               "]: " + rd_kafka_err2str(done->elems[i].err));
        }
      }
    }
    rd_kafka_event_destroy(ev);
  } else {
    st = Status::Unavailable("no answer to the commit within " + std::to_string(timeout_ms) + " ms");
  }
  rd_kafka_queue_destroy(q);
  if (st.ok() && rd_kafka_assignment_lost(rk)) {
    st = Status::Aborted("the group dropped this member while it committed: its assignment is lost");
  }
  return st;
}

Result<std::vector<int64_t>> Consumer::Committed(const std::string& topic, int32_t partitions, int timeout_ms) {
  PartitionList list(rd_kafka_topic_partition_list_new(partitions));
  for (int32_t p = 0; p < partitions; ++p) rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p);
  if (rd_kafka_resp_err_t err = rd_kafka_committed(impl_->rk.get(), list.get(), timeout_ms)) {
    return KafkaError(err, "asking for the committed offsets of " + topic);
  }
  std::vector<int64_t> out(static_cast<size_t>(partitions), -1);
  for (int i = 0; i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    if (!e.err && e.offset >= 0 && e.partition >= 0 && e.partition < partitions) out[static_cast<size_t>(e.partition)] = e.offset;
  }
  return out;
}

std::vector<Consumer::DataLoss> Consumer::TakeDataLoss() { return std::exchange(impl_->losses, {}); }

}  // namespace webindex::kafka
