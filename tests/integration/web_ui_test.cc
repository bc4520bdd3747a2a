// The web UI (src/http/ui/) in headless Chromium against `webindex run --http` serving the live
// table: every view renders what only app.js can produce, paging links work, API errors show
// as messages, numbers have thousands separators, and data is always text; suggestions while
// typing are driven over the DevTools protocol. Chromium is required: without it the tests fail.
#include <signal.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "child_process.h"
#include "devtools_browser.h"
#include "gzip_file.h"
#include "http_test_client.h"
#include "kafka/producer.h"
#include "pipeline/topics.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

constexpr char kAllers[] = "http://apple.stackexchange.com/users/208/john-allers";
constexpr char kXss[] = "http://xss.example.com/page";
constexpr char kMany[] = "http://many.example.net/";  // links to kManyLinks pages of its own domain
constexpr int kManyLinks = 1200;
constexpr char kAlice[] = "<http://example.org/alice>";
constexpr char kLongIri[] = "http://example.org/people/alice/pages/home/index.html?lang=en&section=about#contact";
constexpr char kUndated[] = "http://undated.example.com/";  // an invalid event: a dead letter
constexpr int kSparqlMaxRows = 1100;  // /sparql's cap: fewer than kManyLinks
constexpr char kFoaf[] = "PREFIX foaf: <http://xmlns.com/foaf/0.1/>\n";

//! Statements of the default graph: alice's (a literal that is HTML among them), bob's.
std::string Statements() {
  std::string text =
      "<http://example.org/alice> <http://xmlns.com/foaf/0.1/name> \"<b>Alice</b> <script>document.title='pwned'"
      "</script>\" .\n"
      "<http://example.org/alice> <http://xmlns.com/foaf/0.1/knows> <http://example.org/bob> .\n"
      "<http://example.org/alice> <http://example.org/age> \"30\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"
      "<http://example.org/bob> <http://xmlns.com/foaf/0.1/name> \"Bob\"@en .\n";
  // A release with a time (+02:00: 07:00 UTC) and a title, for the time and words views.
  text += "<http://example.org/release> <http://purl.org/dc/terms/date> \"2015-07-28T09:00:00+02:00\"^^"
          "<http://www.w3.org/2001/XMLSchema#dateTime> .\n"
          "<http://example.org/release> <http://purl.org/dc/terms/title> \"Spotlight release notes\" .\n";
  // An IRI longer than its column, for wrapping.
  text += std::string("<http://example.org/long> <http://example.org/homepage> <") + kLongIri + "> .\n";
  for (int i = 1; i <= 4; ++i) {
    text += "<http://example.org/alice> <http://example.org/likes> <http://example.org/thing/" + std::to_string(i) +
            "> .\n";
  }
  return text;
}

//! The SPARQL view with `query` run.
std::string SparqlHash(const std::string& query) { return "#/sparql?query=" + Encode(query); }

//! The value of a JavaScript expression in the browser's tab, or the error as text.
std::string Js(DevToolsBrowser& b, const std::string& expression) {
  auto v = b.Eval(expression);
  return v.ok() ? *v : "<" + v.status().ToString() + ">";
}

