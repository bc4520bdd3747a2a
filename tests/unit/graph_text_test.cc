// The free-text index (docs/graph.md, "Free-text index"): tokens, the query grammar and its
// errors, and searches on a real RocksDB store against an independent evaluator of random query
// trees over an in-memory set of statements (adds, removes, named graphs, predicates, wildcards,
// NOT anywhere, cursor paging). WEBINDEX_SEEDS="1,2,3" picks seeds, WEBINDEX_RANDOM_RUNS=N adds
// N fresh ones; every seed is printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <random>
#include <set>

#include "graph/graph_update.h"
#include "graph/text_index.h"
#include "graph/text_query.h"
#include "pipeline_harness.h"
#include "seeds.h"

namespace webindex::graph {
namespace {

using Strings = std::vector<std::string>;

TEST(TextTokensTest, LettersAndDigitsLowercasedWithoutStopWords) {
  EXPECT_EQ(Tokenize("The Quick-brown FOX, naïve ÉCOLE 42x the fox"),
            (Strings{"42x", "brown", "fox", "naïve", "quick", "école"}));
  EXPECT_EQ(Tokenize("it is what it is"), Strings{"what"});
  EXPECT_EQ(Tokenize("東京 タワー"), (Strings{"タワー", "東京"}));
  EXPECT_EQ(Tokenize("x\xff" "y"), (Strings{"x", "y"}));  // invalid UTF-8 separates
  EXPECT_EQ(Words("The cat-and-dog"), (Strings{"the", "cat", "and", "dog"}));
  for (const char* w : {"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
                        "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
                        "these", "they", "this", "to", "was", "will", "with"}) {
    EXPECT_TRUE(IsStopWord(w)) << w;
  }
  EXPECT_FALSE(IsStopWord("cat"));
  EXPECT_FALSE(IsStopWord("The"));  // stop words are matched after lowercasing
  EXPECT_TRUE(IsTextLiteral(Term::Literal("x")));
  EXPECT_TRUE(IsTextLiteral(Term::LangLiteral("x", "en")));
  EXPECT_FALSE(IsTextLiteral(Term::Literal("5", "http://www.w3.org/2001/XMLSchema#integer")));
  EXPECT_FALSE(IsTextLiteral(Term::Iri("http://x.example/")));
}

std::string Parsed(std::string_view q) {
  auto node = ParseTextQuery(q);
  return node.ok() ? ToString(*node) : "error: " + node.status().message();
}

TEST(TextQueryTest, GrammarAndPrecedence) {
  EXPECT_EQ(Parsed("cat"), "cat");
  EXPECT_EQ(Parsed("Cat dog | bird"), "((cat AND dog) OR bird)");
  EXPECT_EQ(Parsed("cat AND NOT dog OR !bird"), "((cat AND (NOT dog)) OR (NOT bird))");
  EXPECT_EQ(Parsed("cat && dog || bird & fish"), "((cat AND dog) OR (bird AND fish))");
  EXPECT_EQ(Parsed("cat&dog|bird"), "((cat AND dog) OR bird)");
  EXPECT_EQ(Parsed("cat (dog OR bird)"), "(cat AND (dog OR bird))");
  EXPECT_EQ(Parsed("NOT NOT cat"), "(NOT (NOT cat))");
  EXPECT_EQ(Parsed("!(dog | bird) cat"), "((NOT (dog OR bird)) AND cat)");
  EXPECT_EQ(Parsed("e-mail"), "(e AND mail)");
  EXPECT_EQ(Parsed("don!t"), "(don AND t)");  // '!' only negates at the start of a word
  EXPECT_EQ(Parsed("the cat of the town"), "(cat AND town)");
  EXPECT_EQ(Parsed("cat and dog"), "(cat AND dog)");  // lower-case "and" is a stop word
  EXPECT_EQ(Parsed("cat OR the"), "cat");
  EXPECT_EQ(Parsed("NOT (a OR dog) cat"), "((NOT dog) AND cat)");
  EXPECT_EQ(Parsed("Cat* *DOG"), "(cat* AND *dog)");
  EXPECT_EQ(Parsed("the*"), "the*");  // a wildcard is kept: "theory" has no stop word in it
}

TEST(TextQueryTest, ErrorsSayWhatAndWhere) {
  EXPECT_EQ(Parsed(""), "error: query: it is empty; give words to look for");
  EXPECT_EQ(Parsed("cat AND"), "error: query: 'AND' needs a term after it at character 5");
  EXPECT_EQ(Parsed("OR cat"), "error: query: 'OR' needs a term before it at character 1");
  EXPECT_EQ(Parsed("(cat"), "error: query: '(' without a matching ')' at character 1");
  EXPECT_EQ(Parsed("cat)"), "error: query: ')' without a matching '(' at character 4");
  EXPECT_EQ(Parsed("éé AND )"), "error: query: 'AND' needs a term after it at character 4");  // characters, not bytes
  EXPECT_EQ(Parsed("cat !"), "error: query: '!' needs a term after it at character 5");
  EXPECT_EQ(Parsed("ca*t"), "error: query: 'ca*t': a wildcard is '*' at the start or the end of a word at character 1");
  EXPECT_EQ(Parsed("dog *cat*"),
            "error: query: '*cat*': a wildcard term is one word with '*' at its start or its end at character 5");
  EXPECT_EQ(Parsed("e-mail*"),
            "error: query: 'e-mail*': a wildcard term is one word with '*' at its start or its end at character 1");
  EXPECT_EQ(Parsed("*"), "error: query: '*': a wildcard is '*' at the start or the end of a word at character 1");
  EXPECT_EQ(Parsed("the OF and"), "error: query: no word is left to look for; stop words (the, of, and, ...) are "
                                  "not indexed");
  EXPECT_EQ(Parsed("NOT cat"), "error: query: it only excludes words; add a word to look for");
  EXPECT_EQ(Parsed("!cat | !dog"), "error: query: it only excludes words; add a word to look for");
  std::string many;
  for (int i = 0; i < 100; ++i) many += "w" + std::to_string(i) + " ";
  EXPECT_EQ(Parsed(many).rfind("error", 0), std::string::npos);
  EXPECT_EQ(Parsed(many + "extra"), "error: query: more than 100 terms; a query has at most 100 at character 391");
}

// ---- searches on a store ----

//! A query tree of the randomized test, rendered as text and evaluated on its own.
struct RNode {
  enum Kind { kWord, kPrefix, kSuffix, kAnd, kOr, kNot } kind = kWord;
  std::string word;
  std::vector<RNode> children;
};

bool Evaluate(const RNode& n, const std::set<std::string>& tokens) {
  switch (n.kind) {
    case RNode::kWord:
      return tokens.count(n.word) > 0;
    case RNode::kPrefix:
      return std::any_of(tokens.begin(), tokens.end(), [&](const std::string& t) { return t.rfind(n.word, 0) == 0; });
    case RNode::kSuffix:
      return std::any_of(tokens.begin(), tokens.end(), [&](const std::string& t) {
        return t.size() >= n.word.size() && t.compare(t.size() - n.word.size(), n.word.size(), n.word) == 0;
      });
    case RNode::kAnd:
      return std::all_of(n.children.begin(), n.children.end(), [&](const RNode& c) { return Evaluate(c, tokens); });
    case RNode::kOr:
      return std::any_of(n.children.begin(), n.children.end(), [&](const RNode& c) { return Evaluate(c, tokens); });
    case RNode::kNot:
      return !Evaluate(n.children.front(), tokens);
  }
  return false;
}

bool Positive(const RNode& n, bool negated) {
  if (n.kind == RNode::kNot) return Positive(n.children.front(), !negated);
  if (n.kind == RNode::kAnd || n.kind == RNode::kOr) {
    return std::any_of(n.children.begin(), n.children.end(), [&](const RNode& c) { return Positive(c, negated); });
  }
  return !negated;
}

//! The literal's tokens as docs/graph.md defines them, for the ASCII texts of this test.
std::set<std::string> ReferenceTokens(const std::string& text) {
  static const std::set<std::string> kStop = {"a",   "an",    "and",  "are",   "as",    "at",   "be",
                                              "but", "by",    "for",  "if",    "in",    "into", "is",
                                              "it",  "no",    "not",  "of",    "on",    "or",   "such",
                                              "that", "the",  "their", "then", "there", "these", "they",
                                              "this", "to",   "was",  "will",  "with"};
  std::set<std::string> out;
  std::string word;
  for (const char c : text + " ") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      if (!word.empty() && !kStop.count(word)) out.insert(word);
      word.clear();
    }
  }
  return out;
}

class TextIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir("webindex-text");
    auto store = state::Store::Open(dir_, state::StoreOptions{.sync_commits = false});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  //! Records `indexes` as a generation's set-up does: searches read postings by predicate when
  //! the record says they are kept.
  void Record(const IndexSet& indexes) {
    state::WriteBatch batch(*store_);
    RecordIndexes(indexes, &batch);
    EXPECT_TRUE(store_->Write(batch).ok());
  }

  void Apply(const IndexSet& indexes, const std::vector<std::pair<bool, Statement>>& ops) {
    GraphUpdate update({}, indexes);
    for (const auto& [add, st] : ops) EXPECT_TRUE((add ? update.Add(st) : update.Remove(st)).ok());
    state::WriteBatch batch(*store_);
    auto result = update.Apply(*store_, batch);
    EXPECT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_TRUE(store_->Write(batch).ok());
  }

  Result<std::vector<Statement>> Paged(const TextSearch& search, size_t limit) {
    auto snap = store_->GetSnapshot();
    TextReader reader(*store_, snap.get());
    std::vector<Statement> all;
    std::string cursor;
    while (true) {
      ASSIGN_OR_RETURN(Page page, reader.Query(search, limit, cursor));
      all.insert(all.end(), page.statements.begin(), page.statements.end());
      if (!page.next) break;
      EXPECT_EQ(page.statements.size(), limit);
      cursor = *page.next;
    }
    return all;
  }

  std::vector<Statement> Search(std::string_view q, std::string_view p = "", std::string_view graph = "") {
    auto search = ParseTextSearch(q, p, graph);
    EXPECT_TRUE(search.ok()) << search.status().ToString();
    if (!search.ok()) return {};
    auto found = Paged(*search, 100);
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    return found.ok() ? std::move(found).value() : std::vector<Statement>{};
  }

  //! The rows of one kind (postings: kTextRows, kTextByPredicateRows; the graphs' word lists:
  //! kTextReversedRows).
  size_t TextRows(char kind = kTextRows) {
    size_t n = 0;
    const KeySpace space;
    auto it = store_->NewIterator(space.family);
    for (it->Seek(space.prefix); it->Valid() && it->key().starts_with(space.prefix); it->Next()) {
      n += it->key()[space.prefix.size()] == kind;
    }
    return n;
  }

  std::string dir_;
  std::unique_ptr<state::Store> store_;
};

