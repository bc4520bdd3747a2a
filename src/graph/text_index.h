// The free-text index (docs/graph.md, "Free-text index"): statements whose object is a plain
// string literal (xsd:string or language-tagged), one row per distinct token of the literal, and
// a list of each graph's words spelled backwards for suffix wildcards. Stateless; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graph/index_set.h"

namespace webindex::graph {

//! The tokens of `text`: maximal runs of Unicode letters (category L) and decimal digits (Nd),
//! lowercased (simple case mapping), as UTF-8; stop words left out; distinct and sorted.
//! Invalid UTF-8 sequences separate tokens.
std::vector<std::string> Tokenize(std::string_view text);

//! The same runs in order, lowercased, stop words kept (for query terms).
std::vector<std::string> Words(std::string_view text);

//! True for the English stop words the index leaves out (lower case).
bool IsStopWord(std::string_view word);

//! True when the statement's object is a literal the free-text index covers.
bool IsTextLiteral(const Term& object);

//! `token` with its bytes in reverse order (suffixes become prefixes).
std::string Reversed(std::string_view token);

//! Objects whose key encoding is longer than this are written in free-text rows as a digest:
//! a literal's tokens times its length would otherwise be the index's size.
inline constexpr size_t kMaxInlineTextObject = 96;
//! The tag of a digested object: then 8 bytes, FNV-1a 64 of the object's key encoding, big-endian.
inline constexpr char kDigestedObject = 0x05;

//! The s p o part of a free-text row of `statement`: the three terms' encodings, with the
//! object digested when it is long.
void AppendTextStatement(const Statement& statement, std::string* out);
//! The object's part of it: its encoding, or its digest when that is longer than
//! kMaxInlineTextObject.
void AppendTextObject(const Term& object, std::string* out);

//! The digest form of an object encoding (kDigestedObject, then 8 bytes).
std::string ObjectDigest(std::string_view object_encoding);

//! Appends the free-text rows of `statement` (when `indexes.freetext` and the object is a plain
//! string literal): a posting per token, by predicate too when `indexes.freetext_by_predicate`,
//! and when added, the tokens' rows in the word list.
void AppendTextRows(const IndexSet& indexes, const KeySpace& space, const Statement& statement, bool add,
                    state::SortedWrites* rows);

}  // namespace webindex::graph
