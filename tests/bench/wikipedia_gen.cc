// Writes a synthetic Wikipedia revision history (docs/pagerank.md, "Batch") to stdout, for timing
// `webindex pagerank --format wikipedia` at scale:
//   wikipedia_gen ARTICLES MEAN_LINKS [SEED] > history.txt
// Each article gets 1 or 2 revisions (older rev_id first or last at random), ~MEAN_LINKS links
// each, targets skewed toward low article numbers, 5% of them titles without a record.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <fmt/format.h>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: wikipedia_gen ARTICLES MEAN_LINKS [SEED] > history.txt\n");
    return 2;
  }
  const uint64_t articles = std::strtoull(argv[1], nullptr, 10);
  const uint64_t mean = std::strtoull(argv[2], nullptr, 10);
  std::mt19937_64 rng(argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1);
  std::uniform_int_distribution<uint64_t> degree(0, 2 * mean), coin(0, 99);
  std::uniform_real_distribution<double> unit(0, 1);
  std::string buf;
  uint64_t links = 0;
  for (uint64_t a = 0; a < articles; ++a) {
    const int revisions = coin(rng) < 50 ? 1 : 2;
    const bool newest_first = coin(rng) < 50;
    for (int r = 0; r < revisions; ++r) {
      const uint64_t rev_id = a * 4 + (newest_first ? revisions - r : r + 1);
      fmt::format_to(std::back_inserter(buf),
                     "REVISION {} {} Article_{} 2008-01-{:02}T12:00:00Z User_{} {}\nCATEGORY Category_{}\nIMAGE\nMAIN",
                     a, rev_id, a, 1 + rev_id % 28, rev_id % 1000, rev_id % 1000, a % 100);
      for (uint64_t k = degree(rng); k > 0; --k, ++links) {
        const auto target = static_cast<uint64_t>(std::pow(unit(rng), 3) * static_cast<double>(articles));
        buf += coin(rng) < 5 ? " Missing_" : " Article_";
        fmt::format_to(std::back_inserter(buf), "{}", target);
      }
      buf += "\nTALK\nUSER\nUSER_TALK\nOTHER\nEXTERNAL\nTEMPLATE Infobox\nCOMMENT edit\nMINOR 0\nTEXTDATA 500\n\n";
      if (buf.size() > (1 << 20)) {
        std::fwrite(buf.data(), 1, buf.size(), stdout);
        buf.clear();
      }
    }
  }
  std::fwrite(buf.data(), 1, buf.size(), stdout);
  std::fprintf(stderr, "%llu articles, %llu links in all revisions\n", static_cast<unsigned long long>(articles),
               static_cast<unsigned long long>(links));
  return std::fflush(stdout) == 0 ? 0 : 1;
}