Term Iri(const std::string& s) { return Term::Iri("http://t.example/" + s); }

TEST_F(TextIndexTest, FindsPlainStringLiteralsOnly) {
  const IndexSet indexes{.freetext = true};
  const Statement hello{Iri("a"), Iri("label"), Term::LangLiteral("Hello, World of Tokens", "en"), std::nullopt};
  const Statement plain{Iri("b"), Iri("comment"), Term::Literal("hello again"), std::nullopt};
  const Statement number{Iri("c"), Iri("label"), Term::Literal("hello", "http://www.w3.org/2001/XMLSchema#token"),
                         std::nullopt};
  const Statement named{Iri("d"), Iri("label"), Term::Literal("hello world"), Iri("g")};
  Apply(indexes, {{true, hello}, {true, plain}, {true, number}, {true, named}});
  EXPECT_EQ(TextRows(), 3u + 2 + 2);  // hello world tokens / hello again / hello world
  EXPECT_EQ(TextRows(kTextReversedRows), 4u + 2);  // the default graph's 4 words, g's 2

  using V = std::vector<Statement>;
  EXPECT_EQ(Search("HELLO"), (V{hello, plain}));
  EXPECT_EQ(Search("hello world"), V{hello});
  EXPECT_EQ(Search("hello NOT world"), V{plain});
  EXPECT_EQ(Search("wor*"), V{hello});
  EXPECT_EQ(Search("*ORLD"), V{hello});
  EXPECT_EQ(Search("*ens | again"), (V{hello, plain}));
  EXPECT_EQ(Search("hello", "http://t.example/comment"), V{plain});
  EXPECT_EQ(Search("hello", "", "http://t.example/g"), V{named});
  EXPECT_EQ(Search("world", "", "all"), (V{hello, named}));
  EXPECT_EQ(Search("hello OR NOT world", "", "all"), (V{hello, plain, named}));
  EXPECT_EQ(Search("nothing*"), V{});

  Apply(indexes, {{false, hello}, {false, plain}, {false, number}, {false, named}});
  EXPECT_EQ(TextRows(), 0u);
  EXPECT_EQ(TextRows(kTextReversedRows), 4u + 2);  // words stay listed, as in Rya's term list
  EXPECT_EQ(Search("hello", "", "all"), V{});
  EXPECT_EQ(Search("*orld", "", "all"), V{});
  EXPECT_EQ(Search("*ens | *ain | wor*", "", "all"), V{});
  Apply(indexes, {{true, plain}});  // a word listed again: one row still
  EXPECT_EQ(TextRows(kTextReversedRows), 4u + 2);
  EXPECT_EQ(Search("*ain", "", "all"), V{plain});
}

