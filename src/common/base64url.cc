#include "common/base64url.h"

#include <array>
#include <cstdint>

namespace webindex {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

//! Value of each byte in the alphabet, -1 for bytes outside it.
constexpr std::array<int, 256> MakeReverse() {
  std::array<int, 256> rev{};
  for (auto& v : rev) v = -1;
  for (int i = 0; i < 64; ++i) rev[static_cast<unsigned char>(kAlphabet[i])] = i;
  return rev;
}
constexpr auto kReverse = MakeReverse();

}  // namespace

std::string Base64UrlEncode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : bytes) {
    acc = (acc << 8) | static_cast<unsigned char>(c);
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(acc >> bits) & 63]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(acc << (6 - bits)) & 63]);
  return out;
}

Result<std::string> Base64UrlDecode(std::string_view text) {
  if (text.size() % 4 == 1) return Status::InvalidArgument("truncated base64url");
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const int v = kReverse[static_cast<unsigned char>(c)];
    if (v < 0) return Status::InvalidArgument("character outside base64url");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  // Leftover bits must be zero, so that every byte string has exactly one cursor.
  if ((acc & ((1u << bits) - 1)) != 0) return Status::InvalidArgument("non-canonical base64url");
  return out;
}

}  // namespace webindex
