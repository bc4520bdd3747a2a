// Consumer group membership on the embedded broker (docs/scale-out.md §3): partitions are
// spread over members by the group protocol, cooperative-sticky rebalances move only the
// partitions that change owner, and a member that takes a partition over reads it from the
// position its previous owner handed over, so every record is read exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "kafka/consumer.h"
#include "kafka/embedded_broker.h"
#include "kafka/producer.h"

namespace webindex::kafka {
namespace {

using namespace std::chrono_literals;

constexpr int kPartitions = 6;
constexpr int kRecordsPerPartition = 50;
const std::string kTopic = "group-input";

//! Stands in for the state that follows a partition: the next offset to read per partition,
//! shared by the members of one test as a changelog would share it.
struct Handover {
  std::mutex mu;
  std::map<int32_t, int64_t> next;
};

//! One member: reads what it is assigned, records what it read and every rebalance it saw.
class Member : public RebalanceListener {
 public:
  Member(const std::string& name, Handover& handover) : name_(name), handover_(handover) {}
  ~Member() override {
    if (consumer_) consumer_->Close();  // its last revocation reaches this listener
  }

  Status Join(const std::string& brokers, const std::string& group, const std::string& instance = "",
              std::map<std::string, std::string> properties = {}) {
    GroupMembership m;
    m.group_id = group;
    m.instance_id = instance;
    m.session_timeout_ms = 3000;
    ASSIGN_OR_RETURN(consumer_, Consumer::Join({brokers, std::move(properties)}, m, this));
    return consumer_->Subscribe({kTopic});
  }

  std::vector<TopicPartitionOffset> OnAssigned(const std::vector<TopicPartitionOffset>& parts) override {
    std::this_thread::sleep_for(std::exchange(assign_delay_, std::chrono::milliseconds(0)));
    std::vector<TopicPartitionOffset> out;
    std::lock_guard<std::mutex> lock(handover_.mu);
    for (const auto& p : parts) {
      assigned_.insert(p.partition);
      ever_assigned_.insert(p.partition);
      auto it = handover_.next.find(p.partition);
      out.push_back({p.topic, p.partition, it == handover_.next.end() ? kBeginning : it->second});
    }
    return out;
  }
  void OnRevoked(const std::vector<TopicPartitionOffset>& parts, bool lost) override {
    for (const auto& p : parts) {
      assigned_.erase(p.partition);
      revoked_.insert(p.partition);
    }
    if (lost) ++lost_;
  }

  //! Its next assignment takes `delay` (as a takeover restoring tasks would).
  void DelayNextAssignment(std::chrono::milliseconds delay) { assign_delay_ = delay; }

  //! Polls once; returns the number of records read.
  size_t Poll(int timeout_ms = 20) {
    MessageBatch batch;
    EXPECT_TRUE(consumer_->PollBatch(1000, timeout_ms, &batch).ok());
    std::lock_guard<std::mutex> lock(handover_.mu);
    for (const auto& r : batch.records()) {
      read_.emplace_back(r.partition, r.offset);
      handover_.next[r.partition] = r.offset + 1;
    }
    return batch.records().size();
  }

  //! Its assigned partitions at the positions the handover holds.
  std::vector<TopicPartitionOffset> Positions() {
    std::vector<TopicPartitionOffset> out;
    std::lock_guard<std::mutex> lock(handover_.mu);
    for (int32_t p : assigned_) out.push_back({kTopic, p, handover_.next.count(p) ? handover_.next[p] : 0});
    return out;
  }
  std::set<int32_t> assigned() const { return assigned_; }
  std::set<int32_t> revoked() const { return revoked_; }
  int lost() const { return lost_; }
  const std::vector<std::pair<int32_t, int64_t>>& read() const { return read_; }
  Consumer& consumer() { return *consumer_; }
  void Close() { consumer_->Close(); }

