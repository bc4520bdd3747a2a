#include "model/lexicoder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace webindex::model {
namespace {

//! Hex back to raw bytes, so that order is checked on the encoded bytes themselves.
std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

TEST(LexicoderTest, KnownValues) {
  EXPECT_EQ(ReverseCountHex(0), "fefeff");
  EXPECT_EQ(ReverseCountHex(1), "fefdfefdff");
  EXPECT_EQ(ReverseCountHex(2), "fefdfdff");
  EXPECT_EQ(ReverseCountHex(3), "fefdfcff");
  EXPECT_EQ(ReverseCountHex(256), "fdfefdfefeff");
}

TEST(LexicoderTest, LowercaseHex) {
  for (uint64_t n : {uint64_t{0}, uint64_t{255}, uint64_t{65536}, UINT64_MAX}) {
    for (char c : ReverseCountHex(n)) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) << n;
  }
}

TEST(LexicoderTest, LargerCountsSortFirst) {
  std::mt19937_64 rng(20150728);
  // Mix small and full-range values so that different encoded lengths meet.
  auto draw = [&rng]() -> uint64_t {
    const int bits = static_cast<int>(rng() % 65);
    return bits == 64 ? rng() : rng() & ((uint64_t{1} << bits) - 1);
  };
  for (int i = 0; i < 20000; ++i) {
    uint64_t a = draw(), b = draw();
    if (a == b) continue;
    if (a > b) std::swap(a, b);
    const std::string ha = ReverseCountHex(a), hb = ReverseCountHex(b);
    ASSERT_GT(Unhex(ha), Unhex(hb)) << a << " vs " << b;
    ASSERT_GT(ha, hb) << a << " vs " << b;  // lowercase hex keeps the byte order
  }
}

TEST(LexicoderTest, AdjacentValuesOrdered) {
  for (uint64_t n = 0; n < 70000; ++n) ASSERT_GT(ReverseCountHex(n), ReverseCountHex(n + 1)) << n;
  ASSERT_GT(ReverseCountHex(UINT64_MAX - 1), ReverseCountHex(UINT64_MAX));
}

}  // namespace
}  // namespace webindex::model
