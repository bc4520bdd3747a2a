#include "bench/crawl_generator.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include <fmt/format.h>

namespace webindex::bench {
namespace {

constexpr const char* kTlds[] = {"com", "org", "net", "de", "co.uk", "com.au", "fr", "io"};
constexpr const char* kServers[] = {"nginx", "Apache", "cloudflare", "Microsoft-IIS/10.0"};
constexpr const char* kAnchors[] = {"home", "read more", "click here", "docs", "about us", "news", "", "pricing"};
constexpr int64_t kFirstCrawl = 1438052777;  // 2015-07-28T03:06:17Z
// Spreads popularity ranks over the URI space: prime, so a bijection for any smaller space.
constexpr unsigned __int128 kSpread = 1000000000039ull;

uint64_t SplitMix(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double Uniform(uint64_t* state) { return static_cast<double>(SplitMix(state) >> 11) * 0x1.0p-53; }

uint64_t Spread(uint64_t rank, uint64_t n) { return static_cast<uint64_t>(rank * kSpread % n); }

std::string CrawlDate(uint64_t i) {
  const time_t t = static_cast<time_t>(kFirstCrawl + static_cast<int64_t>(i % (3600ull * 24 * 365)));
  struct tm tm {};
  gmtime_r(&t, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

SyntheticCrawl::SyntheticCrawl(CrawlShape shape, uint64_t total_pages) : shape_(shape) {
  shape_.domains = std::max<uint32_t>(shape_.domains, 1);
  total_pages = std::max(total_pages, shape_.pages);
  uri_space_ = shape_.uri_space ? shape_.uri_space : 4 * total_pages;
  uri_space_ = std::max({uri_space_, total_pages, static_cast<uint64_t>(shape_.domains)});
  per_domain_ = uri_space_ / shape_.domains;
}

uint64_t SyntheticCrawl::ZipfRank(double u, uint64_t n, double s) {
  const double top = static_cast<double>(n) + 1.0;
  double x;
  if (std::abs(s - 1.0) < 1e-9) {
    x = std::exp(u * std::log(top));
  } else {
    const double e = 1.0 - s;
    x = std::pow(1.0 + u * (std::pow(top, e) - 1.0), 1.0 / e);
  }
  const uint64_t rank = x < 1.0 ? 0 : static_cast<uint64_t>(x) - 1;
  return std::min(rank, n - 1);
}

std::string SyntheticCrawl::Host(uint64_t domain) const {
  return fmt::format("www.site{}.{}", domain, kTlds[domain % std::size(kTlds)]);
}

std::string SyntheticCrawl::PageUrl(uint64_t j) const {
  return fmt::format("http://{}/a/{}.html", Host(j % shape_.domains), j / shape_.domains);
}

std::string SyntheticCrawl::ProbeUrl(uint64_t probe) const {
  return fmt::format("http://{}/probe/{}.html", Host(probe % shape_.domains), probe);
}

std::string SyntheticCrawl::LinkTarget(uint64_t i, uint64_t* state) const {
  if (per_domain_ > 1 && Uniform(state) < shape_.internal_links) {
    const uint64_t k = Spread(ZipfRank(Uniform(state), per_domain_, shape_.zipf), per_domain_);
    return fmt::format("/a/{}.html", k);  // resolves to PageUrl(domain + domains * k)
  }
  return PageUrl(Spread(ZipfRank(Uniform(state), uri_space_, shape_.zipf), uri_space_));
}

SyntheticEvent SyntheticCrawl::Event(uint64_t i, std::optional<uint64_t> probe) const {
  uint64_t state = shape_.seed * 0x2545F4914F6CDD1Dull ^ i;
  SplitMix(&state);
  const uint32_t n = shape_.links_per_page;
  const uint32_t links = n == 0 ? 0 : n / 2 + static_cast<uint32_t>(SplitMix(&state) % (n + 1));
  SyntheticEvent ev;
  ev.key = PageUrl(i);
  ev.links = links + (probe ? 1 : 0);
  fmt::memory_buffer out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, R"({{"url":"{}","crawlDate":"{}","title":"Page {} of site{}","server":"{}","outboundLinks":[)",
                 ev.key, CrawlDate(i), i / shape_.domains, i % shape_.domains,
                 kServers[SplitMix(&state) % std::size(kServers)]);
  for (uint32_t l = 0; l < links; ++l) {
    const std::string target = LinkTarget(i, &state);
    fmt::format_to(it, R"({}{{"url":"{}","anchorText":"{}"}})", l ? "," : "", target,
                   kAnchors[SplitMix(&state) % std::size(kAnchors)]);
  }
  if (probe) fmt::format_to(it, R"({}{{"url":"{}","anchorText":"probe"}})", links ? "," : "", ProbeUrl(*probe));
  fmt::format_to(it, "]}}");
  ev.value = fmt::to_string(out);
  return ev;
}

}  // namespace webindex::bench
