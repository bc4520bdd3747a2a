// The sink's summary of the query table (sink/summary.h): the totals and the domain index it
// keeps in each batch's commit equal a count over the rows after every batch, and a start
// counts them again only when the table moved without them.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>

#include "codec/records.h"
#include "common/bytes.h"
#include "model/url.h"
#include "pipeline/runner_keys.h"
#include "pipeline_harness.h"
#include "sink/sink_stage.h"
#include "sink/summary.h"
#include "sink/table.h"

namespace webindex::sink {
namespace {

using Type = codec::ExportRecord::Type;

codec::ExportRecord UriExport(const std::string& uri, int64_t links_to, int64_t docs, uint64_t seq) {
  codec::ExportRecord e;
  e.type = Type::kUri;
  e.key = uri;
  e.seq = seq;
  e.info = {links_to, docs};
  return e;
}

codec::ExportRecord DomainExport(const std::string& key, int64_t pagecount, uint64_t seq) {
  codec::ExportRecord e;
  e.type = Type::kDomain;
  e.key = key;
  e.seq = seq;
  e.pagecount = pagecount;
  return e;
}

codec::ExportRecord PageExport(const std::string& uri, bool present, uint64_t seq) {
  codec::ExportRecord e;
  e.type = Type::kPage;
  e.key = uri;
  e.seq = seq;
  if (present) {
    model::Page p;
    p.uri = uri;
    p.url = "http://x/";
    p.crawl_date = "2015-07-28T03:06:17Z";
    e.page = std::move(p);
  }
  return e;
}

//! The domain index as a map name -> pagecount.
std::map<std::string, std::string> DomainIndex(state::Store& store) {
  std::map<std::string, std::string> out;
  auto it = store.NewIterator(state::Family::kMeta);
  for (it->Seek(kDomainIndexPrefix); it->Valid() && it->key().starts_with(kDomainIndexPrefix); it->Next()) {
    out[std::string(it->key().substr(kDomainIndexPrefix.size()))] = std::string(it->value());
  }
  return out;
}

//! The d: rows as the domain index should have them.
std::map<std::string, std::string> DomainRows(state::Store& store) {
  std::map<std::string, std::string> out;
  auto it = store.NewIterator(state::Family::kTable);
  Cell c;
  for (it->Seek(RowPrefixKey("d:")); it->Valid(); it->Next()) {
    EXPECT_TRUE(DecodeCellKey(it->key(), &c.row, &c.cf, &c.cq));
    if (!c.row.starts_with("d:")) break;
    if (c.cf == "domain") out[model::HostName(c.row.substr(2))] = it->value();
  }
  return out;
}

class SinkSummaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("webindex-summary");
    Reopen();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Reopen() {
    store_.reset();
    auto store = state::Store::Open(dir_, {});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  std::string OffsetsPrefix() const { return pipeline::OffsetPrefix("sink", layout_.names.exports); }

  //! A fresh SinkStage (as after a start) opened on the store.
  std::unique_ptr<SinkStage> OpenStage() {
    auto stage = std::make_unique<SinkStage>(layout_);
    const Status st = stage->Open(*store_);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return stage;
  }

  //! One batch as the runner commits it: the stage's writes and the input positions together.
  void Apply(SinkStage& stage, const std::vector<codec::ExportRecord>& exports, int32_t partition = 0) {
    std::vector<std::string> values;
    for (const auto& e : exports) values.push_back(codec::Encode(e));
    std::vector<InRecord> records;
    for (const auto& v : values) records.push_back({layout_.names.exports, partition, next_offset_++, -1, "k", v});
    state::WriteBatch wb(*store_);
    pipeline::BatchContext ctx(*store_, wb, "sink", metrics_);
    const Status st = stage.Process(records, ctx);
    ASSERT_TRUE(st.ok()) << st.ToString();
    BytesWriter w;
    w.PutFixed64BE(static_cast<uint64_t>(next_offset_));
    wb.Put(state::Family::kOffsets, pipeline::OffsetKey("sink", layout_.names.exports, partition),
           w.str());
    ASSERT_TRUE(store_->Write(wb).ok());
  }

  void ExpectKeptEqualsCount(const std::string& when) {
    auto kept = ReadTotals(*store_);
    ASSERT_TRUE(kept.ok()) << kept.status().ToString();
    ASSERT_TRUE(kept->has_value()) << when;
    auto counted = CountTotals(*store_);
    ASSERT_TRUE(counted.ok()) << counted.status().ToString();
    const auto& k = **kept;
    EXPECT_EQ(k, *counted) << when << ": kept pages " << k.pages << " crawled " << k.crawled << " linked " << k.linked
                           << " links " << k.links << " domains " << k.domains << "; counted pages " << counted->pages
                           << " crawled " << counted->crawled << " linked " << counted->linked << " links "
                           << counted->links << " domains " << counted->domains;
    EXPECT_EQ(DomainIndex(*store_), DomainRows(*store_)) << when;
  }

  std::string dir_;
  std::unique_ptr<state::Store> store_;
  pipeline::TopicLayout layout_;
  pipeline::Metrics metrics_;
  int64_t next_offset_ = 0;
};

TEST_F(SinkSummaryTest, TotalsAndDomainIndexFollowEveryBatch) {
  auto stage = OpenStage();
  ExpectKeptEqualsCount("empty table");
  EXPECT_EQ(**ReadTotals(*store_), TableTotals{});
  Apply(*stage,
        {UriExport("com.a>>o>/1", 2, 1, 1), UriExport("com.b>>o>/", 0, 1, 1), UriExport("com.b>.www>o>/x", 3, 0, 1),
         PageExport("com.a>>o>/1", true, 1), PageExport("com.b>>o>/", true, 1), DomainExport("com.a", 1, 1),
         DomainExport("com.b", 2, 1), DomainExport("1.2.3.4", 1, 1), UriExport("1.2.3.4>>o>/", 1, 0, 1)});
  ExpectKeptEqualsCount("after the first batch");
  EXPECT_EQ(**ReadTotals(*store_), (TableTotals{.pages = 4, .crawled = 2, .linked = 3, .links = 6, .domains = 3}));
  EXPECT_EQ(DomainIndex(*store_),
            (std::map<std::string, std::string>{{"1.2.3.4", "1"}, {"a.com", "1"}, {"b.com", "2"}}));

  // Counts change, a page goes, a URI and its domain go; a stale export changes nothing.
  Apply(*stage, {UriExport("com.a>>o>/1", 0, 1, 2), PageExport("com.b>>o>/", false, 2),
                 UriExport("com.b>>o>/", 0, 0, 2), DomainExport("com.b", 1, 2), UriExport("1.2.3.4>>o>/", 0, 0, 2),
                 DomainExport("1.2.3.4", 0, 2), UriExport("com.b>.www>o>/x", 9, 9, 1)});
  ExpectKeptEqualsCount("after the second batch");
  EXPECT_EQ(**ReadTotals(*store_), (TableTotals{.pages = 2, .crawled = 1, .linked = 1, .links = 3, .domains = 2}));
  EXPECT_EQ(DomainIndex(*store_), (std::map<std::string, std::string>{{"a.com", "1"}, {"b.com", "1"}}));
}

TEST_F(SinkSummaryTest, RandomBatchesKeepTheSummaryEqualToACount) {
  std::mt19937_64 rng(7);
  auto stage = OpenStage();
  std::map<std::string, uint64_t> seqs;
  for (int batch = 0; batch < 40; ++batch) {
    std::vector<codec::ExportRecord> exports;
    for (int i = 0; i < 12; ++i) {
      const std::string domain = "com.d" + std::to_string(rng() % 4);
      const std::string uri = domain + ">>o>/" + std::to_string(rng() % 6);
      switch (rng() % 3) {
        case 0:
          exports.push_back(
              UriExport(uri, static_cast<int64_t>(rng() % 4), static_cast<int64_t>(rng() % 2), ++seqs["U" + uri]));
          break;
        case 1:
          exports.push_back(PageExport(uri, rng() % 2 == 0, ++seqs["P" + uri]));
          break;
        default:
          exports.push_back(DomainExport(domain, static_cast<int64_t>(rng() % 3), ++seqs["D" + domain]));
      }
    }
    Apply(*stage, exports, static_cast<int32_t>(rng() % 2));
    ExpectKeptEqualsCount("after batch " + std::to_string(batch));
    if (HasFatalFailure()) return;
    if (batch % 10 == 9) stage = OpenStage();  // a restart keeps what it has
  }
}

TEST_F(SinkSummaryTest, AStartCountsAgainOnlyWhenTheTableMovedWithoutTheSummary) {
  auto stage = OpenStage();
  Apply(*stage, {UriExport("com.a>>o>/1", 1, 1, 1), DomainExport("com.a", 1, 1)});
  ASSERT_EQ((*ReadTotals(*store_))->pages, 1u);

  // Rows written behind the summary's back with the input positions unchanged: a start keeps the
  // summary (it is not counted again on every start).
  {
    state::WriteBatch wb(*store_);
    TableWriter table(*store_, wb);
    table.SetUriInfo("com.c>>o>/", {1, 0}, std::nullopt);
    table.SetDomainCount("com.c", 1);
    table.Flush();
    ASSERT_TRUE(store_->Write(wb).ok());
  }
  OpenStage();
  EXPECT_EQ((*ReadTotals(*store_))->pages, 1u);

  // A version that keeps no summary applied a batch: its positions moved, so the start counts.
  {
    state::WriteBatch wb(*store_);
    TableWriter table(*store_, wb);
    table.SetUriInfo("com.d>>o>/", {2, 1}, std::nullopt);
    table.Flush();
    BytesWriter w;
    w.PutFixed64BE(static_cast<uint64_t>(++next_offset_));
    wb.Put(state::Family::kOffsets, pipeline::OffsetKey("sink", layout_.names.exports, 0), w.str());
    ASSERT_TRUE(store_->Write(wb).ok());
  }
  stage = OpenStage();
  ExpectKeptEqualsCount("after counting again");
  EXPECT_EQ(**ReadTotals(*store_), (TableTotals{.pages = 3, .crawled = 0, .linked = 3, .links = 4, .domains = 2}));
  EXPECT_EQ(DomainIndex(*store_), (std::map<std::string, std::string>{{"a.com", "1"}, {"c.com", "1"}}));

  // The summary is durable across a reopen of the store.
  stage.reset();
  Reopen();
  ExpectKeptEqualsCount("after a reopen");
}

}  // namespace
}  // namespace webindex::sink