// Rows of the word list written by versions that kept one per statement and word (the word
// spelled backwards, then the statement) serve suffix wildcards as the word list does, whether
// the statement is still there or not.
TEST_F(TextIndexTest, WordListRowsOfTheFormerLayoutServeSuffixWildcards) {
  const Statement hello{Iri("a"), Iri("label"), Term::Literal("hello world"), std::nullopt};
  const Statement gone{Iri("b"), Iri("label"), Term::Literal("old world"), std::nullopt};
  Apply({.freetext = true}, {{true, hello}, {true, gone}});
  Apply({.freetext = true}, {{false, gone}});
  // The former layout: the word list's rows are removed, and written again per statement.
  const KeySpace space;
  state::WriteBatch batch(*store_);
  auto it = store_->NewIterator(space.family);
  const std::string words = space.prefix + kTextReversedRows;
  for (it->Seek(words); it->Valid() && it->key().starts_with(words); it->Next()) {
    batch.Delete(space.family, it->key());
  }
  for (const Statement* st : {&hello, &gone}) {
    for (const std::string word : {"hello", "world", "old"}) {
      if (st->object.value().find(word) == std::string::npos) continue;
      std::string key = words;
      AppendGraph(st->graph, &key);
      AppendKeyString(Reversed(word), &key);
      AppendTextStatement(*st, &key);
      batch.Put(space.family, key, "");
    }
  }
  ASSERT_TRUE(store_->Write(batch).ok());
  ASSERT_EQ(TextRows(kTextReversedRows), 4u);  // hello and world of `hello`, old and world of `gone`

  using V = std::vector<Statement>;
  EXPECT_EQ(Search("*orld"), V{hello});
  EXPECT_EQ(Search("*ld"), V{hello});
  EXPECT_EQ(Search("*llo world"), V{hello});
}

TEST_F(TextIndexTest, WildcardsStandForAtMostTenThousandWords) {
  std::string text;
  for (size_t i = 0; i <= kMaxWildcardTokens; ++i) text += "w" + std::to_string(100000 + i) + " ";
  Apply({.freetext = true}, {{true, {Iri("a"), Iri("label"), Term::Literal(text), std::nullopt}}});
  auto search = ParseTextSearch("w*", "", "");
  ASSERT_TRUE(search.ok());
  auto wide = Paged(*search, 10);
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.status().message(), "query: 'w*' stands for more than 10000 words; make it longer");
  EXPECT_EQ(Search("w1000*").size(), 1u);
}

// Long literals are named by a digest in the free-text rows (their tokens times their length
// would be the index's size); searches resolve them through the statement rows, page through
// them and forget them when they are removed.
TEST_F(TextIndexTest, LongLiteralsAreFoundThroughTheirDigest) {
  const IndexSet indexes{.freetext = true};
  std::string filler;
  for (int i = 0; i < 40; ++i) filler += " word" + std::to_string(i);
  const Statement short_one{Iri("a"), Iri("text"), Term::Literal("needle in short"), std::nullopt};
  const Statement long_one{Iri("a"), Iri("text"), Term::Literal("needle at the start" + filler), std::nullopt};
  const Statement long_two{Iri("a"), Iri("text"), Term::LangLiteral("another needle" + filler, "en"), std::nullopt};
  const Statement long_other{Iri("b"), Iri("text"), Term::Literal("no match here" + filler), std::nullopt};
  Apply(indexes, {{true, short_one}, {true, long_one}, {true, long_two}, {true, long_other}});
  std::string spo;
  AppendTextStatement(long_one, &spo);
  EXPECT_LT(spo.size(), 80u);  // the object is 9 bytes there

  // Short objects first, in term order; then the long ones of the same subject and predicate.
  const auto found = Search("needle");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0], short_one);
  EXPECT_EQ((std::set<Statement>{found[1], found[2]}), (std::set<Statement>{long_one, long_two}));
  auto search = ParseTextSearch("needle", "", "");
  ASSERT_TRUE(search.ok());
  for (size_t limit = 1; limit <= 3; ++limit) {
    auto paged = Paged(*search, limit);
    ASSERT_TRUE(paged.ok()) << paged.status().ToString();
    EXPECT_EQ(*paged, found) << "limit " << limit;
  }
  EXPECT_EQ(Search("word39 NOT needle"), std::vector<Statement>{long_other});
  EXPECT_EQ(Search("another word7"), std::vector<Statement>{long_two});
  EXPECT_EQ(Search("needle OR NOT needle").size(), 4u);

  Apply(indexes, {{false, long_one}, {false, long_two}, {false, long_other}});
  EXPECT_EQ(Search("needle"), std::vector<Statement>{short_one});
  EXPECT_EQ(TextRows(), 2u);  // needle, short
}

