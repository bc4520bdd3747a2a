// Records near and over Kafka's size limits, and the outbox rows that hold records until Kafka
// has them: large pages are exported in parts that each fit, over-size events are dead-lettered
// with a cut value, a record Kafka rejects is set aside without stopping the pipeline (also
// across restarts and inside a row of many records), a row that cannot be read is kept, never
// deleted as sent, and `load` sends an event of max_event_bytes and skips larger ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "batch_model.h"
#include "child_process.h"
#include "codec/event.h"
#include "codec/records.h"
#include "codec/state_codec.h"
#include "common/bytes.h"
#include "pipeline/stage_runner.h"
#include "pipeline_harness.h"
#include "state/data_dir.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

//! With librdkafka's default message.max.bytes and a cluster that does not tell its topics'
//! max.message.bytes (the embedded one), every output topic has this budget.
constexpr size_t kBudget = kafka::kDefaultProducerMaxMessageBytes - kafka::kRecordFramingBytes;

std::string Event(const std::string& url, size_t links, size_t anchor_bytes, const std::string& date,
                  const std::string& link_prefix = "http://s") {
  std::string out = R"({"url":")" + url + R"(","crawlDate":")" + date + R"(","outboundLinks":[)";
  for (size_t i = 0; i < links; ++i) {
    if (i) out += ",";
    out += R"({"url":")" + link_prefix + std::to_string(i % 40) + ".com/" + std::to_string(i) + R"(","anchorText":")" +
           std::string(anchor_bytes, static_cast<char>('a' + i % 26)) + R"("})";
  }
  return out + "]}";
}

//! A valid event of exactly `size` bytes: links, then a field of padding.
std::string Padded(const std::string& url, size_t size) {
  std::string e = Event(url, 2000, 20, "2015-07-28T03:06:17Z");
  e.pop_back();
  e += R"(,"pad":")";
  e += std::string(size - e.size() - 2, 'x') + "\"}";
  return e;
}

//! The bytes of the page export an event makes.
size_t ExportBytes(const std::string& event) {
  codec::EventDecoder decoder;
  auto ev = decoder.Decode(event);
  EXPECT_TRUE(ev.ok()) << ev.status().ToString();
  codec::ExportRecord e;
  e.key = ev->page.uri;
  e.seq = 1;
  e.inst = std::string(16, 'f');  // every record carries its data dir's id
  e.page = ev->page;
  return codec::Encode(e).size() + e.key.size();
}

