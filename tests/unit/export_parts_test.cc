// Page exports split to fit a record budget and reassembled by the sink; the bounds on a page's
// fields; dead letters cut to fit.
#include <gtest/gtest.h>

#include <filesystem>

#include "codec/records.h"
#include "kafka/common.h"
#include "pipeline/stage.h"
#include "pipeline_harness.h"
#include "query/table_reader.h"
#include "sink/export_parts.h"
#include "sink/sink_stage.h"

namespace webindex {
namespace {

model::Page BigPage(size_t links, size_t anchor_bytes) {
  model::Page p;
  p.url = "http://a.com/big";
  p.uri = "com.a>>o>/big";
  p.crawl_date = "2015-07-28T03:06:17Z";
  p.title = "big";
  for (size_t i = 0; i < links; ++i) {
    const std::string n = std::to_string(i);
    p.links.push_back({"http://b" + std::to_string(i % 7) + ".com/p/" + n, "com.b" + std::to_string(i % 7) + ">>o>/p/" + n,
                       std::string(anchor_bytes, static_cast<char>('a' + i % 26))});
  }
  return p;
}

codec::ExportRecord PageExport(model::Page page, uint64_t seq) {
  codec::ExportRecord e;
  e.type = codec::ExportRecord::Type::kPage;
  e.key = page.uri;
  e.seq = seq;
  e.page = std::move(page);
  return e;
}

TEST(ExportPartsTest, SmallExportIsOneRecordUnchanged) {
  const auto e = PageExport(BigPage(10, 5), 3);
  const auto parts = codec::EncodeParts(e, 100000);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0], codec::Encode(e));
}

TEST(ExportPartsTest, LargeExportSplitsIntoPartsThatFitAndCarryEveryLinkInOrder) {
  const auto e = PageExport(BigPage(10000, 200), 7);
  const size_t whole = codec::Encode(e).size();
  for (size_t max : {size_t{200000}, size_t{500000}, whole - 1}) {
    const auto parts = codec::EncodeParts(e, max);
    ASSERT_GE(parts.size(), 2u) << max;
    codec::RecordDecoder decoder;
    sink::PendingParts pending;
    for (size_t i = 0; i < parts.size(); ++i) {
      EXPECT_LE(parts[i].size(), max) << "part " << i;
      auto d = decoder.DecodeExport(parts[i]);
      ASSERT_TRUE(d.ok()) << d.status().ToString();
      EXPECT_EQ(d->part, i);
      EXPECT_EQ(d->parts, parts.size());
      EXPECT_EQ(d->seq, 7u);
      EXPECT_EQ(d->key, e.key);
      EXPECT_EQ(i == 0, d->page.has_value());
      if (i == 0) {
        EXPECT_EQ(d->num_outbound, 10000u);
      }
      EXPECT_EQ(sink::AddPart(*d, parts[i], 0, &pending), sink::PartOutcome::kAdded);
    }
    auto whole_again = sink::Assemble(pending, decoder);
    ASSERT_TRUE(whole_again.ok()) << whole_again.status().ToString();
    EXPECT_EQ(whole_again->parts, 1u);
    EXPECT_EQ(codec::Encode(*whole_again), codec::Encode(e));
  }
}

TEST(ExportPartsTest, AddPartDropsStaleAndDuplicatePartsAndRestartsOnANewerSeq) {
  const auto parts = codec::EncodeParts(PageExport(BigPage(3000, 100), 5), 150000);
  ASSERT_GE(parts.size(), 3u);
  codec::RecordDecoder decoder;
  auto part = [&](size_t i) { return decoder.DecodeExport(parts[i]).value(); };
  sink::PendingParts pending;
  EXPECT_EQ(sink::AddPart(part(0), parts[0], /*applied_seq=*/5, &pending), sink::PartOutcome::kStale);
  EXPECT_EQ(sink::AddPart(part(0), parts[0], 4, &pending), sink::PartOutcome::kAdded);
  EXPECT_EQ(sink::AddPart(part(0), parts[0], 4, &pending), sink::PartOutcome::kDuplicate);
  EXPECT_EQ(sink::AddPart(part(1), parts[1], 4, &pending), sink::PartOutcome::kAdded);
  // The state survives a commit and a restart.
  auto reloaded = sink::DecodePending(sink::EncodePending(pending));
  ASSERT_TRUE(reloaded.ok());
  EXPECT_EQ(reloaded->seq, 5u);
  EXPECT_EQ(reloaded->values, pending.values);
  EXPECT_FALSE(reloaded->complete());
  // Parts of a newer seq replace what is pending; older ones are then stale.
  const auto newer = codec::EncodeParts(PageExport(BigPage(3000, 100), 6), 150000);
  auto n0 = decoder.DecodeExport(newer[0]).value();
  EXPECT_EQ(sink::AddPart(n0, newer[0], 4, &pending), sink::PartOutcome::kAdded);
  EXPECT_EQ(pending.seq, 6u);
  EXPECT_EQ(pending.values.size(), 1u);
  EXPECT_EQ(sink::AddPart(part(2), parts[2], 4, &pending), sink::PartOutcome::kStale);
}