// A search with a predicate reads the postings of that predicate (rows 09), written and deleted
// with the graph's (rows 07): with the graph's gone, it answers alone.
TEST_F(TextIndexTest, SearchesOfAPredicateReadItsPostings) {
  const IndexSet indexes{.freetext = true};
  Record(indexes);
  std::string filler;
  for (int i = 0; i < 20; ++i) filler += " word" + std::to_string(i);
  const Statement a{Iri("a"), Iri("label"), Term::Literal("Kafka rank"), std::nullopt};
  const Statement b{Iri("b"), Iri("label"), Term::Literal("kafka"), std::nullopt};
  const Statement c{Iri("a"), Iri("comment"), Term::Literal("kafka ranks rank"), std::nullopt};
  const Statement d{Iri("d"), Iri("label"), Term::Literal("kafka rank"), Iri("g")};
  const Statement e{Iri("e"), Iri("label"), Term::LangLiteral("rank of kafka" + filler, "en"), std::nullopt};
  Apply(indexes, {{true, a}, {true, b}, {true, c}, {true, d}, {true, e}});
  ASSERT_EQ(TextRows(kTextByPredicateRows), TextRows());
  ASSERT_EQ(TextRows(), 2u + 1 + 3 + 2 + 22);

  const KeySpace space;
  state::WriteBatch batch(*store_);
  auto it = store_->NewIterator(space.family);
  const std::string postings = space.prefix + kTextRows;
  for (it->Seek(postings); it->Valid() && it->key().starts_with(postings); it->Next()) {
    batch.Delete(space.family, it->key());
  }
  ASSERT_TRUE(store_->Write(batch).ok());
  ASSERT_EQ(TextRows(), 0u);

  using V = std::vector<Statement>;
  const std::string label = "http://t.example/label";
  EXPECT_EQ(Search("kafka AND rank", label), (V{a, e}));
  EXPECT_EQ(Search("kafka", label), (V{a, b, e}));
  EXPECT_EQ(Search("kafka NOT rank", label), V{b});
  EXPECT_EQ(Search("ran* word19", label), V{e});
  EXPECT_EQ(Search("*nks", label), V{});
  EXPECT_EQ(Search("*nks", "http://t.example/comment"), V{c});
  EXPECT_EQ(Search("kafka rank", label, "all"), (V{a, e, d}));
  auto search = ParseTextSearch("kafka", label, "");
  ASSERT_TRUE(search.ok());
  for (size_t limit = 1; limit <= 3; ++limit) {
    auto paged = Paged(*search, limit);
    ASSERT_TRUE(paged.ok()) << paged.status().ToString();
    EXPECT_EQ(*paged, (V{a, b, e})) << "limit " << limit;
  }
  EXPECT_EQ(Search("kafka"), V{});  // no predicate: the graph's postings, removed above

  Apply(indexes, {{false, a}, {false, b}, {false, c}, {false, d}, {false, e}});
  EXPECT_EQ(TextRows(kTextByPredicateRows), 0u);
  EXPECT_EQ(Search("kafka", label, "all"), V{});
}

