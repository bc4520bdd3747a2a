// The N-Triples / N-Quads parser against the W3C conformance cases and our own
// (tests/data/ntriples/manifest.txt), canonical serialization and round trips, single terms.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "graph/ntriples.h"
#include "pipeline_harness.h"
#include "seeds.h"

namespace webindex::graph {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Dir() { return testing::TestData("ntriples"); }

struct Case {
  std::string file;
  Syntax syntax = Syntax::kNTriples;
  bool ok = true;
  size_t number = 0;  //!< statements (ok) or the line of the first error
};

std::vector<Case> Manifest() {
  std::vector<Case> cases;
  for (const auto& line : testing::ReadLines(Dir() + "/manifest.txt")) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    Case c;
    std::string syntax, outcome;
    in >> c.file >> syntax >> outcome >> c.number;
    EXPECT_TRUE(in && (syntax == "nt" || syntax == "nq") && (outcome == "ok" || outcome == "error")) << line;
    c.syntax = syntax == "nq" ? Syntax::kNQuads : Syntax::kNTriples;
    c.ok = outcome == "ok";
    cases.push_back(c);
  }
  return cases;
}

std::string Serialize(const std::vector<Statement>& statements, Syntax syntax) {
  std::string out;
  for (const auto& st : statements) out += (syntax == Syntax::kNQuads ? ToNQuads(st) : ToNTriples(st)) + "\n";
  return out;
}

TEST(GraphNTriplesTest, ConformanceCases) {
  const auto cases = Manifest();
  ASSERT_GE(cases.size(), 190u);
  size_t canon_checked = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file + (c.syntax == Syntax::kNQuads ? " as N-Quads" : " as N-Triples"));
    const std::string text = ReadFile(Dir() + "/" + c.file);
    auto parsed = ParseStatements(text, c.syntax);
    if (!c.ok) {
      ASSERT_FALSE(parsed.ok()) << "accepted: " << Serialize(*parsed, c.syntax);
      EXPECT_EQ(parsed.status().code(), Status::Code::kInvalidArgument);
      const std::string& msg = parsed.status().message();
      const std::string want = "line " + std::to_string(c.number);
      EXPECT_TRUE(msg.starts_with(want + ":") || msg.starts_with(want + ",")) << msg;
      EXPECT_GT(msg.size(), want.size() + 4) << "no reason given";
      continue;
    }
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(parsed->size(), c.number);
    // Canonical form parses back to the same statements, and is a fixed point.
    const std::string canonical = Serialize(*parsed, c.syntax);
    auto again = ParseStatements(canonical, c.syntax);
    ASSERT_TRUE(again.ok()) << again.status().message() << "\n" << canonical;
    EXPECT_EQ(*again, *parsed);
    EXPECT_EQ(Serialize(*again, c.syntax), canonical);
    const std::string canon_file = Dir() + "/" + c.file + ".canon";
    if (std::filesystem::exists(canon_file)) {
      EXPECT_EQ(Serialize(*parsed, Syntax::kNQuads), ReadFile(canon_file));
      ++canon_checked;
    }
  }
  EXPECT_GE(canon_checked, 20u);
}

TEST(GraphNTriplesTest, TermsOfEachKind) {
  const std::string s = "<http://a.example/s> <http://a.example/p> ";
  auto parsed = ParseStatements(s + "<http://a.example/o> .\n" + s + "_:b0 .\n" + s + "\"x\" .\n" + s +
                                    "\"x\"@EN-us .\n" + s + "\"5\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
                                Syntax::kNTriples);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 5u);
  const auto& v = *parsed;
  EXPECT_EQ(v[0].subject, Term::Iri("http://a.example/s"));
  EXPECT_EQ(v[0].predicate, Term::Iri("http://a.example/p"));
  EXPECT_EQ(v[0].object, Term::Iri("http://a.example/o"));
  EXPECT_FALSE(v[0].graph.has_value());
  EXPECT_EQ(v[1].object, Term::Blank("b0"));
  EXPECT_EQ(v[2].object, Term::Literal("x"));
  EXPECT_EQ(v[2].object.datatype(), kXsdString);
  EXPECT_EQ(v[3].object, Term::LangLiteral("x", "en-us"));
  EXPECT_EQ(v[3].object.datatype(), kRdfLangString);
  EXPECT_EQ(v[4].object, Term::Literal("5", "http://www.w3.org/2001/XMLSchema#integer"));
}

