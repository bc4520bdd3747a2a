// Binary state values: round trips, and truncated or garbage input giving Corruption (never a
// crash, never a huge allocation).
#include "codec/state_codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace webindex::codec {
namespace {

std::string Binary() {
  std::string s;
  for (int c = 0; c < 256; ++c) s.push_back(static_cast<char>(c));
  return s;
}

std::vector<model::PageState> SampleStates() {
  std::vector<model::PageState> out;
  out.push_back({});  // nothing known
  model::PageState tomb;  // a delete's tombstone: date, no page
  tomb.version = 3;
  tomb.date = Instant{1438052777, 0};
  tomb.date_text = "2015-07-28T03:06:17Z";
  out.push_back(tomb);
  model::PageState neg;
  neg.version = std::numeric_limits<uint64_t>::max();
  neg.date = Instant{std::numeric_limits<int64_t>::min(), 999999999};
  neg.date_text = "";
  out.push_back(neg);
  model::PageState full;
  full.version = 300;
  full.date = Instant{-1, 999999999};
  full.date_text = "1969-12-31T23:59:59.999999999Z";
  full.page = model::Page{"https://www.d.com.au:9443/a/bc",
                          "au.com.d>.www>s9443>/a/bc",
                          "1969-12-31T23:59:59.999999999Z",
                          "caf\xc3\xa9 \"t\"",
                          Binary(),
                          {{"http://b.com/1", "com.b>>o>/1", "b1"},
                           {"http://c.com/", "com.c>>o>/", ""},
                           {"http://a.com/x", "com.a>>o>/x", std::string(300, 'x')}}};
  out.push_back(full);
  model::PageState no_links;  // a current page with zero links and no optional fields
  no_links.version = 1;
  no_links.page = model::Page{"http://a.com/", "com.a>>o>/", std::nullopt, std::nullopt, std::nullopt, {}};
  out.push_back(no_links);
  model::PageState many;
  many.version = 128;  // multi-byte varint
  many.page = model::Page{"http://a.com/", "com.a>>o>/", "", "", "", {}};
  for (int i = 0; i < 200; ++i) {
    many.page->links.push_back({"http://a.com/" + std::to_string(i), "com.a>>o>/" + std::to_string(i), Binary()});
  }
  out.push_back(many);
  model::PageState revised = full;  // a source with revision numbers (Wikipedia)
  revised.revision = 0;
  out.push_back(revised);
  revised.revision = std::numeric_limits<uint64_t>::max();
  revised.page.reset();
  out.push_back(revised);
  return out;
}

void ExpectEqual(const model::PageState& a, const model::PageState& b) {
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.date, b.date);
  EXPECT_EQ(a.date_text, b.date_text);
  EXPECT_EQ(a.revision, b.revision);
  EXPECT_EQ(a.page, b.page);
}

TEST(StateCodecTest, PageStateRoundTrip) {
  for (const auto& s : SampleStates()) {
    const std::string bytes = EncodePageState(s);
    auto back = DecodePageState(bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ExpectEqual(*back, s);
    EXPECT_EQ(EncodePageState(*back), bytes);  // canonical
  }
}

TEST(StateCodecTest, PageStatesWithoutRevisionKeepTheirFormat) {
  // Bytes of {version 3, date 1438052777 s, date_text, no page} as every release writes them.
  const std::string v1("\x01\x03\x01", 3);
  model::PageState tomb;
  tomb.version = 3;
  tomb.date = Instant{1438052777, 0};
  tomb.date_text = "2015-07-28T03:06:17Z";
  const std::string bytes = EncodePageState(tomb);
  EXPECT_EQ(bytes.substr(0, 3), v1);
  tomb.revision = 7;
  const std::string with = EncodePageState(tomb);
  EXPECT_EQ(with.substr(0, 2), std::string("\x02\x07", 2));
  EXPECT_EQ(with.substr(2), bytes.substr(1));
}

TEST(StateCodecTest, CountedRoundTrip) {
  const std::vector<Counted> samples = {
      {},
      {{1, 1}, 1},
      {{-1, -1}, 127},
      {{63, 64}, 128},
      {{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()},
       std::numeric_limits<uint64_t>::max()},
      {{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}, 1ull << 63},
  };
  for (const auto& c : samples) {
    const std::string bytes = EncodeCounted(c);
    auto back = DecodeCounted(bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->info, c.info);
    EXPECT_EQ(back->version, c.version);
  }
}

TEST(StateCodecTest, OutRecordRoundTrip) {
  std::vector<OutRecord> samples;
  samples.push_back({});
  samples.push_back({"webindex.exports", 2, "com.a>>o>/", R"({"type":"uri"})", {}});
  samples.push_back({"webindex.dead-letters", -1, Binary(), Binary(),
                     {{"reason", "not JSON"}, {"source.topic", "pages"}, {"source.partition", "0"},
                      {"source.offset", "123"}, {"", ""}, {Binary(), Binary()}}});
  samples.push_back({"t", std::numeric_limits<int32_t>::max(), "", std::string(100000, 'v'), {}});
  samples.push_back({"t", std::numeric_limits<int32_t>::min(), "k", "", {{"h", "v"}}});
  for (const auto& r : samples) {
    const std::string bytes = EncodeOutRecord(r);
    auto back = DecodeOutRecord(bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->topic, r.topic);
    EXPECT_EQ(back->partition, r.partition);
    EXPECT_EQ(back->key, r.key);
    EXPECT_EQ(back->value, r.value);
    EXPECT_EQ(back->headers, r.headers);
  }
}

void ExpectSameRecords(const std::vector<OutRecord>& got, const std::vector<OutRecord>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].topic, want[i].topic) << i;
    EXPECT_EQ(got[i].partition, want[i].partition) << i;
    EXPECT_EQ(got[i].key, want[i].key) << i;
    EXPECT_EQ(got[i].value, want[i].value) << i;
    EXPECT_EQ(got[i].headers, want[i].headers) << i;
    EXPECT_EQ(got[i].tombstone, want[i].tombstone) << i;
  }
}

