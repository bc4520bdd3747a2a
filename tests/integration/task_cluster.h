// Test harness for stage tasks that move between data dirs (docs/scale-out.md): members (a data
// dir with its stage runners), an embedded cluster with the uri stage's topics, a feeder of uri
// deltas that keeps their sums, and the table those sums define.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "codec/records.h"
#include "model/url.h"
#include "pipeline/changelog.h"
#include "pipeline/stage_runner.h"
#include "pipeline/uri_stage.h"
#include "pipeline_harness.h"
#include "sink/sink_stage.h"
#include "sink/table.h"

namespace webindex::testing {

using Cells = std::map<std::string, std::string>;

//! One data dir with a producer and the stage runners it owns.
class Member {
 public:
  Member(const std::string& name, const std::string& brokers, int32_t partitions = 2)
      : name_(name), dir_(MakeTempDir("tasks-" + name)), partitions_(partitions) {
    config_.brokers = brokers;
    auto store = state::Store::Open(dir_ + "/db", state::StoreOptions{});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    auto producer = kafka::Producer::Create(config_, [this](uint64_t opaque, const Status& st, int64_t offset) {
      const int index = pipeline::RunnerIndexOf(opaque);
      if (index < static_cast<int>(runners_.size())) {
        runners_[index]->OnDelivered(pipeline::RunnerSeqOf(opaque), st, offset);
      }
    });
    EXPECT_TRUE(producer.ok()) << producer.status().ToString();
    producer_ = std::move(producer).value();
  }
  ~Member() {
    if (!crashed_) Stop();
    runners_.clear();
    producer_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  //! `check`: stop at records of other data dirs (CheckInstance). Off for the receivers here: the
  //! records of both A and B are theirs to read, as in a group.
  pipeline::TopicLayout Layout(bool check = true) const {
    pipeline::TopicLayout layout;
    layout.instance = check ? name_ : "";
    layout.page_partitions = layout.uri_delta_partitions = layout.domain_delta_partitions = layout.export_partitions =
        partitions_;
    return layout;
  }
  //! With `group`, the runner is a member of that consumer group (`admin` for its restores).
  void Add(std::unique_ptr<pipeline::Stage> stage, size_t max_batch,
           std::optional<kafka::GroupMembership> group = std::nullopt, kafka::Admin* admin = nullptr) {
    pipeline::RunnerOptions options = defaults;
    if (group) group_ = true;
    options.group = std::move(group);
    options.admin = admin;
    options.max_batch = max_batch;
    options.poll_timeout_ms = 20;
    options.changelog = true;
    options.instance = name_;
    const int index = static_cast<int>(runners_.size());
    runners_.push_back(std::make_unique<pipeline::StageRunner>(std::move(stage), index, partitions_, *store_, *producer_,
                                                               config_, metrics_, options));
  }
  void Start() {
    for (auto& r : runners_) ASSERT_TRUE(r->Start().ok());
  }
  //! Owns the uri stage's tasks, committing at most `max_batch` records at a time.
  void RunUriStage(size_t max_batch) {
    Add(std::make_unique<pipeline::UriStage>(Layout()), max_batch);
    Start();
  }
  //! Downstream of the uri stage: the domain stage and the sink.
  void RunDownstream() {
    Add(std::make_unique<pipeline::DomainStage>(Layout(false)), 1000);
    Add(std::make_unique<sink::SinkStage>(Layout(false)), 1000);
    Start();
  }
  //! Waits until the first runner has committed positions `n` records into its input in all.
  void WaitRead(int64_t n) {
    auto read = [&] {
      int64_t sum = 0;
      for (int64_t position : runners_[0]->Positions()) sum += std::max<int64_t>(position, 0);
      return sum;
    };
    for (int i = 0; i < 1000 && read() < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(read(), n) << "member " << name_ << " did not commit its input";
  }
  void Stop() {
    for (auto& r : runners_) r->RequestStop();
    for (auto& r : runners_) EXPECT_TRUE(r->Join().ok());
    if (producer_) {
      EXPECT_TRUE(producer_->Flush(10000).ok());
    }
    for (auto& r : runners_) EXPECT_TRUE(r->CommitAcked().ok());
  }
  //! Stops like a killed process: what the producer holds is never delivered, nothing more is
  //! committed.
  void Crash() {
    for (auto& r : runners_) r->RequestStop();
    for (auto& r : runners_) (void)r->Join();  // whatever it ended with: the crash ends it
    crashed_ = true;
    runners_.clear();
    producer_.reset();
  }
  //! Waits until every runner has read its input to its end and every record it committed is
  //! acknowledged. The readings of a runner count only when no batch of its ran or committed
  //! while they were taken: a batch committed between the check of one partition and the next
  //! may have written records (a page task's forwards) to a partition already checked.
  void WaitFor(kafka::Admin& admin) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      bool done = true;
      for (auto& r : runners_) {
        ASSERT_FALSE(r->failed());
        const uint64_t batches = r->batches();
        if (r->busy()) done = false;
        const auto positions = r->Positions();
        const std::set<int32_t> owned = r->Owned();
        for (int32_t p = 0; p < partitions_; ++p) {
          if (group_ && !owned.count(p)) continue;
          if (!defaults.partitions.empty() && !defaults.partitions.count(p)) continue;
          auto marks = admin.Watermarks(r->stage().input_topic(), p, 5000);
          ASSERT_TRUE(marks.ok());
          if (marks->second > 0 && positions[p] < marks->second) done = false;
        }
        if (r->unacked() != 0 || r->busy() || r->batches() != batches) done = false;
      }
      if (done) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL() << "member " << name_ << " did not catch up within 60 s";
  }

  pipeline::RunnerOptions defaults;  //!< what Add starts from
  const std::string name_;
  const std::string dir_;
  const int32_t partitions_;
  bool group_ = false;  //!< WaitFor looks at owned partitions only
  kafka::ClientConfig config_;
  std::unique_ptr<state::Store> store_;
  std::unique_ptr<kafka::Producer> producer_;
  pipeline::Metrics metrics_;
  std::vector<std::unique_ptr<pipeline::StageRunner>> runners_;
  bool crashed_ = false;
};

inline Cells Family(state::Store& store, state::Family f, const std::string& prefix = "") {
  Cells out;
  auto it = store.NewIterator(f);
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    out[std::string(it->key())] = std::string(it->value());
  }
  EXPECT_TRUE(it->status().ok());
  return out;
}

//! The query table's cells (not other stores' keys in the family).
inline Cells TableCells(state::Store& store) {
  Cells out;
  for (auto& [k, v] : Family(store, state::Family::kTable)) {
    if (!sink::ForeignKeyPrefix(k)) out[k] = v;
  }
  return out;
}

//! The table that uri counts `expected` define: what the sink must hold.
inline Cells ExpectedTable(const std::map<std::string, model::UriInfo>& expected) {
  const std::string dir = MakeTempDir("tasks-expected");
  Cells cells;
  {
    auto store = state::Store::Open(dir + "/db", state::StoreOptions{});
    EXPECT_TRUE(store.ok());
    state::WriteBatch wb(**store);
    {
      sink::TableWriter table(**store, wb);
      std::map<std::string, int64_t> pages;
      for (const auto& [uri, info] : expected) {
        if (!info.Exists()) continue;
        table.SetUriInfo(uri, info, std::nullopt);
        ++pages[std::string(model::DomainOfUri(uri))];
      }
      for (const auto& [domain, count] : pages) table.SetDomainCount(domain, count);
    }
    EXPECT_TRUE((*store)->Write(wb).ok());
    cells = TableCells(**store);
  }
  std::filesystem::remove_all(dir);
  return cells;
}

//! Produces uri deltas as a page stage would, keyed by uri, and keeps their sums.
class DeltaFeeder {
 public:
  DeltaFeeder(const kafka::ClientConfig& config, uint64_t seed, int32_t partitions = 2)
      : rng_(seed), partitions_(partitions) {
    auto producer = kafka::Producer::Create(config, [](uint64_t, const Status& st) { ASSERT_TRUE(st.ok()); });
    EXPECT_TRUE(producer.ok());
    producer_ = std::move(producer).value();
  }
  void Feed(int n) {
    const pipeline::TopicNames names;
    for (int i = 0; i < n; ++i) {
      const std::string uri = "com.d" + std::to_string(rng_() % 4) + ">>o>/p" + std::to_string(rng_() % 12);
      model::UriInfo delta;
      model::UriInfo& now = expected_[uri];
      delta.links_to = (now.links_to > 0 && rng_() % 3 == 0) ? -1 : 1;
      if (rng_() % 5 == 0) delta.docs = now.docs > 0 ? -1 : 1;
      now.links_to += delta.links_to;
      now.docs += delta.docs;
      codec::UriDelta d{{"page.0", ++seq_, 1, ""}, uri, delta};
      ASSERT_TRUE(
          producer_->Produce({names.uri_deltas, pipeline::PartitionFor(uri, partitions_), uri, codec::Encode(d), {}}, 0)
              .ok());
    }
    ASSERT_TRUE(producer_->Flush(10000).ok());
  }
  const std::map<std::string, model::UriInfo>& expected() const { return expected_; }
  std::mt19937_64& rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
  int32_t partitions_;
  std::unique_ptr<kafka::Producer> producer_;
  std::map<std::string, model::UriInfo> expected_;
  uint64_t seq_ = 0;
};


//! Which broker of the embedded cluster leads the partitions of the uri stage's input, its
//! changelog and its outputs (and dead letters).
struct Leaders {
  int input = 1, changelog = 1, outputs = 1;
};

//! An embedded broker with the topics of the uri stage's tasks, led as `leaders` says, and an
//! admin client of it.
struct Cluster {
  explicit Cluster(Leaders leaders = {}, int32_t partitions = 2) : partitions(partitions) {
    auto started = kafka::EmbeddedBroker::Start(std::max({leaders.input, leaders.changelog, leaders.outputs}));
    EXPECT_TRUE(started.ok());
    broker = std::move(started).value();
    const pipeline::TopicNames names;
    const std::string changelog = pipeline::ChangelogTopic("webindex.changelog.", "uri");
    for (const std::string& t : {names.uri_deltas, names.domain_deltas, names.exports, changelog, names.dead_letters}) {
      const int32_t count = t == names.dead_letters ? 1 : partitions;
      EXPECT_TRUE(broker->CreateTopic(t, count).ok());
      const int leader = t == names.uri_deltas ? leaders.input : t == changelog ? leaders.changelog : leaders.outputs;
      for (int32_t p = 0; p < count; ++p) EXPECT_TRUE(broker->SetPartitionLeader(t, p, leader).ok());
    }
    brokers = broker->bootstrap_servers();
    config.brokers = brokers;
    auto created = kafka::Admin::Create(config);
    EXPECT_TRUE(created.ok());
    admin = std::move(created).value();
  }
  //! The high watermarks of every partition of `topics`, summed: records appended in all.
  int64_t Ends(const std::vector<std::string>& topics) {
    int64_t n = 0;
    for (const std::string& t : topics) {
      for (int32_t p = 0; p < partitions; ++p) {
        auto marks = admin->Watermarks(t, p, 5000);
        EXPECT_TRUE(marks.ok());
        if (marks.ok()) n += marks->second;
      }
    }
    return n;
  }

  const int32_t partitions;
  std::unique_ptr<kafka::EmbeddedBroker> broker;
  std::string brokers;
  kafka::ClientConfig config;
  std::unique_ptr<kafka::Admin> admin;
};

}  // namespace webindex::testing
