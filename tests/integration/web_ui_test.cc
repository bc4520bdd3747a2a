// The web UI (src/http/ui/) in headless Chromium against `webindex run --http` serving the live
// table: every view renders what only app.js can produce, paging links work, API errors show
// as messages, and data is always text. Chromium is required: without it the tests fail.
#include <signal.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "child_process.h"
#include "gzip_file.h"
#include "http_test_client.h"

namespace webindex::testing {
namespace {

constexpr char kAllers[] = "http://apple.stackexchange.com/users/208/john-allers";
constexpr char kXss[] = "http://xss.example.com/page";

std::string ChromiumPath() {
  const char* env = std::getenv("WEBINDEX_CHROMIUM");
  return env && *env ? env : "/usr/bin/chromium";
}

//! The port `webindex run --http 127.0.0.1:0` logged, or 0.
uint16_t LoggedPort(const std::string& log) {
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string s = text.str();
  if (std::regex_search(s, m, std::regex(R"(query API on \S+ \(port (\d+)\))"))) return std::stoi(m[1]);
  return 0;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

//! The rendered <main> of a dumped DOM (what failure messages show).
std::string Main(const std::string& dom) {
  const size_t begin = dom.find("<main"), end = dom.find("</main>");
  return begin == std::string::npos || end == std::string::npos ? dom : dom.substr(begin, end + 7 - begin);
}

//! A list row as app.js renders it: the page link, then its count.
std::string RankRow(const std::string& url, int count) {
  return ">" + url + "</a></td><td class=\"count\">" + std::to_string(count) + "</td>";
}

//! The href of the pager link `rel` ("next"/"prev") of the list in section `section` (or the
//! first one), with &amp; decoded; "" when there is none.
std::string PagerHref(const std::string& dom, const std::string& rel, const std::string& section = "") {
  const size_t from = section.empty() ? 0 : dom.find("id=\"" + section + "\"");
  if (from == std::string::npos) return "";
  std::smatch m;
  const std::string rest = dom.substr(from);
  if (!std::regex_search(rest, m,
                         std::regex("<a class=\"" + std::string(rel == "next" ? "next" : "prev") + "\" rel=\"" + rel +
                                    "\" href=\"([^\"]*)\""))) {
    return "";
  }
  return std::regex_replace(m[1].str(), std::regex("&amp;"), "&");
}

//! Serves the sample crawl plus a page whose title, server and anchor text are HTML, through
//! the real binary; built once per test process.
class WebUiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    harness_ = std::make_unique<PipelineHarness>(2);
    std::vector<std::pair<std::string, std::string>> events;
    for (const auto& line : ReadLines(TestData("5-pages.txt"))) events.emplace_back("", line);
    events.emplace_back(kXss, std::string(R"({"url":")") + kXss + R"(","crawlDate":"2015-08-01T00:00:00Z",)" +
                                  R"("title":"<img src=x onerror=\"document.title='pwned'\"> & <b>bold</b>",)" +
                                  R"("server":"<script>document.title='pwned'</script>",)" +
                                  R"("outboundLinks":[{"url":"http://xss.example.com/target",)" +
                                  R"("anchorText":"<i>evil</i> \"quoted\""}]})");
    harness_->Produce(events);
    log_ = harness_->data_dir() + "/run.log";
    const std::string config = harness_->data_dir() + "/ui.toml";  // PageRank within a second
    WriteFileBytes(config, "[pagerank]\ninterval_s = 1\n");
    run_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{WEBINDEX_BINARY, "run", "--brokers", harness_->brokers(), "--data-dir",
                                 harness_->data_dir() + "/ui", "--http", "127.0.0.1:0", "--config", config},
        log_);
    const auto deadline = Clock::now() + std::chrono::seconds(90);
    while (port_ == 0 && Clock::now() < deadline && run_->Running()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      port_ = LoggedPort(log_);
    }
    // Ready once every event is in the table: the counts the tests expect are final then.
    while (port_ != 0 && !(ready_ = Ingested()) && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

  static bool Ingested() {
    return Get(port_, "/api/links?url=" + Encode(kBlog)).body.find(R"("total":4)") != std::string::npos &&
           Get(port_, "/api/page?url=" + Encode(kXss)).status == 200 &&
           Get(port_, "/api/page?url=" + Encode(kAllers)).body.find(R"("numOutbound":8)") != std::string::npos &&
           Count(Get(port_, "/api/top?limit=4").body, R"("count":4})") == 4;
  }

  static void TearDownTestSuite() {
    if (run_) {
      run_->Signal(SIGTERM);
      run_->Wait();
    }
    run_.reset();
    harness_.reset();
  }

  void SetUp() override {
    ASSERT_NE(port_, 0) << "webindex run --http did not start; see " << log_;
    ASSERT_TRUE(ready_) << "the sample crawl was not ingested in time; see " << log_;
  }

  //! Fails the test unless Chromium is installed (CI installs it: docker/setup.sh --tests).
  static void RequireChromium() {
    ASSERT_TRUE(std::filesystem::exists(ChromiumPath()))
        << "Chromium is not installed at " << ChromiumPath()
        << ": the web UI test needs it. Install it with `apt-get install chromium` (docker/setup.sh --tests "
           "does), or point WEBINDEX_CHROMIUM at a Chromium binary.";
  }

  //! Runs headless Chromium on the UI at `hash` with `args` (e.g. --dump-dom); returns its stdout.
  static std::string Chromium(const std::string& hash, const std::vector<std::string>& args) {
    const std::string profile = MakeTempDir("webindex-chromium");
    std::vector<std::string> argv = {"/usr/bin/timeout",
                                     "90",
                                     ChromiumPath(),
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--disable-quic",
                                     "--no-first-run",
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--user-data-dir=" + profile,
                                     "--virtual-time-budget=10000"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("http://127.0.0.1:" + std::to_string(port_) + "/" + hash);
    std::string out;
    const int code = RunCommand(argv, &out, harness_->data_dir() + "/chromium.log");
    EXPECT_EQ(code, 0) << "chromium failed on " << hash << "; see " << harness_->data_dir() << "/chromium.log";
    std::filesystem::remove_all(profile);
    return out;
  }

  //! The DOM once app.js has rendered the view at `hash` (and its API calls have answered).
  static std::string Render(const std::string& hash) {
    const std::string dom = Chromium(hash, {"--dump-dom"});
    EXPECT_NE(dom.find("<main id=\"view\""), std::string::npos) << "no UI at " << hash << ":\n" << dom;
    return dom;
  }

  inline static std::unique_ptr<PipelineHarness> harness_;
  inline static std::unique_ptr<ChildProcess> run_;
  inline static std::string log_;
  inline static uint16_t port_ = 0;
  inline static bool ready_ = false;
};

TEST_F(WebUiTest, ServesTheUiFilesWithTheirTypesAndCaching) {
  auto index = Get(port_, "/");
  EXPECT_EQ(index.status, 200);
  EXPECT_NE(index.head.find("Content-Type: text/html; charset=utf-8"), std::string::npos) << index.head;
  EXPECT_NE(index.head.find("Cache-Control: no-cache"), std::string::npos) << index.head;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(index.body, m, std::regex(R"re(src="(ui/app\.js\?v=[0-9a-f]{12})")re"))) << index.body;
  auto js = Get(port_, "/" + m[1].str());
  EXPECT_EQ(js.status, 200);
  EXPECT_NE(js.head.find("Content-Type: application/javascript"), std::string::npos) << js.head;
  EXPECT_NE(js.head.find("Cache-Control: public, max-age=31536000, immutable"), std::string::npos) << js.head;
  EXPECT_NE(js.body.find("textContent"), std::string::npos);
  auto css = Get(port_, "/ui/style.css");
  EXPECT_EQ(css.status, 200);
  EXPECT_NE(css.head.find("Content-Type: text/css"), std::string::npos) << css.head;
  EXPECT_EQ(Get(port_, "/ui/nope.js").status, 404);
  EXPECT_EQ(Get(port_, "/ui/").status, 404);
  EXPECT_EQ(Raw(port_, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").status, 405);
}

TEST_F(WebUiTest, TopPagesListCountsAndPageOnThroughNextAndPrevious) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  const std::string first = Render("#/top?limit=2");
  EXPECT_NE(first.find("data-state=\"ready\""), std::string::npos) << Main(first);
  EXPECT_NE(first.find("<h1>Most linked-to pages</h1>"), std::string::npos) << Main(first);
  EXPECT_NE(first.find(RankRow("http://apple.blogoverflow.com/", 4)), std::string::npos) << Main(first);
  EXPECT_NE(first.find(RankRow("http://apple.blogoverflow.com?blb=1", 4)), std::string::npos) << Main(first);
  EXPECT_EQ(Count(first, "<td class=\"count\">"), 2u) << Main(first);
  EXPECT_EQ(first.find(kBlog), std::string::npos) << "row 3 on page 1:\n" << Main(first);
  // Every URL links to its page view.
  EXPECT_NE(first.find(R"(href="#/page?url=http%3A%2F%2Fapple.blogoverflow.com%3Fblb%3D1")"), std::string::npos);

  // "Next" carries the API's cursor and shows rows 3 and 4.
  const std::string next = PagerHref(first, "next");
  const auto cursor = NextCursor(Get(port_, "/api/top?limit=2").body);
  ASSERT_TRUE(cursor);
  EXPECT_EQ(next, "#/top?limit=2&next=" + *cursor);
  const std::string second = Render(next);
  EXPECT_NE(second.find(RankRow(kBlog, 4)), std::string::npos) << Main(second);
  EXPECT_NE(second.find(RankRow("http://creativecommons.org/licenses/by-sa/3.0/", 4)), std::string::npos)
      << Main(second);
  EXPECT_EQ(second.find(">http://apple.blogoverflow.com/<"), std::string::npos) << Main(second);
  // Opened from a link, page 2 offers the first page as "previous".
  EXPECT_EQ(PagerHref(second, "prev"), "#/top?limit=2") << Main(second);
  EXPECT_FALSE(PagerHref(second, "next").empty()) << Main(second);
}

TEST_F(WebUiTest, PageRankViewListsTheCurrentResultAndThePageViewShowsTheScore) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  // The first result reflects every event once a check finds the table unchanged; wait for one
  // that the page view can show for kBlog.
  std::string api;
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < deadline) {
    api = Get(port_, "/api/page?url=" + Encode(kBlog)).body;
    if (api.find("\"pagerank\":{\"score\":") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_NE(api.find("\"pagerank\":{\"score\":"), std::string::npos) << api;
  const std::string ranking = Get(port_, "/api/pagerank?limit=2").body;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(ranking, m, std::regex(R"re("results":\[\{"url":"([^"]+)","score":([0-9.e+-]+)\})re")))
      << ranking;
  const std::string dom = Render("#/pagerank?limit=2");
  EXPECT_NE(dom.find("<h1>Pages by PageRank</h1>"), std::string::npos) << Main(dom);
  EXPECT_NE(dom.find(">" + m[1].str() + "</a></td><td class=\"count\">" + m[2].str() + "</td>"), std::string::npos)
      << Main(dom);
  EXPECT_EQ(Count(dom, "<td class=\"count\">"), 2u) << Main(dom);
  EXPECT_FALSE(PagerHref(dom, "next").empty()) << Main(dom);
  const std::string page = Render("#/page?url=" + Encode(kBlog));
  EXPECT_NE(page.find("<dt>PageRank</dt>"), std::string::npos) << Main(page);
  EXPECT_EQ(page.find("not computed yet"), std::string::npos) << Main(page);
}

TEST_F(WebUiTest, DomainViewShowsTheTotalAndTheRankedPages) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  const std::string dom = Render("#/pages?domain=stackoverflow.com");
  EXPECT_NE(dom.find("<h1>stackoverflow.com</h1>"), std::string::npos) << Main(dom);
  EXPECT_NE(dom.find(R"(data-total="4">4 pages of this domain in the index)"), std::string::npos) << Main(dom);
  EXPECT_NE(dom.find(RankRow(kBlog, 4)), std::string::npos) << Main(dom);
  for (const char* url : {"http://stackoverflow.com/users/581665/", "http://stackoverflow.com/users/73986/"}) {
    EXPECT_NE(dom.find(RankRow(url, 1)), std::string::npos) << url << "\n" << Main(dom);
  }
  EXPECT_EQ(PagerHref(dom, "next"), "") << "one page only:\n" << Main(dom);

  // Any host of the domain; a small limit pages.
  const std::string paged = Render("#/pages?domain=www.stackoverflow.com&limit=3");
  EXPECT_EQ(Count(paged, "<td class=\"count\">"), 3u) << Main(paged);
  const std::string rest = Render(PagerHref(paged, "next"));
  EXPECT_EQ(Count(rest, "<td class=\"count\">"), 1u) << Main(rest);
  EXPECT_NE(rest.find(RankRow("http://stackoverflow.com/users/73986/", 1)), std::string::npos) << Main(rest);

  // The search box's target for a domain.
  const std::string unknown = Render("#/pages?domain=unknown-domain.org");
  EXPECT_NE(unknown.find("The index knows no pages of this domain."), std::string::npos) << Main(unknown);
}

TEST_F(WebUiTest, PageViewShowsTheFieldsAndTheLinksWithAnchorText) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  const std::string hash = std::string("#/page?url=") + kBlog;  // unencoded, as people type it
  const std::string dom = Render(hash);
  EXPECT_NE(dom.find("data-state=\"ready\""), std::string::npos) << Main(dom);
  EXPECT_NE(dom.find(std::string("<h1 class=\"mono\">") + kBlog + "</h1>"), std::string::npos) << Main(dom);
  EXPECT_NE(dom.find("<code>com.stackoverflow&gt;.blog&gt;o&gt;/2009/06/attribution-required/</code>"),
            std::string::npos)
      << Main(dom);
  EXPECT_NE(dom.find(R"(<a href="#/pages?domain=stackoverflow.com">stackoverflow.com</a>)"), std::string::npos);
  EXPECT_NE(dom.find("<dt>Linked from</dt><dd>4 pages</dd>"), std::string::npos) << Main(dom);
  EXPECT_NE(dom.find("<dt>Links out</dt><dd>0 links</dd>"), std::string::npos) << Main(dom);
  EXPECT_NE(dom.find("never (only linked to)"), std::string::npos) << Main(dom);
  // The four in-links, each with its anchor text; no out-links.
  for (const char* source : {"http://apple.stackexchange.com/help/badges/9/autobiographer?userid=796",
                             "http://apple.stackexchange.com/users/3126/mjb?tab=summary", kAllers}) {
    EXPECT_NE(dom.find(std::string(">") + source + "</a></td><td class=\"anchor\">attribution required</td>"),
              std::string::npos)
        << source << "\n"
        << Main(dom);
  }
  EXPECT_EQ(Count(dom, "<td class=\"anchor\">attribution required</td>"), 4u) << Main(dom);
  EXPECT_NE(dom.find("No outbound links"), std::string::npos) << Main(dom);

  // A crawled page: title, server, date; its out-links page by themselves.
  const std::string crawled = Render("#/page?url=" + Encode(kAllers) + "&limit=3");
  EXPECT_NE(crawled.find("<h1>User John Allers - Ask Different</h1>"), std::string::npos) << Main(crawled);
  EXPECT_NE(crawled.find("<dd>cloudflare-nginx</dd>"), std::string::npos) << Main(crawled);
  EXPECT_NE(crawled.find(R"(<time datetime="2015-07-28T01:40:51Z">2015-07-28T01:40:51Z</time>)"), std::string::npos)
      << Main(crawled);
  EXPECT_NE(crawled.find(">http://apple.blogoverflow.com/</a></td><td class=\"anchor\">blog</td>"), std::string::npos)
      << Main(crawled);
  const std::string next = PagerHref(crawled, "next", "out-links");
  EXPECT_NE(next.find("&out="), std::string::npos) << next;
  const std::string more = Render(next);
  EXPECT_NE(more.find("<h1>User John Allers - Ask Different</h1>"), std::string::npos) << Main(more);
  EXPECT_EQ(more.find(">http://apple.blogoverflow.com/</a>"), std::string::npos) << Main(more);
  EXPECT_NE(more.find(std::string(">") + kBlog + "</a></td><td class=\"anchor\">attribution required</td>"),
            std::string::npos)
      << Main(more);
}

TEST_F(WebUiTest, ApiErrorsShowAsReadableMessages) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  const std::string missing = Render("#/page?url=" + Encode("http://nowhere.example.org/"));
  EXPECT_NE(missing.find("data-state=\"error\""), std::string::npos) << Main(missing);
  EXPECT_NE(missing.find("<strong>Not found (404)</strong>: no page http://nowhere.example.org/ in the index"),
            std::string::npos)
      << Main(missing);
  const std::string bad = Render("#/top?limit=0");
  EXPECT_NE(bad.find("<strong>Bad request (400)</strong>: limit must be"), std::string::npos) << Main(bad);
  const std::string domain = Render("#/pages?domain=" + Encode("not a domain"));
  EXPECT_NE(domain.find("<strong>Bad request (400)</strong>"), std::string::npos) << Main(domain);
  const std::string view = Render("#/nope");
  EXPECT_NE(view.find("no view 'nope'"), std::string::npos) << Main(view);
}

TEST_F(WebUiTest, DataIsShownAsTextNeverAsMarkup) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  const std::string dom = Render("#/page?url=" + Encode(kXss));
  EXPECT_NE(dom.find("data-state=\"ready\""), std::string::npos) << Main(dom);
  EXPECT_NE(dom.find(R"(<h1>&lt;img src=x onerror="document.title='pwned'"&gt; &amp; &lt;b&gt;bold&lt;/b&gt;</h1>)"),
            std::string::npos)
      << Main(dom);
  EXPECT_NE(dom.find("<dd>&lt;script&gt;document.title='pwned'&lt;/script&gt;</dd>"), std::string::npos) << Main(dom);
  EXPECT_NE(dom.find(R"(<td class="anchor">&lt;i&gt;evil&lt;/i&gt; "quoted"</td>)"), std::string::npos) << Main(dom);
  EXPECT_EQ(dom.find("<img src"), std::string::npos) << Main(dom);
  EXPECT_EQ(dom.find("<b>bold"), std::string::npos) << Main(dom);
  EXPECT_EQ(dom.find("<i>evil"), std::string::npos) << Main(dom);
  EXPECT_EQ(dom.find("<title>pwned"), std::string::npos);
}

}  // namespace
}  // namespace webindex::testing
