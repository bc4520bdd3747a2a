// Minimal streaming JSON writer for the records webindex emits. Not thread-safe; one per record.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace webindex::codec {

//! Appends `s` as a JSON string literal (quotes included); input must be valid UTF-8.
void AppendJsonString(std::string* out, std::string_view s);

class JsonWriter {
 public:
  JsonWriter& BeginObject() { Sep(); out_.push_back('{'); first_ = true; return *this; }
  JsonWriter& EndObject() { out_.push_back('}'); first_ = false; return *this; }
  JsonWriter& BeginArray() { Sep(); out_.push_back('['); first_ = true; return *this; }
  JsonWriter& EndArray() { out_.push_back(']'); first_ = false; return *this; }
  JsonWriter& Key(std::string_view k) {
    Sep();
    AppendJsonString(&out_, k);
    out_.push_back(':');
    first_ = true;  // the value that follows needs no comma
    return *this;
  }
  JsonWriter& String(std::string_view v) { Sep(); AppendJsonString(&out_, v); return *this; }
  JsonWriter& Int(int64_t v) { Sep(); out_ += std::to_string(v); return *this; }
  JsonWriter& Uint(uint64_t v) { Sep(); out_ += std::to_string(v); return *this; }
  JsonWriter& Bool(bool v) { Sep(); out_ += v ? "true" : "false"; return *this; }
  JsonWriter& Null() { Sep(); out_ += "null"; return *this; }
  //! Appends already-encoded JSON as a value.
  JsonWriter& Raw(std::string_view json) { Sep(); out_ += json; return *this; }
  std::string Take() { return std::move(out_); }
  const std::string& str() const { return out_; }

 private:
  void Sep() {
    if (!first_) out_.push_back(',');
    first_ = false;
  }
  std::string out_;
  bool first_ = true;
};

}  // namespace webindex::codec
