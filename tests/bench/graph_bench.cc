// Hot paths of the graph store on web-like statements (pages of 5,000 domains as
// `<P> linksTo <T>` and `<P> title "..."`): parsing N-Triples records (serd, line by line, into
// terms); applying batches of new statements (one MultiGet, four rows each, one WriteBatch) on
// a real RocksDB, with the bytes per statement on disk after a flush; pattern pages of 25.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include "bench_fixtures.h"
#include "graph/graph_query.h"
#include "graph/graph_update.h"
#include "graph/ntriples.h"

namespace webindex::benchmarks {
namespace {

using graph::Statement;
using graph::Term;

//! Page i of 5,000 domains: about 60-byte URLs, 10 links each (zipf-like targets), a title.
std::string PageUrl(uint64_t i) {
  return "http://www.domain" + std::to_string(i % 5000) + ".com/articles/" + std::to_string(2000 + i % 25) + "/page-" +
         std::to_string(i) + ".html";
}

std::vector<Statement> WebStatements(uint64_t first_page, uint64_t pages) {
  const Term links_to = Term::Iri("urn:webindex:linksTo"), title = Term::Iri("urn:webindex:title");
  std::mt19937_64 rng(first_page);
  std::vector<Statement> out;
  for (uint64_t i = first_page; i < first_page + pages; ++i) {
    const Term p = Term::Iri(PageUrl(i));
    for (int k = 0; k < 10; ++k) {
      const double u = std::uniform_real_distribution<double>(0, 1)(rng);
      const auto target = static_cast<uint64_t>(std::pow(u, 3) * static_cast<double>(first_page + pages) * 4);
      out.push_back({p, links_to, Term::Iri(PageUrl(target)), std::nullopt});
    }
    out.push_back({p, title, Term::Literal("Article " + std::to_string(i) + " of the synthetic crawl"), std::nullopt});
  }
  // Two links of a page may meet one target: keep each statement once.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string NTriples(const std::vector<Statement>& statements) {
  std::string text;
  for (const auto& st : statements) text += graph::ToNTriples(st) + "\n";
  return text;
}

void BM_ParseNTriples(benchmark::State& state) {
  const std::string text = NTriples(WebStatements(0, 500));
  graph::StatementParser parser(graph::Syntax::kNTriples);
  std::vector<Statement> out;
  size_t statements = 0;
  for (auto _ : state) {
    out.clear();
    if (Status st = parser.Parse(text, &out); !st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      break;
    }
    statements += out.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(statements));
  state.SetBytesProcessed(static_cast<int64_t>(text.size() * state.iterations()));
}
BENCHMARK(BM_ParseNTriples);

//! Adds `batch` new statements per iteration; every iteration is one commit (fsynced).
void BM_ApplyNewStatements(benchmark::State& state) {
  const size_t batch_size = static_cast<size_t>(state.range(0));
  TempStore db;
  uint64_t next_page = 0, statements = 0;
  std::vector<Statement> pending;
  for (auto _ : state) {
    state.PauseTiming();
    while (pending.size() < batch_size) {
      auto more = WebStatements(next_page, 64);
      next_page += 64;
      pending.insert(pending.end(), more.begin(), more.end());
    }
    std::vector<Statement> batch(pending.end() - static_cast<std::ptrdiff_t>(batch_size), pending.end());
    pending.resize(pending.size() - batch_size);
    state.ResumeTiming();
    graph::GraphUpdate update;
    for (auto& st : batch) (void)update.Add(std::move(st));
    state::WriteBatch wb(db.store());
    auto result = update.Apply(db.store(), wb);
    if (!result.ok() || !db.store().Write(wb).ok()) {
      state.SkipWithError("apply failed");
      break;
    }
    statements += result->added.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(statements));
  if (!db.store().Flush().ok()) return;
  uint64_t bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(db.store().dir())) {
    if (entry.path().extension() == ".sst") bytes += entry.file_size();
  }
  state.counters["disk_bytes_per_statement"] = statements ? static_cast<double>(bytes) / statements : 0;
}
BENCHMARK(BM_ApplyNewStatements)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

//! Pages of 25 for `s ? ?` (a page's links) and `? p o` (the pages linking to a target) over
//! the statements of 20,000 pages; and (2) every match of `? p ?`, one predicate's statements,
//! visited by Scan: the per-row cost of a long scan.
void BM_QueryPage(benchmark::State& state) {
  const bool by_object = state.range(0) == 1;
  const bool every = state.range(0) == 2;
  TempStore db;
  std::vector<Statement> all;
  for (uint64_t first = 0; first < 20000; first += 1000) {
    auto statements = WebStatements(first, 1000);
    graph::GraphUpdate update;
    for (const auto& st : statements) (void)update.Add(st);
    state::WriteBatch wb(db.store());
    if (!update.Apply(db.store(), wb).ok() || !db.store().Write(wb).ok()) {
      state.SkipWithError("load failed");
      return;
    }
    all.insert(all.end(), statements.begin(), statements.end());
  }
  std::mt19937_64 rng(1);
  size_t results = 0;
  for (auto _ : state) {
    const Statement& pick = all[rng() % all.size()];
    graph::Pattern pattern;
    if (every) {
      pattern.predicate = pick.predicate;
      size_t n = 0;
      auto snap = db.store().GetSnapshot();
      const Status st = graph::GraphReader(db.store(), snap.get()).Scan(pattern, "", [&](const Statement&) {
        return ++n, true;
      });
      if (!st.ok()) {
        state.SkipWithError(st.ToString().c_str());
        break;
      }
      results += n;
      continue;
    }
    if (by_object) {
      pattern.predicate = pick.predicate;
      pattern.object = pick.object;
    } else {
      pattern.subject = pick.subject;
    }
    auto snap = db.store().GetSnapshot();
    auto page = graph::GraphReader(db.store(), snap.get()).Query(pattern, 25);
    if (!page.ok()) {
      state.SkipWithError(page.status().ToString().c_str());
      break;
    }
    results += page->statements.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["results_per_page"] = state.iterations() ? static_cast<double>(results) / state.iterations() : 0;
}
BENCHMARK(BM_QueryPage)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace webindex::benchmarks