TEST(ExportPartsTest, BoundPageCutsLongTextsAtUtf8BoundariesAndDropsLinksToLongUrls) {
  model::Page p = BigPage(3, 10);
  p.links[0].anchor_text = std::string(2047, 'x') + "\xc3\xa9" + "tail";  // 'é' straddles the bound
  p.links[1].url = "http://c.com/" + std::string(codec::kMaxUrlBytes, 'u');
  p.title = std::string(codec::kMaxPageTextBytes + 5, 't');
  auto counts = codec::BoundPage(&p);
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->cut_texts, 2u);
  EXPECT_EQ(counts->dropped_links, 1u);
  ASSERT_EQ(p.links.size(), 2u);
  EXPECT_EQ(p.links[0].anchor_text, std::string(2047, 'x'));
  EXPECT_EQ(p.title->size(), codec::kMaxPageTextBytes);
  model::Page long_url = BigPage(0, 0);
  long_url.url = "http://a.com/" + std::string(codec::kMaxUrlBytes, 'p');
  EXPECT_FALSE(codec::BoundPage(&long_url).ok());
}

TEST(ExportPartsTest, BoundedLinksAlwaysFitAPartOfTheDefaultBudget) {
  // The largest page the bounds allow, every link as large as they allow.
  model::Page p;
  p.url = "http://a.com/" + std::string(codec::kMaxUrlBytes - 13, 'p');
  p.uri = "com.a>>o>/" + std::string(codec::kMaxUrlBytes - 13, 'p');
  p.title = std::string(codec::kMaxPageTextBytes, '"');  // escaped: twice as long
  p.server = std::string(codec::kMaxPageTextBytes, '"');
  for (int i = 0; i < 200; ++i) {
    p.links.push_back({"http://b.com/" + std::string(codec::kMaxUrlBytes - 13, 'q'),
                       "com.b>>o>/" + std::string(codec::kMaxUrlBytes - 13, 'q'),
                       std::string(codec::kMaxAnchorTextBytes, '\\')});
  }
  const size_t budget = kafka::kDefaultProducerMaxMessageBytes - kafka::kRecordFramingBytes - p.uri.size();
  const auto parts = codec::EncodeParts(PageExport(p, 1), budget);
  EXPECT_GT(parts.size(), 1u);
  for (const auto& part : parts) EXPECT_LE(part.size(), budget);
}

TEST(DeadLetterTest, FitsUnchangedOrCutWithTheOriginalSizes) {
  const std::vector<std::pair<std::string, std::string>> headers = {{"reason", "r"}, {"generation", "1"}};
  OutRecord small = pipeline::MakeDeadLetter("dl", "k", "value", headers, 1000);
  EXPECT_EQ(small.value, "value");
  EXPECT_EQ(small.headers, headers);

  const std::string value = std::string(1999, 'v') + "\xc3\xa9";
  OutRecord cut = pipeline::MakeDeadLetter("dl", "key", value, headers, 1000);
  EXPECT_LE(kafka::RecordBytes(cut), 1000u);
  EXPECT_EQ(cut.key, "key");
  EXPECT_EQ(value.substr(0, cut.value.size()), cut.value);
  EXPECT_GT(cut.value.size(), 800u);
  ASSERT_EQ(cut.headers.size(), 3u);
  EXPECT_EQ(cut.headers.back(), (std::pair<std::string, std::string>{"value.truncated", "2001"}));

  OutRecord both = pipeline::MakeDeadLetter("dl", std::string(5000, 'k'), value, headers, 1000);
  EXPECT_LE(kafka::RecordBytes(both), 1000u);
  EXPECT_LT(both.key.size(), 5000u);
  EXPECT_EQ(both.headers[2], (std::pair<std::string, std::string>{"key.truncated", "5000"}));
  EXPECT_EQ(both.headers[3], (std::pair<std::string, std::string>{"value.truncated", "2001"}));
}