 private:
  std::string name_;
  Handover& handover_;
  std::unique_ptr<Consumer> consumer_;
  std::chrono::milliseconds assign_delay_{0};
  std::set<int32_t> assigned_, ever_assigned_, revoked_;
  int lost_ = 0;
  std::vector<std::pair<int32_t, int64_t>> read_;
};

class GroupMembershipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto broker = EmbeddedBroker::Start();
    ASSERT_TRUE(broker.ok()) << broker.status().ToString();
    broker_ = std::move(broker).value();
    ASSERT_TRUE(broker_->CreateTopic(kTopic, kPartitions).ok());
    Produce(kRecordsPerPartition);
  }

  void Produce(int per_partition) {
    auto producer = Producer::Create({broker_->bootstrap_servers(), {}}, [](uint64_t, const Status& st) {
      EXPECT_TRUE(st.ok()) << st.ToString();
    });
    ASSERT_TRUE(producer.ok()) << producer.status().ToString();
    for (int p = 0; p < kPartitions; ++p) {
      for (int i = 0; i < per_partition; ++i) {
        ASSERT_TRUE((*producer)->Produce({kTopic, p, "k", std::to_string(i), {}}, 0).ok());
      }
    }
    ASSERT_TRUE((*producer)->Flush(10000).ok());
    produced_ += per_partition;
  }

  //! Polls `members` round-robin until `done` holds (false after 30 s).
  bool PollUntil(const std::vector<Member*>& members, const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < deadline) {
      for (Member* m : members) m->Poll();
      if (done()) return true;
    }
    return false;
  }

  //! Every record of every partition was read by exactly one member, once.
  void ExpectEachRecordReadOnce(const std::vector<Member*>& members) {
    std::map<std::pair<int32_t, int64_t>, int> seen;
    for (Member* m : members) {
      for (const auto& r : m->read()) ++seen[r];
    }
    EXPECT_EQ(seen.size(), static_cast<size_t>(kPartitions * produced_));
    for (const auto& [r, n] : seen) EXPECT_EQ(n, 1) << "partition " << r.first << " offset " << r.second;
  }

  size_t ReadCount(const std::vector<Member*>& members) {
    size_t n = 0;
    for (Member* m : members) n += m->read().size();
    return n;
  }

  std::unique_ptr<EmbeddedBroker> broker_;
  Handover handover_;
  int produced_ = 0;
};

std::set<int32_t> Union(const std::set<int32_t>& a, const std::set<int32_t>& b) {
  std::set<int32_t> u = a;
  u.insert(b.begin(), b.end());
  return u;
}

TEST_F(GroupMembershipTest, MembersSplitThePartitionsAndCooperativeRebalancesMoveOnlyWhatChangesOwner) {
  Member a("a", handover_), b("b", handover_);
  ASSERT_TRUE(a.Join(broker_->bootstrap_servers(), "g1").ok());
  ASSERT_TRUE(PollUntil({&a}, [&] { return a.assigned().size() == kPartitions; }))
      << "a alone got " << a.assigned().size() << " partitions";
  EXPECT_EQ(a.consumer().RebalanceProtocol(), "COOPERATIVE");
  ASSERT_TRUE(PollUntil({&a}, [&] { return ReadCount({&a}) > 0; }));

  // b joins: a gives up only the partitions b gets, and keeps reading the others meanwhile.
  ASSERT_TRUE(b.Join(broker_->bootstrap_servers(), "g1").ok());
  ASSERT_TRUE(PollUntil({&a, &b}, [&] { return a.assigned().size() == 3 && b.assigned().size() == 3; }))
      << "a has " << a.assigned().size() << ", b has " << b.assigned().size();
  EXPECT_EQ(a.revoked(), b.assigned()) << "a gave up more than what moved to b";
  EXPECT_EQ(Union(a.assigned(), b.assigned()).size(), static_cast<size_t>(kPartitions));

  Produce(kRecordsPerPartition);
  ASSERT_TRUE(PollUntil({&a, &b}, [&] { return ReadCount({&a, &b}) >= static_cast<size_t>(kPartitions * produced_); }));

  // b leaves: a gets b's partitions back, from where b stopped, without giving up its own.
  const std::set<int32_t> a_before = a.assigned(), a_revoked_before = a.revoked();
  const auto left = std::chrono::steady_clock::now();
  b.Close();
  ASSERT_TRUE(PollUntil({&a}, [&] { return a.assigned().size() == kPartitions; }));
  std::printf("partitions of a member that left taken over in %lld ms\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::steady_clock::now() - left)
                                         .count()));
  EXPECT_EQ(a.revoked(), a_revoked_before) << "a gave up partitions it kept";
  Produce(kRecordsPerPartition);
  ASSERT_TRUE(PollUntil({&a}, [&] { return ReadCount({&a, &b}) >= static_cast<size_t>(kPartitions * produced_); }));
  ExpectEachRecordReadOnce({&a, &b});
}

