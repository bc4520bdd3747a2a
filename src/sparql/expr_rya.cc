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

std::optional<bool> Temporal(std::string_view name, const graph::Term& value, const graph::Term& against) {
  if (!against.is_literal()) return std::nullopt;
  const std::string& text = against.value();
  const bool interval = !text.empty() && text.front() == '[';
  std::optional<Interval> range;
  std::optional<int64_t> instant;
  if (interval) {
    range = ParseInterval(text);
    if (!range) return std::nullopt;
  } else {
    instant = graph::ParseInstant(text);
    if (!instant) return std::nullopt;
  }
  if ((name == "within") != interval && name != "before" && name != "after") return std::nullopt;
  // A value that the temporal index would not hold never matches.
  if (!value.is_literal() || value.datatype() != graph::kXsdDateTime) return false;
  const auto at = graph::ParseXsdDateTime(value.value());
  if (!at) return false;
  if (name == "equals") return *at == *instant;
  if (name == "before") return *at < (interval ? range->from : *instant);
  if (name == "after") return *at > (interval ? range->to : *instant);
  return *at > range->from && *at < range->to;  // within, ends excluded
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

std::optional<bool> CallRyaFunction(std::string_view iri, const graph::Term* const* args, size_t count) {
  if (count != 2 || args[0] == nullptr || args[1] == nullptr) return std::nullopt;
  if (RyaIndexOf(iri) == "temporal") return Temporal(iri.substr(kTempoNamespace.size()), *args[0], *args[1]);
  if (RyaIndexOf(iri) != "freetext" || !args[1]->is_literal()) return std::nullopt;
  auto query = graph::ParseTextQuery(args[1]->value());
  if (!query.ok()) return std::nullopt;
  if (!graph::IsTextLiteral(*args[0])) return false;
  return graph::Satisfies(*query, graph::Tokenize(args[0]->value()));
}

}  // namespace webindex::sparql