//! The text of the element with id `id` in a dumped DOM, tags and all, up to its closing `tag`.
std::string ElementById(const std::string& dom, const std::string& id, const std::string& tag = "div") {
  const size_t begin = dom.find("id=\"" + id + "\"");
  if (begin == std::string::npos) return "";
  const size_t end = dom.find("</" + tag + ">", begin);
  return dom.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::string ChromiumPath() {
  const char* env = std::getenv("WEBINDEX_CHROMIUM");
  return env && *env ? env : "/usr/bin/chromium";
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
    std::string many = std::string(R"({"url":")") + kMany + R"(","crawlDate":"2015-08-01T00:00:00Z","title":"Many",)" +
                       R"("outboundLinks":[)";
    for (int i = 0; i < kManyLinks; ++i) {
      many += std::string(i ? "," : "") + R"({"url":"http://many.example.net/p/)" + std::to_string(i) + R"("})";
    }
    events.emplace_back(kMany, many + "]}");
    events.emplace_back(kUndated, std::string(R"({"url":")") + kUndated + R"(","crawlDate":"yesterday"})");
    harness_->Produce(events);
    ProduceStatements();
    log_ = harness_->data_dir() + "/run.log";
    // PageRank within a second, the web graph, and a SPARQL row cap that kMany's links pass.
    const std::string config = harness_->data_dir() + "/ui.toml";
    WriteFileBytes(config, "[pagerank]\ninterval_s = 1\n[indexes]\nweb_triples = true\n[http]\nsparql_max_rows = " +
                               std::to_string(kSparqlMaxRows) + "\n");
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

  static void ProduceStatements() {
    auto producer = kafka::Producer::Create(harness_->config().kafka,
                                            [](uint64_t, const Status& st) { EXPECT_TRUE(st.ok()) << st.ToString(); });
    ASSERT_TRUE(producer.ok()) << producer.status().ToString();
    const std::string topic = harness_->config().topics.triples;
    ASSERT_TRUE((*producer)->Produce({topic, pipeline::PartitionFor(kAlice, 2), kAlice, Statements(), {}}, 1).ok());
    ASSERT_TRUE((*producer)->Flush(30000).ok());
  }

  static bool Ingested() {
    return Get(port_, "/api/links?url=" + Encode(kBlog)).body.find(R"("total":4)") != std::string::npos &&
           Get(port_, "/api/page?url=" + Encode(kXss)).status == 200 &&
           Get(port_, "/api/pages?domain=example.net&limit=1").body.find(R"("total":1201)") != std::string::npos &&
           Count(Get(port_, "/api/triples?limit=100").body, R"("s":)") == 11 &&
           Count(Get(port_, "/api/triples?graph=all&limit=100&p=" + Encode("<urn:webindex:crawled>")).body,
                 R"("s":)") == 7 &&
           Get(port_, "/api/page?url=" + Encode(kAllers)).body.find(R"("numOutbound":8)") != std::string::npos &&
           Count(Get(port_, "/api/top?limit=4").body, R"("count":4})") == 4 &&
           // The domain stage runs behind the sink's page rows: its counts are the last to settle.
           Get(port_, "/api/totals").body.find(R"("domains":16)") != std::string::npos;
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
    std::vector<std::string> argv = {"/usr/bin/timeout", "90", ChromiumPath()};
    for (auto& flag : HeadlessChromiumFlags()) argv.push_back(std::move(flag));
    argv.push_back("--user-data-dir=" + profile);
    argv.push_back("--virtual-time-budget=10000");
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

  //! A browser on the UI at `hash`, ready once the view rendered; nullptr after a test failure.
  static std::unique_ptr<DevToolsBrowser> Browse(const std::string& hash) {
    const std::string profile = MakeTempDir("webindex-devtools");
    auto browser = DevToolsBrowser::Start(ChromiumPath(), profile, harness_->data_dir() + "/chromium.log");
    EXPECT_TRUE(browser.ok()) << browser.status().ToString();
    if (!browser.ok()) return nullptr;
    Status st = (*browser)->Open("http://127.0.0.1:" + std::to_string(port_) + "/" + hash);
    if (st.ok()) st = (*browser)->WaitFor("document.body.dataset.state === 'ready'");
    EXPECT_TRUE(st.ok()) << st.ToString();
    return st.ok() ? std::move(browser).value() : nullptr;
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
  // What the scores mean: the formula, unnormalized.
  EXPECT_NE(ElementById(dom, "pagerank-meaning", "p")
                .find("Scores are not normalized: every page starts at 1.0, and each iteration gives it 0.15 + 0.85 "
                      "\u00d7 the sum, over the pages linking to it, of their score divided by their number of links "
                      "out. A page nothing links to has 0.15, and the scores do not add up to 1"),
            std::string::npos)
      << Main(dom);
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

TEST_F(WebUiTest, NewRoutesAnswerHeadLikeGet) {
  for (const std::string target : {"/api/suggest?q=stack", "/api/totals", "/api/status"}) {
    const Reply get = Get(port_, target);
    EXPECT_EQ(get.status, 200) << target << ": " << get.body;
    const Reply head = Raw(port_, "HEAD " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(head.status, 200) << target;
    EXPECT_TRUE(head.body.empty()) << target << ": " << head.body;
    // /api/status changes between two calls (events, lag); its length is the GET's when they agree.
    if (target != "/api/status") {
      EXPECT_NE(head.head.find("Content-Length: " + std::to_string(get.body.size())), std::string::npos)
          << target << ": " << head.head;
    }
  }
  const Reply bad = Get(port_, "/api/suggest?q=" + Encode("stack overflow"));
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body,
            R"({"error":"q 'stack overflow' cannot start a host name: letters, digits, '-', '_' and '.' only"})");
}

TEST_F(WebUiTest, SuggestionsAppearAsOneTypesAndTheKeyboardOpensOne) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  auto b = Browse("#/top");
  ASSERT_TRUE(b);
  const std::string names =
      "[...document.querySelectorAll('#suggestions [role=option]')].map(o => o.dataset.name).join(' ')";
  ASSERT_TRUE(b->Eval("document.getElementById('search-input').focus(), 'ok'").ok());
  ASSERT_TRUE(b->Type("stackov").ok());
  ASSERT_TRUE(b->WaitFor("!document.getElementById('suggestions').hidden").ok());
  EXPECT_EQ(Js(*b, names), "stackoverflow.com blog.stackoverflow.com");
  EXPECT_EQ(Js(*b, "document.getElementById('search-input').getAttribute('aria-expanded')"), "true");
  EXPECT_EQ(Js(*b, "document.querySelector('#suggestions [role=option] .detail').textContent"),
            "domain \u00b7 4 pages");
  // Typing more narrows the list; a host is offered under its domain.
  ASSERT_TRUE(b->Type("erflow.com").ok());
  ASSERT_TRUE(b->WaitFor("document.querySelectorAll('#suggestions [role=option]').length === 2 && "
                         "document.getElementById('search-input').value === 'stackoverflow.com'")
                  .ok());
  ASSERT_TRUE(b->Eval("document.getElementById('search-input').select(), 'ok'").ok());
  ASSERT_TRUE(b->Type("blog.stack").ok());
  ASSERT_TRUE(b->WaitFor("document.querySelector('#suggestions [role=option]')?.dataset.name === "
                         "'blog.stackoverflow.com'")
                  .ok())
      << Js(*b, names);
  EXPECT_EQ(Js(*b, "document.querySelector('#suggestions .detail').textContent"), "host \u00b7 stackoverflow.com");

  // Down marks the first, Down again the next (wrapping), Up back; Enter opens the domain's view.
  ASSERT_TRUE(b->Eval("document.getElementById('search-input').select(), 'ok'").ok());
  ASSERT_TRUE(b->Type("stack").ok());
  ASSERT_TRUE(b->WaitFor("document.querySelectorAll('#suggestions [role=option]').length === 4").ok()) << Js(*b, names);
  // Most pages first, then by name (both domains have four pages in the sample).
  EXPECT_EQ(Js(*b, names), "stackexchange.com apple.stackexchange.com stackoverflow.com blog.stackoverflow.com");
  ASSERT_TRUE(b->Press("ArrowDown").ok());
  EXPECT_EQ(Js(*b, "document.getElementById('search-input').getAttribute('aria-activedescendant')"), "suggestion-0");
  ASSERT_TRUE(b->Press("ArrowDown").ok());
  ASSERT_TRUE(b->Press("ArrowDown").ok());
  ASSERT_TRUE(b->Press("ArrowUp").ok());
  EXPECT_EQ(Js(*b, "document.querySelector('[aria-selected=true]').dataset.name"), "apple.stackexchange.com");
  ASSERT_TRUE(b->Press("ArrowDown").ok());
  EXPECT_EQ(Js(*b, "document.querySelector('[aria-selected=true]').dataset.name"), "stackoverflow.com");
  ASSERT_TRUE(b->Press("Enter").ok());
  // (The hash changes before the view starts rendering: wait for the new view's content.)
  ASSERT_TRUE(b->WaitFor("location.hash === '#/pages?domain=stackoverflow.com' && "
                         "document.getElementById('view').dataset.view === 'pages' && "
                         "document.body.dataset.state === 'ready'")
                  .ok())
      << Js(*b, "location.hash");
  EXPECT_EQ(Js(*b, "document.querySelector('main h1').textContent"), "stackoverflow.com");
  EXPECT_EQ(Js(*b, "document.getElementById('suggestions').hidden"), "true");

  // Escape closes the list; Enter then searches the text as typed: a name without a dot lists
  // what starts with it, and says so plainly when nothing does.
  ASSERT_TRUE(
      b->Eval("document.getElementById('search-input').focus(), document.getElementById('search-input').select(), 'ok'")
          .ok());
  ASSERT_TRUE(b->Type("stackoverflow").ok());
  ASSERT_TRUE(b->WaitFor("!document.getElementById('suggestions').hidden").ok());
  ASSERT_TRUE(b->Press("Escape").ok());
  EXPECT_EQ(Js(*b, "document.getElementById('suggestions').hidden"), "true");
  ASSERT_TRUE(b->Press("Enter").ok());
  ASSERT_TRUE(b->WaitFor("location.hash === '#/search?q=stackoverflow' && "
                         "document.getElementById('view').dataset.view === 'search' && "
                         "document.body.dataset.state === 'ready'")
                  .ok());
  EXPECT_EQ(Js(*b, "[...document.querySelectorAll('#search-results td.name')].map(t => t.textContent).join(' ')"),
            "stackoverflow.com blog.stackoverflow.com");
  ASSERT_TRUE(b->Eval("document.getElementById('search-input').select(), 'ok'").ok());
  ASSERT_TRUE(b->Type("nosuchname").ok());
  ASSERT_TRUE(b->Press("Enter").ok());
  ASSERT_TRUE(b->WaitFor("location.hash === '#/search?q=nosuchname' && document.getElementById('no-match')").ok());
  EXPECT_EQ(Js(*b, "document.getElementById('no-match').textContent"),
            "No domain or host in the index starts with \u201cnosuchname\u201d. Check the spelling, type less of the "
            "name, or give a whole URL (http://\u2026) to open one page.");
}

TEST_F(WebUiTest, SearchViewAndAnUnknownDomainOfferWhatTheIndexKnows) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  const std::string dom = Render("#/search?q=Stack");
  EXPECT_NE(dom.find("<h1>Domains and hosts starting with \u201cstack\u201d</h1>"), std::string::npos) << Main(dom);
  EXPECT_NE(dom.find(R"(<td class="name"><a href="#/pages?domain=stackoverflow.com">stackoverflow.com</a></td>)"
                     R"(<td class="kind">domain</td><td class="count">4</td>)"),
            std::string::npos)
      << Main(dom);
  EXPECT_NE(dom.find(R"(<tr class="host"><td class="name"><a href="#/pages?domain=apple.stackexchange.com">)"
                     R"(apple.stackexchange.com</a></td><td class="kind">host of <a href="#/pages?domain=)"
                     R"(stackexchange.com">stackexchange.com</a></td>)"),
            std::string::npos)
      << Main(dom);
  const std::string unknown = Render("#/pages?domain=stackoverflw.com");
  EXPECT_NE(unknown.find("The index knows no pages of this domain."), std::string::npos) << Main(unknown);
  EXPECT_NE(unknown.find("Known domains starting with \u201cstackoverf\u201d"), std::string::npos) << Main(unknown);
  EXPECT_NE(unknown.find(">stackoverflow.com</a>"), std::string::npos) << Main(unknown);
  const std::string bad = Render("#/search?q=" + Encode("no such name"));
  EXPECT_NE(bad.find("<strong>Bad request (400)</strong>: q 'no such name' cannot start a host name"),
            std::string::npos)
      << Main(bad);
}

TEST_F(WebUiTest, TopViewShowsTheTableTotals) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  const std::string api = Get(port_, "/api/totals").body;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      api, m, std::regex(R"re("pages":(\d+),"crawled":(\d+),"linkedTo":(\d+),"links":(\d+),"domains":(\d+))re")))
      << api;
  EXPECT_EQ(m[2].str(), "7") << "the sample's five pages, the XSS page and the one with many links";
  const std::string dom = Render("#/top?limit=2");
  const auto number = [](const std::string& digits) {  // 1234 -> 1,234
    std::string out = digits;
    for (int i = static_cast<int>(out.size()) - 3; i > 0; i -= 3) out.insert(static_cast<size_t>(i), ",");
    return out;
  };
  const char* ids[] = {"total-pages", "total-crawled", "total-linked", "total-links", "total-domains"};
  const char* labels[] = {"Pages", "Crawled", "Linked to", "Links", "Domains"};
  for (int i = 0; i < 5; ++i) {
    const std::string want = std::string("id=\"") + ids[i] + "\"><dt>" + labels[i] + "</dt><dd data-value=\"" +
                             m[i + 1].str() + "\">" + number(m[i + 1].str()) + "</dd>";
    EXPECT_NE(dom.find(want), std::string::npos) << want << "\n" << Main(dom);
  }
  EXPECT_GT(std::stoi(m[1].str()), 1000) << "a total with a thousands separator";
  EXPECT_NE(dom.find(RankRow("http://apple.blogoverflow.com/", 4)), std::string::npos) << Main(dom);
}

TEST_F(WebUiTest, NumbersHaveThousandsSeparators) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  const std::string page = Render("#/page?url=" + Encode(kMany) + "&limit=2");
  EXPECT_NE(page.find("<dt>Links out</dt><dd>1,200 links</dd>"), std::string::npos) << Main(page);
  EXPECT_NE(page.find("<h2>Links to <span class=\"badge\">1,200</span></h2>"), std::string::npos) << Main(page);
  const std::string domain = Render("#/pages?domain=example.net&limit=2");
  EXPECT_NE(domain.find(R"(data-total="1201">1,201 pages of this domain in the index)"), std::string::npos)
      << Main(domain);
  const std::string search = Render("#/search?q=example.n");
  EXPECT_NE(search.find(R"(<td class="kind">domain</td><td class="count">1,201</td>)"), std::string::npos)
      << Main(search);
}

