// SortedWrites (state/sorted_writes.h): a batch's writes in two buffers, handed to RocksDB in
// key order. Its sort must give the order of a plain sort by key, the writes of one key in the
// order they were made, so that the last write of each key is the one that counts, also when
// the writes begin with a run already in key order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "seeds.h"
#include "state/sorted_writes.h"

namespace webindex::state {
namespace {

//! Keys like the stores': few distinct long prefixes, keys that are prefixes of others, keys
//! written several times, and bytes above 0x7f (compared unsigned).
std::string RandomKey(std::mt19937_64& rng) {
  using namespace std::string_view_literals;
  static const std::vector<std::string_view> kPrefixes = {"\0g\x01\x01\x02http://example.org/resource/"sv,
                                                          "\0g\x03\x01\x02urn:webindex:linksTo"sv, "\0g\x07\x01"sv,
                                                          "p:com.example>.www>o>/a/\0\x01"sv, "\xff\xfe"sv, ""sv};
  std::string key(kPrefixes[rng() % kPrefixes.size()]);
  const size_t tail = rng() % 6;
  for (size_t i = 0; i < tail; ++i) key.push_back("ab\0\xff\x80z"[rng() % 6]);
  return key;
}

TEST(SortedWritesTest, KeyOrderAndTheLastWriteOfEachKeyCounts) {
  for (const uint64_t seed : testing::RandomTestSeeds({1, 2, 3, 4, 5})) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::cout << "sorted writes, seed " << seed << std::endl;
    std::mt19937_64 rng(seed);
    for (const size_t n : {0, 1, 2, 11, 13, 100, 5000}) {
     // A run in key order at the front (which Sort keeps and merges with the rest), or none.
     for (const bool ordered_front : {false, true}) {
      SortedWrites writes;
      std::vector<std::tuple<std::string, size_t, std::optional<std::string>>> want;  // key, order, value
      std::map<std::string, std::optional<std::string>> last;
      std::vector<std::string> front;
      if (ordered_front) {
        for (size_t i = 0; i < n / 2; ++i) front.push_back(RandomKey(rng));
        std::sort(front.begin(), front.end());
        front.erase(std::unique(front.begin(), front.end()), front.end());
      }
      for (size_t i = 0; i < n; ++i) {
        std::string key = i < front.size() ? front[i] : RandomKey(rng);
        std::optional<std::string> value;
        if (rng() % 3) value = std::string(rng() % 4, static_cast<char>('a' + i % 26));
        if (value) {
          writes.Put(key, *value);
        } else {
          writes.Delete(key);
        }
        want.emplace_back(key, i, value);
        last[key] = value;
      }
      writes.Sort();
      std::sort(want.begin(), want.end());
      ASSERT_EQ(writes.size(), want.size());
      size_t kept = 0;
      for (size_t i = 0; i < n; ++i) {
        const auto& [key, order, value] = want[i];
        ASSERT_EQ(writes.key(i), key) << "write " << i << " of " << n;
        ASSERT_EQ(writes.put(i), value.has_value()) << "write " << i << " of " << n;
        if (value) ASSERT_EQ(writes.value(i), *value) << "write " << i << " of " << n;
        if (writes.replaced(i)) continue;
        ++kept;
        ASSERT_EQ(last.at(key), value) << "the write of " << key.size() << " bytes that counts is not its last";
      }
      EXPECT_EQ(kept, last.size());
     }
    }
  }
}

TEST(SortedWritesTest, SortedAndReversedKeysOfOneLongPrefix) {
  for (const bool reversed : {false, true}) {
    SortedWrites writes;
    std::vector<std::string> want;
    for (int i = 0; i < 20000; ++i) {
      char n[16];
      std::snprintf(n, sizeof n, "%08d", reversed ? 20000 - i : i);
      want.push_back(std::string(200, 'p') + n);
      writes.Put(want.back(), "");
    }
    writes.Sort();
    std::sort(want.begin(), want.end());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(writes.key(i), want[i]);
  }
}

}  // namespace
}  // namespace webindex::state