// A generation set up before the postings by predicate records none: it goes on writing and
// reading the graph's postings only, a search with a predicate included.
TEST_F(TextIndexTest, GenerationsWithoutPostingsByPredicateReadTheGraphs) {
  auto recorded = RecordedIndexes(*store_);
  ASSERT_TRUE(recorded.ok());
  EXPECT_FALSE(recorded->freetext_by_predicate);
  {
    state::WriteBatch batch(*store_);  // what earlier versions record
    batch.Put(state::Family::kMeta, kTemporalKey, "0");
    batch.Put(state::Family::kMeta, kFreeTextKey, "1");
    ASSERT_TRUE(store_->Write(batch).ok());
  }
  recorded = RecordedIndexes(*store_);
  ASSERT_TRUE(recorded.ok());
  ASSERT_TRUE(recorded->freetext);
  ASSERT_FALSE(recorded->freetext_by_predicate);
  const Statement a{Iri("a"), Iri("label"), Term::Literal("kafka rank"), std::nullopt};
  const Statement b{Iri("b"), Iri("comment"), Term::Literal("kafka rank"), std::nullopt};
  Apply(*recorded, {{true, a}, {true, b}});
  EXPECT_EQ(TextRows(kTextByPredicateRows), 0u);
  using V = std::vector<Statement>;
  EXPECT_EQ(Search("kafka rank", "http://t.example/label"), V{a});
  EXPECT_EQ(Search("ka* *nk", "http://t.example/comment"), V{b});
  Apply(*recorded, {{false, a}});
  EXPECT_EQ(Search("kafka rank", "http://t.example/label"), V{});
  EXPECT_EQ(TextRows(), 2u);

  Record({.freetext = true});
  recorded = RecordedIndexes(*store_);
  ASSERT_TRUE(recorded.ok());
  EXPECT_TRUE(recorded->freetext_by_predicate);
}

TEST_F(TextIndexTest, BadCursorsAreRefused) {
  std::vector<std::pair<bool, Statement>> ops;
  for (int i = 0; i < 5; ++i) ops.push_back({true, {Iri("s" + std::to_string(i)), Iri("p"), Term::Literal("cat"), std::nullopt}});
  Apply({.freetext = true}, ops);
  auto search = ParseTextSearch("cat", "", "");
  auto other = ParseTextSearch("cat", "http://t.example/q", "");
  ASSERT_TRUE(search.ok() && other.ok());
  TextReader reader(*store_, nullptr);
  auto page = reader.Query(*search, 2);
  ASSERT_TRUE(page.ok() && page->next);
  EXPECT_FALSE(reader.Query(*search, 2, "!!").ok());
  EXPECT_FALSE(reader.Query(*search, 2, "AAAA").ok());
  auto mismatch = reader.Query(*other, 2, *page->next);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().message(), "cursor does not belong to this query");
}