TEST_F(WebUiTest, StatusViewShowsGenerationEventsLagAndTheLastPageRank) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  std::string api;
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < deadline) {
    api = Get(port_, "/api/status").body;
    if (api.find(R"("pagerank":{"result":)") != std::string::npos &&
        api.find(R"("eventsPerSecond":null)") == std::string::npos &&
        api.find(R"("deadLetters":{"topic":"webindex.dead-letters","count":1,)") != std::string::npos) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_NE(api.find(R"("generation":1,"events":)"), std::string::npos) << api;
  ASSERT_NE(api.find(R"("pagerank":{"result":)"), std::string::npos) << api;
  EXPECT_NE(api.find(R"("lag":{"total":0,)"), std::string::npos) << api;
  EXPECT_NE(api.find(R"("unavailable":{})"), std::string::npos) << api;
  // The invalid event: counted, its reason, the topic holds it, and the command that reads it.
  const std::string kcat = "kcat -b " + harness_->brokers() +
                           R"( -C -t webindex.dead-letters -o beginning -e -f 'key %k: %h\n%s\n\n')";
  EXPECT_TRUE(std::regex_search(
      api, std::regex(R"re("deadLetters":\{"topic":"webindex.dead-letters","count":1,"last":\{"reason":"crawlDate is )re"
                      R"re(not an RFC 3339 date-time","atMs":\d+\},"stored":1,"read":")re")))
      << api;
  EXPECT_NE(api.find(R"("read":")" + std::regex_replace(kcat, std::regex(R"(\\)"), R"(\\)") + "\""),
            std::string::npos)
      << api;
  std::smatch events, result;
  ASSERT_TRUE(std::regex_search(api, events, std::regex(R"("events":(\d+))")));
  ASSERT_TRUE(std::regex_search(api, result, std::regex(R"("pagerank":\{"result":(\d+))")));

  const std::string dom = Render("#/status");
  EXPECT_NE(dom.find("<h1>Status</h1>"), std::string::npos) << Main(dom);
  EXPECT_NE(dom.find(R"(id="status-generation"><dt>Generation</dt><dd data-value="1">1</dd>)"), std::string::npos)
      << Main(dom);
  EXPECT_NE(dom.find("id=\"status-events\"><dt>Events consumed</dt><dd data-value=\"" + events[1].str() + "\">" +
                     events[1].str() + "</dd>"),
            std::string::npos)
      << Main(dom);
  EXPECT_TRUE(
      std::regex_search(dom, std::regex(R"(id="status-rate"><dt>Events per second</dt><dd data-value="[0-9.]+">)")))
      << Main(dom);
  EXPECT_NE(dom.find(R"(id="status-lag"><dt>Consumer lag</dt><dd data-value="0">0</dd>)"), std::string::npos)
      << Main(dom);
  EXPECT_NE(dom.find("id=\"status-pagerank\"><dt>Last PageRank</dt>"), std::string::npos) << Main(dom);
  for (const char* stage : {"page", "uri", "domain", "sink", "graph"}) {
    EXPECT_NE(dom.find(std::string("<td class=\"stage\">") + stage + "</td>"), std::string::npos) << stage;
  }
  EXPECT_NE(dom.find("<dt>Result</dt><dd><a href=\"#/pagerank\">"), std::string::npos) << Main(dom);
  EXPECT_NE(dom.find("<dt>Checks</dt><dd>every 1 s: "), std::string::npos) << Main(dom);
  EXPECT_EQ(dom.find("not available"), std::string::npos) << Main(dom);
  EXPECT_NE(ElementById(dom, "status-totals", "section").find("<dt>Crawled</dt><dd data-value=\"7\">7</dd>"),
            std::string::npos)
      << Main(dom);
  EXPECT_NE(dom.find(R"(id="status-dead-letters"><dt>Dead letters</dt><dd data-value="1">1</dd>)"), std::string::npos)
      << Main(dom);
  const std::string dead = ElementById(dom, "status-dead-letters-detail", "section");
  EXPECT_NE(dead.find(R"(<dd id="dead-letters-count">1</dd>)"), std::string::npos) << Main(dom);
  EXPECT_NE(dead.find(R"(<dd id="dead-letters-last"><span class="reason">crawlDate is not an RFC 3339 date-time</span> ()"
                      R"(<time datetime=")"),
            std::string::npos)
      << Main(dom);
  EXPECT_NE(dead.find(R"(<dd id="dead-letters-stored">1</dd>)"), std::string::npos) << Main(dom);
  EXPECT_NE(dead.find(R"(<dd id="dead-letters-read"><code class="command">)" +
                      kcat + "</code>"),
            std::string::npos)
      << Main(dom);
}

