// Plans: a selective pattern is scanned first, bound terms are substituted into later scans so
// no scan reads the whole store, OPTIONAL scans per left solution, independent sides run once,
// and ExplainPlan shows the order, the index and where FILTERs sit.
#include "sparql/explain.h"
#include "sparql_eval_fixture.h"

namespace webindex::sparql {
namespace {

//! Wraps a dataset, recording each scan's pattern and how many statements scans returned.
class CountingDataset : public ForwardingDataset {
 public:
  using ForwardingDataset::ForwardingDataset;
  Status Scan(const graph::Pattern& p, const Visitor& fn) override {
    patterns.push_back(p);
    return inner_.Scan(p, [&](const graph::Statement& s) {
      ++visited;
      return fn(s);
    });
  }
  Status ScanTemporal(const graph::TemporalQuery& q, const Visitor& fn) override {
    ++index_scans;
    return inner_.ScanTemporal(q, [&](const graph::Statement& s) {
      ++visited;
      return fn(s);
    });
  }
  Status ScanText(const graph::TextSearch& s, const Visitor& fn) override {
    ++index_scans;
    return inner_.ScanText(s, [&](const graph::Statement& st) {
      ++visited;
      return fn(st);
    });
  }
  int FullScans() const {
    int n = 0;
    for (const auto& p : patterns) n += !p.subject && !p.object && (!p.predicate || IsCommon(*p.predicate));
    return n;
  }
  static bool IsCommon(const graph::Term& p) { return p.value() == "http://e/type" || p.value() == "http://e/name"; }
  std::vector<graph::Pattern> patterns;
  uint64_t visited = 0;
  int index_scans = 0;
};

graph::Term E(const std::string& local) { return graph::Term::Iri("http://e/" + local); }

class SparqlPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 1000; ++i) {
      graph::Term p = E("person" + std::to_string(i));
      memory_.Add({p, E("type"), E("Person"), std::nullopt});
      memory_.Add({p, E("name"), graph::Term::Literal("n" + std::to_string(i)), std::nullopt});
      if (i % 10 == 0) memory_.Add({p, E("knows"), E("person" + std::to_string(i + 1)), std::nullopt});
    }
    memory_.Add({E("person7"), E("id"), graph::Term::Literal("42"), std::nullopt});
  }
  MemoryDataset memory_;
};

TEST_F(SparqlPlanTest, SelectivePatternFirstAndNoFullScan) {
  CountingDataset ds(memory_);
  EXPECT_EQ(Rows(ds, "SELECT ?n { ?x :type :Person . ?x :name ?n . ?x :id \"42\" }"), Lines{"\"n7\""});
  ASSERT_FALSE(ds.patterns.empty());
  EXPECT_EQ(ds.patterns[0].predicate, E("id"));
  EXPECT_EQ(ds.FullScans(), 0);
  EXPECT_LE(ds.visited, 5u);
}

TEST_F(SparqlPlanTest, ChainFromABoundTermNeverScansTheStore) {
  CountingDataset ds(memory_);
  EXPECT_EQ(Rows(ds, "SELECT ?n { :person10 :knows ?y . ?y :name ?n . ?y :type ?t }"), Lines{"\"n11\""});
  EXPECT_EQ(ds.FullScans(), 0);
  EXPECT_LE(ds.visited, 5u);
}

TEST_F(SparqlPlanTest, OptionalAndFiltersScanPerLeftSolution) {
  CountingDataset ds(memory_);
  EXPECT_EQ(Rows(ds, "SELECT ?x ?n { ?x :id ?v OPTIONAL { ?x :name ?n } FILTER(?v = \"42\") }"),
            Lines{":person7 \"n7\""});
  EXPECT_EQ(ds.FullScans(), 0);
  EXPECT_LE(ds.visited, 5u);
}

TEST_F(SparqlPlanTest, FilterOnAnIriBindsTheScan) {
  CountingDataset ds(memory_);
  EXPECT_EQ(Rows(ds, "SELECT ?n { ?x :type :Person . ?x :name ?n FILTER(?x = :person3) }"), Lines{"\"n3\""});
  EXPECT_EQ(ds.FullScans(), 0);
  EXPECT_LE(ds.visited, 5u);
}

TEST_F(SparqlPlanTest, SelectiveBgpAfterAnOptionalRunsFirst) {
  CountingDataset ds(memory_);
  EXPECT_EQ(Rows(ds, "SELECT ?x ?y { ?x :type :Person OPTIONAL { ?x :knows ?y } ?x :id \"42\" }"), Lines{":person7 -"});
  EXPECT_EQ(ds.FullScans(), 0);
  EXPECT_LE(ds.visited, 5u);
}

