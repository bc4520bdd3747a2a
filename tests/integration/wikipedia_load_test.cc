// Wikipedia revisions through Kafka (docs/pagerank.md, "Wikipedia through Kafka"): `webindex load
// --format wikipedia` on a shuffled history, through the whole pipeline. Stale revisions lose
// whatever order they arrive in, so the table equals the batch model over the same events and the
// table of the latest revisions alone; malformed records are reported and skipped (exit 5).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "batch_model.h"
#include "child_process.h"
#include "gzip_file.h"
#include "ingest/wikipedia.h"
#include "pagerank_reference.h"
#include "pipeline_harness.h"
#include "test_paths.h"
#include "wikipedia_gen.h"

namespace webindex::testing {
namespace {

//! The crawl event the product makes of a generated revision.
std::string EventOf(const WikiRevision& w) {
  ingest::Revision rev;
  rev.title = w.title;
  rev.rev_id = w.rev_id;
  rev.timestamp_text = w.timestamp;
  rev.links = w.links;
  return ingest::RevisionEvent(rev).value;
}

std::vector<std::string> ModelTable(const std::vector<WikiRevision>& revs) {
  BatchModel model;
  for (const auto& r : revs) model.Apply(EventOf(r));
  EXPECT_EQ(model.invalid_events(), 0u);
  return model.TableLines();
}

//! One revision per title: the greatest rev_id, the last of equal ones in `revs`' order.
std::vector<WikiRevision> Latest(const std::vector<WikiRevision>& revs) {
  std::map<std::string, WikiRevision> latest;
  for (const auto& r : revs) {
    auto it = latest.find(r.title);
    if (it == latest.end() || r.rev_id >= it->second.rev_id) latest[r.title] = r;
  }
  std::vector<WikiRevision> out;
  for (auto& [title, r] : latest) out.push_back(std::move(r));
  return out;
}

class WikipediaLoadTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("wikipedia-load-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(WikipediaLoadTest, ShuffledHistoryGivesTheTableOfTheLatestRevisions) {
  for (uint64_t seed : {1, 2}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    WikiGenOptions options;
    options.seed = seed;
    options.articles = 60;
    options.max_revisions = 5;
    WikiGenerator gen(options);
    const auto revs = gen.All();
    // A malformed record in the middle: reported with its line, skipped, the rest goes on.
    const size_t middle = revs.size() / 2;
    std::string text;
    for (size_t i = 0; i < revs.size(); ++i) {
      if (i == middle) text += "REVISION 1 x Bad 2008-01-01T00:00:00Z u 1\nCATEGORY\n\n";
      text += FormatWikiRecord(revs[i]);
    }
    const std::string path = dir_ + "/history-" + std::to_string(seed) + ".txt.gz";
    WriteFileBytes(path, GzipMember(text));
    PipelineHarness h;
    const std::string log = dir_ + "/load.log";
    std::string out;
    const int rc = RunCommand({WEBINDEX_BINARY, "load", "--brokers", h.brokers(), "--format", "wikipedia", path},
                              &out, log);
    const std::string log_text = ReadFileBytes(log);
    EXPECT_EQ(rc, 5) << log_text;
    EXPECT_NE(log_text.find(path + ":" + std::to_string(14 * middle + 1) +
                            ": malformed revision record: it ends after 2 lines, without the IMAGE line "
                            "(a record is 13 tagged lines, then an empty line) (record skipped)"),
              std::string::npos)
        << log_text;
    EXPECT_NE(log_text.find("loaded " + std::to_string(revs.size() + 1) + " revisions: " +
                            std::to_string(revs.size()) + " events produced, 1 malformed records skipped"),
              std::string::npos)
        << log_text;
    h.RunUntilIdle();
    const auto table = h.Dump();
    EXPECT_EQ(table, ModelTable(revs));
    EXPECT_EQ(table, ModelTable(Latest(revs)));
    // Records are keyed by the article's URL.
    const auto records = h.ReadTopic(h.config().topics.pages);
    ASSERT_EQ(records.size(), revs.size());
    for (const auto& r : records) EXPECT_EQ(r.key.rfind("https://en.wikipedia.org/wiki/", 0), 0u) << r.key;
  }
}

//! Expects equal node sets and scores equal to their 9 printed digits.
void ExpectSameScores(const std::map<std::string, double>& got, const std::map<std::string, double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, score] : want) {
    auto it = got.find(name);
    ASSERT_NE(it, got.end()) << name;
    EXPECT_NEAR(it->second, score, 1e-8 * score) << name;
  }
}

