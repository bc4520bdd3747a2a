// The temporal and free-text indexes (docs/graph.md) on web-like statements: per page 10
// `linksTo`, a `title` of 9 words (two of them from a 1,000-word vocabulary) and a `crawled`
// date-time. BM_ApplyIndexed: the cost of each index on the write path (batches of 10,000 new
// statements, one commit each). BM_IndexQuery: latency percentiles of a first page of 25 on a
// large store (WEBINDEX_BENCH_STATEMENTS, default 10,000,000; built once per run, ~5 min), for a
// selective and a broad query of each kind, and triple patterns on the same store.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "bench_fixtures.h"
#include "graph/graph_update.h"
#include "graph/statement_query.h"
#include "graph/temporal_index.h"

namespace webindex::benchmarks {
namespace {

using graph::Statement;
using graph::Term;

constexpr int64_t kFirstCrawl = 1438041600;  // 2015-07-28T00:00:00Z
constexpr uint64_t kStatementsPerPage = 12;

std::string PageUrl(uint64_t i) {
  return "http://www.domain" + std::to_string(i % 5000) + ".com/articles/" + std::to_string(2000 + i % 25) + "/page-" +
         std::to_string(i) + ".html";
}

std::string Word(uint64_t n) { return "w" + std::to_string(n % 1000); }

//! The statements of pages [first, first + pages): links, a title, a crawl time (7 s apart, in
//! one of four zones).
std::vector<Statement> PageStatements(uint64_t first, uint64_t pages) {
  const Term links_to = Term::Iri("urn:webindex:linksTo"), title = Term::Iri("urn:webindex:title");
  const Term crawled = Term::Iri("urn:webindex:crawled");
  std::mt19937_64 rng(first);
  std::vector<Statement> out;
  for (uint64_t i = first; i < first + pages; ++i) {
    const Term p = Term::Iri(PageUrl(i));
    for (int k = 0; k < 10; ++k) {
      const double u = std::uniform_real_distribution<double>(0, 1)(rng);
      const auto target = static_cast<uint64_t>(std::pow(u, 3) * static_cast<double>(first + pages) * 4);
      out.push_back({p, links_to, Term::Iri(PageUrl(target)), std::nullopt});
    }
    out.push_back({p, title,
                   Term::Literal(fmt::format("Article {} about {} and {} of the synthetic crawl", i, Word(rng()),
                                             Word(rng()))),
                   std::nullopt});
    const int64_t at = kFirstCrawl + static_cast<int64_t>(i) * 7;
    const int zone_hours = static_cast<int>(i % 4) * 3 - 4;  // -04:00, -01:00, +02:00, +05:00
    std::string local = graph::FormatXsdDateTime(at + zone_hours * 3600);
    local.pop_back();
    local += fmt::format("{}{:02}:00", zone_hours < 0 ? '-' : '+', std::abs(zone_hours));
    out.push_back({p, crawled, Term::Literal(local, std::string(graph::kXsdDateTime)), std::nullopt});
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

graph::IndexSet Indexes(int64_t which) {
  return graph::IndexSet{.temporal = (which & 1) != 0, .temporal_predicates = {}, .freetext = (which & 2) != 0};
}

Status Load(state::Store& store, const graph::IndexSet& indexes, const std::vector<Statement>& statements) {
  graph::GraphUpdate update({}, indexes);
  for (const auto& st : statements) RETURN_IF_ERROR(update.Add(st));
  state::WriteBatch wb(store);
  RETURN_IF_ERROR(update.Apply(store, wb).status());
  return store.Write(wb);
}

uint64_t SstBytes(state::Store& store) {
  uint64_t bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(store.dir())) {
    if (entry.path().extension() == ".sst") bytes += entry.file_size();
  }
  return bytes;
}

//! Arg: 0 no derived index, 1 temporal, 2 free text, 3 both.
void BM_ApplyIndexed(benchmark::State& state) {
  const graph::IndexSet indexes = Indexes(state.range(0));
  TempStore db;
  uint64_t next_page = 0, statements = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto batch = PageStatements(next_page, 10000 / kStatementsPerPage);
    next_page += 10000 / kStatementsPerPage;
    state.ResumeTiming();
    if (Status st = Load(db.store(), indexes, batch); !st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
    statements += batch.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(statements));
  if (!db.store().Flush().ok()) return;
  state.counters["disk_bytes_per_statement"] =
      statements ? static_cast<double>(SstBytes(db.store())) / static_cast<double>(statements) : 0;
}
BENCHMARK(BM_ApplyIndexed)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond)->MinTime(5);

//! The large store, built at the first query benchmark and shared by all of them.
struct LargeStore {
  TempStore db;
  uint64_t pages = 0;
  double build_seconds = 0;
};

LargeStore& Large() {
  static LargeStore* large = [] {
    auto* s = new LargeStore;
    const char* env = std::getenv("WEBINDEX_BENCH_STATEMENTS");
    const uint64_t statements = env ? std::stoull(env) : 10'000'000;
    s->pages = statements / kStatementsPerPage;
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t first = 0; first < s->pages; first += 2000) {
      if (Status st = Load(s->db.store(), Indexes(3), PageStatements(first, std::min<uint64_t>(2000, s->pages - first)));
          !st.ok()) {
        std::fprintf(stderr, "load failed: %s\n", st.ToString().c_str());
        std::abort();
      }
    }
    if (!s->db.store().Flush().ok()) std::abort();
    s->build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "built %llu pages (%llu statements) with both indexes in %.0f s, %.1f GB of SST files\n",
                 static_cast<unsigned long long>(s->pages), static_cast<unsigned long long>(s->pages * kStatementsPerPage),
                 s->build_seconds, static_cast<double>(SstBytes(s->db.store())) / 1e9);
    return s;
  }();
  return *large;
}

