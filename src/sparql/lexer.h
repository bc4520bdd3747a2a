// The tokens of SPARQL 1.1 (§19.8 terminals): IRIs, prefixed names, blank node labels,
// variables, literals' parts, keywords and punctuation, each with its line and column.
// Stateless functions; no thread affinity.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "sparql/ast.h"

namespace webindex::sparql {

struct Token {
  enum class Kind {
    kIri,           //!< text: the IRI between < >, escapes decoded, not yet resolved
    kPrefixedName,  //!< text: the prefix (without ':'), local: the local part, escapes decoded
    kBlank,         //!< text: the label after "_:"
    kVar,           //!< text: the name without ? or $
    kLangTag,       //!< text: the tag without '@'
    kInteger,
    kDecimal,
    kDouble,   //!< text: the lexical form, unsigned
    kString,   //!< text: the value, escapes decoded
    kKeyword,  //!< text: upper case (SELECT, FILTER, TRUE, ...); raw keeps "a" apart from "A"
    kPunct,    //!< text: { } ( ) [ ] ; , . = != < > <= >= && || ! + - * / ^ ^^ ? |
    kEnd,
  };
  Kind kind = Kind::kEnd;
  std::string text;
  std::string local;
  std::string_view raw;  //!< the token as written
  Position position;
  bool space_before = false;  //!< whitespace or a comment right before it
};

//! The whole query's tokens, ending with kEnd; InvalidArgument "line L, column C: ..." at the
//! first character no token starts with, an unterminated string or IRI, a bad escape or UTF-8.
Result<std::vector<Token>> Tokenize(std::string_view query);

//! What the error messages call a token: its text as written, or "end of query".
std::string Describe(const Token& token);

//! "line L, column C".
std::string LineColumn(Position position);
//! The prefix "line L, column C: " of every error message.
std::string At(Position position);

}  // namespace webindex::sparql
