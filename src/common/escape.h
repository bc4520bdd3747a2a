// Writing text that some bytes of must be escaped (JSON strings, N-Triples IRIs and literals):
// the bytes that need nothing are appended a run at a time, not one by one.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace webindex {

//! A set of bytes, for the escape tables below: the controls below `controls_below` and `also`.
constexpr std::array<bool, 256> ByteSet(int controls_below, std::string_view also) {
  std::array<bool, 256> set{};
  for (int c = 0; c < controls_below; ++c) set[static_cast<size_t>(c)] = true;
  for (const char c : also) set[static_cast<unsigned char>(c)] = true;
  return set;
}

//! Appends `s` to `out`: each byte in `escaped` through `escape(byte, out)`, every run of other
//! bytes as it is.
template <typename Escape>
void AppendEscaping(std::string_view s, const std::array<bool, 256>& escaped, std::string* out, Escape&& escape) {
  size_t run = 0;  // the first byte not appended yet
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (!escaped[c]) continue;
    out->append(s.data() + run, i - run);
    escape(c, out);
    run = i + 1;
  }
  out->append(s.data() + run, s.size() - run);
}

}  // namespace webindex
