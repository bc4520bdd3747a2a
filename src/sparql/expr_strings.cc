// The string functions of SPARQL (§17.4.3), REGEX and REPLACE over ICU's regular expressions,
// and the hash functions over OpenSSL's libcrypto. Arguments follow the string literal argument
// compatibility rules of §17.4.3.1.1.
#include <openssl/evp.h>
#include <unicode/regex.h>
#include <unicode/unistr.h>

#include <cmath>
#include <memory>
#include <unordered_map>

#include "sparql/expr_internal.h"

namespace webindex::sparql::expr {
namespace {

using graph::Term;

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

//! The byte offset of code point `index` (or the end).
size_t ByteOffset(std::string_view s, size_t index) {
  size_t i = 0;
  while (i < s.size() && index > 0) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
    --index;
  }
  return i;
}

//! A literal like `like` (its language tag or xsd:string) with `value`.
Term Like(const Term& like, std::string value) {
  if (!like.language().empty()) return Term::LangLiteral(std::move(value), like.language());
  return Term::Literal(std::move(value));
}

//! §17.4.3.1.1: both simple / xsd:string, both with the same tag, or a tagged one and a simple one.
bool Compatible(const Term& a, const Term& b) {
  if (!IsStringLiteral(a) || !IsStringLiteral(b)) return false;
  return b.language().empty() || a.language() == b.language();
}

std::optional<Term> Substr(const Term* const* args, size_t count) {
  const Term& s = *args[0];
  if (!IsStringLiteral(s)) return std::nullopt;
  const std::optional<Number> start = ToNumber(*args[1]);
  if (!start) return std::nullopt;
  std::optional<Number> length;
  if (count > 2 && !(length = ToNumber(*args[2]))) return std::nullopt;
  // fn:substring: the characters at positions p with round(start) <= p < round(start) + round(length).
  const double first = std::floor(ToDouble(*start) + 0.5);
  const double end = length ? first + std::floor(ToDouble(*length) + 0.5) : HUGE_VAL;
  if (std::isnan(first) || std::isnan(end)) return Like(s, "");
  const double size = static_cast<double>(CodePoints(s.value()));
  const double lo = std::max(first, 1.0), hi = std::min(end, size + 1);
  if (hi <= lo) return Like(s, "");
  const size_t from = ByteOffset(s.value(), static_cast<size_t>(lo - 1));
  const size_t to = ByteOffset(s.value(), static_cast<size_t>(hi - 1));
  return Like(s, s.value().substr(from, to - from));
}

std::optional<Term> ChangeCase(const Term& s, bool upper) {
  if (!IsStringLiteral(s)) return std::nullopt;
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(s.value());
  if (upper) u.toUpper(); else u.toLower();
  std::string out;
  u.toUTF8String(out);
  return Like(s, std::move(out));
}

std::optional<Term> EncodeForUri(const Term& s) {
  if (!IsStringLiteral(s)) return std::nullopt;
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s.value()) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return Term::Literal(std::move(out));
}

std::optional<Term> Concat(const Term* const* args, size_t count) {
  std::string out;
  bool all_same_tag = count > 0;
  for (size_t i = 0; i < count; ++i) {
    if (!IsStringLiteral(*args[i])) return std::nullopt;
    out += args[i]->value();
    if (args[i]->language().empty() || args[i]->language() != args[0]->language()) all_same_tag = false;
  }
  return all_same_tag ? Term::LangLiteral(std::move(out), args[0]->language()) : Term::Literal(std::move(out));
}

bool LangMatches(std::string_view tag, std::string_view range) {
  if (range == "*") return !tag.empty();
  if (tag.size() < range.size()) return false;
  for (size_t i = 0; i < range.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(tag[i])) != std::tolower(static_cast<unsigned char>(range[i]))) {
      return false;
    }
  }
  return tag.size() == range.size() || (!range.empty() && tag[range.size()] == '-');
}

