// Cell keys of the query table: reversible, and byte order of the keys = tuple order of
// (row, cf, cq) (docs/semantics.md §4), whatever bytes the parts hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "sink/table.h"

namespace webindex::sink {
namespace {

using Tuple = std::tuple<std::string, std::string, std::string>;

std::string Hex(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : s) {
    out.push_back(kHex[static_cast<unsigned char>(c) >> 4]);
    out.push_back(kHex[static_cast<unsigned char>(c) & 0xf]);
  }
  return out;
}

std::string Show(const Tuple& t) {
  std::string out = "(";  // appended piecewise: GCC 12 warns falsely on "(" + std::string
  out.append(Hex(std::get<0>(t))).append(", ").append(Hex(std::get<1>(t))).append(", ");
  out.append(Hex(std::get<2>(t))).append(")");
  return out;
}

std::string Key(const Tuple& t) { return EncodeCellKey(std::get<0>(t), std::get<1>(t), std::get<2>(t)); }

//! Byte order, as RocksDB's default comparator sees keys: unsigned bytes, then length.
bool BytesLess(std::string_view a, std::string_view b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return static_cast<unsigned char>(x) < static_cast<unsigned char>(y);
  });
}

bool TupleLess(const Tuple& a, const Tuple& b) {
  if (std::get<0>(a) != std::get<0>(b)) return BytesLess(std::get<0>(a), std::get<0>(b));
  if (std::get<1>(a) != std::get<1>(b)) return BytesLess(std::get<1>(a), std::get<1>(b));
  return BytesLess(std::get<2>(a), std::get<2>(b));
}

void ExpectRoundTrip(const Tuple& t) {
  std::string row = "junk", cf = "junk", cq = "junk";
  ASSERT_TRUE(DecodeCellKey(Key(t), &row, &cf, &cq)) << Show(t);
  EXPECT_EQ(Tuple(row, cf, cq), t) << Show(t);
  // The copy-free view decodes every key without a '\0' in its parts, the same way.
  const std::string key = Key(t);  // the view points into it
  const auto view = ViewCellKey(key);
  const bool plain = (std::get<0>(t) + std::get<1>(t) + std::get<2>(t)).find('\0') == std::string::npos;
  ASSERT_EQ(view.has_value(), plain) << Show(t);
  if (view) EXPECT_EQ(Tuple(view->row, view->cf, view->cq), t) << Show(t);
}

TEST(TableKeyTest, RoundTripWithSpecialBytes) {
  const std::string nul(1, '\0');
  const std::vector<std::string> parts = {"",
                                          nul,
                                          nul + nul,
                                          "\xff",
                                          "\xff\xff",
                                          nul + "\xff",
                                          "\xff" + nul,
                                          nul + "\x01",
                                          "\x01",
                                          "a" + nul + "b",
                                          "p:com.a>>o>/",
                                          "d:com.a:fefdff:com.a>>o>/x|y",
                                          std::string("\0\x01\0\xff\0", 5),
                                          "page"};
  for (const auto& row : parts) {
    for (const auto& cf : parts) {
      for (const auto& cq : parts) ExpectRoundTrip({row, cf, cq});
    }
  }
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  ExpectRoundTrip({all, all + all, ""});
}

TEST(TableKeyTest, KnownEncoding) {
  EXPECT_EQ(EncodeCellKey("p:a", "page", ""), std::string("p:a\0\x01page\0\x01\0\x01", 13));
  EXPECT_EQ(EncodeCellKey(std::string("\0", 1), "\xff", ""), std::string("\0\xff\0\x01\xff\0\x01\0\x01", 9));
}