// A raw NUL byte is a character of a literal like any other (the grammar excludes only '"',
// '\\', LF and CR): a line holding one is read as a stream, the others as C strings, and none is
// read only up to such a byte.
TEST(GraphNTriplesTest, ARawNulByteInALiteralIsPartOfIt) {
  const std::string s = "<http://a.example/s> <http://a.example/p> ";
  const std::string raw("\"a\0b\" .\n", 8);
  auto parsed = ParseStatements(s + raw + s + "\"a\\u0000b\" .\n" + s + "\"ab\" .\n", Syntax::kNTriples);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_EQ((*parsed)[0].object, Term::Literal(std::string("a\0b", 3)));
  EXPECT_EQ((*parsed)[1].object, (*parsed)[0].object);
  EXPECT_EQ((*parsed)[2].object, Term::Literal("ab"));
  // Outside a literal it is no part of the grammar: what follows it is still read.
  auto bad = ParseStatements(s + std::string("<http://a.example/o> .\0 x\n", 27), Syntax::kNTriples);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().message().starts_with("line 1")) << bad.status().message();
}

TEST(GraphNTriplesTest, NQuadsGraphsAndTheDefaultGraph) {
  auto parsed = ParseStatements(
      "<http://a.example/s> <http://a.example/p> \"x\" <http://a.example/g> .\n"
      "<http://a.example/s> <http://a.example/p> \"x\" .\n"
      "<http://a.example/s> <http://a.example/p> \"x\" _:g .\n",
      Syntax::kNQuads);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_EQ((*parsed)[0].graph, Term::Iri("http://a.example/g"));
  EXPECT_FALSE((*parsed)[1].graph.has_value());
  EXPECT_EQ((*parsed)[2].graph, Term::Blank("g"));
  EXPECT_NE((*parsed)[0], (*parsed)[1]);
  EXPECT_EQ(ToNQuads((*parsed)[0]), "<http://a.example/s> <http://a.example/p> \"x\" <http://a.example/g> .");
  EXPECT_EQ(ToNQuads((*parsed)[1]), "<http://a.example/s> <http://a.example/p> \"x\" .");
}

TEST(GraphNTriplesTest, ABadLineRejectsTheWholeTextAndNamesItsLine) {
  StatementParser parser(Syntax::kNTriples);
  std::vector<Statement> out;
  ASSERT_TRUE(parser.Parse("<http://a.example/s> <http://a.example/p> \"kept\" .\n", &out).ok());
  ASSERT_EQ(out.size(), 1u);
  const Status st = parser.Parse(
      "<http://a.example/s> <http://a.example/p> \"1\" .\r\n# comment\r\n\r\n"
      "<http://a.example/s> <http://a.example/p> \"2\\q\" .\r\n<http://a.example/s> <http://a.example/p> \"3\" .\r\n",
      &out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "line 4, column 46: invalid escape `\\q'");
  EXPECT_EQ(out.size(), 1u) << "a failed parse appends nothing";
  // The parser is reusable after an error.
  ASSERT_TRUE(parser.Parse("<http://a.example/s> <http://a.example/p> \"4\" .", &out).ok());
  EXPECT_EQ(out.size(), 2u);
  // A part of a larger file numbers lines from its own first line.
  EXPECT_EQ(parser.Parse("\n<http://a.example/s> <http://a.example/p> .\n", &out, 1001).message(),
            "line 1002, column 43: expected: ':', '<', or '_'");
}