std::string Header(const PipelineHarness::Consumed& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

size_t Bytes(const PipelineHarness::Consumed& r) {
  size_t n = r.key.size() + r.value.size();
  for (const auto& [k, v] : r.headers) n += k.size() + v.size();
  return n;
}

class RecordSizeTest : public ::testing::Test {
 protected:
  //! Produces large events with a producer that takes them (the harness's keeps librdkafka's default).
  void ProduceLarge(PipelineHarness& h, const std::vector<std::string>& events) {
    kafka::ClientConfig config = h.config().kafka;
    config.properties["message.max.bytes"] = "4000000";
    auto producer = kafka::Producer::Create(config, [](uint64_t, const Status& st) { EXPECT_TRUE(st.ok()) << st.ToString(); });
    ASSERT_TRUE(producer.ok()) << producer.status().ToString();
    for (const auto& e : events) {
      ASSERT_TRUE((*producer)->Produce({h.config().topics.pages, 0, "k", e, {}}, 0).ok());
      model_.Apply(e);
    }
    ASSERT_TRUE((*producer)->Flush(30000).ok());
  }

  BatchModel model_;
  //! Pages around and over the export record budget, with or without the stages' changelogs.
  void LargePages(bool changelog);
};

void RecordSizeTest::LargePages(bool changelog) {
  PipelineHarness h(3);
  h.config().runner.changelog = changelog;
  // The most links whose export still fits one record, and one more.
  // Export size grows with the link count: bisect (each probe encodes a ~1 MB page).
  auto fits = [](size_t links) {
    return ExportBytes(Event("http://near.com/", links, 100, "2015-07-28T03:06:17Z")) <= kBudget;
  };
  size_t fit = 1, too_many = 7000;  // 7,000 such links are still an event under 1 MiB
  ASSERT_TRUE(fits(fit));
  ASSERT_FALSE(fits(too_many));
  while (too_many - fit > 1) {
    const size_t mid = (fit + too_many) / 2;
    (fits(mid) ? fit : too_many) = mid;
  }
  const std::string under = Event("http://near.com/", fit, 100, "2015-07-28T03:06:17Z");
  const std::string over = Event("http://over.com/", fit + 1, 100, "2015-07-28T03:06:17Z");
  const std::string p5200 = Event("http://a.com/5200", 5200, 120, "2015-07-28T03:06:17Z", "http://site");
  const std::string p10000 = Event("http://a.com/10000", 10000, 50, "2015-07-28T03:06:17Z");
  for (const auto* e : {&under, &over, &p5200, &p10000}) ASSERT_LT(e->size(), 1u << 20);
  ASSERT_GT(ExportBytes(p5200), kBudget);
  ASSERT_GT(ExportBytes(p10000), kBudget);
  ProduceLarge(h, {under, over, p5200, p10000});
  h.RunUntilIdle([](const pipeline::Metrics& m) { EXPECT_GT(m.export_parts.load(), 0u); });
  EXPECT_EQ(h.Dump(), model_.TableLines());

  // New versions: fewer links, more links, gone; after a restart.
  ProduceLarge(h, {Event("http://a.com/5200", 3000, 50, "2015-07-29T03:06:17Z", "http://site"),
                   Event("http://near.com/", fit + 300, 100, "2015-07-29T03:06:17Z"),
                   R"({"url":"http://a.com/10000","deleted":true,"crawlDate":"2015-07-29T03:06:17Z"})"});
  h.RunUntilIdle();
  EXPECT_EQ(h.Dump(), model_.TableLines());

  codec::RecordDecoder decoder;
  std::map<std::string, std::vector<uint32_t>> parts;  // key -> parts of its first export
  for (const auto& r : h.ReadTopic(h.config().topics.exports)) {
    EXPECT_LE(Bytes(r), kBudget) << r.key;
    auto e = decoder.DecodeExport(r.value);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    if (e->type == codec::ExportRecord::Type::kPage && e->seq == 1) parts[e->key].push_back(e->parts);
  }
  EXPECT_EQ(parts["com.near>>o>/"], std::vector<uint32_t>({1}));
  EXPECT_EQ(parts["com.over>>o>/"], std::vector<uint32_t>({2, 2}));
  EXPECT_GE(parts["com.a>>o>/5200"].size(), 2u);
  EXPECT_GE(parts["com.a>>o>/10000"].size(), 2u);
}

TEST_F(RecordSizeTest, LargePagesAreExportedInPartsThatFitAndTheTableEqualsTheBatchModel) { LargePages(false); }

// With a changelog, each commit's records go to the changelog too (docs/scale-out.md §4): an
// export part as large as the exports topic takes must still fit there (in parts of its own).
TEST_F(RecordSizeTest, LargePagesAreExportedInPartsAlsoWithAChangelog) { LargePages(true); }

TEST_F(RecordSizeTest, EventOverMaxEventBytesIsDeadLetteredCutToFitWithItsSize) {
  PipelineHarness h(3);
  const size_t limit = codec::DecodeLimits{}.max_event_bytes;
  const std::string at_limit = Padded("http://a.com/at", limit), over = Padded("http://a.com/over", limit + 1);
  ASSERT_EQ(at_limit.size(), limit);
  ASSERT_EQ(over.size(), limit + 1);
  ProduceLarge(h, {at_limit, over, Event("http://a.com/after", 3, 5, "2015-07-28T03:06:17Z")});
  h.RunUntilIdle([](const pipeline::Metrics& m) {
    EXPECT_EQ(m.invalid_events.load(), 1u);
    EXPECT_EQ(m.dead_lettered.load(), 1u);
  });
  EXPECT_EQ(model_.invalid_events(), 1u);
  EXPECT_EQ(h.Dump(), model_.TableLines());

  const auto dead = h.ReadTopic(h.config().topics.dead_letters);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_LE(Bytes(dead[0]), kBudget);
  EXPECT_EQ(Header(dead[0], "value.truncated"), std::to_string(limit + 1));
  EXPECT_EQ(Header(dead[0], "source.topic"), h.config().topics.pages);
  EXPECT_NE(Header(dead[0], "reason"), "");
  EXPECT_EQ(over.substr(0, dead[0].value.size()), dead[0].value);
  EXPECT_GT(dead[0].value.size(), kBudget - 1000);
}

//! Puts an outbox row holding `records` records into a stage's outbox as if committed by an
//! earlier run (or before the topic's limit was lowered).
void CommitIntoOutbox(PipelineHarness& h, const std::string& stage, const std::string& row, size_t records) {
  auto store = state::OpenCurrent(h.config().data_dir, state::StoreOptions{});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const std::string seq_key = pipeline::SeqKey(stage);
  auto seq = state::GetFixed64(**store, state::Family::kMeta, seq_key, "seq");
  ASSERT_TRUE(seq.ok() && seq->has_value());
  state::WriteBatch wb(**store);
  wb.Put(state::Family::kOutbox, pipeline::OutboxKey(stage, **seq), row);
  BytesWriter w;
  w.PutFixed64BE(**seq + records);
  wb.Put(state::Family::kMeta, seq_key, w.str());
  ASSERT_TRUE((*store)->Write(wb).ok());
}

//! One record in a row of its own, as older versions wrote them: the record the issue's
//! processor wedged on.
void CommitIntoOutbox(PipelineHarness& h, const std::string& stage, const OutRecord& record) {
  CommitIntoOutbox(h, stage, codec::EncodeOutRecord(record), 1);
}

//! A page export Kafka rejects (over the producer's message.max.bytes).
const std::string kBigExport = R"({"type":"page","key":"com.big>>o>/","seq":1,"gen":1,"page":{"pad":")" +
                               std::string(1200000, 'x') + "\"}}";

//! Processes an event, puts `row` (holding `records` records) into the page stage's outbox as
//! committed, then processes one more event per run, twice: the first run sets one record aside,
//! the second none. The table equals the batch model after each. Returns the dead letters.
std::vector<PipelineHarness::Consumed> RunWithRowInOutbox(PipelineHarness& h, BatchModel& model,
                                                           const std::function<std::string()>& row, size_t records,
                                                           const std::function<void(const std::string&)>& produce) {
  produce(Event("http://a.com/1", 10, 5, "2015-07-28T03:06:17Z"));
  h.RunUntilIdle();
  CommitIntoOutbox(h, "page", row(), records);
  produce(Event("http://a.com/2", 10, 5, "2015-07-28T03:06:17Z"));
  h.RunUntilIdle([](const pipeline::Metrics& m) { EXPECT_EQ(m.undeliverable_records.load(), 1u); });
  EXPECT_EQ(h.Dump(), model.TableLines());
  // The row is gone once all its records are acknowledged: nothing of it comes again after a restart.
  produce(Event("http://a.com/3", 10, 5, "2015-07-28T03:06:17Z"));
  h.RunUntilIdle([](const pipeline::Metrics& m) { EXPECT_EQ(m.undeliverable_records.load(), 0u); });
  EXPECT_EQ(h.Dump(), model.TableLines());
  return h.ReadTopic(h.config().topics.dead_letters);
}

TEST_F(RecordSizeTest, RecordKafkaRejectsIsSetAsideAndTheRestGoesOnAcrossRestarts) {
  PipelineHarness h(3);
  const auto dead = RunWithRowInOutbox(
      h, model_,
      [&] { return codec::EncodeOutRecord({h.config().topics.exports, 0, "com.big>>o>/", kBigExport, {}}); }, 1,
      [&](const std::string& e) { ProduceLarge(h, {e}); });
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_LE(Bytes(dead[0]), kBudget);
  EXPECT_EQ(dead[0].key, "com.big>>o>/");
  EXPECT_EQ(Header(dead[0], "reason").rfind("undeliverable: ", 0), 0u) << Header(dead[0], "reason");
  EXPECT_EQ(Header(dead[0], "target.topic"), h.config().topics.exports);
  EXPECT_EQ(Header(dead[0], "target.partition"), "0");
  EXPECT_EQ(Header(dead[0], "value.truncated"), std::to_string(kBigExport.size()));
  EXPECT_EQ(kBigExport.substr(0, dead[0].value.size()), dead[0].value);
}

TEST_F(RecordSizeTest, ARejectedRecordInsideAnOutboxRowIsSetAsideAndTheRowsOtherRecordsAreSentOnce) {
  PipelineHarness h(3);
  const std::string dead_letters = h.config().topics.dead_letters;
  // The records of one commit in one row, as StageRunner commits them.
  const auto dead = RunWithRowInOutbox(
      h, model_,
      [&] {
        return codec::EncodeOutBatch({{dead_letters, 0, "before", "1", {}},
                                      {h.config().topics.exports, 0, "com.big>>o>/", kBigExport, {}},
                                      {dead_letters, 0, "after", "2", {}}});
      },
      3, [&](const std::string& e) { ProduceLarge(h, {e}); });
  std::multiset<std::string> keys;
  for (const auto& d : dead) {
    keys.insert(d.key);
    if (d.key != "com.big>>o>/") continue;
    EXPECT_EQ(Header(d, "reason").rfind("undeliverable: ", 0), 0u) << Header(d, "reason");
    EXPECT_EQ(Header(d, "value.truncated"), std::to_string(kBigExport.size()));
  }
  EXPECT_EQ(keys, (std::multiset<std::string>{"before", "com.big>>o>/", "after"}));
}

TEST_F(RecordSizeTest, RecordsTheBrokerRejectsAreSetAsideAndTheRestGoesOn) {
  PipelineHarness h(1);
  ProduceLarge(h, {Event("http://a.com/1", 10, 5, "2015-07-28T03:06:17Z")});
  h.broker().PushRequestErrors(0, {10});  // MESSAGE_TOO_LARGE for the processor's first Produce request
  uint64_t rejected = 0;
  h.RunUntilIdle([&](const pipeline::Metrics& m) { rejected = m.undeliverable_records.load(); });
  EXPECT_GE(rejected, 1u);
  const auto dead = h.ReadTopic(h.config().topics.dead_letters);
  ASSERT_EQ(dead.size(), rejected);
  for (const auto& d : dead) EXPECT_EQ(Header(d, "reason").rfind("undeliverable: ", 0), 0u);
  // Nothing is retried on restart, and later events are processed.
  ProduceLarge(h, {Event("http://b.com/2", 3, 5, "2015-07-28T03:06:17Z")});
  h.RunUntilIdle([](const pipeline::Metrics& m) { EXPECT_EQ(m.undeliverable_records.load(), 0u); });
  const auto table = h.Dump();
  EXPECT_NE(std::find_if(table.begin(), table.end(),
                         [](const std::string& l) { return l.starts_with("p:com.b>>o>/2|page|cur|"); }),
            table.end());
}

TEST_F(RecordSizeTest, RecordsTheBrokerRejectsInsideAnOutboxRowAreEachDescribedByTheirOwnDeadLetter) {
  // One commit's records share an outbox row; the broker rejects the first Produce request, which
  // carries several of them. Each rejected record is replaced by a dead letter naming it, once.
  PipelineHarness h(1);
  const std::string dead_letters = h.config().topics.dead_letters;
  ProduceLarge(h, {Event("http://a.com/1", 10, 5, "2015-07-28T03:06:17Z")});
  h.RunUntilIdle();
  CommitIntoOutbox(h, "page",
                   codec::EncodeOutBatch({{dead_letters, 0, "r1", "1", {}},
                                          {dead_letters, 0, "r2", "2", {}},
                                          {dead_letters, 0, "r3", "3", {}}}),
                   3);
  h.broker().PushRequestErrors(0, {10});  // MESSAGE_TOO_LARGE for the resent row's Produce request
  uint64_t rejected = 0, dead_lettered = 0;
  h.RunUntilIdle([&](const pipeline::Metrics& m) {
    rejected = m.undeliverable_records.load();
    dead_lettered = m.dead_lettered.load();
  });
  EXPECT_GE(rejected, 1u);
  EXPECT_EQ(dead_lettered, 3u) << "each record counts once, as itself or as the dead letter describing it";
  std::multiset<std::string> keys;
  uint64_t described = 0;
  for (const auto& d : h.ReadTopic(dead_letters)) {
    keys.insert(d.key);
    if (Header(d, "reason").rfind("undeliverable: ", 0) == 0) ++described;
  }
  // Every record arrives exactly once: as itself, or as the dead letter describing it.
  EXPECT_EQ(keys, (std::multiset<std::string>{"r1", "r2", "r3"}));
  EXPECT_EQ(described, rejected);
}

TEST_F(RecordSizeTest, AnOutboxRowThatCannotBeReadFailsEveryStartAndIsNeverDeletedAsSent) {
  // A row that does not decode stops the stage at start with an error; the rows before it were
  // sent, the row itself was not, so it must still be there for the next start (and for
  // whoever repairs the data dir), never deleted as if acknowledged.
  PipelineHarness h(1);
  const std::string dead_letters = h.config().topics.dead_letters;
  ProduceLarge(h, {Event("http://a.com/1", 10, 5, "2015-07-28T03:06:17Z")});
  h.RunUntilIdle();
  CommitIntoOutbox(h, "page", codec::EncodeOutBatch({{dead_letters, 0, "readable", "1", {}}}), 1);
  std::string key;
  {
    auto store = h.OpenReadOnly();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto seq = state::GetFixed64(**store, state::Family::kMeta, pipeline::SeqKey("page"), "seq");
    ASSERT_TRUE(seq.ok() && seq->has_value());
    key = pipeline::OutboxKey("page", **seq);
  }
  const std::string unreadable = "\x7f not an outbox row";
  CommitIntoOutbox(h, "page", unreadable, 1);
  for (int run = 0; run < 2; ++run) {
    const Status st = h.TryRunUntilIdle();
    EXPECT_FALSE(st.ok()) << "run " << run;
    auto store = h.OpenReadOnly();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto row = (*store)->Get(state::Family::kOutbox, key);
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    ASSERT_TRUE(row->has_value()) << "run " << run << ": the unsent row was deleted";
    EXPECT_EQ(**row, unreadable);
  }
  const auto dead = h.ReadTopic(dead_letters);
  ASSERT_FALSE(dead.empty());
  EXPECT_EQ(dead[0].key, "readable");
}

TEST_F(RecordSizeTest, AnUnreadableFirstOutboxRowKeepsItselfAndTheRowsAfterIt) {
  // The first row does not decode: the start fails before anything was sent, and neither it nor
  // the readable row after it may be deleted when the processor stops.
  PipelineHarness h(1);
  const std::string dead_letters = h.config().topics.dead_letters;
  ProduceLarge(h, {Event("http://a.com/1", 10, 5, "2015-07-28T03:06:17Z")});
  h.RunUntilIdle();
  uint64_t first = 0;
  {
    auto store = h.OpenReadOnly();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto seq = state::GetFixed64(**store, state::Family::kMeta, pipeline::SeqKey("page"), "seq");
    ASSERT_TRUE(seq.ok() && seq->has_value());
    first = **seq;
  }
  CommitIntoOutbox(h, "page", "\x7f not an outbox row", 1);
  CommitIntoOutbox(h, "page", codec::EncodeOutBatch({{dead_letters, 0, "readable", "1", {}}}), 1);
  for (int run = 0; run < 2; ++run) {
    EXPECT_FALSE(h.TryRunUntilIdle().ok()) << "run " << run;
    auto store = h.OpenReadOnly();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    for (uint64_t seq : {first, first + 1}) {
      auto row = (*store)->Get(state::Family::kOutbox, pipeline::OutboxKey("page", seq));
      ASSERT_TRUE(row.ok()) << row.status().ToString();
      EXPECT_TRUE(row->has_value()) << "run " << run << ": the unsent row " << seq << " was deleted";
    }
  }
  EXPECT_TRUE(h.ReadTopic(dead_letters).empty()) << "nothing after an unreadable row is sent before it";
}

TEST_F(RecordSizeTest, LoadSkipsAnEventLargerThanThePagesTopicTakesAndSendsTheRest) {
  PipelineHarness h(1);
  const std::string dir = MakeTempDir("webindex-load-size");
  const std::string file = dir + "/events.jsonl", log = dir + "/load.log";
  // A producer told to send less than the topic takes: its limit is the topic's budget then.
  const size_t budget = 500000 - kafka::kRecordFramingBytes;
  const std::string big = Event("http://a.com/big", 4000, 100, "2015-07-28T03:06:17Z");
  ASSERT_GT(big.size(), budget);
  ASSERT_LT(big.size(), codec::DecodeLimits{}.max_event_bytes);
  {
    std::ofstream out(file);
    out << Event("http://a.com/1", 3, 5, "2015-07-28T03:06:17Z") << "\n"
        << big << "\n"
        << Event("http://a.com/3", 3, 5, "2015-07-28T03:06:17Z") << "\n";
  }
  std::string out;
  const int rc = RunCommand(
      {WEBINDEX_BINARY, "-X", "message.max.bytes=500000", "load", "--brokers", h.brokers(), file}, &out, log);
  std::ifstream in(log);
  const std::string log_text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 5) << log_text;
  EXPECT_NE(log_text.find(file + ":2: event of " + std::to_string(big.size() + std::string("http://a.com/big").size()) +
                          " bytes (key and value), topic pages takes at most " + std::to_string(budget) +
                          " (event skipped)"),
            std::string::npos)
      << log_text;
  EXPECT_NE(log_text.find("1 events too large skipped"), std::string::npos) << log_text;
  const auto records = h.ReadTopic(h.config().topics.pages);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].key, "http://a.com/3");
  std::filesystem::remove_all(dir);
}