TEST_F(SparqlPlanTest, LimitStopsTheScans) {
  CountingDataset ds(memory_);
  EXPECT_EQ(Rows(ds, "SELECT ?x ?n { ?x :type :Person ; :name ?n OPTIONAL { ?x :knows ?y } } LIMIT 3").size(), 3u);
  EXPECT_LE(ds.visited, 20u);
  CountingDataset ask(memory_);
  Result<Query> q = ParseQuery("PREFIX : <http://e/> ASK { ?x :type :Person ; :name ?n }");
  ASSERT_TRUE(q.ok());
  Result<QueryResult> yes = Execute(*q, ask);
  ASSERT_TRUE(yes.ok());
  EXPECT_TRUE(yes->boolean);
  EXPECT_LE(ask.visited, 5u);
  CountingDataset ordered(memory_);
  EXPECT_EQ(Rows(ordered, "SELECT ?n { ?x :name ?n } ORDER BY ?n LIMIT 2"), (Lines{"\"n0\"", "\"n1\""}));
  EXPECT_GE(ordered.visited, 1000u);
}

TEST_F(SparqlPlanTest, GraphVariableTriesOnlyGraphsWhereAPatternMatches) {
  MemoryDataset named;
  for (int i = 0; i < 200; ++i) {
    graph::Term g = E("g" + std::to_string(i));
    named.Add({E("page"), E("title"), graph::Term::Literal("t" + std::to_string(i)), g});
    if (i == 17) named.Add({E("page"), E("rare"), E("yes"), g});
  }
  CountingDataset ds(named);
  EXPECT_EQ(Rows(ds, "SELECT ?g ?t { GRAPH ?g { ?p :title ?t . ?p :rare :yes } }"), Lines{":g17 \"t17\""});
  EXPECT_LE(ds.patterns.size(), 5u);
}

TEST_F(SparqlPlanTest, UnionAndGraphBranchesGetTheBindings) {
  CountingDataset ds(memory_);
  EXPECT_EQ(Rows(ds, "SELECT ?o { ?x :id \"42\" { ?x :name ?o } UNION { ?x :type ?o } }"),
            (Lines{"\"n7\"", ":Person"}));
  EXPECT_EQ(ds.FullScans(), 0);
}

TEST_F(SparqlPlanTest, IndependentSubqueryRunsOnce) {
  CountingDataset ds(memory_);
  EXPECT_EQ(Rows(ds, "SELECT ?x ?c { ?x :knows ?y { SELECT (COUNT(*) AS ?c) { ?a :id ?b } } } LIMIT 2").size(), 2u);
  int id_scans = 0;
  for (const auto& p : ds.patterns) id_scans += p.predicate == E("id");
  EXPECT_EQ(id_scans, 1);
}

TEST_F(SparqlPlanTest, ExplainShowsOrderIndexesAndFilters) {
  Result<Query> q = ParseQuery(
      "PREFIX : <http://e/> SELECT ?n { ?x :type :Person . ?x :name ?n . ?x :id ?v FILTER(?v = \"42\") "
      "OPTIONAL { ?x :knows ?y } }");
  ASSERT_TRUE(q.ok());
  Result<std::string> plan = ExplainPlan(*q, memory_);
  ASSERT_TRUE(plan.ok());
  const std::string& text = *plan;
  size_t id = text.find("1. ?x <http://e/id> ?v  scan POS, estimate 1");
  size_t filter = text.find("filter (= ?v \"42\")");
  size_t name = text.find("<http://e/name> ?n  scan SPO");
  size_t knows = text.find("?x <http://e/knows> ?y  scan SPO");
  EXPECT_NE(id, std::string::npos) << text;
  EXPECT_LT(id, filter) << text;
  EXPECT_LT(filter, name) << text;
  EXPECT_NE(knows, std::string::npos) << text;
  EXPECT_NE(text.find("leftjoin (nested loop"), std::string::npos) << text;

  Result<Query> sub = ParseQuery(
      "PREFIX : <http://e/> SELECT * { ?x :knows ?y { SELECT ?y (COUNT(*) AS ?c) { ?y :type ?t } GROUP BY ?y } }");
  ASSERT_TRUE(sub.ok());
  Result<std::string> sub_plan = ExplainPlan(*sub, memory_);
  ASSERT_TRUE(sub_plan.ok());
  EXPECT_NE(sub_plan->find("join (hash join: the right side runs once)"), std::string::npos) << *sub_plan;
}


//! Persons with a birth date-time and a bio: every 100th born after 2000 and a "kafka" bio.
class SparqlRyaPlanTest : public SparqlPlanTest {
 protected:
  void SetUp() override {
    SparqlPlanTest::SetUp();
    for (int i = 0; i < 1000; ++i) {
      graph::Term p = E("person" + std::to_string(i));
      const std::string year = i % 100 == 0 ? "2005" : "1990";
      memory_.Add({p, E("born"), graph::Term::Literal(year + "-03-01T12:00:00Z", std::string(graph::kXsdDateTime)),
                   std::nullopt});
      memory_.Add({p, E("bio"), graph::Term::Literal(i % 100 == 0 ? "writes kafka streams" : "reads books"),
                   std::nullopt});
    }
  }
  static constexpr char kPrefixes[] =
      "PREFIX tempo: <tag:rya-rdf.org,2015:temporal#> PREFIX fts: <http://rdf.useekm.com/fts#> ";
  static Lines Every100th() {
    Lines out;
    for (int i = 0; i < 1000; i += 100) out.push_back(":person" + std::to_string(i));
    std::sort(out.begin(), out.end());
    return out;
  }
  //! Scans of the statements with predicate `p` (the index reads are not among them).
  static int ScansOf(const CountingDataset& ds, const graph::Term& p) {
    int n = 0;
    for (const auto& pattern : ds.patterns) n += pattern.predicate == p && !pattern.subject && !pattern.object;
    return n;
  }
};

