// The /sparql route (SPARQL 1.1 Protocol, query operation) through Api::Handle, over a real
// store: GET, POST form-encoded and POST application/sparql-query; the dataset parameters; the
// answer's format by Accept; errors with their status: syntax (400, line and column), method
// (405 with Allow), media type (415), Accept (406), the result cap (400), the time budget (503).
#include <gtest/gtest.h>

#include <filesystem>

#include "graph/graph_update.h"
#include "http/api.h"
#include "pipeline_harness.h"

namespace webindex::http {
namespace {

using graph::Statement;
using graph::Term;

Term Iri(const std::string& s) { return Term::Iri("http://ex.org/" + s); }

class HttpSparqlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("webindex-sparql-api");
    auto store = state::Store::Open(dir_, {});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    graph::GraphUpdate update;
    // alice knows bob and carol; names; one statement in graph g.
    for (const Statement& st : std::vector<Statement>{
             {Iri("alice"), Iri("knows"), Iri("bob"), std::nullopt},
             {Iri("alice"), Iri("knows"), Iri("carol"), std::nullopt},
             {Iri("bob"), Iri("name"), Term::Literal("Bob"), std::nullopt},
             {Iri("carol"), Iri("name"), Term::LangLiteral("Carol", "en"), std::nullopt},
             {Iri("dave"), Iri("name"), Term::Literal("Dave"), Iri("g")},
         }) {
      ASSERT_TRUE(update.Add(st).ok());
    }
    // 60 x 60 statements for a cross product that outlasts a 1 ms budget.
    for (int i = 0; i < 60; ++i) ASSERT_TRUE(update.Add({Iri("n" + std::to_string(i)), Iri("num"), Term::Literal(std::to_string(i)), std::nullopt}).ok());
    state::WriteBatch batch(*store_);
    ASSERT_TRUE(update.Apply(*store_, batch).ok());
    ASSERT_TRUE(store_->Write(batch).ok());
    SparqlOptions options;
    options.max_rows = 1000;
    api_ = std::make_unique<Api>(*store_, Api::MetricsSource{}, Api::StatusSource{}, options);
  }
  void TearDown() override {
    api_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  ApiResponse Get(const std::string& target, std::string_view accept = "") {
    return api_->Handle({"GET", target, false, accept});
  }
  ApiResponse Post(std::string_view content_type, std::string_view body, std::string_view accept = "",
                   const std::string& target = "/sparql") {
    return api_->Handle({"POST", target, true, accept, content_type, body});
  }
  static std::string Encoded(std::string_view text) {
    std::string out;
    for (unsigned char c : text) {
      if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
        out.push_back(static_cast<char>(c));
      } else {
        char buf[4];
        std::snprintf(buf, sizeof buf, "%%%02X", c);
        out += buf;
      }
    }
    return out;
  }

  std::string dir_;
  std::unique_ptr<state::Store> store_;
  std::unique_ptr<Api> api_;
};

constexpr char kJoin[] =
    "PREFIX ex: <http://ex.org/> SELECT ?friend ?name WHERE { ex:alice ex:knows ?friend . ?friend ex:name ?name } "
    "ORDER BY ?friend";

