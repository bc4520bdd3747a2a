// Relative IRI reference resolution against a base (RFC 3986 §5.2, with §5.2.4's dot-segment
// removal), as SPARQL's BASE and relative IRIs need. Pure functions; no thread affinity.
#pragma once

#include <string>
#include <string_view>

namespace webindex::sparql {

//! True when `iri` starts with a scheme (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":").
bool HasScheme(std::string_view iri);

//! `reference` resolved against `base` (an absolute IRI). An absolute reference is returned as
//! written, dot segments included, since RDF compares IRIs as strings (as rdflib, oxigraph and
//! Turtle parsers do); an empty base returns the reference unchanged.
std::string ResolveIri(std::string_view base, std::string_view reference);

}  // namespace webindex::sparql
