#include "http/query_string.h"

#include "query/query_json.h"

namespace webindex::http {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else if (c != '%') {
      out.push_back(c);
    } else {
      const int hi = i + 2 < text.size() ? HexValue(text[i + 1]) : -1;
      const int lo = hi >= 0 ? HexValue(text[i + 2]) : -1;
      if (lo < 0) return Status::InvalidArgument("bad percent-encoding at '" + std::string(text.substr(i, 3)) + "'");
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    }
  }
  if (!query::IsValidUtf8(out)) return Status::InvalidArgument("percent-encoded bytes are not UTF-8");
  return out;
}

Result<Target> ParseTarget(std::string_view target) {
  if (target.empty() || target.front() != '/') return Status::InvalidArgument("request target must start with '/'");
  Target out;
  const size_t question = target.find('?');
  ASSIGN_OR_RETURN(out.path, PercentDecode(target.substr(0, question), /*plus_is_space=*/false));
  if (question == std::string_view::npos) return out;
  std::string_view query = target.substr(question + 1);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    ASSIGN_OR_RETURN(std::string name, PercentDecode(pair.substr(0, eq), true));
    std::string value;
    if (eq != std::string_view::npos) {
      ASSIGN_OR_RETURN(value, PercentDecode(pair.substr(eq + 1), true));
    }
    if (!out.params.emplace(name, std::move(value)).second) {
      return Status::InvalidArgument("parameter '" + name + "' given more than once");
    }
  }
  return out;
}

}  // namespace webindex::http