// `pagerank --data-dir` over the table the revisions made equals `pagerank --format wikipedia`
// over the file (titles spelled as URLs); after newer revisions, stale ones and deleted pages
// it equals the reference over the final set of pages.
TEST_F(WikipediaLoadTest, LivePageRankEqualsTheBatchCommandAndFollowsUpdates) {
  WikiGenOptions options;
  options.seed = 7;
  options.articles = 80;
  options.max_revisions = 3;
  WikiGenerator gen(options);
  const auto revs = gen.All();
  std::string text;
  for (const auto& r : revs) text += FormatWikiRecord(r);
  const std::string path = dir_ + "/history.txt", log = dir_ + "/cli.log";
  WriteFileBytes(path, text);
  PipelineHarness h;
  std::string out;
  ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "load", "--brokers", h.brokers(), "--format", "wikipedia", path}, &out, log),
            0)
      << ReadFileBytes(log);
  h.RunUntilIdle();

  ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "pagerank", "--format", "wikipedia", path}, &out, log), 0)
      << ReadFileBytes(log);
  std::map<std::string, double> batch;
  for (const auto& [title, score] : ParseRanking(out)) batch[ingest::WikipediaUrl(title)] = score;
  ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "pagerank", "--data-dir", h.config().data_dir}, &out, log), 0) << ReadFileBytes(log);
  ExpectSameScores(ParseRanking(out), batch);
  ASSERT_GT(batch.size(), 80u);

  // Newer revisions of some titles, stale ones of others, and deleted pages.
  std::map<std::string, WikiRevision> latest;
  for (const auto& r : Latest(revs)) latest[r.title] = r;
  std::vector<std::pair<std::string, std::string>> updates;
  size_t i = 0;
  for (auto it = latest.begin(); it != latest.end(); ++i) {
    WikiRevision r = it->second;
    if (i % 3 == 0) {  // newer: links to its neighbour only
      r.rev_id += 1;
      r.links = {std::next(it) == latest.end() ? latest.begin()->first : std::next(it)->first};
      it->second = r;
      updates.emplace_back(ingest::WikipediaUrl(r.title), EventOf(r));
    } else if (i % 3 == 1 && r.rev_id > 0) {  // stale: ignored
      r.rev_id -= 1;
      r.links = {"Never_Counted"};
      updates.emplace_back(ingest::WikipediaUrl(r.title), EventOf(r));
    } else if (i % 5 == 2) {  // deleted
      const std::string url = ingest::WikipediaUrl(r.title);
      updates.emplace_back(url, "{\"url\":\"" + url + "\",\"deleted\":true}");
      it = latest.erase(it);
      continue;
    }
    ++it;
  }
  h.Produce(updates);
  h.RunUntilIdle();
  std::map<std::string, std::vector<std::string>> pages;
  for (const auto& [title, r] : latest) {
    auto& links = pages[ingest::WikipediaUrl(title)];
    for (const auto& l : r.links) links.push_back(ingest::WikipediaUrl(l));
  }
  ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "pagerank", "--data-dir", h.config().data_dir, "--iterations", "7"}, &out, log), 0)
      << ReadFileBytes(log);
  ExpectSameScores(ParseRanking(out), ReferencePageRank(pages, 7));
  EXPECT_EQ(ParseRanking(out).count(ingest::WikipediaUrl("Never_Counted")), 0u);
}

// The events validate against schemas/crawl-event.schema.json (python3-jsonschema needed).
TEST_F(WikipediaLoadTest, EventsMatchTheCrawlEventSchema) {
  WikiGenOptions options;
  options.articles = 30;
  WikiGenerator gen(options);
  std::string lines;
  for (const auto& r : gen.All()) lines += EventOf(r) + "\n";
  const std::string events = dir_ + "/events.jsonl", log = dir_ + "/validate.log";
  WriteFileBytes(events, lines);
  const std::string script = std::filesystem::path(WEBINDEX_TEST_DATA).parent_path().string() + "/schemas/validate.py";
  std::string out;
  const int rc = RunCommand({"/usr/bin/python3", script, "--min-records", "30", "crawl-event", events}, &out, log);
  if (rc == 3) GTEST_SKIP() << "python3-jsonschema is not installed";
  EXPECT_EQ(rc, 0) << out << ReadFileBytes(log);
}

}  // namespace
}  // namespace webindex::testing
