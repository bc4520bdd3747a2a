// Little binary codec for state and outbox values: varints and length-prefixed strings.
// BytesWriter appends to a string it owns; BytesReader reads a view it does not own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace webindex {

class BytesWriter {
 public:
  void PutVarint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void PutSigned(int64_t v) { PutVarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void PutString(std::string_view s) {
    PutVarint(s.size());
    out_.append(s);
  }
  void PutBool(bool b) { out_.push_back(b ? 1 : 0); }
  //! Big-endian fixed 64 bits: keeps numeric order under bytewise comparison.
  void PutFixed64BE(uint64_t v) {
    for (int i = 7; i >= 0; --i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string& str() { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class BytesReader {
 public:
  explicit BytesReader(std::string_view in) : in_(in) {}
  bool GetVarint(uint64_t* v) {
    uint64_t r = 0;
    for (int shift = 0; shift <= 63; shift += 7) {
      if (in_.empty()) return false;
      auto b = static_cast<uint8_t>(in_.front());
      in_.remove_prefix(1);
      r |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *v = r;
        return true;
      }
    }
    return false;
  }
  bool GetSigned(int64_t* v) {
    uint64_t u;
    if (!GetVarint(&u)) return false;
    *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return true;
  }
  bool GetString(std::string* s) {
    uint64_t n;
    if (!GetVarint(&n) || n > in_.size()) return false;
    s->assign(in_.substr(0, n));
    in_.remove_prefix(n);
    return true;
  }
  bool GetBool(bool* b) {
    if (in_.empty()) return false;
    *b = in_.front() != 0;
    in_.remove_prefix(1);
    return true;
  }
  bool GetFixed64BE(uint64_t* v) {
    if (in_.size() < 8) return false;
    uint64_t r = 0;
    for (int i = 0; i < 8; ++i) r = (r << 8) | static_cast<uint8_t>(in_[i]);
    in_.remove_prefix(8);
    *v = r;
    return true;
  }
  bool empty() const { return in_.empty(); }

 private:
  std::string_view in_;
};

}  // namespace webindex