TEST(StateCodecTest, OutBatchRoundTripAndReadsSingleRecordRows) {
  std::vector<OutRecord> records;
  records.push_back({});
  records.push_back({"webindex.exports", 2, "com.a>>o>/", R"({"type":"uri"})", {}});
  records.push_back({"webindex.dead-letters", -1, Binary(), Binary(), {{"reason", "x"}, {Binary(), Binary()}}});
  records.push_back({"t", std::numeric_limits<int32_t>::max(), "", std::string(100000, 'v'), {}});
  for (size_t n = 1; n <= records.size(); ++n) {
    const std::vector<OutRecord> batch(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(n));
    auto back = DecodeOutBatch(EncodeOutBatch(batch));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ExpectSameRecords(*back, batch);
  }
  // Rows written one record per row (older versions; replay's announcements) read as batches of one.
  for (const auto& r : records) {
    auto back = DecodeOutBatch(EncodeOutRecord(r));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ExpectSameRecords(*back, {r});
  }
}

template <typename DecodeFn>
void ExpectEveryPrefixIsCorruption(const std::string& valid, DecodeFn decode, const char* what) {
  ASSERT_TRUE(decode(valid).ok()) << what;
  for (size_t n = 0; n < valid.size(); ++n) {
    auto r = decode(std::string_view(valid.data(), n));
    ASSERT_FALSE(r.ok()) << what << ": prefix of " << n << " of " << valid.size() << " bytes accepted";
    EXPECT_EQ(r.status().code(), Status::Code::kCorruption) << what << " prefix " << n;
  }
}

TEST(StateCodecTest, OutBatchKeepsTombstonesAndRowsWithoutThemKeepTheirBytes) {
  std::vector<OutRecord> plain = {{"t", 0, "k", "v", {}}, {"t", 1, "k2", "", {}}};
  const std::string plain_row = EncodeOutBatch(plain);
  EXPECT_EQ(plain_row[0], 3) << "a row without tombstones is written as before";
  std::vector<OutRecord> with = plain;
  with.push_back({"webindex.changelog.page", 2, "key", "", {{"gen", "1"}}, /*tombstone=*/true});
  const std::string row = EncodeOutBatch(with);
  auto back = DecodeOutBatch(row);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSameRecords(*back, with);
  ExpectEveryPrefixIsCorruption(row, DecodeOutBatch, "outbox batch with flags");
  std::string bad = row;  // an unknown flag
  bad[2] = 2;
  EXPECT_EQ(DecodeOutBatch(bad).status().code(), Status::Code::kCorruption);
}

