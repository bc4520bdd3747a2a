// Hot path: URL normalization. Every event's page URL is parsed (model::ParseUrl) and every
// link resolved against it (model::ResolveLink), then turned into URI form. Items are URLs.
#include <benchmark/benchmark.h>

#include "bench_fixtures.h"
#include "model/url.h"

namespace webindex::benchmarks {
namespace {

constexpr uint64_t kUrls = 4096;

std::vector<std::string> AbsoluteUrls() {
  const auto crawl = Crawl(kUrls);
  std::vector<std::string> out;
  for (uint64_t j = 0; j < kUrls; ++j) {
    std::string url = crawl.PageUrl(j * 7919 % crawl.uri_space());
    if (j % 4 == 1) url.replace(0, 4, "HTTP");  // case to normalize
    if (j % 4 == 2) url += "?utm_source=x&id=" + std::to_string(j);
    if (j % 8 == 3) url.insert(url.find('/', 8), ":80");  // default port to drop
    out.push_back(std::move(url));
  }
  return out;
}

void BM_ParseUrl(benchmark::State& state) {
  const auto urls = AbsoluteUrls();
  size_t i = 0;
  for (auto _ : state) {
    auto url = model::ParseUrl(urls[i++ % urls.size()]);
    if (!url.ok()) {
      state.SkipWithError(url.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(url);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseUrl);

//! Parse + URI form, what the page stage does for each event's own URL.
void BM_ParseUrlToUri(benchmark::State& state) {
  const auto urls = AbsoluteUrls();
  size_t i = 0;
  for (auto _ : state) {
    auto url = model::ParseUrl(urls[i++ % urls.size()]);
    benchmark::DoNotOptimize(url->ToUri());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ParseUrlToUri);

void ResolveLinks(benchmark::State& state, const std::vector<std::string>& links) {
  auto base = model::ParseUrl("http://www.site42.com/a/b/page.html?x=1");
  size_t i = 0;
  for (auto _ : state) {
    auto url = model::ResolveLink(*base, links[i++ % links.size()]);
    if (!url.ok()) {
      state.SkipWithError(url.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(url->ToUri());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_ResolveLinkRelative(benchmark::State& state) {
  std::vector<std::string> links;
  for (int j = 0; j < 1024; ++j) {
    links.push_back(j % 3 == 0   ? "/a/" + std::to_string(j) + ".html"
                    : j % 3 == 1 ? "../c/" + std::to_string(j) + "?q=" + std::to_string(j)
                                 : std::to_string(j) + ".html#frag");
  }
  ResolveLinks(state, links);
}
BENCHMARK(BM_ResolveLinkRelative);

void BM_ResolveLinkAbsolute(benchmark::State& state) { ResolveLinks(state, AbsoluteUrls()); }
BENCHMARK(BM_ResolveLinkAbsolute);

}  // namespace
}  // namespace webindex::benchmarks
