// Seeds of the randomized tests: WEBINDEX_SEEDS="1,2,3" replaces `defaults`, and
// WEBINDEX_RANDOM_RUNS=N adds N fresh random seeds (default 1). Tests print every seed they run.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace webindex::testing {

inline std::vector<uint64_t> RandomTestSeeds(std::vector<uint64_t> defaults) {
  std::vector<uint64_t> seeds;
  if (const char* env = std::getenv("WEBINDEX_SEEDS")) {
    std::stringstream ss(env);
    for (std::string s; std::getline(ss, s, ',');) seeds.push_back(std::stoull(s));
  } else {
    seeds = std::move(defaults);
  }
  const char* runs = std::getenv("WEBINDEX_RANDOM_RUNS");
  std::random_device rd;
  for (int i = 0, n = runs ? std::atoi(runs) : 1; i < n; ++i) seeds.push_back((uint64_t{rd()} << 32) | rd());
  return seeds;
}

//! One seed for a test too slow to run several: WEBINDEX_SEEDS's first, else a random one. It is
//! printed with how to run it again, as "<what> seed N".
inline uint64_t OneRandomTestSeed(const std::string& what) {
  const char* env = std::getenv("WEBINDEX_SEEDS");
  const uint64_t seed = env ? std::stoull(env) : std::random_device{}();
  std::cout << what << " seed " << seed << " (rerun with WEBINDEX_SEEDS=" << seed << ")" << std::endl;
  return seed;
}

}  // namespace webindex::testing