// The pages topic takes an event of limits.max_event_bytes with its key, which librdkafka's
// default message.max.bytes and Kafka's default max.message.bytes do not; one byte more is what
// `run` would dead-letter, and `load` says so instead of sending it.
TEST_F(RecordSizeTest, LoadSendsAnEventOfMaxEventBytesAndSkipsOneByteMore) {
  PipelineHarness h(1);
  const std::string dir = MakeTempDir("webindex-load-max-event");
  const std::string file = dir + "/events.jsonl", log = dir + "/load.log";
  const size_t limit = codec::DecodeLimits{}.max_event_bytes;
  const std::string at_limit = Padded("http://a.com/at", limit), over = Padded("http://a.com/over", limit + 1);
  const std::string after = Event("http://a.com/after", 3, 5, "2015-07-28T03:06:17Z");
  std::ofstream(file) << at_limit << "\n" << over << "\n" << after << "\n";
  std::string out;
  const int rc = RunCommand({WEBINDEX_BINARY, "load", "--brokers", h.brokers(), file}, &out, log);
  std::ifstream in(log);
  const std::string log_text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 5) << log_text;
  EXPECT_NE(log_text.find(file + ":2: event of " + std::to_string(limit + 1) + " bytes, over limits.max_event_bytes (" +
                          std::to_string(limit) + "), which `run` would dead-letter (event skipped)"),
            std::string::npos)
      << log_text;
  EXPECT_EQ(log_text.find(file + ":1:"), std::string::npos) << log_text;
  const auto records = h.ReadTopic(h.config().topics.pages);
  ASSERT_EQ(records.size(), 2u) << log_text;
  EXPECT_EQ(records[0].value, at_limit);

  model_.Apply(at_limit);
  model_.Apply(after);
  h.RunUntilIdle([](const pipeline::Metrics& m) { EXPECT_EQ(m.invalid_events.load(), 0u); });
  const auto table = h.Dump();
  EXPECT_EQ(table, model_.TableLines());
  EXPECT_NE(std::find_if(table.begin(), table.end(),
                         [](const std::string& l) { return l.starts_with("p:com.a>>o>/at|page|cur|"); }),
            table.end());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace webindex::testing
