// The continuous PageRank of `webindex run` (docs/pagerank.md, "Live"): computed in the background on
// one snapshot, stored with the export positions it reflects, equal to `webindex pagerank
// --data-dir` over the same table, served by /api/pagerank and /api/page, and never in the way of
// the stages: events keep flowing to the table while a computation is held open.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "app/processor.h"
#include "child_process.h"
#include "gzip_file.h"
#include "http_test_client.h"
#include "http/api.h"
#include "ingest/wikipedia.h"
#include "pagerank_reference.h"
#include "pipeline_harness.h"
#include "query/query_service.h"
#include "rank/pagerank.h"
#include "rank/rank_store.h"
#include "test_paths.h"
#include "wikipedia_gen.h"

namespace webindex::testing {
namespace {

std::vector<std::pair<std::string, std::string>> Events(uint64_t seed, size_t articles, const std::string& prefix) {
  WikiGenOptions options;
  options.seed = seed;
  options.articles = articles;
  WikiGenerator gen(options);
  std::vector<std::pair<std::string, std::string>> out;
  for (auto r : gen.All()) {
    r.title = prefix + r.title;
    for (auto& l : r.links) l = prefix + l;
    ingest::Revision rev;
    rev.title = r.title;
    rev.rev_id = r.rev_id;
    rev.timestamp_text = r.timestamp;
    rev.links = r.links;
    auto ev = ingest::RevisionEvent(rev);
    out.emplace_back(std::move(ev.key), std::move(ev.value));
  }
  return out;
}

//! Polls `done` every 20 ms for up to 60 s.
bool WaitFor(const std::function<bool()>& done) {
  for (int i = 0; i < 3000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(PageRankLiveTest, ComputedInTheBackgroundWhileEventsKeepFlowing) {
  PipelineHarness h;
  h.Produce(Events(1, 150, "First_"));
  app::ProcessorConfig config = h.config();
  config.rank.interval = std::chrono::milliseconds(20);
  std::mutex mu;
  std::condition_variable cv;
  bool held = false, release = false;
  int calls = 0;
  config.rank.after_snapshot = [&] {  // holds the first computation open until released
    std::unique_lock lock(mu);
    if (calls++ > 0) return;
    held = true;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
  };
  app::Processor processor(config);
  ASSERT_TRUE(processor.Start().ok());
  std::atomic<bool> stop{false};
  Status run;
  std::thread runner([&] { run = processor.Run(/*exit_when_idle=*/false, stop); });
  auto release_rank = [&] {
    std::lock_guard lock(mu);
    release = true;
    cv.notify_all();
  };
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return held; }));
  }
  // While the computation holds its snapshot, new events go all the way to the table.
  const auto second = Events(2, 40, "Second_");
  h.Produce(second);
  EXPECT_TRUE(WaitFor([&] {
    auto idle = processor.Idle();
    return idle.ok() && *idle;
  }));
  query::QueryService q(*processor.store());
  auto page = q.Page(second.front().first);
  EXPECT_TRUE(page.ok() && page->crawled) << second.front().first;
  EXPECT_TRUE(processor.rank_stats().running);
  EXPECT_EQ(processor.rank_stats().computations, 0u);
  release_rank();

  // Once nothing new arrives, a check finds the stored result current.
  ASSERT_TRUE(WaitFor([&] { return processor.rank_stats().computations >= 1; }));
  const uint64_t unchanged = processor.rank_stats().unchanged;
  ASSERT_TRUE(WaitFor([&] { return processor.rank_stats().unchanged > unchanged; }));
  stop = true;
  runner.join();
  EXPECT_TRUE(run.ok()) << run.ToString();
  ASSERT_TRUE(processor.Stop().ok());