TEST_F(WebUiTest, StatementsViewAnswersAPatternPagesAndFollowsIris) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  const std::string hash = "#/statements?s=" + Encode(kAlice) + "&limit=4";
  const std::string dom = Render(hash);
  EXPECT_NE(dom.find("<h1>Statements</h1>"), std::string::npos) << Main(dom);
  // The form shows the pattern; four rows of alice's seven statements.
  EXPECT_TRUE(
      std::regex_search(dom, std::regex(R"re(<input name="s" value="(&lt;|<)http://example.org/alice(&gt;|>)")re")))
      << Main(dom);
  EXPECT_EQ(Count(ElementById(dom, "statements", "section"), "<td class=\"subject\">"), 4u) << Main(dom);
  // IRIs link to the statements about them (as subject), within the same graph selection.
  EXPECT_NE(dom.find(R"(<a class="iri" href="#/statements?s=%3Chttp%3A%2F%2Fexample.org%2Fage%3E" )"
                     R"(title="Statements about http://example.org/age">http://<wbr>example.org/<wbr>age</a>)"),
            std::string::npos)
      << Main(dom);
  // Literals are text, HTML in them included.
  EXPECT_NE(dom.find(R"(<span class="literal">"30"^^&lt;http://<wbr>www.w3.org/<wbr>2001/<wbr>XMLSchema#<wbr>integer&gt;)"
                     R"(</span>)"),
            std::string::npos)
      << Main(dom);
  const std::string rest = Render(PagerHref(dom, "next"));
  EXPECT_EQ(Count(ElementById(rest, "statements", "section"), "<td class=\"subject\">"), 3u) << Main(rest);
  EXPECT_EQ(PagerHref(rest, "next"), "") << Main(rest);
  EXPECT_EQ(PagerHref(rest, "prev"), hash) << Main(rest);
  EXPECT_NE(rest.find(R"(<span class="literal">"&lt;b&gt;Alice&lt;/b&gt; &lt;script&gt;document.title='pwned')"
                      R"(&lt;/script&gt;"</span>)"),
            std::string::npos)
      << Main(rest);
  EXPECT_EQ(rest.find("<b>Alice"), std::string::npos);
  EXPECT_EQ(rest.find("<title>pwned"), std::string::npos);
  // Following bob's IRI re-queries with it as subject.
  const std::string bob = Render("#/statements?s=" + Encode("<http://example.org/bob>"));
  EXPECT_NE(bob.find(R"(<span class="literal">"Bob"@en</span>)"), std::string::npos) << Main(bob);
  EXPECT_EQ(Count(ElementById(bob, "statements", "section"), "<td class=\"subject\">"), 1u) << Main(bob);
  // A pattern on the predicate and object; a bad term is a message under the form.
  const std::string knows = Render("#/statements?p=" + Encode("<http://xmlns.com/foaf/0.1/knows>") +
                                   "&o=" + Encode("<http://example.org/bob>"));
  EXPECT_EQ(Count(ElementById(knows, "statements", "section"), "<td class=\"subject\">"), 1u) << Main(knows);
  const std::string bad = Render("#/statements?s=" + Encode("\"x\""));
  EXPECT_NE(bad.find("<strong>Bad request (400)</strong>: s: a subject is never a literal"), std::string::npos)
      << Main(bad);
  EXPECT_NE(bad.find(R"(id="pattern")"), std::string::npos) << Main(bad);
  const std::string none = Render("#/statements?s=" + Encode("<http://example.org/nobody>"));
  EXPECT_NE(none.find("No statement matches this pattern."), std::string::npos) << Main(none);
}

TEST_F(WebUiTest, TimeViewFindsStatementsByTheInstantOfTheirObject) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  // 09:00+02:00 is 07:00 UTC: found by the UTC second, in every graph by default.
  const std::string at = Render("#/temporal?equals=" + Encode("2015-07-28T07:00:00Z"));
  EXPECT_NE(at.find("<h1>Statements by time</h1>"), std::string::npos) << Main(at);
  EXPECT_NE(at.find(R"(<a class="tab current" href="#/temporal" aria-current="page">Time</a>)"), std::string::npos)
      << Main(at);
  EXPECT_EQ(Count(ElementById(at, "statements", "section"), "<td class=\"subject\">"), 1u) << Main(at);
  EXPECT_NE(at.find(R"(<time class="literal datetime" datetime="2015-07-28T07:00:00Z" title=")"), std::string::npos)
      << Main(at);
  EXPECT_NE(at.find(">2015-07-28 07:00:00 UTC</time>"), std::string::npos) << Main(at);
  EXPECT_TRUE(std::regex_search(at, std::regex(R"re(<option value="equals" selected(="")?>)re"))) << Main(at);
  // The web graph's crawl dates: pages crawled before 01:45 (01:32:26 and 01:40:51), each a page link.
  const std::string crawled = Render("#/temporal?before=" + Encode("2015-07-28T01:45:00Z") +
                                     "&p=" + Encode("<urn:webindex:crawled>"));
  const std::string rows = ElementById(crawled, "statements", "section");
  EXPECT_EQ(Count(rows, "<td class=\"subject\">"), 2u) << Main(crawled);
  EXPECT_EQ(Count(rows, "<a class=\"page-link external\" href=\"#/page?url=http"), 2u) << Main(crawled);
  EXPECT_EQ(Count(rows, "urn:webindex:web"), 2u) << Main(crawled);
  // Both ends of an interval are excluded; an interval without statements says so.
  const std::string none = Render("#/temporal?within=" + Encode("2015-07-28T07:00:00Z/2015-07-28T08:00:00Z"));
  EXPECT_NE(none.find("No statement has a time in this interval."), std::string::npos) << Main(none);
  // A bad time is the API's message under the form.
  const std::string bad = Render("#/temporal?after=yesterday");
  EXPECT_NE(bad.find("<strong>Bad request (400)</strong>: after:"), std::string::npos) << Main(bad);
  EXPECT_NE(bad.find(R"(id="time")"), std::string::npos) << Main(bad);
  // Without a time the form alone; choosing "between" and two times routes to within=T1/T2.
  auto b = Browse("#/temporal");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Js(*b, "document.getElementById('statements') === null"), "true");
  ASSERT_TRUE(b->Eval("(() => { const f = document.getElementById('time');"
                      "f.elements.relation.value = 'within';"
                      "f.elements.t.value = '2015-07-28T06:59:59Z/2015-07-28T07:00:01Z';"
                      "f.querySelector('button').click(); return true; })()")
                  .ok());
  ASSERT_TRUE(b->WaitFor("location.hash.startsWith('#/temporal?within=') && document.body.dataset.state === 'ready'").ok())
      << Js(*b, "location.hash");
  EXPECT_EQ(Js(*b, "location.hash"), "#/temporal?within=" + Encode("2015-07-28T06:59:59Z/2015-07-28T07:00:01Z"));
  EXPECT_EQ(Js(*b, "document.querySelectorAll('#statements td.subject').length"), "1");
}

TEST_F(WebUiTest, WordsViewFindsPagesByTitleAndStatementsByWords) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  // "spotlight" is in a page title (web graph) and in the release's title (default graph).
  const std::string dom = Render("#/text?q=Spotlight");
  EXPECT_NE(dom.find("<h1>Statements by words</h1>"), std::string::npos) << Main(dom);
  const std::string rows = ElementById(dom, "statements", "section");
  EXPECT_NE(rows.find(R"(<span class="literal">"Spotlight release notes"</span>)"), std::string::npos) << Main(dom);
  EXPECT_NE(rows.find("Spotlight sometimes can"), std::string::npos) << Main(dom);
  EXPECT_NE(rows.find(R"(title="Statements about urn:webindex:title">urn:webindex:title</a>)"), std::string::npos)
      << Main(dom);
  EXPECT_NE(rows.find(R"(<a class="page-link external" href="#/page?url=http%3A%2F%2Fapple.stackexchange.com%2F)"),
            std::string::npos)
      << Main(dom);
  // Restricted to titles in the web graph: the page only, its link opens the page view.
  const std::string titles = Render("#/text?q=spotlight&p=" + Encode("<urn:webindex:title>") +
                                    "&graph=" + Encode("<urn:webindex:web>"));
  EXPECT_EQ(Count(ElementById(titles, "statements", "section"), "<td class=\"subject\">"), 1u) << Main(titles);
  // Boolean queries and wildcards: the release by "release AND NOT spotli*" finds nothing.
  const std::string notq = Render("#/text?q=" + Encode("release AND NOT spotli*"));
  EXPECT_NE(notq.find("No statement has these words."), std::string::npos) << Main(notq);
  const std::string rel = Render("#/text?q=" + Encode("(releas* OR nothing) notes"));
  EXPECT_EQ(Count(ElementById(rel, "statements", "section"), "<td class=\"subject\">"), 1u) << Main(rel);
  // A malformed query: the API's message, with the position, under the form.
  const std::string bad = Render("#/text?q=" + Encode("(spotlight"));
  EXPECT_NE(bad.find("<strong>Bad request (400)</strong>: "), std::string::npos) << Main(bad);
  EXPECT_NE(bad.find("at character 1"), std::string::npos) << Main(bad);
  EXPECT_NE(bad.find(R"(id="words")"), std::string::npos) << Main(bad);
  // The tabs lead to each other's forms.
  EXPECT_NE(bad.find(R"(<a class="tab" href="#/statements">Pattern</a>)"), std::string::npos) << Main(bad);
}

TEST_F(WebUiTest, StatementsShowTimesReadablyAndWrapIrisBetweenTheirParts) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  // In a view as narrow as a phone's, every piece of text (a run between spaces and <wbr>s) that
  // fits its column stays on one line; `selector`'s elements must wrap nonetheless.
  const std::string kUnbroken =
      "(selector) => { const out = [];"
      "  document.getElementById('view').style.maxWidth = '640px';"
      "  for (const e of document.querySelectorAll(selector)) {"
      "    const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);"
      "    for (let n = walk.nextNode(); n; n = walk.nextNode()) {"
      "      for (const m of n.data.matchAll(/\\S+/g)) {"
      "        const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);"
      "        const tops = new Set([...r.getClientRects()].map((x) => Math.round(x.top)));"
      "        if (tops.size > 1) out.push(m[0]);"
      "      } } }"
      "  return out.join(' | ') || 'none'; }";
  const auto lines = [](const std::string& selector) {
    return "(() => { const tops = new Set(); for (const e of document.querySelectorAll('" + selector +
           "')) for (const r of e.getClientRects()) tops.add(Math.round(r.top)); return tops.size; })()";
  };

  // A time: its UTC instant, readable, the literal on hover; never cut inside a number.
  auto b = Browse("#/temporal?equals=" + Encode("2015-07-28T07:00:00Z"));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Js(*b, "document.querySelector('#statements td.object time').textContent"), "2015-07-28 07:00:00 UTC");
  EXPECT_EQ(Js(*b, "document.querySelector('#statements td.object time').getAttribute('datetime')"),
            "2015-07-28T07:00:00Z");
  EXPECT_EQ(Js(*b, "document.querySelector('#statements td.object time').title"),
            "\"2015-07-28T09:00:00+02:00\"^^<http://www.w3.org/2001/XMLSchema#dateTime>");
  EXPECT_EQ(Js(*b, "(" + kUnbroken + ")('#statements td')"), "none");

  // A long IRI: over several lines, each of its parts whole.
  b = Browse("#/statements?s=" + Encode("<http://example.org/long>"));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Js(*b, "document.querySelector('#statements td.object a.iri').textContent"), kLongIri);
  EXPECT_EQ(Js(*b, "(" + kUnbroken + ")('#statements td')"), "none");
  EXPECT_GT(std::stoi(Js(*b, lines("#statements td.object a.iri"))), 2);
}

TEST_F(WebUiTest, SparqlJoinRendersATableWhoseIrisLinkToTheirViews) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  // A join over the web graph: a page's title with each of its eight links.
  const std::string web = Render(SparqlHash(std::string("PREFIX web: <urn:webindex:>\n"
                                                        "SELECT ?page ?title ?target WHERE {\n"
                                                        "  GRAPH <urn:webindex:web> { ?page web:title ?title . "
                                                        "?page web:linksTo ?target }\n"
                                                        "  FILTER(?page = <") +
                                            kAllers + ">)\n}"));
  EXPECT_NE(web.find("<h1>SPARQL</h1>"), std::string::npos) << Main(web);
  const std::string table = ElementById(web, "sparql-result", "section");
  EXPECT_NE(table.find(R"(<thead><tr><th scope="col">?page</th><th scope="col">?title</th>)"
                       R"(<th scope="col">?target</th></tr></thead>)"),
            std::string::npos)
      << Main(web);
  EXPECT_EQ(Count(table, "<tr><td>"), 8u) << Main(web);
  EXPECT_TRUE(std::regex_search(table, std::regex(R"(<p class="lead" id="sparql-summary">8 rows in [0-9,]+ ms\.</p>)")))
      << Main(web);
  EXPECT_EQ(Count(table, "<td><span class=\"literal\">User John Allers - Ask Different</span></td>"), 8u) << Main(web);
  // Every IRI lists the statements about it, in every graph; a page of the index opens its view.
  EXPECT_EQ(Count(table, "<a class=\"iri\" href=\"#/statements?s=" + Encode(std::string("<") + kAllers + ">") +
                             "&amp;graph=all\""),
            8u)
      << Main(web);
  EXPECT_EQ(Count(table, "<a class=\"page-link external\" href=\"#/page?url=" + Encode(kAllers) + "\""), 8u)
      << Main(web);
  EXPECT_NE(table.find("<a class=\"page-link external\" href=\"#/page?url=" + Encode("http://apple.blogoverflow.com/") +
                       "\""),
            std::string::npos)
      << Main(web);

  // A join over the statements: alice's friends and their names. bob is no page: one link only.
  const std::string people =
      Render(SparqlHash(std::string(kFoaf) + "SELECT ?friend ?name WHERE {\n  <http://example.org/alice> foaf:knows "
                                             "?friend .\n  ?friend foaf:name ?name\n}"));
  const std::string row = ElementById(people, "sparql-table", "table");
  EXPECT_EQ(Count(row, "<tr><td>"), 1u) << Main(people);
  const std::string bob = "#/statements?s=" + Encode("<http://example.org/bob>") + "&graph=all";
  EXPECT_NE(row.find(R"(<td><a class="iri" href=")" + std::regex_replace(bob, std::regex("&"), "&amp;") +
                     R"(" title="Statements about http://example.org/bob">http://<wbr>example.org/<wbr>bob</a></td>)"),
            std::string::npos)
      << Main(people);
  // A literal's language tag (and datatype) is set apart from its text.
  EXPECT_NE(row.find(R"(<td><span class="literal">Bob<span class="term-tag" title="language tag">@en</span></span></td>)"),
            std::string::npos)
      << Main(people);
  const std::string about = Render(bob);
  EXPECT_EQ(Count(ElementById(about, "statements", "section"), "<td class=\"subject\">"), 1u) << Main(about);
}

TEST_F(WebUiTest, SparqlLiteralsAndStatementsAreTextNeverMarkup) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  const std::string escaped = "&lt;b&gt;Alice&lt;/b&gt; &lt;script&gt;document.title='pwned'&lt;/script&gt;";
  const std::string select =
      Render(SparqlHash(std::string(kFoaf) + "SELECT ?name WHERE { <http://example.org/alice> foaf:name ?name }"));
  EXPECT_NE(ElementById(select, "sparql-table", "table").find("<td><span class=\"literal\">" + escaped + "</span></td>"),
            std::string::npos)
      << Main(select);
  const std::string construct = Render(SparqlHash(
      std::string(kFoaf) + "CONSTRUCT { ?s foaf:nick ?name } WHERE { <http://example.org/alice> foaf:name ?name . "
                           "?s foaf:name ?name }"));
  EXPECT_NE(construct.find(R"(<p class="lead" id="sparql-summary">1 statement in )"), std::string::npos)
      << Main(construct);
  EXPECT_NE(construct.find(R"(<pre class="ntriples" id="sparql-graph">&lt;http://example.org/alice&gt; )"
                           R"(&lt;http://xmlns.com/foaf/0.1/nick&gt; ")" +
                           escaped + "\" .\n</pre>"),
            std::string::npos)
      << Main(construct);
  for (const std::string* dom : {&select, &construct}) {
    EXPECT_EQ(dom->find("<b>Alice"), std::string::npos) << Main(*dom);
    EXPECT_EQ(dom->find("<script>document"), std::string::npos) << Main(*dom);
    EXPECT_EQ(dom->find("<title>pwned"), std::string::npos);
  }
}

