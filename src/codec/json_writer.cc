#include "codec/json_writer.h"

#include <array>

#include "common/escape.h"

namespace webindex::codec {

void AppendJsonString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  //! The bytes a JSON string cannot hold as they are: '"', '\\' and the controls.
  static constexpr std::array<bool, 256> kEscapes = ByteSet(0x20, "\"\\");
  out->push_back('"');
  AppendEscaping(s, kEscapes, out, [](unsigned char u, std::string* o) {
    switch (u) {
      case '"': *o += "\\\""; break;
      case '\\': *o += "\\\\"; break;
      case '\n': *o += "\\n"; break;
      case '\r': *o += "\\r"; break;
      case '\t': *o += "\\t"; break;
      default:
        *o += "\\u00";
        o->push_back(kHex[u >> 4]);
        o->push_back(kHex[u & 0xf]);
    }
  });
  out->push_back('"');
}

}  // namespace webindex::codec
