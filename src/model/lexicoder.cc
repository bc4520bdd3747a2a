#include "model/lexicoder.h"

#include <vector>

namespace webindex::model {

std::string ReverseCountHex(uint64_t n) {
  // ULongLexicoder: a length byte, then the value without its leading zero bytes.
  int skip = 0;
  while (skip < 8 && ((n >> (56 - 8 * skip)) & 0xff) == 0) ++skip;
  std::vector<uint8_t> raw;
  raw.push_back(static_cast<uint8_t>(8 - skip));
  for (int i = skip; i < 8; ++i) raw.push_back(static_cast<uint8_t>(n >> (56 - 8 * i)));
  // Escape 0x00 and 0x01, invert every byte, terminate with 0xff.
  std::vector<uint8_t> esc;
  for (uint8_t b : raw) {
    if (b == 0x00 || b == 0x01) {
      esc.push_back(0x01);
      esc.push_back(b + 1);
    } else {
      esc.push_back(b);
    }
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(esc.size() * 2 + 2);
  for (uint8_t b : esc) {
    const uint8_t r = 0xff - b;
    out.push_back(kHex[r >> 4]);
    out.push_back(kHex[r & 0xf]);
  }
  out += "ff";
  return out;
}

}  // namespace webindex::model