// Text after a statement's final '.' other than spaces, tabs and a comment makes the whole text
// invalid, with the line and the column where that text starts (serd's N-Quads reader stops at it
// without a word, taking it for the start of the next statement).
TEST(GraphNTriplesTest, TextAfterTheFinalDotRejectsTheWholeText) {
  const std::string s = "<http://a.example/s> <http://a.example/p> ";
  struct Bad {
    std::string line;
    std::string from;  //!< the text after the statement (its last occurrence in `line`)
    std::string reason;
  };
  const std::string after = "text after the statement's final '.'";
  const std::vector<Bad> cases = {
      {s + "<http://a.example/o> . extra .", "extra", after},
      {s + "<http://a.example/o> .zz", "zz", after},
      {s + "<http://a.example/o> . .", ".", after},
      {s + "<http://a.example/o> . \"x\"", "\"x\"", after},
      {s + "<http://a.example/o> . <http://a.example/a> <http://a.example/b> <http://a.example/c> .",
       "<http://a.example/a>", "more than one statement on a line"},
      {s + "\"a \\\" . b\"@en-us . c", "c", after},
      {s + "\"5\"^^<http://www.w3.org/2001/XMLSchema#integer> . <", "<", after},
      {s + "_:b.<http://a.example/zz>", "<", after},
      {s + "_:b. zz", "zz", after},
      {s + "_:b.c . _:d", "_:d", after},
      {s + "<http://a.example/o> <http://a.example/g> . x # c", "x #", after},
      {s + std::string("\"a\0b\" . zz", 11), "zz", after},  // read as a stream
  };
  StatementParser parser(Syntax::kNQuads);
  std::vector<Statement> out;
  for (const Bad& c : cases) {
    SCOPED_TRACE(c.line);
    // On the second line of a record, after a good one: nothing of the record is kept.
    const Status st = parser.Parse(s + "\"kept\" .\r\n" + c.line + "\n" + s + "\"later\" .\n", &out);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.message(), "line 2, column " + std::to_string(c.line.rfind(c.from) + 1) + ": " + c.reason);
    EXPECT_TRUE(out.empty());
    // serd's N-Triples reader reports most of these itself, some in other words.
    const auto nt = ParseStatements(c.line, Syntax::kNTriples);
    ASSERT_FALSE(nt.ok());
    EXPECT_TRUE(nt.status().message().starts_with("line 1")) << nt.status().message();
  }
  // Spaces, tabs and a comment after the '.' are no statement.
  for (const Syntax syntax : {Syntax::kNQuads, Syntax::kNTriples}) {
    auto ok = ParseStatements(
        s + "<http://a.example/o> . # a comment . <x>\n" + s + "\"x\" .\t \n" + s + "_:b.# c\n" + s + "\"y\"@en.\n",
        syntax);
    ASSERT_TRUE(ok.ok()) << ok.status().message();
    EXPECT_EQ(ok->size(), 4u);
  }
}

// serd speaks of Turtle's ';' and of the end of a file; a user reads about the one line.
TEST(GraphNTriplesTest, ErrorsSpeakOfTheLineNotOfTurtle) {
  const std::string spo = "<http://a/s> <http://a/p> <http://a/o>";
  EXPECT_EQ(ParseStatements(spo + " <http://a/g> .", Syntax::kNTriples).status().message(),
            "line 1, column 40: expected the statement's final '.' here");
  EXPECT_EQ(ParseStatements(spo, Syntax::kNTriples).status().message(),
            "line 1, column 39: the line ends before the statement's final '.'");
  EXPECT_EQ(ParseStatements(spo, Syntax::kNQuads).status().message(),
            "line 1, column 39: the line ends before the statement's final '.'");
  EXPECT_EQ(ParseStatements(spo + " <http://a/g> <http://a/h> .", Syntax::kNQuads).status().message(),
            "line 1, column 53: expected `.', not `<'");
}

TEST(GraphNTriplesTest, RdfTermEquality) {
  auto term = [](std::string_view text) {
    auto t = ParseTerm(text);
    EXPECT_TRUE(t.ok()) << text << ": " << t.status().message();
    return t.ok() ? *t : Term();
  };
  EXPECT_EQ(term("\"a\""), term("\"a\"^^<http://www.w3.org/2001/XMLSchema#string>"));
  EXPECT_EQ(term("\"a\"@EN"), term("\"a\"@en"));
  EXPECT_NE(term("\"a\""), term("\"a\"@en"));
  EXPECT_NE(term("\"01\"^^<http://www.w3.org/2001/XMLSchema#integer>"),
            term("\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>"));
  EXPECT_NE(term("<http://a.example/x>"), term("\"http://a.example/x\""));
  EXPECT_NE(term("<http://a.example/x>"), term("<http://a.example/X>"));
  EXPECT_EQ(term("<http://a.example/\\u0078>"), term("<http://a.example/x>"));
}