  // The stored result is what `webindex pagerank --data-dir` computes from the same table.
  std::string out;
  const std::string log = h.data_dir() + "/cli.log";
  ASSERT_EQ(RunCommand({WEBINDEX_BINARY, "pagerank", "--data-dir", config.data_dir}, &out, log), 0)
      << ReadFileBytes(log);
  auto store = h.OpenReadOnly();
  ASSERT_TRUE(store.ok());
  std::string stored, cursor;
  do {
    auto ranking = rank::RankingPage(**store, 100, cursor);
    ASSERT_TRUE(ranking.ok()) << ranking.status().ToString();
    for (const auto& p : ranking->pages) stored += p.url + " " + rank::FormatScore(p.score) + "\n";
    cursor = ranking->next;
  } while (!cursor.empty());
  EXPECT_EQ(stored, out);
  auto info = rank::CurrentRankResult(**store);
  ASSERT_TRUE(info.ok() && info->has_value());
  EXPECT_EQ((*info)->iterations, 10);
  EXPECT_EQ((*info)->exports_topic, config.topics.exports);
  EXPECT_GT((*info)->nodes, 190u);
  int64_t applied = 0;
  for (int64_t p : (*info)->positions) applied += std::max<int64_t>(p, 0);
  EXPECT_EQ(static_cast<size_t>(applied), h.ReadTopic(config.topics.exports).size());

  // It went out on webindex.pagerank: the result's pages in rank order, whole, in one part here.
  const auto records = h.ReadTopic(config.topics.pagerank);
  ASSERT_FALSE(records.empty());
  const auto& last = records.back();
  EXPECT_EQ(last.key, "1/" + std::to_string((*info)->id));  // generation 1
  EXPECT_EQ(last.value.rfind("{\"generation\":1,\"result\":" + std::to_string((*info)->id) + ",", 0), 0u)
      << last.value.substr(0, 100);
  EXPECT_NE(last.value.find("\"part\":1,\"parts\":1,"), std::string::npos) << last.value.substr(0, 300);
  std::string published;
  for (size_t at = last.value.find("{\"url\":\""); at != std::string::npos; at = last.value.find("{\"url\":\"", at + 1)) {
    const size_t url_end = last.value.find("\",\"score\":", at);
    const size_t score_end = last.value.find('}', url_end);
    published += last.value.substr(at + 8, url_end - at - 8) + " " + last.value.substr(url_end + 10, score_end - url_end - 10) + "\n";
  }
  EXPECT_EQ(published, out);
  const std::string lines = h.data_dir() + "/pagerank.jsonl";
  std::string all;
  for (const auto& r : records) all += r.value + "\n";
  WriteFileBytes(lines, all);
  const std::string script = std::filesystem::path(WEBINDEX_TEST_DATA).parent_path().string() + "/schemas/validate.py";
  std::string validated;
  const int rc = RunCommand({"/usr/bin/python3", script, "--min-records", "1", "pagerank", lines}, &validated, log);
  if (rc != 3) EXPECT_EQ(rc, 0) << validated << ReadFileBytes(log);

  // The HTTP API serves it.
  http::Api api(**store, {});
  auto r = api.Handle({"GET", "/api/pagerank?limit=2", false});
  EXPECT_EQ(r.status, 200) << r.body;
  const std::string top = out.substr(0, out.find(' '));
  EXPECT_NE(r.body.find("\"results\":[{\"url\":\"" + top + "\",\"score\":"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("\"next\":\""), std::string::npos) << r.body;
  r = api.Handle({"GET", "/api/page?url=" + Encode(top), false});
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("\"pagerank\":{\"score\":" + out.substr(out.find(' ') + 1, out.find('\n') - out.find(' ') - 1) +
                        ",\"result\":" + std::to_string((*info)->id) + "}"),
            std::string::npos)
      << r.body;
  r = api.Handle({"GET", "/api/pagerank?next=garbage", false});
  EXPECT_EQ(r.status, 400) << r.body;
}

TEST(PageRankLiveTest, NoResultYetIsNotFoundWithTheReason) {
  PipelineHarness h;
  h.RunUntilIdle();
  auto store = h.OpenReadOnly();
  ASSERT_TRUE(store.ok());
  http::Api api(**store, {});
  auto r = api.Handle({"GET", "/api/pagerank", false});
  EXPECT_EQ(r.status, 404) << r.body;
  EXPECT_NE(r.body.find("no PageRank result yet"), std::string::npos) << r.body;
  r = api.Handle({"GET", "/api/page?url=http://a.com/", false});
  EXPECT_EQ(r.body.find("pagerank"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace webindex::testing
