// RowBuffer (graph/index_set.h): the rows of a batch in one buffer, ordered as the memtable
// takes them best. Its sort must give exactly the order of a plain sort of (key, put) pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/index_set.h"
#include "seeds.h"

namespace webindex::graph {
namespace {

//! Keys like the graph's: few distinct long prefixes, shared runs, keys that are prefixes of
//! others, equal keys with both flags, and bytes above 0x7f (compared unsigned).
std::string RandomKey(std::mt19937_64& rng) {
  using namespace std::string_view_literals;
  static const std::vector<std::string_view> kPrefixes = {"\0g\x01\x01\x02http://example.org/resource/"sv,
                                                          "\0g\x03\x01\x02urn:webindex:linksTo"sv, "\0g\x07\x01"sv,
                                                          "\xff\xfe"sv, ""sv};
  std::string key(kPrefixes[rng() % kPrefixes.size()]);
  const size_t tail = rng() % 6;
  for (size_t i = 0; i < tail; ++i) key.push_back(static_cast<char>("ab\0\xff\x80z"[rng() % 6]));
  return key;
}

TEST(GraphRowsTest, SortGivesTheOrderOfKeyThenDeleteBeforePut) {
  for (const uint64_t seed : testing::RandomTestSeeds({1, 2, 3, 4, 5})) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::cout << "row sort, seed " << seed << std::endl;
    std::mt19937_64 rng(seed);
    for (const size_t n : {0, 1, 2, 11, 13, 100, 5000}) {
      RowBuffer rows;
      std::vector<std::pair<std::string, bool>> want;
      for (size_t i = 0; i < n; ++i) {
        std::string key = RandomKey(rng);
        const bool put = rng() % 2;
        rows.Add(key, put);
        want.emplace_back(std::move(key), put);
      }
      rows.Sort();
      std::sort(want.begin(), want.end());
      ASSERT_EQ(rows.size(), want.size());
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(rows.key(i), want[i].first) << "row " << i << " of " << n;
        ASSERT_EQ(rows.put(i), want[i].second) << "row " << i << " of " << n;
      }
    }
  }
}

TEST(GraphRowsTest, SortedAndReversedInputsOfOneLongPrefix) {
  for (const bool reversed : {false, true}) {
    RowBuffer rows;
    std::vector<std::string> want;
    for (int i = 0; i < 20000; ++i) {
      char n[16];
      std::snprintf(n, sizeof n, "%08d", reversed ? 20000 - i : i);
      want.push_back(std::string(200, 'p') + n);
      rows.Add(want.back(), true);
    }
    rows.Sort();
    std::sort(want.begin(), want.end());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(rows.key(i), want[i]);
  }
}

}  // namespace
}  // namespace webindex::graph