TEST_F(WebUiTest, SparqlSyntaxErrorPointsAtItsLineAndColumn) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  // Line 4 holds a character outside the BMP: columns count code points, the textarea UTF-16 units.
  const std::string query = "SELECT ?s\nWHERE {\n  ?s ?p ?o .\n  FILTER(?o = \"\xF0\x9F\x98\x80\" && )\n}";
  const Reply api = Get(port_, "/sparql?query=" + Encode(query));
  ASSERT_EQ(api.status, 400);
  ASSERT_EQ(api.body, R"({"error":"SPARQL syntax: line 4, column 22: expected an expression, found ')'"})");
  const std::string dom = Render(SparqlHash(query));
  const std::string error = ElementById(dom, "sparql-error");
  EXPECT_NE(error.find("<strong>Syntax error on line 4, column 22</strong>: expected an expression, found ')'"),
            std::string::npos)
      << Main(dom);
  EXPECT_NE(error.find("<span class=\"gutter\">4 \u2502 </span>  FILTER(?o = \"\xF0\x9F\x98\x80\" &amp;&amp; "
                       "<mark>)</mark>\n<span class=\"caret\">" +
                       std::string(4 + 21, ' ') + "^</span>"),
            std::string::npos)
      << Main(dom);
  // The query's text stays in the form, its cursor on the offending character.
  auto b = Browse(SparqlHash(query));
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->WaitFor("document.activeElement.id === 'sparql-query'").ok());
  EXPECT_EQ(Js(*b, "document.getElementById('sparql-query').value"), query);
  EXPECT_EQ(Js(*b, "[document.activeElement.selectionStart, document.activeElement.selectionEnd].join()"), "53,54");
  EXPECT_EQ(Js(*b, "document.getElementById('sparql-query').value.slice(53, 54)"), ")");
}

