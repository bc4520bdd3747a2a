#include "sparql/expr_rya.h"

#include "graph/temporal_index.h"
#include "graph/text_index.h"
#include "graph/text_query.h"

namespace webindex::sparql {
namespace {

struct Interval {
  int64_t from = 0, to = 0;
};

//! "[T1,T2]" with T1 not after T2.
std::optional<Interval> ParseInterval(std::string_view text) {
  if (text.size() < 5 || text.front() != '[' || text.back() != ']') return std::nullopt;
  text = text.substr(1, text.size() - 2);
  const size_t comma = text.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  };
  const auto from = graph::ParseInstant(trim(text.substr(0, comma)));
  const auto to = graph::ParseInstant(trim(text.substr(comma + 1)));
  if (!from || !to || *from > *to) return std::nullopt;
  return Interval{*from, *to};
}

}  // namespace

bool IsRyaFunction(std::string_view iri) { return !RyaIndexOf(iri).empty(); }

std::string_view RyaIndexOf(std::string_view iri) {
  if (iri.starts_with(kTempoNamespace)) {
    const std::string_view name = iri.substr(kTempoNamespace.size());
    if (name == "equals" || name == "before" || name == "after" || name == "within") return "temporal";
  }
  if (iri == std::string(kFtsNamespace) + "text") return "freetext";
  return {};
}

std::optional<graph::TemporalQuery> TemporalQueryOf(std::string_view iri, const graph::Term& against) {
  if (RyaIndexOf(iri) != "temporal" || !against.is_literal()) return std::nullopt;
  const std::string_view name = iri.substr(kTempoNamespace.size());
  const std::string& text = against.value();
  using Op = graph::TemporalQuery::Op;
  graph::TemporalQuery query;
  if (!text.empty() && text.front() == '[') {
    const std::optional<Interval> range = ParseInterval(text);
    if (!range || name == "equals") return std::nullopt;
    if (name == "before") {
      query.op = Op::kBefore;  // before the interval's start
      query.t1 = range->from;
    } else if (name == "after") {
      query.op = Op::kAfter;  // after its end
      query.t1 = range->to;
    } else {
      query.op = Op::kWithin;  // ends excluded
      query.t1 = range->from;
      query.t2 = range->to;
    }
    return query;
  }
  const std::optional<int64_t> instant = graph::ParseInstant(text);
  if (!instant || name == "within") return std::nullopt;
  query.op = name == "equals" ? Op::kEquals : name == "before" ? Op::kBefore : Op::kAfter;
  query.t1 = *instant;
  return query;
}

std::optional<graph::TextQueryNode> TextQueryOf(const graph::Term& against) {
  if (!against.is_literal()) return std::nullopt;
  auto query = graph::ParseTextQuery(against.value());
  if (!query.ok()) return std::nullopt;
  return std::move(query).value();
}

std::optional<bool> CallRyaFunction(std::string_view iri, const graph::Term* const* args, size_t count) {
  if (count != 2 || args[0] == nullptr || args[1] == nullptr) return std::nullopt;
  const graph::Term& value = *args[0];
  if (RyaIndexOf(iri) == "temporal") {
    const auto query = TemporalQueryOf(iri, *args[1]);
    if (!query) return std::nullopt;
    // A value that the temporal index would not hold never matches.
    if (!value.is_literal() || value.datatype() != graph::kXsdDateTime) return false;
    const auto at = graph::ParseXsdDateTime(value.value());
    return at && graph::Satisfies(*query, *at);
  }
  if (RyaIndexOf(iri) != "freetext") return std::nullopt;
  const auto query = TextQueryOf(*args[1]);
  if (!query) return std::nullopt;
  if (!graph::IsTextLiteral(value)) return false;
  return graph::Satisfies(*query, graph::Tokenize(value.value()));
}

}  // namespace webindex::sparql
