// The web graph as statements (indexes.web_triples, docs/graph.md): after random crawls with
// re-crawls, deletes, stale and invalid events, and restarts, graph <urn:webindex:web> equals
// what the current pages of the batch model give, computed here on its own: linksTo, title,
// server, crawled per page, anchorText while some current page links with that text.
#include <gtest/gtest.h>

#include <ctime>
#include <set>
#include <string>

#include "batch_model.h"
#include "event_generator.h"
#include "graph/graph_query.h"
#include "graph/term.h"
#include "pipeline_harness.h"
#include "seeds.h"

namespace webindex::testing {
namespace {

//! N-Quads of the web graph for the current pages of `model`, without the product's projection.
std::set<std::string> Expected(const BatchModel& model) {
  std::set<std::string> out;
  const std::string g = " <urn:webindex:web> .";
  auto iri = [](const std::string& s) { return "<" + s + ">"; };
  auto literal = [](const std::string& s) { return graph::ToNTriples(graph::Term::Literal(s)); };
  auto add = [&](const std::string& line) {
    // Only what the store can hold: the same rule as any statement (an IRI without spaces...).
    auto parsed = graph::ParseStatements(line, graph::Syntax::kNQuads);
    if (parsed.ok()) out.insert(graph::ToNQuads(parsed->front()));
  };
  for (const auto& page : model.CurrentPages()) {
    const std::string p = iri(page.url);
    for (const auto& l : page.links) {
      add(p + " <urn:webindex:linksTo> " + iri(l.url) + g);
      if (!l.anchor_text.empty()) add(iri(l.url) + " <urn:webindex:anchorText> " + literal(l.anchor_text) + g);
    }
    if (page.title) add(p + " <urn:webindex:title> " + literal(*page.title) + g);
    if (page.server) add(p + " <urn:webindex:server> " + literal(*page.server) + g);
    if (page.crawl_date) {
      const auto t = ParseRfc3339(*page.crawl_date);
      if (t) {
        std::time_t secs = t->seconds;
        std::tm utc{};
        gmtime_r(&secs, &utc);
        char buf[32];
        std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &utc);
        add(p + " <urn:webindex:crawled> \"" + buf + "\"^^<http://www.w3.org/2001/XMLSchema#dateTime>" + g);
      }
    }
  }
  return out;
}

std::set<std::string> WebGraph(PipelineHarness& h) {
  return h.Quads(graph::GraphSelector::Named(graph::Term::Iri("urn:webindex:web")));
}

TEST(WebProjectionTest, WebGraphEqualsTheCurrentPagesAfterEveryRound) {
  for (const uint64_t seed : RandomTestSeeds({1, 2})) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " (WEBINDEX_SEEDS=" + std::to_string(seed) + ")");
    std::cout << "web projection seed " << seed << std::endl;
    PipelineHarness h(2);
    h.config().web_triples = true;
    EventGenerator gen(seed, 2);
    BatchModel model;
    for (int round = 0; round < 3; ++round) {
      h.Feed(gen, model, 600);
      h.RunUntilIdle();
      const auto want = Expected(model);
      const auto got = WebGraph(h);
      ASSERT_FALSE(want.empty());
      ASSERT_EQ(got.size(), want.size()) << "round " << round;
      ASSERT_TRUE(got == want) << "round " << round;
    }
    EXPECT_EQ(h.Dump(), model.TableLines());  // the table itself is unchanged by the projection
  }
}

// The choice is the generation's: turning it on in the configuration of a data dir built
// without it changes nothing (and says so), so the anchor-text counts never start mid-way.
TEST(WebProjectionTest, AGenerationKeepsTheChoiceItWasBuiltWith) {
  PipelineHarness h(2);
  EventGenerator gen(7, 2);
  BatchModel model;
  h.Feed(gen, model, 300);
  h.RunUntilIdle();
  h.config().web_triples = true;
  h.Feed(gen, model, 300);
  h.RunUntilIdle();
  EXPECT_TRUE(WebGraph(h).empty());
  EXPECT_EQ(h.Dump(), model.TableLines());
}

}  // namespace
}  // namespace webindex::testing
