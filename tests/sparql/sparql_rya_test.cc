// Rya's FILTER functions in SPARQL: tempo:equals, before, after, within against instants (any
// zone, whole seconds) and intervals "[T1,T2]", and fts:text against the free-text grammar,
// with the semantics of `query temporal` and `query search`: a value the index would not hold
// (not an xsd:dateTime, not a plain literal) never matches; a bad instant, interval or query is
// an error (the FILTER drops the row).
#include <gtest/gtest.h>

#include "sparql_eval_fixture.h"

namespace webindex::sparql {
namespace {

constexpr char kData[] =
    "<http://e/a> <http://e/at> \"2001-01-01T01:01:03-08:00\"^^<http://www.w3.org/2001/XMLSchema#dateTime> .\n"
    "<http://e/b> <http://e/at> \"1999-12-31T23:59:59Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> .\n"
    "<http://e/c> <http://e/at> \"2005-06-01T00:00:00.999Z\"^^<http://www.w3.org/2001/XMLSchema#dateTime> .\n"
    "<http://e/d> <http://e/at> \"2001-01-01T09:01:03Z\" .\n"  // a plain string: never an instant
    "<http://e/a> <http://e/label> \"Kafka streams and tables\"@en .\n"
    "<http://e/b> <http://e/label> \"graph store\" .\n"
    "<http://e/c> <http://e/label> \"a streaming graph\"^^<http://e/custom> .\n";  // not indexed text

std::string Tempo(const std::string& filter) {
  return "PREFIX tempo: <tag:rya-rdf.org,2015:temporal#> SELECT ?s WHERE { ?s :at ?t FILTER(" + filter + ") }";
}

std::string Fts(const std::string& query) {
  return "PREFIX fts: <http://rdf.useekm.com/fts#> SELECT ?s WHERE { ?s :label ?l FILTER(fts:text(?l, \"" + query +
         "\")) }";
}

TEST(SparqlRyaTest, TemporalFunctionsTakeInstantsAndIntervals) {
  MemoryDataset ds;
  Load(&ds, kData);
  // a is 2001-01-01T09:01:03Z; the same second in another zone equals it.
  EXPECT_EQ(Rows(ds, Tempo("tempo:equals(?t, \"2001-01-01T10:01:03+01:00\")")), Lines({":a"}));
  EXPECT_EQ(Rows(ds, Tempo("tempo:after(?t, \"2000-01-01T00:00:00Z\")")), Lines({":a", ":c"}));
  EXPECT_EQ(Rows(ds, Tempo("tempo:before(?t, \"2001-01-01T09:01:03Z\")")), Lines({":b"}));
  // Against an interval: before its start, after its end, strictly within.
  EXPECT_EQ(Rows(ds, Tempo("tempo:before(?t, \"[2000-01-01T00:00:00Z,2002-01-01T00:00:00Z]\")")), Lines({":b"}));
  EXPECT_EQ(Rows(ds, Tempo("tempo:after(?t, \"[2000-01-01T00:00:00Z,2002-01-01T00:00:00Z]\")")), Lines({":c"}));
  EXPECT_EQ(Rows(ds, Tempo("tempo:within(?t, \"[2000-01-01T00:00:00Z,2002-01-01T00:00:00Z]\")")), Lines({":a"}));
  EXPECT_EQ(Rows(ds, Tempo("tempo:within(?t, \"[2001-01-01T09:01:03Z,2005-06-01T00:00:00Z]\")")), Lines({}))
      << "ends excluded, instants in whole seconds";
  // Errors: no instant, a reversed interval, within of an instant.
  EXPECT_EQ(Rows(ds, Tempo("tempo:after(?t, \"yesterday\")")), Lines({}));
  EXPECT_EQ(Rows(ds, Tempo("tempo:within(?t, \"[2002-01-01T00:00:00Z,2000-01-01T00:00:00Z]\")")), Lines({}));
  EXPECT_EQ(Rows(ds, Tempo("tempo:within(?t, \"2000-01-01T00:00:00Z\")")), Lines({}));
  EXPECT_EQ(Rows(ds, Tempo("!tempo:after(?t, \"yesterday\")")), Lines({})) << "an error, not false";
  EXPECT_EQ(Rows(ds, Tempo("!tempo:after(?t, \"2000-01-01T00:00:00Z\")")), Lines({":b", ":d"}));
}

TEST(SparqlRyaTest, TextMatchesTheFreeTextGrammar) {
  MemoryDataset ds;
  Load(&ds, kData);
  EXPECT_EQ(Rows(ds, Fts("kafka")), Lines({":a"}));
  EXPECT_EQ(Rows(ds, Fts("stream*")), Lines({":a"})) << "the custom datatype is no indexed text";
  EXPECT_EQ(Rows(ds, Fts("graph OR tables")), Lines({":a", ":b"}));
  EXPECT_EQ(Rows(ds, Fts("store AND NOT kafka")), Lines({":b"}));
  EXPECT_EQ(Rows(ds, Fts("(unclosed")), Lines({})) << "a malformed query is an error";
}

}  // namespace
}  // namespace webindex::sparql