//! The sink applied on a real store: split exports across batches and restarts.
class SinkPartsTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("webindex-sink-parts"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  //! Applies `values` as one batch of a fresh SinkStage (as after a restart) on the store in `sub`.
  void Apply(const std::string& sub, const std::vector<std::string>& values) {
    auto store = state::Store::Open(dir_ + "/" + sub, state::StoreOptions{});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    pipeline::TopicLayout layout;
    sink::SinkStage stage(layout);
    std::vector<InRecord> records;
    for (size_t i = 0; i < values.size(); ++i) {
      records.push_back({layout.names.exports, 0, static_cast<int64_t>(i), -1, "k", values[i]});
    }
    state::WriteBatch wb(**store);
    pipeline::BatchContext ctx(**store, wb, "sink", metrics_);
    ASSERT_TRUE(stage.Process(records, ctx).ok());
    ASSERT_TRUE((*store)->Write(wb).ok());
  }
  std::vector<std::string> Table(const std::string& sub) {
    state::StoreOptions opts;
    opts.read_only = true;
    auto store = state::Store::Open(dir_ + "/" + sub, opts);
    EXPECT_TRUE(store.ok());
    std::vector<std::string> lines;
    EXPECT_TRUE(query::ScanRows(**store, "", [&](const sink::Cell& c) {
                  lines.push_back(query::CellLine(c));
                  return true;
                }).ok());
    return lines;
  }

  std::string dir_;
  pipeline::Metrics metrics_;
};

TEST_F(SinkPartsTest, PartsAcrossBatchesWithDuplicatesAndRestartsEqualTheWholeExport) {
  const auto v1 = PageExport(BigPage(4000, 120), 1), v2 = PageExport(BigPage(2500, 90), 2);
  const auto p1 = codec::EncodeParts(v1, 200000), p2 = codec::EncodeParts(v2, 200000);
  ASSERT_GE(p1.size(), 3u);
  ASSERT_GE(p2.size(), 2u);
  Apply("whole", {codec::Encode(v1)});
  Apply("whole", {codec::Encode(v2)});
  const auto expected = Table("whole");
  ASSERT_GT(expected.size(), 2500u);

  // v1: part 0 and a duplicate, a restart, part 1 twice, a restart, the rest and a duplicate.
  Apply("parts", {p1[0], p1[0]});
  Apply("parts", {p1[1], p1[1]});
  EXPECT_TRUE(Table("parts").empty());  // nothing applied before every part is there
  std::vector<std::string> rest(p1.begin() + 2, p1.end());
  rest.push_back(p1[1]);
  Apply("parts", rest);
  // v2 in two batches, with the parts of v1 re-sent in between (an outbox re-send): stale.
  Apply("parts", {p2[0], p1[0], p1[2]});
  std::vector<std::string> rest2(p2.begin() + 1, p2.end());
  rest2.push_back(p1.back());
  Apply("parts", rest2);
  EXPECT_EQ(Table("parts"), expected);
  // Late duplicates of applied parts change nothing and leave nothing pending.
  Apply("parts", {p2[0], p1[0]});
  EXPECT_EQ(Table("parts"), expected);
  auto store = state::Store::Open(dir_ + "/parts", state::StoreOptions{});
  ASSERT_TRUE(store.ok());
  auto pending = (*store)->Get(state::Family::kVersions, sink::PendingKey(v1.key));
  ASSERT_TRUE(pending.ok());
  EXPECT_FALSE(pending->has_value());
}

}  // namespace
}  // namespace webindex
