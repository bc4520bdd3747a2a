// Row keys of the graph store: the byte order of encoded terms is Term order, encodings end
// themselves and decode back, and each index orders a statement's terms as it should.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "graph/key_codec.h"

namespace webindex::graph {
namespace {

//! Short strings over a tiny alphabet with NUL and 0xFF, so that prefixes and escapes collide.
std::string RandomText(std::mt19937_64& rng) {
  static const char kChars[] = {'\0', '\x01', 'a', 'b', '\xff'};
  std::string s;
  for (size_t n = rng() % 4; n > 0; --n) s.push_back(kChars[rng() % sizeof kChars]);
  return s;
}

Term RandomTerm(std::mt19937_64& rng) {
  switch (rng() % 5) {
    case 0:
      return Term::Iri(RandomText(rng));
    case 1:
      return Term::Blank(RandomText(rng));
    case 2:
      return Term::Literal(RandomText(rng));
    case 3:
      return Term::LangLiteral(RandomText(rng), rng() % 2 ? "en" : "en-gb");
    default:
      return Term::Literal(RandomText(rng), rng() % 2 ? "b" : "b\xff");
  }
}

TEST(GraphKeyTest, ByteOrderIsTermOrder) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const Term a = RandomTerm(rng), b = RandomTerm(rng);
    std::string ka, kb;
    AppendTerm(a, &ka);
    AppendTerm(b, &kb);
    SCOPED_TRACE(ToNTriples(a) + " vs " + ToNTriples(b));
    EXPECT_EQ(ka < kb, a < b);
    EXPECT_EQ(ka == kb, a == b);
    // Self-delimiting: a term followed by more bytes still compares as the term first.
    EXPECT_EQ((ka + "\x04z") < (kb + "\x02"), a < b);
  }
}

TEST(GraphKeyTest, TermsAndGraphsDecodeBack) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 5000; ++i) {
    const Term t = RandomTerm(rng);
    const std::optional<Term> g = rng() % 3 ? std::optional<Term>(Term::Iri(RandomText(rng))) : std::nullopt;
    std::string key;
    AppendGraph(g, &key);
    AppendTerm(t, &key);
    key += "rest";
    std::string_view in = key;
    std::optional<Term> g2;
    Term t2;
    ASSERT_TRUE(ReadGraph(&in, &g2));
    ASSERT_TRUE(ReadTerm(&in, &t2));
    EXPECT_EQ(g2, g);
    EXPECT_EQ(t2, t);
    EXPECT_EQ(in, "rest");
  }
  std::string_view truncated =
      "\x02"
      "abc\0";
  Term t;
  EXPECT_FALSE(ReadTerm(&truncated, &t));
}

TEST(GraphKeyTest, IndexesOrderTheTermsOfAStatement) {
  const Statement st{Term::Iri("s"), Term::Iri("p"), Term::Literal("o"), Term::Iri("g")};
  const KeySpace space;
  for (Index index : kIndexes) {
    const std::string key = RowKey(space, index, st);
    ASSERT_TRUE(key.starts_with(space.prefix + static_cast<char>(index)));
    Statement back;
    ASSERT_TRUE(DecodeRowKey(std::string_view(key).substr(space.prefix.size() + 1), index, &back));
    EXPECT_EQ(back, st);
    const auto order = IndexOrder(index);
    std::string want;
    AppendGraph(st.graph, &want);
    const Term* terms[3] = {&st.subject, &st.predicate, &st.object};
    for (int pos : order) AppendTerm(*terms[pos], &want);
    EXPECT_EQ(key.substr(space.prefix.size() + 1), want);
  }
  EXPECT_NE(RowKey(space, Index::kSpo, st), RowKey(space, Index::kPos, st));
  Statement in_default = st;
  in_default.graph.reset();
  EXPECT_LT(RowKey(space, Index::kSpo, in_default), RowKey(space, Index::kSpo, st));
}

TEST(GraphKeyTest, PrefixEnd) {
  EXPECT_EQ(PrefixEnd("ab"), "ac");
  EXPECT_EQ(PrefixEnd(std::string("a\xff\xff")), "b");
  EXPECT_EQ(PrefixEnd(std::string("\xff")), "");
  const std::string p = std::string("\xff") + "g\x01";
  EXPECT_GT(PrefixEnd(p), p + std::string(100, '\xff'));
}

}  // namespace
}  // namespace webindex::graph