// The embedded broker does not implement KIP-345 (it treats a static member's return as a new
// join and rebalances); a real cluster hands the same partitions back without a rebalance. Either
// way the restarted member reads on from where the state it restores says, exactly once.
// A member that cannot take records for longer than its poll interval (max.poll.interval.ms:
// the session timeout, 3 s here, and 5 s) holds its consumer and keeps polling it: it hands out
// nothing, stays in the group with its partitions (the group does not move them to the other
// member), and released it reads on; every record is read once.
TEST_F(GroupMembershipTest, AHeldMemberTakesNoRecordsAndKeepsItsPartitionsPastItsPollInterval) {
  Member a("a", handover_), b("b", handover_);
  ASSERT_TRUE(a.Join(broker_->bootstrap_servers(), "held").ok());
  ASSERT_TRUE(b.Join(broker_->bootstrap_servers(), "held").ok());
  ASSERT_TRUE(PollUntil({&a, &b}, [&] {
    return ReadCount({&a, &b}) == static_cast<size_t>(kPartitions * produced_) && !a.assigned().empty() &&
           !b.assigned().empty() && !a.consumer().RebalanceUnderWay() && !b.consumer().RebalanceUnderWay();
  }));
  const std::set<int32_t> a_owns = a.assigned(), b_owns = b.assigned();
  const size_t a_read = a.read().size();
  ASSERT_TRUE(a.consumer().Hold(true).ok());
  Produce(kRecordsPerPartition);
  for (auto until = std::chrono::steady_clock::now() + 12s; std::chrono::steady_clock::now() < until;) {
    a.Poll();
    b.Poll();
  }
  EXPECT_EQ(a.read().size(), a_read) << "a held member handed out records";
  EXPECT_EQ(a.assigned(), a_owns) << "the group moved a held member's partitions";
  EXPECT_EQ(b.assigned(), b_owns);
  EXPECT_EQ(a.lost(), 0);
  ASSERT_TRUE(a.consumer().Hold(false).ok());
  ASSERT_TRUE(PollUntil({&a, &b}, [&] { return ReadCount({&a, &b}) == static_cast<size_t>(kPartitions * produced_); }));
  ExpectEachRecordReadOnce({&a, &b});
}

// A member whose assignment takes longer than its poll interval (a takeover restoring big tasks
// runs inside the poll, in the listener) keeps it, even when it polls without waiting: the
// client (librdkafka 2.0) does not hold the time its rebalance callback takes against
// max.poll.interval.ms (the session timeout and 5 s).
TEST_F(GroupMembershipTest, ATakeoverLongerThanThePollIntervalKeepsItsPartitions) {
  Member a("a", handover_);
  a.DelayNextAssignment(10s);  // the poll interval: the session timeout (3 s) and 5 s
  ASSERT_TRUE(a.Join(broker_->bootstrap_servers(), "slow-takeover").ok());
  const auto until = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < until) {
    a.Poll(0);
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(a.assigned().size(), static_cast<size_t>(kPartitions));
  EXPECT_TRUE(a.revoked().empty()) << "the group took the partitions of a member busy in its listener";
  EXPECT_EQ(a.lost(), 0);
  EXPECT_EQ(ReadCount({&a}), static_cast<size_t>(kPartitions * produced_));
}

