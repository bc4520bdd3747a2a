#include "sparql/results_format.h"

#include <gtest/gtest.h>

namespace webindex::sparql {
namespace {

using graph::Term;

QueryResult SelectResult() {
  QueryResult r;
  r.vars = {"x", "y"};
  r.rows.push_back({Term::Iri("http://e/a"), Term::Literal("a \"b\", c\nd")});
  r.rows.push_back({Term::Blank("b0"), std::nullopt});
  r.rows.push_back({Term::LangLiteral("chat", "fr"), Term::Literal("1", "http://www.w3.org/2001/XMLSchema#integer")});
  return r;
}

std::string Format(const QueryResult& r, ResultFormat f) {
  auto out = FormatResult(r, f);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::string();
}

TEST(SparqlResultsFormatTest, JsonBindingsOmitUnboundAndXsdString) {
  EXPECT_EQ(Format(SelectResult(), ResultFormat::kJson),
            "{\"head\":{\"vars\":[\"x\",\"y\"]},\"results\":{\"bindings\":[\n"
            "{\"x\":{\"type\":\"uri\",\"value\":\"http://e/a\"},\"y\":{\"type\":\"literal\",\"value\":\"a \\\"b\\\", c\\nd\"}},\n"
            "{\"x\":{\"type\":\"bnode\",\"value\":\"b0\"}},\n"
            "{\"x\":{\"type\":\"literal\",\"value\":\"chat\",\"xml:lang\":\"fr\"},"
            "\"y\":{\"type\":\"literal\",\"value\":\"1\",\"datatype\":\"http://www.w3.org/2001/XMLSchema#integer\"}}\n"
            "]}}\n");
}

TEST(SparqlResultsFormatTest, JsonNoRowsAndBoolean) {
  QueryResult r;
  r.vars = {"s"};
  EXPECT_EQ(Format(r, ResultFormat::kJson), "{\"head\":{\"vars\":[\"s\"]},\"results\":{\"bindings\":[]}}\n");
  r.form = Query::Form::kAsk;
  r.boolean = true;
  EXPECT_EQ(Format(r, ResultFormat::kJson), "{\"head\":{},\"boolean\":true}\n");
  EXPECT_NE(Format(r, ResultFormat::kXml).find("<boolean>true</boolean>"), std::string::npos);
  EXPECT_FALSE(FormatResult(r, ResultFormat::kCsv).ok());
}

TEST(SparqlResultsFormatTest, XmlEscapesAndTypes) {
  std::string xml = Format(SelectResult(), ResultFormat::kXml);
  EXPECT_NE(xml.find("<variable name=\"x\"/>\n<variable name=\"y\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<binding name=\"y\"><literal>a &quot;b&quot;, c\nd</literal></binding>"), std::string::npos);
  EXPECT_NE(xml.find("<result><binding name=\"x\"><bnode>b0</bnode></binding></result>"), std::string::npos);
  EXPECT_NE(xml.find("<literal xml:lang=\"fr\">chat</literal>"), std::string::npos);
  EXPECT_NE(xml.find("<literal datatype=\"http://www.w3.org/2001/XMLSchema#integer\">1</literal>"), std::string::npos);
  std::string s;
  AppendXmlEscaped("a<b&c>\r", &s);
  EXPECT_EQ(s, "a&lt;b&amp;c&gt;&#13;");
}

TEST(SparqlResultsFormatTest, CsvPlainValuesQuotedWhenNeeded) {
  EXPECT_EQ(Format(SelectResult(), ResultFormat::kCsv),
            "x,y\r\nhttp://e/a,\"a \"\"b\"\", c\nd\"\r\n_:b0,\r\nchat,1\r\n");
}

TEST(SparqlResultsFormatTest, TsvTermsInNTriplesSyntax) {
  EXPECT_EQ(Format(SelectResult(), ResultFormat::kTsv),
            "?x\t?y\n<http://e/a>\t\"a \\\"b\\\", c\\nd\"\n_:b0\t\n\"chat\"@fr\t"
            "\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>\n");
}

TEST(SparqlResultsFormatTest, ConstructAsNTriplesStreamed) {
  QueryResult r;
  r.form = Query::Form::kConstruct;
  r.statements.push_back({Term::Iri("http://e/s"), Term::Iri("http://e/p"), Term::Literal("o\tx"), std::nullopt});
  r.statements.push_back({Term::Blank("b"), Term::Iri("http://e/p"), Term::Iri("http://e/o"), std::nullopt});
  std::vector<std::string> pieces;
  ASSERT_TRUE(WriteResult(r, ResultFormat::kNTriples, [&](std::string_view s) { pieces.emplace_back(s); }).ok());
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0], "<http://e/s> <http://e/p> \"o\\tx\" .\n");
  EXPECT_EQ(pieces[1], "_:b <http://e/p> <http://e/o> .\n");
  EXPECT_FALSE(FormatResult(r, ResultFormat::kJson).ok());
}

TEST(SparqlResultsFormatTest, RowsStreamOneAppendEach) {
  std::vector<std::string> pieces;
  ResultWriter w(ResultFormat::kTsv, [&](std::string_view s) { pieces.emplace_back(s); });
  w.Begin({"a"});
  w.Row({Term::Iri("http://e/1")});
  w.Row({});
  w.End();
  EXPECT_EQ(pieces, (std::vector<std::string>{"?a\n", "<http://e/1>\n", "\n"}));
}

TEST(SparqlResultsFormatTest, MediaTypes) {
  EXPECT_EQ(FormatForMediaType("application/sparql-results+json; charset=utf-8"), ResultFormat::kJson);
  EXPECT_EQ(FormatForMediaType("Text/CSV"), ResultFormat::kCsv);
  EXPECT_EQ(FormatForMediaType("text/html"), std::nullopt);
  EXPECT_EQ(MediaType(ResultFormat::kTsv), "text/tab-separated-values");
  EXPECT_TRUE(FormatFits(ResultFormat::kXml, Query::Form::kAsk));
  EXPECT_FALSE(FormatFits(ResultFormat::kTsv, Query::Form::kAsk));
}

}  // namespace
}  // namespace webindex::sparql