//! Compiled patterns and a matcher for each, by flags and text, per thread: a FILTER runs the same
//! REGEX on every row.
icu::RegexMatcher* CompiledMatcher(const std::string& pattern, std::string_view flags) {
  struct Compiled {
    std::unique_ptr<icu::RegexPattern> pattern;
    std::unique_ptr<icu::RegexMatcher> matcher;
  };
  thread_local std::unordered_map<std::string, Compiled> cache;
  std::string key(flags);
  key += '\n';
  key += pattern;
  auto it = cache.find(key);
  if (it != cache.end()) return it->second.matcher.get();
  uint32_t bits = 0;
  for (char f : flags) {
    switch (f) {
      case 'i': bits |= UREGEX_CASE_INSENSITIVE; break;
      case 's': bits |= UREGEX_DOTALL; break;
      case 'm': bits |= UREGEX_MULTILINE; break;
      case 'x': bits |= UREGEX_COMMENTS; break;
      case 'q': bits |= UREGEX_LITERAL; break;
      default: return nullptr;
    }
  }
  UErrorCode status = U_ZERO_ERROR;
  UParseError parse_error;
  Compiled compiled;
  compiled.pattern.reset(icu::RegexPattern::compile(icu::UnicodeString::fromUTF8(pattern), bits, parse_error, status));
  if (U_FAILURE(status)) return nullptr;
  compiled.matcher.reset(compiled.pattern->matcher(status));
  if (U_FAILURE(status)) return nullptr;
  if (cache.size() > 256) cache.clear();
  return cache.emplace(std::move(key), std::move(compiled)).first->second.matcher.get();
}

const icu::UnicodeString& EmptyText() {
  static const icu::UnicodeString kEmpty;
  return kEmpty;
}

std::optional<Term> Regex(const Term* const* args, size_t count) {
  if (!IsStringLiteral(*args[0]) || !IsSimpleString(*args[1])) return std::nullopt;
  if (count > 2 && !IsSimpleString(*args[2])) return std::nullopt;
  icu::RegexMatcher* m = CompiledMatcher(args[1]->value(), count > 2 ? args[2]->value() : "");
  if (m == nullptr) return std::nullopt;
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString text = icu::UnicodeString::fromUTF8(args[0]->value());
  m->reset(text);
  const bool found = m->find(0, status);
  m->reset(EmptyText());  // the matcher must not keep a reference to `text`
  if (U_FAILURE(status)) return std::nullopt;
  return Term::Literal(found ? "true" : "false", Xsd("boolean"));
}

//! fn:replace's replacement in ICU's syntax. XPath: \\ and \$ are escapes, any other \ or a $
//! without digits an error; $N takes as many digits as name a group (S groups), a group past S
//! up to 9 is empty; with the flag q everything is literal.
std::optional<std::string> IcuReplacement(std::string_view xpath, int groups, bool literal) {
  std::string out;
  for (size_t i = 0; i < xpath.size(); ++i) {
    const char ch = xpath[i];
    if (literal || (ch != '\\' && ch != '$')) {
      if (ch == '\\' || ch == '$') out += '\\';
      out += ch;
      continue;
    }
    if (ch == '\\') {
      if (i + 1 == xpath.size() || (xpath[i + 1] != '\\' && xpath[i + 1] != '$')) return std::nullopt;
      out += '\\';
      out += xpath[++i];
      continue;
    }
    size_t end = i + 1;
    while (end < xpath.size() && std::isdigit(static_cast<unsigned char>(xpath[end]))) ++end;
    if (end == i + 1) return std::nullopt;
    // Drop trailing digits (kept as text) until N names a group or is a single digit.
    size_t digits = std::min<size_t>(end - i - 1, 9);  // within an int
    auto number = [&](size_t n) { return std::stoi(std::string(xpath.substr(i + 1, n))); };
    while (digits > 1 && number(digits) > groups) --digits;
    if (number(digits) <= groups) out += "$" + std::to_string(number(digits));
    for (size_t k = i + 1 + digits; k < end; ++k) {
      out += '\\';
      out += xpath[k];
    }
    i = end - 1;
  }
  return out;
}

