#include "codec/json_error.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace webindex::codec {
namespace {

namespace ondemand = simdjson::ondemand;
using simdjson::error_code;

constexpr size_t kNone = std::string_view::npos;

//! Reads every value below `v`, so that the on-demand parser stops at the first error.
error_code Walk(ondemand::value v) {
  ondemand::json_type type;
  if (auto e = v.type().get(type)) return e;
  switch (type) {
    case ondemand::json_type::object: {
      ondemand::object object;
      if (auto e = v.get_object().get(object)) return e;
      for (auto field : object) {
        ondemand::value child;
        if (auto e = field.value().get(child)) return e;
        if (auto e = Walk(child)) return e;
      }
      return simdjson::SUCCESS;
    }
    case ondemand::json_type::array: {
      ondemand::array array;
      if (auto e = v.get_array().get(array)) return e;
      for (auto item : array) {
        ondemand::value child;
        if (auto e = item.get(child)) return e;
        if (auto e = Walk(child)) return e;
      }
      return simdjson::SUCCESS;
    }
    case ondemand::json_type::string: {
      std::string_view s;
      return v.get_string().get(s);
    }
    case ondemand::json_type::number: {
      ondemand::number n;
      return v.get_number().get(n);
    }
    case ondemand::json_type::boolean: {
      bool b;
      return v.get_bool().get(b);
    }
    case ondemand::json_type::null: {
      bool null = false;
      if (auto e = v.is_null().get(null)) return e;
      return null ? simdjson::SUCCESS : simdjson::N_ATOM_ERROR;
    }
  }
  return simdjson::SUCCESS;
}

//! The byte where a structural error is (the on-demand parser's place when it stops), json.size()
//! when the text ends too soon; for a text whose first value parses whole, where text after it
//! begins (`*trailing` set; kNone: none).
size_t StructuralErrorAt(std::string_view json, bool* trailing) {
  ondemand::parser parser;
  const simdjson::padded_string padded(json);
  ondemand::document doc;
  if (parser.iterate(padded).get(doc)) return kNone;  // no place is known before iterating
  ondemand::value root;
  error_code err = doc.get_value().get(root);
  if (!err) err = Walk(root);
  const auto at = doc.current_location();
  if (at.error()) return err ? json.size() : kNone;  // past the end
  size_t offset = std::min(static_cast<size_t>(at.value_unsafe() - padded.data()), json.size());
  if (!err) {
    *trailing = true;
    return json.find_first_not_of(" \t\r\n", offset);
  }
  return offset;
}

//! Where a string opens that never closes (first), or holds a control character (second).
std::pair<size_t, size_t> StringErrorsAt(std::string_view json) {
  size_t open = kNone;
  for (size_t i = 0; i < json.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(json[i]);
    if (open == kNone) {
      if (c == '"') open = i;
    } else if (c == '\\') {
      ++i;
    } else if (c == '"') {
      open = kNone;
    } else if (c < 0x20) {
      return {kNone, i};
    }
  }
  return {open, kNone};
}

//! The first byte that does not start or continue a UTF-8 sequence as it should.
size_t InvalidUtf8At(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return i;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return i;
    }
    i += n;
  }
  return kNone;
}

//! The bare word or number at `offset`, for the message (at most 40 bytes).
std::string TokenAt(std::string_view json, size_t offset) {
  size_t end = offset;
  while (end < json.size() && end - offset < 40 && std::string_view(" \t\r\n,:[]{}\"").find(json[end]) == kNone) {
    ++end;
  }
  return std::string(json.substr(offset, end - offset));
}

Status At(size_t offset, const std::string& what) {
  return Status::InvalidArgument("not JSON at column " + std::to_string(offset + 1) + ": " + what);
}

}  // namespace

Status NotJson(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  const error_code err = parser.parse(json.data(), json.size()).get(root);
  switch (err) {
    case simdjson::SUCCESS:
      return Status::Ok();
    case simdjson::EMPTY:
      return Status::InvalidArgument("not JSON: nothing but white space");
    case simdjson::UNCLOSED_STRING:
      if (const size_t at = StringErrorsAt(json).first; at != kNone) {
        return At(at, "the string that starts here has no closing '\"'");
      }
      break;
    case simdjson::UNESCAPED_CHARS:
      if (const size_t at = StringErrorsAt(json).second; at != kNone) {
        char code[8];
        std::snprintf(code, sizeof code, "%04x", static_cast<unsigned char>(json[at]));
        return At(at, std::string("a control character inside a string: write it escaped, as \\u") + code);
      }
      break;
    case simdjson::UTF8_ERROR:
      if (const size_t at = InvalidUtf8At(json); at != kNone) {
        return At(at, "bytes that are not UTF-8 (the text must be UTF-8 encoded)");
      }
      break;
    case simdjson::DEPTH_ERROR:
      return Status::InvalidArgument("not JSON: objects and arrays nested too deep");
    default:
      break;
  }
  bool trailing = false;
  const size_t at = StructuralErrorAt(json, &trailing);
  if (at == kNone) return Status::InvalidArgument(std::string("not JSON: ") + simdjson::error_message(err));
  if (at >= json.size()) {
    return Status::InvalidArgument("not JSON: the text ends before its object or array is closed (a '}' or ']' "
                                   "missing, or the line cut short)");
  }
  switch (err) {
    case simdjson::N_ATOM_ERROR:
    case simdjson::T_ATOM_ERROR:
    case simdjson::F_ATOM_ERROR:
      return At(at, "'" + TokenAt(json, at) +
                        "' is no JSON value: a string needs double quotes, and the only bare words are true, false "
                        "and null");
    case simdjson::NUMBER_ERROR:
    case simdjson::NUMBER_OUT_OF_RANGE: {
      const std::string token = TokenAt(json, at);
      if (!token.empty() && token.find_first_not_of("-0123456789") == std::string::npos) {
        return At(at, "the number " + token + " is too large (integers go up to 18446744073709551615)");
      }
      return At(at, "'" + token + "' is not a number");
    }
    default:
      break;
  }
  if (trailing) return At(at, "text after the JSON value (one value per line)");
  return At(at, json[at] == '}' || json[at] == ']' || json[at] == ',' || json[at] == ':'
                    ? std::string("'") + json[at] + "' out of place (a value missing before it, or one too many?)"
                    : "a ',', ':', '}' or ']' missing before this");
}

}  // namespace webindex::codec
