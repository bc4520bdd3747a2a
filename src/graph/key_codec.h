// Keys of the graph store's rows: where they live (a key space in a state family), the four
// index orders, and the order-preserving encoding of graphs and terms. Stateless; any thread.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "graph/term.h"
#include "state/store.h"

namespace webindex::graph {

//! Where the graph's rows live: every key starts with `prefix` in `family`. The default, 00 67
//! (NUL, 'g'), starts no cell key of the query table (in a cell key 0x00 is followed by 01 or
//! FF) and sorts before the d:, p: and t: rows: readers that seek to a row prefix never meet it.
struct KeySpace {
  state::Family family = state::Family::kTable;
  std::string prefix = std::string("\0g", 2);
};

//! The four row orders of a statement (BadWolf): each pattern is a prefix of one of them.
enum class Index : unsigned char { kSpo = 1, kSop = 2, kPos = 3, kOsp = 4 };
inline constexpr std::array<Index, 4> kIndexes = {Index::kSpo, Index::kSop, Index::kPos, Index::kOsp};

//! The positions (0 subject, 1 predicate, 2 object) an index orders by, in order.
std::array<int, 3> IndexOrder(Index index);

//! Appends `s` escaped as terms' strings are (0x00 as 00 FF) and ended by 00 01: byte order is
//! the strings' order, and the encoding ends itself.
void AppendKeyString(std::string_view s, std::string* out);
//! Reads one such string at the front of `in` and advances it; false when malformed.
bool ReadKeyString(std::string_view* in, std::string* s);

//! Appends the encoding of a term: a kind byte, then its strings, each with 0x00 written as
//! 00 FF and ended by 00 01, so that byte order is Term order and every encoding ends itself.
void AppendTerm(const Term& term, std::string* out);
//! Appends a graph: 0x01 for the default graph (first), else the graph name as a term.
void AppendGraph(const std::optional<Term>& graph, std::string* out);

//! Reads one term / graph at the front of `in` and advances it; false when malformed.
bool ReadTerm(std::string_view* in, Term* term);
bool ReadGraph(std::string_view* in, std::optional<Term>* graph);

//! prefix | index | graph | the statement's terms in the index's order.
std::string RowKey(const KeySpace& space, Index index, const Statement& statement);
//! Appends RowKey(space, index, statement) to `out`.
void AppendRowKey(const KeySpace& space, Index index, const Statement& statement, std::string* out);
//! The statement of a row key of `index` (after the key space prefix and index byte); false
//! when the key is not one.
bool DecodeRowKey(std::string_view key_after_index, Index index, Statement* statement);

//! The smallest key greater than every key that starts with `prefix` ("" when none is).
std::string PrefixEnd(std::string_view prefix);

}  // namespace webindex::graph