std::string Rfc3339(int64_t seconds) { return graph::FormatXsdDateTime(seconds); }

//! The query of kind `arg` about random page `i` of `pages`.
Result<graph::StatementQuery> QueryOf(int64_t arg, uint64_t i, uint64_t pages, std::mt19937_64& rng) {
  const int64_t at = kFirstCrawl + static_cast<int64_t>(i) * 7;
  std::map<std::string, std::string, std::less<>> p;
  std::string kind = arg < 3 ? "temporal" : arg < 8 ? "search" : "triples";
  switch (arg) {
    case 0:  // one page's crawl second
      p["equals"] = Rfc3339(at);
      break;
    case 1:  // the pages crawled in one minute (about 8), by predicate
      p["within"] = Rfc3339(at) + "/" + Rfc3339(at + 60);
      p["p"] = "urn:webindex:crawled";
      break;
    case 2:  // everything after a random instant: a first page of millions
      p["after"] = Rfc3339(kFirstCrawl + static_cast<int64_t>(rng() % pages) * 7);
      break;
    case 3:  // two vocabulary words: a few titles in 10M statements
      p["q"] = Word(rng()) + " " + Word(rng());
      break;
    case 4:  // one page's number: one title
      p["q"] = "article " + std::to_string(i);
      break;
    case 5:  // a word of every title
      p["q"] = "synthetic";
      break;
    case 6:  // a prefix standing for 11 vocabulary words
      p["q"] = "w" + std::to_string(10 + rng() % 90) + "*";
      break;
    case 7:  // broad with a negation
      p["q"] = "synthetic NOT " + Word(rng());
      break;
    case 8:  // s ? ?: a page's statements (12)
      p["s"] = "<" + PageUrl(i) + ">";
      break;
    case 9:  // ? p o: the pages linking to a page (zipf-like: from none to thousands)
      p["p"] = "urn:webindex:linksTo";
      p["o"] = "<" + PageUrl(i / 64) + ">";
      break;
    default:  // ? p ?: every link, a first page of millions
      p["p"] = "urn:webindex:linksTo";
      break;
  }
  return graph::ParseStatementQuery(kind, [&](std::string_view name) {
    auto it = p.find(name);
    return it == p.end() ? std::string() : it->second;
  });
}

//! First pages of 25 for 2,000 random queries of one kind; p50/p99 in microseconds.
void BM_IndexQuery(benchmark::State& state) {
  LargeStore& large = Large();
  std::mt19937_64 rng(static_cast<uint64_t>(state.range(0)) + 1);
  std::vector<double> micros;
  size_t results = 0;
  for (auto _ : state) {
    for (int q = 0; q < 2000; ++q) {
      auto query = QueryOf(state.range(0), rng() % large.pages, large.pages, rng);
      if (!query.ok()) {
        state.SkipWithError(query.status().ToString().c_str());
        return;
      }
      const auto start = std::chrono::steady_clock::now();
      auto snap = large.db.store().GetSnapshot();
      auto page = graph::QueryStatements(large.db.store(), snap.get(), *query, 25, "");
      micros.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
      if (!page.ok()) {
        state.SkipWithError(page.status().ToString().c_str());
        return;
      }
      results += page->statements.size();
    }
  }
  std::sort(micros.begin(), micros.end());
  state.counters["p50_us"] = micros[micros.size() / 2];
  state.counters["p99_us"] = micros[micros.size() * 99 / 100];
  state.counters["results_per_page"] = static_cast<double>(results) / static_cast<double>(micros.size());
  state.counters["store_statements"] = static_cast<double>(large.pages * kStatementsPerPage);
}
BENCHMARK(BM_IndexQuery)->DenseRange(0, 10)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace webindex::benchmarks