TEST_F(TextIndexTest, RandomizedAgainstAnIndependentEvaluator) {
  // Words share prefixes and suffixes so that wildcards stand for several; stop words and
  // capitals appear in the literals only.
  const Strings vocabulary = {"cat",  "catalog", "scat",  "dog", "dogma", "hotdog", "bird", "birdsong",
                              "fish", "selfish", "apple", "app", "x1",    "x12",    "42"};
  const Strings filler = {"the", "of", "AND", "Not", "is", "The"};
  // Each seed twice: with postings by predicate, and as a generation set up before them.
  std::vector<std::pair<uint64_t, bool>> runs;
  for (const uint64_t seed : testing::RandomTestSeeds({11, 12})) runs.insert(runs.end(), {{seed, true}, {seed, false}});
  for (const auto& [seed, by_predicate] : runs) {
    std::cout << "seed " << seed << (by_predicate ? "" : ", a generation without postings by predicate") << std::endl;
    TearDown();
    SetUp();
    const IndexSet indexes{.freetext = true, .freetext_by_predicate = by_predicate};
    if (by_predicate) Record(indexes);
    std::mt19937_64 rng(seed);
    auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
    auto word = [&] { return vocabulary[pick(vocabulary.size())]; };

    std::function<RNode(int)> random_tree = [&](int depth) {
      RNode n;
      const size_t k = depth >= 3 ? pick(3) : pick(6);
      n.kind = static_cast<RNode::Kind>(k);
      if (k <= RNode::kSuffix) {
        const std::string w = word();
        // A wildcard's fixed part: a piece of a word, at least one character.
        n.word = k == RNode::kWord ? w
                 : k == RNode::kPrefix ? w.substr(0, 1 + pick(w.size()))
                                       : w.substr(pick(w.size()));
        return n;
      }
      const size_t children = k == RNode::kNot ? 1 : 2 + pick(2);
      for (size_t i = 0; i < children; ++i) n.children.push_back(random_tree(depth + 1));
      return n;
    };
    std::function<std::string(const RNode&)> render = [&](const RNode& n) -> std::string {
      switch (n.kind) {
        case RNode::kWord:
          return pick(4) == 0 ? std::string(1, static_cast<char>(std::toupper(n.word[0]))) + n.word.substr(1) : n.word;
        case RNode::kPrefix:
          return n.word + "*";
        case RNode::kSuffix:
          return "*" + n.word;
        case RNode::kNot:
          return (pick(2) ? "NOT " : "!") + std::string("(") + render(n.children.front()) + ")";
        default: {
          static const Strings kAnd = {" AND ", " && ", " & ", " ", "&"}, kOr = {" OR ", " || ", " | ", "|"};
          const Strings& ops = n.kind == RNode::kAnd ? kAnd : kOr;
          std::string out = "(";
          for (size_t i = 0; i < n.children.size(); ++i) {
            if (i > 0) out += ops[pick(ops.size())];
            out += render(n.children[i]);
          }
          return out + ")";
        }
      }
    };

    const std::vector<std::optional<Term>> graphs = {std::nullopt, Iri("g1"), Term::Blank("b")};
    std::set<Statement> current;
    for (int round = 0; round < 20; ++round) {
      std::vector<std::pair<bool, Statement>> ops;
      for (size_t i = 0, n = 1 + pick(25); i < n; ++i) {
        if (!current.empty() && pick(4) == 0) {
          auto it = current.begin();
          std::advance(it, static_cast<long>(pick(current.size())));
          ops.push_back({false, *it});
          current.erase(it);
          continue;
        }
        std::string text;
        for (size_t w = 0, words = pick(6); w < words; ++w) {
          std::string piece = pick(4) == 0 ? filler[pick(filler.size())] : word();
          if (pick(5) == 0) piece[0] = static_cast<char>(std::toupper(piece[0]));
          text += piece + (pick(3) == 0 ? ", " : " ");
        }
        // Some literals are long enough to be digested in the free-text rows.
        if (pick(6) == 0) text += " " + std::string(100, 'z');
        Term object = pick(5) == 0   ? Term::LangLiteral(text, "en")
                      : pick(8) == 0 ? Term::Literal(text, "http://www.w3.org/2001/XMLSchema#token")
                                     : Term::Literal(text);
        Statement st{Iri("s" + std::to_string(pick(8))), Iri("p" + std::to_string(pick(3))), std::move(object),
                     graphs[pick(graphs.size())]};
        ops.push_back({true, st});
        current.insert(st);
      }
      Apply(indexes, ops);

      for (int qi = 0; qi < 15; ++qi) {
        const RNode tree = random_tree(0);
        const std::string text = render(tree);
        const std::string p = pick(3) == 0 ? "http://t.example/p" + std::to_string(pick(3)) : "";
        const std::string graph = pick(3) == 0 ? "all" : pick(2) ? "" : "http://t.example/g1";
        auto search = ParseTextSearch(text, p, graph);
        if (!Positive(tree, false)) {
          ASSERT_FALSE(search.ok()) << text;
          continue;
        }
        ASSERT_TRUE(search.ok()) << text << ": " << search.status().ToString();
        std::vector<Statement> want;
        for (const Statement& st : current) {
          const bool text_literal = st.object.datatype() != "http://www.w3.org/2001/XMLSchema#token";
          if (!text_literal || (!p.empty() && st.predicate.value() != p)) continue;
          if (graph.empty() && st.graph) continue;
          if (graph == "http://t.example/g1" && st.graph != Iri("g1")) continue;
          if (Evaluate(tree, ReferenceTokens(st.object.value()))) want.push_back(st);
        }
        // Statement order, except that digested objects come after the inline ones of their
        // subject and predicate: the same set, and the same sequence in pages of any size.
        const size_t limit = 1 + pick(6);
        auto got = Paged(*search, limit);
        auto whole = Paged(*search, 100000);
        ASSERT_TRUE(got.ok() && whole.ok()) << got.status().ToString() << whole.status().ToString();
        ASSERT_EQ(*got, *whole) << "seed " << seed << " round " << round << " query " << text << " limit " << limit;
        std::sort(got->begin(), got->end());
        ASSERT_EQ(*got, want) << "seed " << seed << " round " << round << " query " << text;
      }
    }
  }
}

}  // namespace
}  // namespace webindex::graph