TEST_F(GroupMembershipTest, AMemberRestartedUnderItsInstanceIdReadsOnFromItsHandedOverPositions) {
  Member a("a", handover_), b("b", handover_);
  ASSERT_TRUE(a.Join(broker_->bootstrap_servers(), "g2", "member-a").ok());
  ASSERT_TRUE(b.Join(broker_->bootstrap_servers(), "g2", "member-b").ok());
  ASSERT_TRUE(PollUntil({&a, &b}, [&] { return a.assigned().size() == 3 && b.assigned().size() == 3; }))
      << "a has " << a.assigned().size() << ", b has " << b.assigned().size();
  ASSERT_TRUE(PollUntil({&a, &b}, [&] { return ReadCount({&a, &b}) >= static_cast<size_t>(kPartitions * produced_); }));

  b.Close();
  Member b2("b2", handover_);
  ASSERT_TRUE(b2.Join(broker_->bootstrap_servers(), "g2", "member-b").ok());
  ASSERT_TRUE(PollUntil({&a, &b2}, [&] { return a.assigned().size() == 3 && b2.assigned().size() == 3; }))
      << "a has " << a.assigned().size() << ", b2 has " << b2.assigned().size();
  EXPECT_EQ(Union(a.assigned(), b2.assigned()).size(), static_cast<size_t>(kPartitions));
  Produce(kRecordsPerPartition);
  ASSERT_TRUE(
      PollUntil({&a, &b2}, [&] { return ReadCount({&a, &b, &b2}) >= static_cast<size_t>(kPartitions * produced_); }));
  ExpectEachRecordReadOnce({&a, &b, &b2});
}

// What a member that stops relies on to keep its tasks' rows as current copies (StageRunner,
// docs/scale-out.md §4): the group confirms an assignment only to a member it still counts. A
// member whose heartbeats stop (as a paused process's do) is dropped at its session timeout,
// and its partitions go to another; its own view of its partitions has not changed yet (it has
// not polled since), and its commit is refused.
TEST_F(GroupMembershipTest, OnlyAMemberTheGroupStillCountsHasItsAssignmentConfirmed) {
  Member a("a", handover_), b("b", handover_);
  // A 6 s session here (3 s in the other tests): a, silent from its first assignment on, must
  // read and have its first commit confirmed before the broker drops it, on a loaded machine too.
  ASSERT_TRUE(a.Join(broker_->bootstrap_servers(), "g3", "",
                     {{"heartbeat.interval.ms", "60000"}, {"session.timeout.ms", "6000"}})
                  .ok());
  ASSERT_TRUE(PollUntil({&a}, [&] { return a.assigned().size() == kPartitions && ReadCount({&a}) > 0; }));
  const std::vector<TopicPartitionOffset> positions = a.Positions();
  const Status owned = a.consumer().ConfirmAssignment(positions, 5000);
  EXPECT_TRUE(owned.ok()) << owned.ToString();
  const int32_t generation = a.consumer().GroupGeneration();
  EXPECT_GE(generation, 1) << "the client does not tell its group generation (claims rank by it: NextEpoch)";

  // b joins; a, silent, is dropped at its session timeout, and b gets every partition.
  ASSERT_TRUE(b.Join(broker_->bootstrap_servers(), "g3", "", {{"session.timeout.ms", "6000"}}).ok());
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (b.assigned().size() < kPartitions && std::chrono::steady_clock::now() < deadline) b.Poll();
  ASSERT_EQ(b.assigned().size(), static_cast<size_t>(kPartitions));
  EXPECT_GT(b.consumer().GroupGeneration(), generation) << "the group's generation did not grow with its rebalance";
  const Status dropped = a.consumer().ConfirmAssignment(positions, 5000);
  std::printf("a dropped member's confirmation: %s\n", dropped.ToString().c_str());
  EXPECT_FALSE(dropped.ok()) << "the group confirmed partitions it had given to another member";
  // The broker refused the commit itself (the client, which knows of its loss here, sends it as
  // a member of no generation), not the client, nor the check of its own view that follows.
  EXPECT_NE(dropped.message().find("refused the commit"), std::string::npos) << dropped.ToString();
  EXPECT_NE(dropped.message().find("Broker:"), std::string::npos) << dropped.ToString();
}

