#include "wikipedia_gen.h"

#include <algorithm>

#include <fmt/format.h>

namespace webindex::testing {

WikiGenerator::WikiGenerator(WikiGenOptions options) : options_(options), rng_(options.seed) {}

std::string WikiGenerator::Title(size_t i) const {
  if (options_.plain_titles) return fmt::format("Article_{}", i);
  static const char* kFlavours[] = {"", "%", "/sub", "&amp", "\xc3\xa9t\xc3\xa9", "+x", "A~b.c-d", "\xe2\x80\x94"};
  return fmt::format("T{}{}", i, kFlavours[i % (sizeof kFlavours / sizeof *kFlavours)]);
}

bool WikiGenerator::NextArticle(std::vector<WikiRevision>* out) {
  out->clear();
  if (next_ >= options_.articles) return false;
  const size_t article = next_++;
  const size_t universe = options_.articles + options_.missing;
  std::uniform_int_distribution<size_t> revisions(1, std::max<size_t>(1, options_.max_revisions));
  std::uniform_int_distribution<size_t> links(0, 2 * options_.mean_links);
  std::uniform_int_distribution<size_t> target(0, universe - 1);
  std::uniform_int_distribution<uint64_t> rev_id(0, 40);
  std::uniform_int_distribution<int> day(1, 28), coin(0, 9);
  for (size_t r = 0, n = revisions(rng_); r < n; ++r) {
    WikiRevision rev;
    rev.title = Title(article);
    rev.rev_id = options_.plain_titles ? article * 64 + r : rev_id(rng_);  // small ids repeat
    rev.timestamp = fmt::format("2008-01-{:02}T{:02}:00:00Z", day(rng_), coin(rng_));
    for (size_t l = 0, k = links(rng_); l < k; ++l) {
      const int c = coin(rng_);
      if (!options_.plain_titles && c == 0) {
        rev.links.push_back(rev.title);  // self link
      } else if (!options_.plain_titles && c == 1 && !rev.links.empty()) {
        rev.links.push_back(rev.links.front());  // repeated link
      } else {
        rev.links.push_back(Title(target(rng_)));
      }
    }
    out->push_back(std::move(rev));
  }
  return true;
}

std::vector<WikiRevision> WikiGenerator::All() {
  std::vector<WikiRevision> all, one;
  while (NextArticle(&one)) std::move(one.begin(), one.end(), std::back_inserter(all));
  if (options_.shuffle) std::shuffle(all.begin(), all.end(), rng_);
  return all;
}

std::string FormatWikiRecord(const WikiRevision& rev) {
  std::string main = "MAIN";
  for (const auto& l : rev.links) main += (main.size() % 3 == 0 ? "  " : " ") + l;  // runs of spaces too
  return fmt::format(
      "REVISION {} {} {} {} User_{} {}\nCATEGORY Some_category\nIMAGE\n{}\nTALK\nUSER\nUSER_TALK\nOTHER\n"
      "EXTERNAL http://example.com/\nTEMPLATE Infobox\nCOMMENT an edit\nMINOR 0\nTEXTDATA 120\n\n",
      rev.rev_id % 7 + 1, rev.rev_id, rev.title, rev.timestamp, rev.rev_id % 5, rev.rev_id % 5, main);
}

}  // namespace webindex::testing
