#include "graph/text_index.h"

#include <algorithm>
#include <array>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

namespace webindex::graph {
namespace {

constexpr std::array<std::string_view, 33> kStopWords = {
    "a",    "an",  "and",  "are",   "as",    "at",    "be",   "but",  "by",   "for", "if",
    "in",   "into", "is",  "it",    "no",    "not",   "of",   "on",   "or",   "such", "that",
    "the",  "their", "then", "there", "these", "they", "this", "to",   "was",  "will", "with"};

void AppendUtf8(UChar32 c, std::string* out) {
  char buf[U8_MAX_LENGTH];
  int32_t n = 0;
  UBool error = false;
  U8_APPEND(buf, n, U8_MAX_LENGTH, c, error);
  if (!error) out->append(buf, static_cast<size_t>(n));
}

//! Calls `fn` with each run of letters and digits, lowercased.
template <typename Fn>
void ForEachRun(std::string_view text, Fn&& fn) {
  std::string word;
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const auto length = static_cast<int32_t>(text.size());
  int32_t i = 0;
  while (i < length) {
    UChar32 c;
    U8_NEXT(s, i, length, c);
    if (c >= 0 && u_isalnum(c)) {
      AppendUtf8(u_tolower(c), &word);
      continue;
    }
    if (!word.empty()) fn(word);
    word.clear();
  }
  if (!word.empty()) fn(word);
}

}  // namespace

bool IsStopWord(std::string_view word) {
  return std::binary_search(kStopWords.begin(), kStopWords.end(), word);
}

std::vector<std::string> Tokenize(std::string_view text) {
  std::vector<std::string> tokens;
  ForEachRun(text, [&](const std::string& w) {
    if (!IsStopWord(w)) tokens.push_back(w);
  });
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
  return tokens;
}

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  ForEachRun(text, [&](const std::string& w) { words.push_back(w); });
  return words;
}

bool IsTextLiteral(const Term& object) {
  return object.is_literal() && (object.datatype() == kXsdString || !object.language().empty());
}

std::string ObjectDigest(std::string_view encoding) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a 64
  for (const char c : encoding) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  std::string out(1, kDigestedObject);
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((h >> shift) & 0xff));
  return out;
}

void AppendTextObject(const Term& object, std::string* out) {
  const size_t start = out->size();
  AppendTerm(object, out);
  if (out->size() - start > kMaxInlineTextObject) {
    const std::string digest = ObjectDigest(std::string_view(*out).substr(start));
    out->resize(start);
    out->append(digest);
  }
}

void AppendTextStatement(const Statement& st, std::string* out) {
  AppendTerm(st.subject, out);
  AppendTerm(st.predicate, out);
  AppendTextObject(st.object, out);
}

std::string Reversed(std::string_view token) { return std::string(token.rbegin(), token.rend()); }

void AppendTextRows(const IndexSet& indexes, const KeySpace& space, const Statement& st, bool add,
                    state::SortedWrites* rows) {
  if (!indexes.freetext || !IsTextLiteral(st.object)) return;
  const std::vector<std::string> tokens = Tokenize(st.object.value());
  if (tokens.empty()) return;
  std::string graph, spo, predicate, so, reversed;
  AppendGraph(st.graph, &graph);
  AppendTextStatement(st, &spo);
  if (indexes.freetext_by_predicate) {
    AppendTerm(st.predicate, &predicate);
    AppendTerm(st.subject, &so);
    AppendTextObject(st.object, &so);
  }
  for (const auto& token : tokens) {
    std::string& key = rows->BeginKey();
    key.append(space.prefix);
    key.push_back(kTextRows);
    key.append(graph);
    AppendKeyString(token, &key);
    key.append(spo);
    EndRow(rows, add);
    if (indexes.freetext_by_predicate) {
      std::string& by_predicate = rows->BeginKey();
      by_predicate.append(space.prefix);
      by_predicate.push_back(kTextByPredicateRows);
      by_predicate.append(graph);
      by_predicate.append(predicate);
      AppendKeyString(token, &by_predicate);
      by_predicate.append(so);
      EndRow(rows, add);
    }
    if (!add) continue;  // the word stays in the graph's word list
    reversed.assign(token.rbegin(), token.rend());
    std::string& word = rows->BeginKey();
    word.append(space.prefix);
    word.push_back(kTextReversedRows);
    word.append(graph);
    AppendKeyString(reversed, &word);
    EndRow(rows, true);  // a batch's repeats of a word are one write (SortedWrites)
  }
}

}  // namespace webindex::graph
