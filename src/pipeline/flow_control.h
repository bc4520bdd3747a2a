// Flow control between the stages of one process (docs/reliability.md, "Backlogs"). A stage
// writes to topics that other stages of the same process read; when it runs ahead of them, the
// records wait in the broker. A broker that keeps only a few MiB per partition (the embedded
// one keeps about 5) deletes the oldest of them before they are read, and the table lacks them.
// So a stage takes no more input than the partitions it writes to can take: for every topic it
// writes that a stage of this process reads, the unread bytes of the fullest partition, plus
// what the next batch will add (measured per input record), stay under one budget.
//
// Bytes are counted as records are handed to the producer (Add) and as their readers commit
// them (Take); what a topic held unread when the process started is counted in records (Resync)
// and weighed at the topic's average record size. Every call is thread-safe and lock-free.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace webindex::pipeline {

class FlowControl {
 public:
  //! Per-record framing in a Kafka record batch, added to every record's key and value.
  static constexpr uint64_t kRecordOverhead = 24;

  //! `budget_bytes`: unread bytes one partition may hold at most.
  explicit FlowControl(uint64_t budget_bytes) : budget_(budget_bytes) {}

  class Topic {
   public:
    Topic(std::string name, int32_t partitions);
    const std::string& name() const { return name_; }
    int32_t partitions() const { return static_cast<int32_t>(parts_.size()); }
    //! Unread bytes of partition p, as counted.
    uint64_t Backlog(int32_t p) const;
    //! Unread bytes of the fullest partition.
    uint64_t MaxBacklog() const;

   private:
    friend class FlowControl;
    struct Partition {
      std::atomic<uint64_t> added{0};     // bytes handed to the producer since the start
      std::atomic<uint64_t> taken{0};     // bytes of records written since the start, read and committed
      std::atomic<int64_t> old_left{0};   // records that were unread at the last Resync and still are
      std::atomic<uint64_t> added_base{0}, taken_base{0};  // added and taken at the last Resync
    };
    uint64_t AverageRecord() const;
    std::string name_;
    std::vector<std::unique_ptr<Partition>> parts_;
    std::atomic<uint64_t> records_{0}, bytes_{0};  // added, for the average record size
    std::atomic<int> writers_{0};
  };

  //! A topic that a stage of this process reads, every partition of it. Before any Add or Take.
  Topic* Watch(const std::string& name, int32_t partitions);
  //! The watched topic of that name, or nullptr.
  Topic* Find(std::string_view name) const;
  //! Resets the count of partition p to what the broker says: `records` unread now (its end
  //! minus its reader's committed position). Corrects what counting cannot see: records the
  //! broker rejected or deleted, and records other processes wrote.
  static void Resync(Topic* topic, int32_t p, int64_t records);
  //! A stage of this process writes the topic: the room left is shared among its writers.
  static void AddWriter(Topic* topic) { ++topic->writers_; }
  //! A record of `bytes` (key, value and headers) was handed to the producer for partition p.
  static void Add(Topic* topic, int32_t p, uint64_t bytes);
  //! The reader committed `records` records of partition p, of `bytes` in all.
  static void Take(Topic* topic, int32_t p, uint64_t records, uint64_t bytes);

  //! Input records a stage may take into its next batch: for each topic it writes to, its share
  //! of the room left in the topic's fullest partition (the room over the topic's writers) over
  //! twice the share of one input record's output (`bytes_per_input`, spread over the topic's
  //! partitions), at least 1 while there is room, at most `max`. 0: wait.
  uint64_t Room(const std::vector<std::pair<const Topic*, double>>& outputs, uint64_t max) const;
  uint64_t budget() const { return budget_; }

 private:
  const uint64_t budget_;
  std::vector<std::unique_ptr<Topic>> topics_;
};

}  // namespace webindex::pipeline