TEST(TableKeyTest, RejectsMalformedKeys) {
  std::string row, cf, cq;
  const std::string valid = EncodeCellKey("r", "f", "q");
  // Every proper prefix is incomplete.
  for (size_t n = 0; n < valid.size(); ++n) {
    EXPECT_FALSE(DecodeCellKey(valid.substr(0, n), &row, &cf, &cq)) << "prefix " << n;
  }
  EXPECT_FALSE(DecodeCellKey(valid + "x", &row, &cf, &cq));                     // trailing bytes
  EXPECT_FALSE(DecodeCellKey(valid + std::string("\0\x01", 2), &row, &cf, &cq));  // a fourth part
  EXPECT_FALSE(DecodeCellKey(std::string("r\0\x02", 3) + valid, &row, &cf, &cq));  // bad escape
  EXPECT_FALSE(DecodeCellKey(std::string("r\0", 2), &row, &cf, &cq));
  for (size_t n = 0; n < valid.size(); ++n) EXPECT_FALSE(ViewCellKey(valid.substr(0, n))) << "prefix " << n;
  EXPECT_FALSE(ViewCellKey(valid + "x"));
  EXPECT_FALSE(ViewCellKey(valid + std::string("\0\x01", 2)));
  EXPECT_FALSE(ViewCellKey(std::string("r\0\x02", 3) + valid));
}

TEST(TableKeyTest, RowPrefixKeyIsAtOrBeforeEveryKeyOfItsRows) {
  const std::string nul(1, '\0');
  for (const std::string& prefix : {std::string(), std::string("p:"), std::string("d:com.a"), nul, "a" + nul}) {
    const std::string start = RowPrefixKey(prefix);
    for (const std::string& rest : {std::string(), std::string("x"), nul, std::string("\xff"), std::string(":")}) {
      const std::string key = EncodeCellKey(prefix + rest, "", "");
      EXPECT_FALSE(BytesLess(key, start)) << Hex(prefix) << " / " << Hex(rest);
      EXPECT_TRUE(key.starts_with(start)) << Hex(prefix) << " / " << Hex(rest);
    }
  }
}

TEST(TableKeyTest, ByteOrderEqualsTupleOrder) {
  const uint32_t seed = 0x5eed1234;
  std::cout << "[ table_key ] random seed " << seed << std::endl;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const std::string alphabet("\0\x01:a\xfe\xff", 6);
  auto random_part = [&] {
    std::string s;
    for (size_t n = rng() % 5; n > 0; --n) s.push_back(alphabet[rng() % alphabet.size()]);
    return s;
  };
  std::vector<Tuple> tuples;
  for (int i = 0; i < 3000; ++i) {
    Tuple t{random_part(), random_part(), random_part()};
    // Often share a row or row+cf with an earlier tuple so later parts decide the order.
    if (!tuples.empty() && rng() % 3 == 0) {
      const Tuple& other = tuples[rng() % tuples.size()];
      std::get<0>(t) = std::get<0>(other);
      if (rng() % 2 == 0) std::get<1>(t) = std::get<1>(other);
    }
    tuples.push_back(std::move(t));
  }
  // Pairwise on a sample, exhaustively on neighbours after sorting.
  for (int i = 0; i < 200000; ++i) {
    const Tuple& a = tuples[rng() % tuples.size()];
    const Tuple& b = tuples[rng() % tuples.size()];
    const std::string ka = Key(a), kb = Key(b);
    ASSERT_EQ(TupleLess(a, b), BytesLess(ka, kb)) << Show(a) << " vs " << Show(b);
    ASSERT_EQ(a == b, ka == kb) << Show(a) << " vs " << Show(b);
  }
  std::vector<Tuple> by_tuple = tuples;
  std::sort(by_tuple.begin(), by_tuple.end(), TupleLess);
  std::vector<std::string> keys;
  for (const auto& t : tuples) keys.push_back(Key(t));
  std::sort(keys.begin(), keys.end(), BytesLess);
  ASSERT_EQ(keys.size(), by_tuple.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(keys[i], Key(by_tuple[i])) << "position " << i << ": " << Show(by_tuple[i]);
    std::string row, cf, cq;
    ASSERT_TRUE(DecodeCellKey(keys[i], &row, &cf, &cq));
    EXPECT_EQ(Tuple(row, cf, cq), by_tuple[i]);
  }
}

}  // namespace
}  // namespace webindex::sink