TEST(GraphNTriplesTest, ParseTermAndParseIri) {
  auto iri = ParseTerm("  <http://a.example/x>\t");
  ASSERT_TRUE(iri.ok());
  EXPECT_EQ(*iri, Term::Iri("http://a.example/x"));
  EXPECT_EQ(*ParseTerm("\"caf\\u00E9\"@fr"), Term::LangLiteral("caf\xc3\xa9", "fr"));
  EXPECT_EQ(*ParseTerm("_:n1"), Term::Blank("n1"));
  for (std::string_view bad :
       {"", "http://a.example/x", "<relative>", "<http://a.example/x> <http://a.example/y>", "\"a\" \"b\"", "\"open",
        "<http://a.example/x> .", "\"a\"\n", "\"a\" # c",
        "<http://a.example/x> . <http://a.example/s> <http://a.example/p> \"b\"", "'a'", "\"a\"^^xsd:string", "5"}) {
    auto t = ParseTerm(bad);
    EXPECT_FALSE(t.ok()) << "accepted [" << bad << "] as " << ToNTriples(*t);
    if (!t.ok()) {
      EXPECT_EQ(t.status().code(), Status::Code::kInvalidArgument);
    }
  }
  EXPECT_EQ(ParseTerm("\"open").status().message().find("bad term \"open: "), 0u)
      << ParseTerm("\"open").status().message();

  EXPECT_EQ(*ParseIri("http://a.example/g"), Term::Iri("http://a.example/g"));
  EXPECT_EQ(*ParseIri("<http://a.example/g>"), Term::Iri("http://a.example/g"));
  for (std::string_view bad : {"", "\"lit\"", "_:b", "relative", "http://a.example/ x", "http://a.example/>x",
                               "http://a.example/x> <http://a.example/y"}) {
    EXPECT_FALSE(ParseIri(bad).ok()) << bad;
  }
}

TEST(GraphNTriplesTest, CanonicalFormOfConstructedTerms) {
  EXPECT_EQ(ToNTriples(Term::Iri("http://a.example/a b>")), "<http://a.example/a\\u0020b\\u003E>");
  EXPECT_EQ(ToNTriples(Term::Literal(std::string("q\"\\\x7f\x01\t\n\r", 8))), "\"q\\\"\\\\\\u007F\\u0001\\t\\n\\r\"");
  EXPECT_EQ(ToNTriples(Term::Literal("1", "http://www.w3.org/2001/XMLSchema#integer")),
            "\"1\"^^<http://www.w3.org/2001/XMLSchema#integer>");
  EXPECT_EQ(ToNTriples(Term::LangLiteral("x", "DE-ch")), "\"x\"@de-ch");
  EXPECT_EQ(ToNTriples(Term::Blank("b")), "_:b");
  // Round trip of a literal holding every control character and a NUL.
  std::string all;
  for (int c = 0; c < 0x20; ++c) all.push_back(static_cast<char>(c));
  all += "\x7f\xc3\xa9";
  auto back = ParseTerm(ToNTriples(Term::Literal(all)));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, Term::Literal(all));
}

TEST(GraphNTriplesTest, ValidateStatement) {
  const Term iri = Term::Iri("http://a.example/x");
  EXPECT_TRUE(ValidateStatement({iri, iri, Term::Literal("l"), std::nullopt}).ok());
  EXPECT_TRUE(ValidateStatement({Term::Blank("b"), iri, iri, Term::Blank("g")}).ok());
  EXPECT_FALSE(ValidateStatement({Term::Literal("l"), iri, iri, std::nullopt}).ok());
  EXPECT_FALSE(ValidateStatement({iri, Term::Blank("b"), iri, std::nullopt}).ok());
  EXPECT_FALSE(ValidateStatement({iri, iri, iri, Term::Literal("g")}).ok());
  EXPECT_FALSE(ValidateStatement({Term::Iri(""), iri, iri, std::nullopt}).ok());
  EXPECT_FALSE(ValidateStatement({iri, iri, Term::Literal("x", std::string(kRdfLangString)), std::nullopt}).ok());
  // What could not be printed as N-Triples that parse back.
  for (const char* bad_iri : {"relative", "1http://a", ":x", "http://a.example/a b", "http://a.example/{x}",
                              "http://a.example/<", "http://a.example/\\", "http://a.example/\xc3"}) {
    EXPECT_FALSE(ValidateStatement({Term::Iri(bad_iri), iri, iri, std::nullopt}).ok()) << bad_iri;
  }
  for (const char* bad_label : {"", "a b", "a.", ".a", "-a", "a:b", "a/b"}) {
    EXPECT_FALSE(ValidateStatement({Term::Blank(bad_label), iri, iri, std::nullopt}).ok()) << bad_label;
  }
  for (const char* bad_tag : {"en_US", "en-", "-en", "e1", "en--us", "en us"}) {
    EXPECT_FALSE(ValidateStatement({iri, iri, Term::LangLiteral("x", bad_tag), std::nullopt}).ok()) << bad_tag;
  }
  EXPECT_FALSE(ValidateStatement({iri, iri, Term::Literal("\xff"), std::nullopt}).ok());
  EXPECT_FALSE(ValidateStatement({iri, iri, Term::Literal("x", "xsd:integer x"), std::nullopt}).ok());
  EXPECT_TRUE(ValidateStatement({Term::Blank("a.b-c_1\xc3\xa9"), Term::Iri("urn:x-y.z+w:p"),
                                 Term::LangLiteral("x", "de-CH-1996"), std::nullopt})
                  .ok());
}

