// Wikipedia revisions through Kafka (docs/pagerank.md §5): `webindex load --format wikipedia` on
// a shuffled history, through the whole pipeline. Stale revisions lose whatever order they arrive
// in, so the table equals the batch model over the same events and the table of the latest
// revisions alone; malformed records are reported and skipped (exit 2).
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
#include "pipeline_harness.h"
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
    EXPECT_EQ(rc, 2) << log_text;
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