TEST_F(WebUiTest, SparqlAskRendersItsBoolean) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  const std::string yes =
      Render(SparqlHash(std::string(kFoaf) + "ASK { <http://example.org/alice> foaf:knows <http://example.org/bob> }"));
  EXPECT_NE(yes.find(R"(<p class="boolean true" id="sparql-boolean">true</p>)"), std::string::npos) << Main(yes);
  EXPECT_NE(yes.find(R"(<p class="lead" id="sparql-summary">Answered in )"), std::string::npos) << Main(yes);
  const std::string no =
      Render(SparqlHash(std::string(kFoaf) + "ASK { <http://example.org/bob> foaf:knows <http://example.org/alice> }"));
  EXPECT_NE(no.find(R"(<p class="boolean false" id="sparql-boolean">false</p>)"), std::string::npos) << Main(no);
  EXPECT_EQ(no.find("id=\"sparql-table\""), std::string::npos) << Main(no);
}

TEST_F(WebUiTest, SparqlExamplesLoadWithOneClickAndRunOnTheTable) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  auto b = Browse("#/sparql");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Js(*b, "document.getElementById('sparql-result') === null"), "true") << "nothing runs before Run";
  const int examples = std::stoi(Js(*b, "document.querySelectorAll('button.example').length"));
  EXPECT_GE(examples, 5);
  std::string all;
  for (int i = 0; i < examples; ++i) {
    SCOPED_TRACE("example " + std::to_string(i));
    // Marks the answer shown now, so that the wait below is for the next one.
    ASSERT_TRUE(b->Eval("document.getElementById('sparql-result')?.setAttribute('data-old', ''), "
                        "document.querySelectorAll('button.example')[" + std::to_string(i) + "].click(), 'ok'")
                    .ok());
    const std::string text = Js(*b, "document.getElementById('sparql-query').value");
    all += text;
    EXPECT_EQ(Js(*b, "document.activeElement.id"), "sparql-query");
    // Run: Ctrl+Enter in the query, or the button.
    if (i % 2 == 0) {
      ASSERT_TRUE(b->Press("Enter", DevToolsBrowser::kCtrl).ok());
    } else {
      ASSERT_TRUE(b->Eval("document.querySelector('#sparql button[type=submit]').click(), 'ok'").ok());
    }
    ASSERT_TRUE(b->WaitFor("document.body.dataset.state === 'ready' && "
                           "document.querySelector('#sparql-result:not([data-old])') !== null")
                    .ok())
        << text;
    EXPECT_EQ(Js(*b, "new URLSearchParams(location.hash.slice(location.hash.indexOf('?'))).get('query')"), text)
        << "bookmarkable: " << Js(*b, "location.hash");
    EXPECT_EQ(Js(*b, "document.getElementById('sparql-query').value"), text);
    EXPECT_EQ(Js(*b, "document.getElementById('sparql-error')?.textContent ?? 'none'"), "none") << text;
    EXPECT_TRUE(std::regex_match(Js(*b, "document.getElementById('sparql-summary').textContent"),
                                 std::regex(R"([1-9][0-9,]* (rows?|statements?) in [0-9,.]+ m?s\.)")))
        << Js(*b, "document.getElementById('sparql-summary').textContent") << "\n"
        << text;
  }
  // Among them: a join, OPTIONAL, an aggregate, Rya's temporal and free-text filters.
  for (const char* feature : {"OPTIONAL {", "COUNT(", "tempo:after(", "fts:text(", "GRAPH <urn:webindex:web>"}) {
    EXPECT_NE(all.find(feature), std::string::npos) << feature;
  }
}

