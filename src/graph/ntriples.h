// N-Triples and N-Quads (W3C RDF 1.1) in: statements of a record, single terms of a query.
// Parsing is serd's strict reader, fed one line at a time so that the line grammar holds (one
// statement per line) and errors name their line. Parser: one thread; the functions: any.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "graph/term.h"

namespace webindex::graph {

enum class Syntax { kNTriples, kNQuads };

//! A reusable parser (keeps serd's reader and buffers between calls). Owned by one caller, for
//! example a stage; not thread-safe.
class StatementParser {
 public:
  explicit StatementParser(Syntax syntax);
  ~StatementParser();
  StatementParser(const StatementParser&) = delete;
  StatementParser& operator=(const StatementParser&) = delete;

  //! Appends the statements of `text` to `out`, each checked by ValidateStatement, or returns
  //! InvalidArgument "line N: what" for the first bad line (1-based; CR, LF and CRLF end lines)
  //! and leaves `out` as it was: a text with one bad line is invalid whole. Blank lines and
  //! comments are allowed; N-Quads lines without a graph are statements of the default graph.
  //! `first_line` is the number of the text's first line, for a text cut from a larger file at a
  //! line end.
  Status Parse(std::string_view text, std::vector<Statement>* out, size_t first_line = 1);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

//! One-shot StatementParser::Parse.
Result<std::vector<Statement>> ParseStatements(std::string_view text, Syntax syntax);

//! One term in N-Triples syntax: `<iri>`, `_:label`, `"lexical"`, `"lexical"@lang`,
//! `"lexical"^^<datatype>`; surrounding spaces allowed, nothing else.
Result<Term> ParseTerm(std::string_view text);

//! An IRI in angle brackets (as ParseTerm) or bare (`http://a/b`), for options that only take an
//! IRI (a graph name, a predicate); InvalidArgument for anything else.
Result<Term> ParseIri(std::string_view text);

}  // namespace webindex::graph
