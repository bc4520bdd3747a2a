// RDF 1.1 terms and statements: the values the graph store keeps, compares and prints.
// Plain value types; no thread affinity.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace webindex::graph {

inline constexpr std::string_view kXsdString = "http://www.w3.org/2001/XMLSchema#string";
inline constexpr std::string_view kRdfLangString = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString";

//! The order of kinds is the order of terms: IRIs, then blank nodes, then literals.
enum class TermKind : unsigned char { kIri = 0, kBlank = 1, kLiteral = 2 };

//! An IRI, a blank node or a literal. Literals always carry a datatype: a simple literal "a" is
//! "a"^^xsd:string (RDF 1.1), a language-tagged one rdf:langString with its tag in lower case.
//! Equality is RDF term equality: no normalization of lexical forms.
class Term {
 public:
  Term() = default;
  static Term Iri(std::string iri);
  //! `label` without the leading "_:".
  static Term Blank(std::string label);
  //! Empty `datatype`: xsd:string.
  static Term Literal(std::string lexical, std::string datatype = {});
  //! The tag is stored lower case (the value space of language tags, RDF 1.1 §3.3).
  static Term LangLiteral(std::string lexical, std::string_view language);

  TermKind kind() const { return kind_; }
  bool is_iri() const { return kind_ == TermKind::kIri; }
  bool is_blank() const { return kind_ == TermKind::kBlank; }
  bool is_literal() const { return kind_ == TermKind::kLiteral; }
  //! The IRI, the blank node label or the literal's lexical form.
  const std::string& value() const { return value_; }
  //! Literals: the datatype IRI; empty for IRIs and blank nodes.
  const std::string& datatype() const { return datatype_; }
  //! Literals of rdf:langString: the tag; empty otherwise.
  const std::string& language() const { return language_; }

  bool operator==(const Term&) const = default;
  //! Kind, then value bytes; literals then xsd:string < language-tagged (by tag) < other
  //! datatypes (by IRI). This is the byte order of the terms' keys (key_codec.h).
  std::strong_ordering operator<=>(const Term& other) const;

 private:
  //! Decodes into the term's strings, reusing their buffers (key_codec.h).
  friend bool ReadTerm(std::string_view* in, Term* term);
  //! 0: xsd:string, 1: language-tagged, 2: other datatypes; the literal order after the value.
  int LiteralClass() const;
  TermKind kind_ = TermKind::kIri;
  std::string value_;
  std::string datatype_;
  std::string language_;
};

//! A statement of the default graph (graph == nullopt) or of a named graph (an IRI or a blank
//! node, as N-Quads allows).
struct Statement {
  Term subject, predicate, object;
  std::optional<Term> graph;

  bool operator==(const Statement&) const = default;
  //! Graph first (the default graph before named ones), then subject, predicate, object.
  std::strong_ordering operator<=>(const Statement& other) const;
};

//! The canonical N-Triples form of a term: `<iri>`, `_:label`, `"lexical"` with `@lang` or
//! `^^<datatype>` (none for xsd:string). Literals escape `"` `\` and controls (\b \t \n \f \r as
//! such, others as \u00XX); IRIs escape only what IRIREF cannot hold (\u00XX). UTF-8 otherwise.
std::string ToNTriples(const Term& term);
void AppendNTriples(const Term& term, std::string* out);
//! `s p o .` (no newline), the graph dropped.
std::string ToNTriples(const Statement& statement);
//! `s p o g .` for a named graph, `s p o .` for the default graph (no newline).
std::string ToNQuads(const Statement& statement);

//! InvalidArgument unless the statement can be stored and printed as N-Triples that parse back:
//! subject an IRI or blank node, predicate an IRI, graph an IRI or blank node; IRIs absolute
//! (a scheme) without the characters IRIREF excludes; blank node labels, language tags and
//! rdf:langString as the grammar and RDF 1.1 allow; every string UTF-8.
Status ValidateStatement(const Statement& statement);

//! True when `s` is well-formed UTF-8 (no overlongs, no surrogates, at most U+10FFFF), checked
//! 32 or 64 bytes at a time (simdjson's validator: statements are checked on every load and apply).
bool IsValidUtf8(std::string_view s);

}  // namespace webindex::graph
