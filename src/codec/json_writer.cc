#include "codec/json_writer.h"

#include <array>

namespace webindex::codec {

void AppendJsonString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  //! The bytes a JSON string cannot hold as they are: '"', '\\' and the controls.
  static constexpr std::array<bool, 256> kEscapes = [] {
    std::array<bool, 256> escapes{};
    for (int c = 0; c < 0x20; ++c) escapes[c] = true;
    escapes['"'] = escapes['\\'] = true;
    return escapes;
  }();
  out->push_back('"');
  size_t run = 0;  // the first byte not appended yet
  for (size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (!kEscapes[u]) continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    switch (u) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        *out += "\\u00";
        out->push_back(kHex[u >> 4]);
        out->push_back(kHex[u & 0xf]);
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

}  // namespace webindex::codec