TEST(GraphNTriplesTest, Utf8Validation) {
  EXPECT_TRUE(IsValidUtf8("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xc3"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xe2\x82"));
  // ASCII runs before the first other byte, ending at, before and past an eight-byte word.
  EXPECT_TRUE(IsValidUtf8("http://example.org/caf\xc3\xa9/x"));
  EXPECT_FALSE(IsValidUtf8("http://example.org/\xc3"));
  EXPECT_FALSE(IsValidUtf8("abcdefgh\xed\xa0\x80"));
  EXPECT_FALSE(IsValidUtf8("abcdefg\xed\xa0\x80"));
  EXPECT_FALSE(IsValidUtf8("abcdefghi\x80"));
  EXPECT_TRUE(IsValidUtf8("abcdefghijklmnop"));
}

//! Well-formed UTF-8 by the Unicode Standard's table of well-formed byte sequences (Table 3-7),
//! one sequence at a time: the reference the validator is held to.
bool WellFormedByTable(std::string_view s) {
  struct Row {
    unsigned char first_lo, first_hi, second_lo, second_hi;
    int length;
  };
  static constexpr Row kRows[] = {
      {0x00, 0x7f, 0, 0, 1},       {0xc2, 0xdf, 0x80, 0xbf, 2}, {0xe0, 0xe0, 0xa0, 0xbf, 3},
      {0xe1, 0xec, 0x80, 0xbf, 3}, {0xed, 0xed, 0x80, 0x9f, 3}, {0xee, 0xef, 0x80, 0xbf, 3},
      {0xf0, 0xf0, 0x90, 0xbf, 4}, {0xf1, 0xf3, 0x80, 0xbf, 4}, {0xf4, 0xf4, 0x80, 0x8f, 4}};
  size_t i = 0;
  while (i < s.size()) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const Row* row = nullptr;
    for (const Row& r : kRows) {
      if (b(0) >= r.first_lo && b(0) <= r.first_hi) row = &r;
    }
    if (row == nullptr || i + static_cast<size_t>(row->length) > s.size()) return false;
    if (row->length > 1 && (b(1) < row->second_lo || b(1) > row->second_hi)) return false;
    for (int k = 2; k < row->length; ++k) {
      if (b(static_cast<size_t>(k)) < 0x80 || b(static_cast<size_t>(k)) > 0xbf) return false;
    }
    i += static_cast<size_t>(row->length);
  }
  return true;
}

// Random byte strings made of the bytes where UTF-8's rules change, short and long (the
// validator works on blocks of 32 or 64 bytes), each judged like the table judges it.
TEST(GraphNTriplesTest, Utf8ValidationAgreesWithTheStandardsTable) {
  static constexpr unsigned char kBytes[] = {'a',  0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1,
                                             0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3,
                                             0xf4, 0xf5, 0xff};
  for (const uint64_t seed : testing::RandomTestSeeds({1, 2})) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " (WEBINDEX_SEEDS=" + std::to_string(seed) + ")");
    std::cout << "utf-8 seed " << seed << std::endl;
    std::mt19937_64 rng(seed);
    size_t valid = 0;
    for (int n = 0; n < 200000; ++n) {
      const size_t length = n % 10 == 0 ? 40 + rng() % 120 : rng() % 9;
      std::string s;
      for (size_t i = 0; i < length; ++i) {
        // Long strings: mostly text, where a stray byte must still be found.
        s.push_back(length > 16 && rng() % 8 != 0 ? static_cast<char>('a' + rng() % 26)
                                                  : static_cast<char>(kBytes[rng() % std::size(kBytes)]));
      }
      const bool expected = WellFormedByTable(s);
      valid += expected;
      ASSERT_EQ(IsValidUtf8(s), expected) << ::testing::PrintToString(s);
    }
    EXPECT_GT(valid, 10000u);  // both answers are well represented
  }
}

}  // namespace
}  // namespace webindex::graph
