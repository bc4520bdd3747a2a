// Rya's FILTER functions (docs/graph.md, "SPARQL"): tempo:equals, before, after, within against
// an instant or an interval "[T1,T2]" (PREFIX tempo: <tag:rya-rdf.org,2015:temporal#>), and
// fts:text against a free-text query (PREFIX fts: <http://rdf.useekm.com/fts#>), with the
// semantics of `webindex query temporal` and `query search`. Stateless; any thread.
#pragma once

#include <optional>
#include <string_view>

#include "graph/temporal_index.h"
#include "graph/term.h"
#include "graph/text_query.h"

namespace webindex::sparql {

inline constexpr std::string_view kTempoNamespace = "tag:rya-rdf.org,2015:temporal#";
inline constexpr std::string_view kFtsNamespace = "http://rdf.useekm.com/fts#";

//! True for the IRIs of the functions below.
bool IsRyaFunction(std::string_view iri);
//! Which index a Rya function reads: "temporal", "freetext", or "" for another IRI.
std::string_view RyaIndexOf(std::string_view iri);

//! The function's value over its arguments: true when the first argument is an xsd:dateTime
//! (a literal with words, for fts:text) that satisfies the second; false when it is not one;
//! nullopt (an error) for a second argument that is no instant, interval or query.
std::optional<bool> CallRyaFunction(std::string_view iri, const graph::Term* const* args, size_t count);

//! What a tempo: function (`iri`) asks against its second argument, as the temporal index's
//! query (operator and times; no predicate or graph): the statements whose object the function
//! holds for are exactly the index's matches. nullopt when `against` is no instant or interval
//! the function takes, or `iri` is no tempo: function.
std::optional<graph::TemporalQuery> TemporalQueryOf(std::string_view iri, const graph::Term& against);
//! fts:text's query in its second argument; nullopt when it is no literal or does not parse.
std::optional<graph::TextQueryNode> TextQueryOf(const graph::Term& against);

}  // namespace webindex::sparql
