// The SPARQL parser's trees (printed as S-expressions), its error messages and positions, IRI
// resolution, prefixed names, literal typing, the scope restrictions and the limits.
#include <gtest/gtest.h>

#include "sparql/iri_resolve.h"
#include "sparql/parser.h"
#include "sparql/scope.h"
#include "sparql/sexpr.h"

namespace webindex::sparql {
namespace {

std::string Tree(std::string_view text, const ParseOptions& options = {}) {
  const Result<Query> q = ParseQuery(text, options);
  EXPECT_TRUE(q.ok()) << q.status().message() << "\n" << text;
  return q.ok() ? ToSExpr(*q) : "";
}

std::string Error(std::string_view text, const ParseOptions& options = {}) {
  const Result<Query> q = ParseQuery(text, options);
  EXPECT_FALSE(q.ok()) << text << "\nparsed as " << (q.ok() ? ToSExpr(*q) : "");
  EXPECT_EQ(q.status().code(), Status::Code::kInvalidArgument);
  return q.status().message();
}

TEST(SparqlParserTest, BasicGraphPatternWithAbbreviations) {
  EXPECT_EQ(Tree("PREFIX : <http://e/> SELECT ?x { ?x a :C ; :p 1, \"a\"@EN-gb . }"),
            "(select (vars ?x) (where (group (bgp (triple ?x <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
            "<http://e/C>) (triple ?x <http://e/p> 1) (triple ?x <http://e/p> \"a\"@en-gb)))))");
}

TEST(SparqlParserTest, BlankNodePropertyListAndCollection) {
  EXPECT_EQ(Tree("SELECT * { [ <p> ?o ] <q> (1 ?x) }", {.base = "http://b/"}),
            "(select (base <http://b/>) * (where (group (bgp (triple _:-b1 <http://b/p> ?o) (triple _:-b1 <http://b/q> "
            "_:-b2) "
            "(triple _:-b2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> 1) "
            "(triple _:-b2 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> _:-b3) "
            "(triple _:-b3 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> ?x) "
            "(triple _:-b3 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> "
            "<http://www.w3.org/1999/02/22-rdf-syntax-ns#nil>)))))");
}

TEST(SparqlParserTest, PropertyPaths) {
  EXPECT_EQ(Tree("PREFIX : <http://e/> ASK { ?a :p/^:q|:r* ?b . ?a !(:s|^a) ?c . ?a (:t+)? ?d . ?a :u ?e }"),
            "(ask (where (group (bgp (path ?a (alt (seq <http://e/p> (reverse <http://e/q>)) (path* <http://e/r>)) ?b) "
            "(path ?a (notoneof <http://e/s> (reverse <http://www.w3.org/1999/02/22-rdf-syntax-ns#type>)) ?c) "
            "(path ?a (path? (path+ <http://e/t>)) ?d) (triple ?a <http://e/u> ?e)))))");
  // "+1" right after a predicate is a literal, not the one-or-more modifier.
  EXPECT_EQ(Tree("ASK { <http://a> <http://b> +1 }"), "(ask (where (group (bgp (triple <http://a> <http://b> +1)))))");
}

TEST(SparqlParserTest, LiteralsAreTyped) {
  const Result<Query> q = ParseQuery("SELECT * { ?s ?p 1, -1.5, 1e3, true, \"x\", \"y\"^^<http://t> }");
  ASSERT_TRUE(q.ok()) << q.status().message();
  const auto& triples = q->where->elements[0].triples;
  ASSERT_EQ(triples.size(), 6u);
  const std::string xsd = "http://www.w3.org/2001/XMLSchema#";
  const char* types[] = {"integer", "decimal", "double", "boolean", "string"};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(std::get<graph::Term>(triples[i].object).datatype(), xsd + types[i]) << i;
  EXPECT_EQ(std::get<graph::Term>(triples[1].object).value(), "-1.5");
  EXPECT_EQ(std::get<graph::Term>(triples[5].object).datatype(), "http://t");
}

TEST(SparqlParserTest, ExpressionsAndSolutionModifiers) {
  EXPECT_EQ(Tree("SELECT ?g (SUM(?v) * 2 AS ?s) (GROUP_CONCAT(DISTINCT ?n; SEPARATOR=\",\") AS ?c) "
                 "{ ?g <http://p> ?v OPTIONAL { ?g <http://n> ?n } FILTER(?v >= 1 && ?v NOT IN (3, 4) || !BOUND(?n)) } "
                 "GROUP BY ?g HAVING (COUNT(*) > 1) ORDER BY DESC(?s) ?g LIMIT 5 OFFSET 10"),
            "(select (vars ?g (as ?s (* (sum ?v) 2)) (as ?c (group_concat distinct ?n (separator \",\")))) "
            "(where (group (bgp (triple ?g <http://p> ?v)) (optional (group (bgp (triple ?g <http://n> ?n)))) "
            "(filter (|| (&& (>= ?v 1) (notin ?v 3 4)) (! (bound ?n)))))) (group-by ?g) (having (> (count *) 1)) "
            "(order-by (desc ?s) ?g) (limit 5) (offset 10))");
}

TEST(SparqlParserTest, RyaFunctionsAreIriCalls) {
  EXPECT_EQ(Tree("PREFIX tempo: <tag:rya-rdf.org,2015:temporal#> PREFIX fts: <http://rdf.useekm.com/fts#> "
                 "SELECT ?s { ?s ?p ?t ; ?q ?l FILTER(tempo:after(?t, \"2001-01-01T01:01:03-08:00\")) "
                 "FILTER fts:text(?l, \"cat\") }"),
            "(select (vars ?s) (where (group (bgp (triple ?s ?p ?t) (triple ?s ?q ?l)) "
            "(filter (<tag:rya-rdf.org,2015:temporal#after> ?t \"2001-01-01T01:01:03-08:00\")) "
            "(filter (<http://rdf.useekm.com/fts#text> ?l \"cat\")))))");
}

TEST(SparqlParserTest, GraphUnionMinusBindValuesSubquery) {
  EXPECT_EQ(
      Tree("SELECT * FROM <http://d> FROM NAMED <http://g> { GRAPH ?g { ?s ?p ?o } { ?s ?p 1 } UNION { ?s ?p 2 } "
           "MINUS { ?s ?p 3 } BIND(STRLEN(STR(?s)) AS ?n) VALUES (?a ?b) { (1 UNDEF) } "
           "{ SELECT (COUNT(*) AS ?c) { ?x ?y ?z } } } VALUES ?z { <http://z> }"),
      "(select * (from <http://d>) (from-named <http://g>) (where (group (graph ?g (group (bgp (triple ?s ?p ?o)))) "
      "(union (group (bgp (triple ?s ?p 1))) (group (bgp (triple ?s ?p 2)))) (minus (group (bgp (triple ?s ?p 3)))) "
      "(extend ?n (strlen (str ?s))) (table (vars ?a ?b) (row [?a 1])) "
      "(group (select (vars (as ?c (count *))) (where (group (bgp (triple ?x ?y ?z)))))))) "
      "(table (vars ?z) (row [?z <http://z>])))");
}

TEST(SparqlParserTest, ConstructAskDescribe) {
  EXPECT_EQ(Tree("CONSTRUCT { ?s <http://p> [ <http://q> ?o ] } WHERE { ?s ?p ?o }"),
            "(construct (template (bgp (triple ?s <http://p> _:-b1) (triple _:-b1 <http://q> ?o))) "
            "(where (group (bgp (triple ?s ?p ?o)))))");
  EXPECT_EQ(Tree("CONSTRUCT WHERE { ?s <http://p> ?o }"),
            "(construct (template (bgp (triple ?s <http://p> ?o))) (where (group (bgp (triple ?s <http://p> ?o)))))");
  EXPECT_EQ(Tree("DESCRIBE <http://x> ?y"), "(describe (describe <http://x> ?y))");
  EXPECT_EQ(Tree("ask{}"), "(ask (where (group)))");
}

TEST(SparqlParserTest, ServiceIsParsed) {
  EXPECT_EQ(Tree("SELECT * { SERVICE SILENT <http://s> { ?a ?b ?c } }"),
            "(select * (where (group (service silent <http://s> (group (bgp (triple ?a ?b ?c)))))))");
}

TEST(SparqlParserTest, IriResolutionFollowsRfc3986) {
  // RFC 3986 section 5.4.1 and 5.4.2.
  const std::string base = "http://a/b/c/d;p?q";
  const std::pair<const char*, const char*> cases[] = {
      {"g:h", "g:h"},
      {"g", "http://a/b/c/g"},
      {"./g", "http://a/b/c/g"},
      {"g/", "http://a/b/c/g/"},
      {"/g", "http://a/g"},
      {"//g", "http://g"},
      {"?y", "http://a/b/c/d;p?y"},
      {"g?y", "http://a/b/c/g?y"},
      {"#s", "http://a/b/c/d;p?q#s"},
      {"g#s", "http://a/b/c/g#s"},
      {";x", "http://a/b/c/;x"},
      {"", "http://a/b/c/d;p?q"},
      {".", "http://a/b/c/"},
      {"./", "http://a/b/c/"},
      {"..", "http://a/b/"},
      {"../", "http://a/b/"},
      {"../g", "http://a/b/g"},
      {"../..", "http://a/"},
      {"../../g", "http://a/g"},
      {"../../../g", "http://a/g"},
      {"/./g", "http://a/g"},
      {"/../g", "http://a/g"},
      {"g.", "http://a/b/c/g."},
      {".g", "http://a/b/c/.g"},
      {"g..", "http://a/b/c/g.."},
      {"..g", "http://a/b/c/..g"},
      {"./../g", "http://a/b/g"},
      {"./g/.", "http://a/b/c/g/"},
      {"g/./h", "http://a/b/c/g/h"},
      {"g/../h", "http://a/b/c/h"},
      {"g;x=1/./y", "http://a/b/c/g;x=1/y"},
      {"g;x=1/../y", "http://a/b/c/y"},
      {"g?y/./x", "http://a/b/c/g?y/./x"},
      {"g#s/../x", "http://a/b/c/g#s/../x"},
      // An absolute reference stays as written: RDF compares IRIs as strings.
      {"http://x/./y/../z", "http://x/./y/../z"},
      {"g:h/./i/../j", "g:h/./i/../j"},
  };
  for (const auto& [ref, want] : cases) EXPECT_EQ(ResolveIri(base, ref), want) << ref;
}

TEST(SparqlParserTest, AbsoluteIrisStayAsWrittenRelativeOnesResolve) {
  // W3C i18n/normalization-2: the data holds <eXAMPLE://a/./b/../b/%63/%7bfoo%7d#xyz> as written.
  EXPECT_EQ(Tree("BASE <http://a/b/> PREFIX p1: <eXAMPLE://a/./b/../b/%63/%7bfoo%7d#> "
                 "SELECT * { <http://h/x/./y/../z> p1:xyz <../c/./d/../e> }"),
            "(select (base <http://a/b/>) * (where (group (bgp (triple <http://h/x/./y/../z> "
            "<eXAMPLE://a/./b/../b/%63/%7bfoo%7d#xyz> <http://a/c/e>)))))");
  EXPECT_EQ(Tree("SELECT * { <http://h/./x> ?p ?o }", {.base = "http://b/"}),
            "(select (base <http://b/>) * (where (group (bgp (triple <http://h/./x> ?p ?o)))))");
}

TEST(SparqlParserTest, BaseAndPrefixesResolve) {
  EXPECT_EQ(Tree("BASE <http://a/b/> PREFIX p: <c/> PREFIX : <#> SELECT * { <d> p:e\\~f\\. :g%20h }"),
            "(select (base <http://a/b/>) * (where (group (bgp (triple <http://a/b/d> <http://a/b/c/e~f.> "
            "<http://a/b/#g%20h>)))))");
  // A later BASE applies to what follows it only; the options' base comes first.
  EXPECT_EQ(Tree("PREFIX x: <y/> BASE <z/> SELECT * { x:a <b> ?c }", {.base = "http://h/i/"}),
            "(select (base <http://h/i/z/>) * (where (group (bgp (triple <http://h/i/y/a> <http://h/i/z/b> ?c)))))");
}

TEST(SparqlParserTest, ErrorsSayWhatWasExpectedWhere) {
  EXPECT_EQ(Error("SELECT ?s\nWHERE { ?s ?p ?o .\n  OPTIONAL { ?s ?q ?r }\n  ?s ?p ?o ?x }"),
            "line 4, column 12: expected '.' or '}' to close the group pattern opened at line 2, column 7, found '?x'");
  EXPECT_EQ(Error("SELECT ?s WHERE {\n  OPTIONAL { ?s ?q ?r \n  FILTER(?r) ORDER BY ?s"),
            "line 3, column 14: expected a triple pattern, a graph pattern or '}' to close the group pattern after "
            "OPTIONAL opened at line 2, column 12, found 'ORDER'");
  EXPECT_EQ(Error("SELECT * { ?s ?p ?o "),
            "line 1, column 21: expected '.' or '}' to close the group pattern opened at line 1, column 10, found end "
            "of query");
  EXPECT_EQ(Error("SELECT * { ?s ?p ?o OPTIONAL { ?s ?p ?o } } ORDER"),
            "line 1, column 50: expected BY after ORDER, found end of query");
  EXPECT_EQ(Error("SELECT * { ?s x:p ?o }"), "line 1, column 15: undeclared prefix 'x:'");
  EXPECT_EQ(Error("SELECT * { ?s ?p \"abc\n\" }"), "line 1, column 22: line break inside a short string");
  EXPECT_EQ(Error("SELECT * {\n  ?s ?p \"\"\"never closed }"),
            "line 2, column 9: string not closed before the end of the query");
  // Columns count code points, not bytes.
  EXPECT_EQ(Error("SELECT * { ?s ?p \"é€😀\" , }"), "line 1, column 26: expected an object, found '}'");
  EXPECT_EQ(Error("SELECT (STRLEN(?a, ?b) AS ?n) {}"), "line 1, column 9: STRLEN takes 1 argument, not 2");
  EXPECT_EQ(Error("ASK { <http://a/\\u0020> ?p ?o }"),
            "line 1, column 17: the escape gives a character an IRI cannot hold");
  EXPECT_EQ(Error("ASK { <http://a/\xff> ?p ?o }"), "line 1, column 7: invalid UTF-8 in an IRI");
  EXPECT_EQ(Error(" <=\\u0060"), "line 1, column 4: the escape gives a character an IRI cannot hold");
  EXPECT_EQ(Error("ASK { ?s ?p \"\\uD800\" }"), "line 1, column 14: the escape is not a Unicode scalar value");
  EXPECT_EQ(Error("SELECT * { ?s ?p ?o } LIMIT -1"),
            "line 1, column 29: expected a non-negative integer after LIMIT, found '-'");
}

TEST(SparqlParserTest, NamesFollowThePnProductionsOnCodePoints) {
  // PN_PREFIX, PN_LOCAL (with PLX) and VARNAME of non-ASCII letters, from the BMP and beyond it
  // (U+10000), with the PN_CHARS that may only follow the first character.
  EXPECT_EQ(Tree("PREFIX 食: <http://k/> PREFIX é.𐀀: <http://e/> SELECT ?名前 ?1·̀‿ "
                 "{ ?名前 食:食べる 食:1-a.b·c . _:ラベル é.𐀀:𐀀:%7e\\~ ?1·̀‿ }"),
            "(select (vars ?名前 ?1·̀‿) (where (group (bgp (triple ?名前 <http://k/食べる> <http://k/1-a.b·c>) "
            "(triple _:ラベル <http://e/𐀀:%7e~> ?1·̀‿)))))");
  // Characters outside the productions, with the line and column (in code points) of the first.
  EXPECT_EQ(Error("PREFIX ×: <http://x/> ASK {}"), "line 1, column 8: unexpected character '×'");
  EXPECT_EQ(Error("PREFIX 食: <http://k/>\nASK { ?s 食:食べる 食:a×b }"),
            "line 2, column 19: unexpected character '×'");
  EXPECT_EQ(Error("SELECT ?·x {}"), "line 1, column 9: unexpected character '·'");  // PN_CHARS, not first
  EXPECT_EQ(Error("ASK { _:·a ?p ?o }"), "line 1, column 7: expected a blank node label after '_:'");
  EXPECT_EQ(Error("ASK { ?s ?p 食べる }"), "line 1, column 13: unexpected character '食'");  // no ':' follows
  // Invalid UTF-8 (a stray byte, a truncated sequence, a surrogate) anywhere, comments included.
  EXPECT_EQ(Error("PREFIX 食\xff: <http://k/> ASK {}"), "line 1, column 9: invalid UTF-8");
  EXPECT_EQ(Error("PREFIX p: <http://p/> ASK { ?s ?p p:a\xc3 }"), "line 1, column 38: invalid UTF-8");
  EXPECT_EQ(Error("SELECT ?a\xed\xa0\x80 {}"), "line 1, column 10: invalid UTF-8");
  EXPECT_EQ(Error("ASK {}\n# a comment \xe9t\xe9\n"), "line 2, column 13: invalid UTF-8");
}

TEST(SparqlParserTest, ScopeRestrictions) {
  EXPECT_EQ(Error("SELECT * { ?s ?p ?o BIND(1 AS ?o) }"),
            "line 1, column 21: BIND assigns ?o, which is already in scope in its group");
  EXPECT_EQ(Error("SELECT (1 AS ?o) { ?s ?p ?o }"),
            "line 1, column 8: SELECT ... AS ?o assigns a variable already in scope");
  EXPECT_EQ(Error("SELECT * { ?s ?p ?o FILTER(COUNT(?s) > 1) }"),
            "line 1, column 28: aggregate COUNT outside SELECT, HAVING or ORDER BY");
  EXPECT_EQ(Error("SELECT (SUM(MAX(?o)) AS ?x) { ?s ?p ?o }"),
            "line 1, column 13: aggregate MAX inside another aggregate");
  EXPECT_EQ(Error("SELECT ?s (COUNT(?o) AS ?n) { ?s ?p ?o }"),
            "line 1, column 8: ?s is projected but neither grouped nor assigned from an aggregate");
  EXPECT_EQ(Error("SELECT (?o + COUNT(?s) AS ?n) { ?s ?p ?o } GROUP BY ?s"),
            "line 1, column 9: ?o is neither grouped nor inside an aggregate");
  EXPECT_EQ(Error("SELECT * { _:a ?p ?o OPTIONAL { _:a ?q ?r } }"),
            "line 1, column 33: blank node _:a is used in two basic graph patterns");
  // Allowed: a FILTER does not end a basic graph pattern; BIND of a new variable; grouped expressions.
  EXPECT_TRUE(ParseQuery("SELECT * { _:a ?p ?o FILTER(?o) _:a ?q ?r BIND(?o AS ?n) }").ok());
  EXPECT_TRUE(ParseQuery("SELECT ?s (COUNT(?o) AS ?n) ((?n + 1) AS ?m) { ?s ?p ?o } GROUP BY ?s").ok());
  EXPECT_TRUE(ParseQuery("SELECT ?k (SAMPLE(?o) AS ?x) { ?s ?p ?o } GROUP BY (STR(?s) AS ?k)").ok());
  EXPECT_TRUE(ParseQuery("SELECT (COUNT(EXISTS { SELECT (COUNT(*) AS ?c) {} }) AS ?n) {}").ok());
}

TEST(SparqlParserTest, VariablesInScope) {
  const Result<Query> q = ParseQuery(
      "SELECT * { ?a <http://p> ?b . ?b <http://q>* ?c GRAPH ?g { ?d ?e ?f } OPTIONAL { ?h ?h ?h } "
      "{ ?i ?i ?i } UNION { ?j ?j ?j } MINUS { ?m ?m ?m } FILTER(?x) BIND(1 AS ?k) VALUES ?l { 1 } "
      "{ SELECT ?n { ?n ?o ?p } } }");
  ASSERT_TRUE(q.ok()) << q.status().message();
  std::set<std::string> vars;
  AddInScope(*q->where, &vars);
  EXPECT_EQ(vars, (std::set<std::string>{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "n"}));
  EXPECT_EQ(ProjectedVars(*q), vars);
}

TEST(SparqlParserTest, LimitsOfLengthAndNesting) {
  ParseOptions small;
  small.max_length = 20;
  EXPECT_EQ(Error("SELECT * { ?s ?p ?o . ?s ?p ?o }", small), "query too long: 32 bytes, the limit is 20");
  ParseOptions shallow;
  shallow.max_depth = 10;
  std::string deep = "ASK { FILTER(" + std::string(20, '(') + "1" + std::string(20, ')') + ") }";
  EXPECT_EQ(Error(deep, shallow).substr(0, 24), "line 1, column 23: neste");
  EXPECT_TRUE(Error(deep, shallow).find("nested too deeply (more than 10 levels)") != std::string::npos);
  // The default depth stops a pathological query long before the stack does.
  std::string groups;
  for (int i = 0; i < 100000; ++i) groups += "{";
  EXPECT_TRUE(Error("ASK " + groups).find("nested too deeply") != std::string::npos);
  std::string parens = "ASK { FILTER(" + std::string(100000, '(') + " }";
  EXPECT_TRUE(Error(parens).find("nested too deeply") != std::string::npos);
  for (const std::string& nested : {"ASK { ?s ?p " + std::string(100000, '(') + " }",         // collections
                                    "ASK { ?s " + std::string(100000, '(') + "<p> ?o }",      // paths
                                    "ASK { FILTER(" + std::string(100000, '!') + "?x) }"}) {  // operators
    EXPECT_TRUE(Error(nested).find("nested too deeply") != std::string::npos);
  }
}

TEST(SparqlParserTest, NumbersAndSignsLex) {
  EXPECT_EQ(Tree("SELECT * { ?s ?p 1. ?s ?p 1.e5 . ?s ?p .5 }"),
            "(select * (where (group (bgp (triple ?s ?p 1) (triple ?s ?p 1.e5) (triple ?s ?p .5)))))");
  EXPECT_EQ(Tree("SELECT ((?a+1) AS ?b) ((?a -1) AS ?c) ((- ?a) AS ?d) (-2 AS ?e) {}"),
            "(select (vars (as ?b (+ ?a 1)) (as ?c (- ?a 1)) (as ?d (- ?a)) (as ?e -2)) (where (group)))");
}

}  // namespace
}  // namespace webindex::sparql