TEST(StateCodecTest, EveryPrefixIsCorruption) {
  for (const auto& s : SampleStates()) {
    ExpectEveryPrefixIsCorruption(EncodePageState(s), DecodePageState, "page state");
  }
  ExpectEveryPrefixIsCorruption(EncodeCounted({{-5, 1}, 300}), DecodeCounted, "counter");
  ExpectEveryPrefixIsCorruption(EncodeCounted({{std::numeric_limits<int64_t>::min(), 0}, ~0ull}), DecodeCounted,
                                "counter");
  ExpectEveryPrefixIsCorruption(
      EncodeOutRecord({"webindex.exports", 7, "key", "value", {{"a", "b"}, {"reason", "x"}}}), DecodeOutRecord,
      "outbox");
  ExpectEveryPrefixIsCorruption(EncodeOutRecord({"t", 0, "", "", {}}), DecodeOutRecord, "outbox");
  ExpectEveryPrefixIsCorruption(
      EncodeOutBatch({{"webindex.exports", 7, "key", "value", {{"a", "b"}}}, {"t", 0, "", "", {}}, {"u", 1, "k", "", {}}}),
      DecodeOutBatch, "outbox batch");
  std::string extended = EncodeOutBatch({{"t", 0, "k", "v", {}}});
  extended.push_back('\0');
  EXPECT_EQ(DecodeOutBatch(extended).status().code(), Status::Code::kCorruption) << "bytes after the last record";
}

TEST(StateCodecTest, WrongFormatByteIsCorruption) {
  for (const std::string& v : {EncodePageState({}), EncodeCounted({}), EncodeOutRecord({})}) {
    for (char format : {'\0', '\x02', '\x03', '\xff', '{'}) {
      std::string bad = v;
      bad[0] = format;
      if (format != '\x02') {  // page states with a revision
        EXPECT_EQ(DecodePageState(bad).status().code(), Status::Code::kCorruption);
      }
      EXPECT_EQ(DecodeCounted(bad).status().code(), Status::Code::kCorruption);
      EXPECT_EQ(DecodeOutRecord(bad).status().code(), Status::Code::kCorruption);
    }
  }
}

TEST(StateCodecTest, HugeCountsAreCorruptionNotAllocation) {
  // format, version 0, no date, no date text, has page, url "", uri "", no crawl date/title/server,
  // then a link count of 2^63: must not try to allocate that many links.
  std::string v = {'\x01', '\x00', '\x00', '\x00', '\x01', '\x00', '\x00', '\x00', '\x00', '\x00'};
  for (int i = 0; i < 9; ++i) v.push_back('\x80');
  v.push_back('\x01');
  EXPECT_EQ(DecodePageState(v).status().code(), Status::Code::kCorruption);

  // Outbox: topic "", partition 0, key "", value "", then 2^62 headers.
  std::string o = {'\x01', '\x00', '\x00', '\x00', '\x00'};
  for (int i = 0; i < 8; ++i) o.push_back('\x80');
  o.push_back('\x40');
  EXPECT_EQ(DecodeOutRecord(o).status().code(), Status::Code::kCorruption);

  // A string length far beyond the input.
  std::string s = {'\x01', '\x00', '\x00', '\x01', '\xff', '\xff', '\xff', '\xff', '\x0f', 'x'};
  EXPECT_EQ(DecodePageState(s).status().code(), Status::Code::kCorruption);

  // A varint longer than 10 bytes.
  std::string long_varint = {'\x01'};
  for (int i = 0; i < 20; ++i) long_varint.push_back('\xff');
  EXPECT_EQ(DecodeCounted(long_varint).status().code(), Status::Code::kCorruption);
  EXPECT_EQ(DecodePageState(long_varint).status().code(), Status::Code::kCorruption);
}

TEST(StateCodecTest, RandomGarbageNeverCrashes) {
  const uint32_t seed = 20240601;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::vector<std::string> valid;
  for (const auto& s : SampleStates()) valid.push_back(EncodePageState(s));
  valid.push_back(EncodeCounted({{3, 1}, 9}));
  valid.push_back(EncodeOutRecord({"topic", 1, "k", "v", {{"h", "v"}}}));
  valid.push_back(EncodeOutBatch({{"topic", 1, "k", "v", {{"h", "v"}}}, {"t", -1, "", "x", {}}}));
  for (int i = 0; i < 20000; ++i) {
    std::string v;
    if (i % 2 == 0) {
      // Pure garbage, mostly starting with the right format byte.
      const size_t n = rng() % 40;
      for (size_t j = 0; j < n; ++j) v.push_back(static_cast<char>(rng() & 0xff));
      if (!v.empty() && rng() % 4 != 0) v[0] = '\x01';
    } else {
      // A valid encoding with a few bytes flipped.
      v = valid[rng() % valid.size()];
      for (int k = 0, flips = 1 + static_cast<int>(rng() % 3); k < flips; ++k) {
        v[1 + rng() % (v.size() - 1)] = static_cast<char>(rng() & 0xff);
      }
    }
    for (auto st : {DecodePageState(v).status(), DecodeCounted(v).status(), DecodeOutRecord(v).status(),
                    DecodeOutBatch(v).status()}) {
      EXPECT_TRUE(st.ok() || st.code() == Status::Code::kCorruption) << st.ToString();
    }
  }
}

}  // namespace
}  // namespace webindex::codec