TEST_F(SparqlRyaPlanTest, TempoFiltersReadTheTemporalIndexNotEveryDate) {
  CountingDataset ds(memory_);
  EXPECT_EQ(Rows(ds, std::string(kPrefixes) +
                         "SELECT ?x { ?x :born ?t . ?x :type :Person FILTER(tempo:after(?t, \"2001-01-01T00:00:00Z\")) }"),
            Every100th());
  EXPECT_EQ(ds.index_scans, 1);
  EXPECT_EQ(ScansOf(ds, E("born")), 0);
  EXPECT_EQ(ds.FullScans(), 0);
  EXPECT_LE(ds.visited, 30u);  // 10 index matches, then one :type row each
}

TEST_F(SparqlRyaPlanTest, FtsTextReadsThePostingLists) {
  CountingDataset ds(memory_);
  EXPECT_EQ(Rows(ds, std::string(kPrefixes) +
                         "SELECT ?x { ?x :bio ?l FILTER(fts:text(?l, \"kafka AND stream*\") && ?l != \"\") }"),
            Every100th());
  EXPECT_EQ(ds.index_scans, 1);
  EXPECT_EQ(ScansOf(ds, E("bio")), 0);
  EXPECT_LE(ds.visited, 10u);
}

TEST_F(SparqlRyaPlanTest, ABoundSubjectStillScansItsOwnRows) {
  CountingDataset ds(memory_);
  EXPECT_EQ(Rows(ds, std::string(kPrefixes) +
                         "SELECT ?t { :person100 :born ?t FILTER(tempo:within(?t, \"[2005-01-01T00:00:00Z,"
                         "2006-01-01T00:00:00Z]\")) }"),
            Lines{"\"2005-03-01T12:00:00Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime>"});
  EXPECT_EQ(ds.index_scans, 0);
}

TEST_F(SparqlRyaPlanTest, AnIndexWithoutThePredicateIsNotRead) {
  // The temporal index keeps other predicates' date-times only: :born's values are found by
  // scanning, and the answer is the same.
  memory_.SetIndexes({.temporal = true, .temporal_predicates = {"http://e/died"}, .freetext = true});
  CountingDataset ds(memory_);
  EXPECT_EQ(Rows(ds, std::string(kPrefixes) + "SELECT ?x { ?x :born ?t FILTER(tempo:after(?t, \"2001-01-01T00:00:00Z\")) }"),
            Every100th());
  EXPECT_EQ(ds.index_scans, 0);
  EXPECT_EQ(ScansOf(ds, E("born")), 1);
}

TEST_F(SparqlRyaPlanTest, ExplainNamesTheIndexRead) {
  Result<Query> q = ParseQuery(std::string(kPrefixes) +
                               "PREFIX : <http://e/> SELECT ?x { ?x :born ?t FILTER(tempo:before(?t, \"1980-01-01T00:00:00Z\")) "
                               "?x :bio ?l FILTER(fts:text(?l, \"kafka\")) }");
  ASSERT_TRUE(q.ok());
  Result<std::string> plan = ExplainPlan(*q, memory_);
  ASSERT_TRUE(plan.ok());
  EXPECT_NE(plan->find("1. ?x <http://e/born> ?t  temporal index, estimate 0"), std::string::npos) << *plan;

  // A known predicate's postings where the dataset keeps postings by predicate.
  q = ParseQuery(std::string(kPrefixes) +
                 "PREFIX : <http://e/> SELECT ?x { ?x :bio ?l FILTER(fts:text(?l, \"kafka\")) }");
  ASSERT_TRUE(q.ok());
  plan = ExplainPlan(*q, memory_);
  ASSERT_TRUE(plan.ok());
  EXPECT_NE(plan->find("1. ?x <http://e/bio> ?l  free-text index by predicate, estimate"), std::string::npos) << *plan;
  memory_.SetIndexes({.temporal = true, .temporal_predicates = {}, .freetext = true, .freetext_by_predicate = false});
  plan = ExplainPlan(*q, memory_);
  ASSERT_TRUE(plan.ok());
  EXPECT_NE(plan->find("1. ?x <http://e/bio> ?l  free-text index, estimate"), std::string::npos) << *plan;
}

}  // namespace
}  // namespace webindex::sparql