TEST_F(HttpSparqlTest, GetAndBothPostsAnswerTheSameJson) {
  const ApiResponse get = Get("/sparql?query=" + Encoded(kJoin));
  ASSERT_EQ(get.status, 200) << get.body;
  EXPECT_EQ(get.content_type, "application/sparql-results+json; charset=utf-8");
  EXPECT_NE(get.body.find(R"("vars":["friend","name"])"), std::string::npos) << get.body;
  EXPECT_NE(get.body.find(R"("value":"http://ex.org/bob")"), std::string::npos) << get.body;
  EXPECT_NE(get.body.find(R"("xml:lang":"en")"), std::string::npos) << get.body;
  EXPECT_LT(get.body.find("bob"), get.body.find("carol")) << "ORDER BY ?friend";
  EXPECT_FALSE(get.close);
  const ApiResponse form = Post("application/x-www-form-urlencoded", "query=" + Encoded(kJoin));
  EXPECT_EQ(form.status, 200) << form.body;
  EXPECT_EQ(form.body, get.body);
  EXPECT_FALSE(form.close) << "a POST of the protocol keeps its connection";
  const ApiResponse direct = Post("application/sparql-query; charset=utf-8", kJoin);
  EXPECT_EQ(direct.status, 200) << direct.body;
  EXPECT_EQ(direct.body, get.body);
}

TEST_F(HttpSparqlTest, AcceptChoosesTheFormat) {
  const std::string target = "/sparql?query=" + Encoded(kJoin);
  EXPECT_EQ(Get(target, "application/sparql-results+xml").content_type,
            "application/sparql-results+xml; charset=utf-8");
  const ApiResponse csv = Get(target, "text/csv");
  EXPECT_EQ(csv.content_type, "text/csv; charset=utf-8");
  EXPECT_EQ(csv.body, "friend,name\r\nhttp://ex.org/bob,Bob\r\nhttp://ex.org/carol,Carol\r\n");
  const ApiResponse tsv = Get(target, "text/tab-separated-values");
  EXPECT_EQ(tsv.body, "?friend\t?name\n<http://ex.org/bob>\t\"Bob\"\n<http://ex.org/carol>\t\"Carol\"@en\n");
  EXPECT_EQ(Get(target, "text/html, */*;q=0.8").content_type, "application/sparql-results+json; charset=utf-8");
  EXPECT_EQ(Get(target, "image/png").status, 406);
  const ApiResponse ask = Get("/sparql?query=" + Encoded("ASK { <http://ex.org/bob> ?p ?o }"));
  EXPECT_EQ(ask.status, 200);
  EXPECT_NE(ask.body.find(R"("boolean":true)"), std::string::npos) << ask.body;
  const ApiResponse graph = Get("/sparql?query=" + Encoded("CONSTRUCT { ?s <http://ex.org/is> ?n } WHERE { ?s "
                                                             "<http://ex.org/name> ?n FILTER(?n = \"Bob\") }"));
  EXPECT_EQ(graph.status, 200) << graph.body;
  EXPECT_EQ(graph.content_type, "application/n-triples; charset=utf-8");
  EXPECT_EQ(graph.body, "<http://ex.org/bob> <http://ex.org/is> \"Bob\" .\n");
}

TEST_F(HttpSparqlTest, TheDatasetParametersChooseTheGraphs) {
  const std::string names = Encoded("SELECT ?n WHERE { ?s <http://ex.org/name> ?n } ORDER BY ?n");
  const ApiResponse all_default = Get("/sparql?query=" + names, "text/csv");
  EXPECT_EQ(all_default.body, "n\r\nBob\r\nCarol\r\n");
  const ApiResponse from_g = Get("/sparql?query=" + names + "&default-graph-uri=" + Encoded("http://ex.org/g"), "text/csv");
  EXPECT_EQ(from_g.status, 200) << from_g.body;
  EXPECT_EQ(from_g.body, "n\r\nDave\r\n");
}

TEST_F(HttpSparqlTest, ErrorsSayWhatAndWhere) {
  const ApiResponse syntax = Get("/sparql?query=" + Encoded("SELECT ?x WHERE {\n  ?x ?y \n}"));
  EXPECT_EQ(syntax.status, 400);
  EXPECT_NE(syntax.body.find("line 3, column 1"), std::string::npos) << syntax.body;
  EXPECT_EQ(Get("/sparql").status, 400);
  EXPECT_EQ(Get("/sparql?query=ASK%7B%7D&foo=1").status, 400);
  const ApiResponse put = api_->Handle({"PUT", "/sparql", false});
  EXPECT_EQ(put.status, 405);
  EXPECT_EQ(put.allow, "GET, HEAD, POST");
  EXPECT_EQ(Post("text/plain", "ASK {}").status, 415);
  EXPECT_EQ(Post("application/sparql-query", "ASK {}", "", "/sparql?query=ASK%7B%7D").status, 400);
  const ApiResponse cap = Get("/sparql?query=" + Encoded("SELECT * WHERE { ?a <http://ex.org/num> ?x . ?b "
                                                          "<http://ex.org/num> ?y }"));
  EXPECT_EQ(cap.status, 400);
  EXPECT_NE(cap.body.find("more than 1000 rows"), std::string::npos) << cap.body;
  const ApiResponse slow = Get("/sparql?timeout=1&query=" +
                               Encoded("SELECT (COUNT(*) AS ?n) WHERE { ?a <http://ex.org/num> ?x . ?b "
                                       "<http://ex.org/num> ?y . ?c <http://ex.org/num> ?z }"));
  EXPECT_EQ(slow.status, 503) << slow.body;
  EXPECT_NE(slow.body.find("time budget of 1 ms"), std::string::npos) << slow.body;
  EXPECT_EQ(Get("/sparql?timeout=0&query=ASK%7B%7D").status, 400);
  // Rya's functions read indexes this store was not set up with: 409, naming the replay.
  const ApiResponse no_index = Get("/sparql?query=" + Encoded("PREFIX tempo: <tag:rya-rdf.org,2015:temporal#> "
                                                              "SELECT ?s { ?s ?p ?t FILTER(tempo:after(?t, "
                                                              "\"2000-01-01T00:00:00Z\")) }"));
  EXPECT_EQ(no_index.status, 409);
  EXPECT_NE(no_index.body.find("replay --indexes +temporal"), std::string::npos) << no_index.body;
}

}  // namespace
}  // namespace webindex::http