TEST_F(WebUiTest, SparqlLongAnswersShowInPartAndOversizedOnesAreRefused) {
  ASSERT_NO_FATAL_FAILURE(RequireChromium());
  const std::string links = std::string("SELECT ?target WHERE { GRAPH <urn:webindex:web> { <") + kMany +
                            "> <urn:webindex:linksTo> ?target } }";
  // 1,050 rows: the first 1,000 drawn, the rest a click away.
  auto b = Browse(SparqlHash(links + " LIMIT 1050"));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Js(*b, "document.getElementById('sparql-summary').textContent").substr(0, 14), "1,050 rows in ");
  EXPECT_EQ(Js(*b, "document.querySelectorAll('#sparql-table tbody tr').length"), "1000");
  ASSERT_TRUE(b->Eval("document.querySelector('#sparql-result button.more').click(), 'ok'").ok());
  EXPECT_EQ(Js(*b, "document.querySelectorAll('#sparql-table tbody tr').length"), "1050");
  EXPECT_EQ(Js(*b, "document.querySelector('#sparql-result button.more') === null"), "true");
  // Past the server's cap: its reason, not a cut-short table.
  const std::string refused = Render(SparqlHash(links));
  EXPECT_NE(ElementById(refused, "sparql-error").find("<strong>The query was refused</strong>: the answer has more than " +
                                                      std::to_string(kSparqlMaxRows)),
            std::string::npos)
      << Main(refused);
  EXPECT_EQ(refused.find("id=\"sparql-table\""), std::string::npos) << Main(refused);
}

}  // namespace
}  // namespace webindex::testing