// librdkafka 2.0 takes a commit the group refuses for an old generation for the loss of the
// whole assignment (librdkafka issue 4059), and a commit sent while a rebalance is under way
// meets one: a member tells when a rebalance is under way, and members that report their
// positions after every poll but never then lose nothing while others join and leave.
TEST_F(GroupMembershipTest, AMemberTellsARebalanceUnderWayAndMembersCommittingOutsideOneLoseNothing) {
  Member a("a", handover_), b("b", handover_);
  ASSERT_TRUE(a.Join(broker_->bootstrap_servers(), "g4").ok());
  EXPECT_TRUE(a.consumer().RebalanceUnderWay()) << "a member that has not joined yet is in no steady state";
  ASSERT_TRUE(PollUntil({&a}, [&] { return a.assigned().size() == kPartitions && !a.consumer().RebalanceUnderWay(); }));

  // b joins; a, not polled, learns of the rebalance from its heartbeats and cannot end it
  // without serving its revocation.
  ASSERT_TRUE(b.Join(broker_->bootstrap_servers(), "g4").ok());
  bool told = false;
  for (auto deadline = std::chrono::steady_clock::now() + 20s; !told && std::chrono::steady_clock::now() < deadline;) {
    b.Poll();
    told = a.consumer().RebalanceUnderWay();
  }
  EXPECT_TRUE(told) << "a did not tell of the rebalance b's join began";
  ASSERT_TRUE(PollUntil({&a, &b}, [&] {
    return a.assigned().size() + b.assigned().size() == kPartitions && !a.assigned().empty() &&
           !b.assigned().empty() && !a.consumer().RebalanceUnderWay() && !b.consumer().RebalanceUnderWay();
  }));

  // A member comes and goes while a and b commit after every poll.
  auto poll_and_report_until = [&](const std::vector<Member*>& members, const std::function<bool()>& done) {
    for (auto deadline = std::chrono::steady_clock::now() + 30s; std::chrono::steady_clock::now() < deadline;) {
      for (Member* m : members) {
        m->Poll();
        m->consumer().ReportPositions(m->Positions());
      }
      if (done()) return true;
    }
    return false;
  };
  auto settled = [](const std::vector<Member*>& members) {
    return std::all_of(members.begin(), members.end(), [](Member* m) { return !m->consumer().RebalanceUnderWay(); });
  };
  Member c("c", handover_);
  ASSERT_TRUE(c.Join(broker_->bootstrap_servers(), "g4").ok());
  EXPECT_TRUE(poll_and_report_until({&a, &b, &c}, [&] { return !c.assigned().empty() && settled({&a, &b, &c}); }))
      << "c was given nothing";
  c.Close();
  EXPECT_TRUE(poll_and_report_until({&a, &b}, [&] {
    return a.assigned().size() + b.assigned().size() == kPartitions && settled({&a, &b});
  })) << "c's partitions did not come back";
  EXPECT_EQ(a.lost(), 0) << "a's assignment was lost to a commit during a rebalance";
  EXPECT_EQ(b.lost(), 0) << "b's assignment was lost to a commit during a rebalance";
}

}  // namespace
}  // namespace webindex::kafka
