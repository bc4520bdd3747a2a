// Random Wikipedia revision histories for tests and benchmarks: several revisions per title in
// shuffled order (duplicate rev_ids included), self links, repeated links, links to titles that
// have no record, and titles with bytes a URL must percent-encode.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace webindex::testing {

struct WikiRevision {
  std::string title;
  uint64_t rev_id = 0;
  std::string timestamp;  //!< YYYY-MM-DDTHH:MM:SSZ
  std::vector<std::string> links;
};

struct WikiGenOptions {
  size_t articles = 50;
  size_t max_revisions = 4;   //!< revisions per article: 1..max
  size_t mean_links = 5;      //!< per revision, uniform in 0..2*mean
  size_t missing = 10;        //!< titles linked to that have no record
  uint64_t seed = 1;
  bool shuffle = true;        //!< revisions in random order (else article by article)
  bool plain_titles = false;  //!< only A-Z a-z 0-9 _ in titles (fast, for benchmarks)
};

//! Produces revisions one at a time (shuffle=false) or all at once.
class WikiGenerator {
 public:
  explicit WikiGenerator(WikiGenOptions options);
  //! All revisions of the history, in the order the file holds them.
  std::vector<WikiRevision> All();
  //! The revisions of the next article (article order); false after the last one.
  bool NextArticle(std::vector<WikiRevision>* out);
  std::string Title(size_t i) const;  //!< title of article i; i >= articles: a missing one

 private:
  WikiGenOptions options_;
  std::mt19937_64 rng_;
  size_t next_ = 0;
};

//! The 14-line record of `rev` and its empty line.
std::string FormatWikiRecord(const WikiRevision& rev);

}  // namespace webindex::testing