std::optional<Term> Replace(const Term* const* args, size_t count) {
  if (!IsStringLiteral(*args[0]) || !IsSimpleString(*args[1]) || !IsSimpleString(*args[2])) return std::nullopt;
  if (count > 3 && !IsSimpleString(*args[3])) return std::nullopt;
  icu::RegexMatcher* m = CompiledMatcher(args[1]->value(), count > 3 ? args[3]->value() : "");
  if (m == nullptr) return std::nullopt;
  UErrorCode status = U_ZERO_ERROR;
  // fn:replace: an error when the pattern matches the empty string.
  m->reset(EmptyText());
  if (m->matches(status) || U_FAILURE(status)) return std::nullopt;
  const icu::UnicodeString text = icu::UnicodeString::fromUTF8(args[0]->value());
  const bool literal = count > 3 && args[3]->value().find('q') != std::string::npos;
  const std::optional<std::string> replacement = IcuReplacement(args[2]->value(), m->groupCount(), literal);
  if (!replacement) return std::nullopt;
  m->reset(text);
  icu::UnicodeString out = m->replaceAll(icu::UnicodeString::fromUTF8(*replacement), status);
  m->reset(EmptyText());
  if (U_FAILURE(status)) return std::nullopt;
  std::string result;
  out.toUTF8String(result);
  return Like(*args[0], std::move(result));
}

std::optional<Term> Digest(std::string_view name, const Term& s) {
  if (!IsSimpleString(s)) return std::nullopt;
  const EVP_MD* md = name == "MD5"      ? EVP_md5()
                     : name == "SHA1"   ? EVP_sha1()
                     : name == "SHA256" ? EVP_sha256()
                     : name == "SHA384" ? EVP_sha384()
                                        : EVP_sha512();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(s.value().data(), s.value().size(), digest, &size, md, nullptr) != 1) return std::nullopt;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return Term::Literal(std::move(out));
}

Term Boolean(bool v) { return Term::Literal(v ? "true" : "false", Xsd("boolean")); }

//! STRSTARTS STRENDS CONTAINS STRBEFORE STRAFTER.
std::optional<Term> TwoStrings(std::string_view name, const Term& a, const Term& b) {
  if (!Compatible(a, b)) return std::nullopt;
  const std::string& x = a.value();
  const std::string& y = b.value();
  if (name == "STRSTARTS") return Boolean(x.starts_with(y));
  if (name == "STRENDS") return Boolean(x.ends_with(y));
  if (name == "CONTAINS") return Boolean(x.find(y) != std::string::npos);
  const size_t at = x.find(y);
  if (at == std::string::npos) return Term::Literal("");
  return Like(a, name == "STRBEFORE" ? x.substr(0, at) : x.substr(at + y.size()));
}

}  // namespace

bool IsSimpleString(const Term& term) { return term.is_literal() && term.datatype() == graph::kXsdString; }

bool IsStringLiteral(const Term& term) {
  return term.is_literal() && (term.datatype() == graph::kXsdString || !term.language().empty());
}

std::optional<Term> StringFunction(std::string_view name, const Term* const* args, size_t count, bool* found) {
  *found = true;
  if (name == "STRLEN") {
    if (!IsStringLiteral(*args[0])) return std::nullopt;
    return Term::Literal(std::to_string(CodePoints(args[0]->value())), Xsd("integer"));
  }
  if (name == "SUBSTR") return Substr(args, count);
  if (name == "UCASE" || name == "LCASE") return ChangeCase(*args[0], name == "UCASE");
  if (name == "STRSTARTS" || name == "STRENDS" || name == "CONTAINS" || name == "STRBEFORE" ||
      name == "STRAFTER") {
    return TwoStrings(name, *args[0], *args[1]);
  }
  if (name == "ENCODE_FOR_URI") return EncodeForUri(*args[0]);
  if (name == "CONCAT") return Concat(args, count);
  if (name == "LANGMATCHES") {
    if (!IsSimpleString(*args[0]) || !IsSimpleString(*args[1])) return std::nullopt;
    return Boolean(LangMatches(args[0]->value(), args[1]->value()));
  }
  if (name == "REGEX") return Regex(args, count);
  if (name == "REPLACE") return Replace(args, count);
  if (name == "MD5" || name == "SHA1" || name == "SHA256" || name == "SHA384" || name == "SHA512") {
    return Digest(name, *args[0]);
  }
  *found = false;
  return std::nullopt;
}

}  // namespace webindex::sparql::expr
