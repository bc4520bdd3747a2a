#include "graph/term.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>

#include <simdjson.h>

#include "common/escape.h"

namespace webindex::graph {
namespace {

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

void AppendUchar(unsigned char c, std::string* out) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04X", c);
  out->append(buf);
}

//! What IRIREF cannot hold unescaped: [#x00-#x20<>"{}|^`\].
constexpr std::array<bool, 256> kIriEscapes = ByteSet(0x21, "<>\"{}|^`\\");
bool NeedsIriEscape(unsigned char c) { return kIriEscapes[c]; }

//! What a string literal's text cannot hold unescaped: '"', '\\', controls and DEL.
constexpr std::array<bool, 256> kLiteralEscapes = ByteSet(0x20, "\"\\\x7f");

void AppendIri(std::string_view iri, std::string* out) {
  out->push_back('<');
  AppendEscaping(iri, kIriEscapes, out, AppendUchar);
  out->push_back('>');
}

void AppendLiteralText(std::string_view text, std::string* out) {
  out->push_back('"');
  AppendEscaping(text, kLiteralEscapes, out, [](unsigned char c, std::string* o) {
    switch (c) {
      case '"':
        o->append("\\\"");
        break;
      case '\\':
        o->append("\\\\");
        break;
      case '\b':
        o->append("\\b");
        break;
      case '\t':
        o->append("\\t");
        break;
      case '\n':
        o->append("\\n");
        break;
      case '\f':
        o->append("\\f");
        break;
      case '\r':
        o->append("\\r");
        break;
      default:
        AppendUchar(c, o);
    }
  });
  out->push_back('"');
}

bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

//! An absolute IRI as IRIREF holds it: a scheme, then nothing IRIREF excludes, UTF-8.
bool IsValidIri(std::string_view iri) {
  const size_t colon = iri.find(':');
  if (colon == std::string_view::npos || colon == 0 || !IsAsciiAlpha(iri[0])) return false;
  for (size_t i = 1; i < colon; ++i) {
    const char c = iri[i];
    if (!IsAsciiAlpha(c) && !IsAsciiDigit(c) && c != '+' && c != '-' && c != '.') return false;
  }
  for (char c : iri) {
    if (NeedsIriEscape(static_cast<unsigned char>(c))) return false;
  }
  return IsValidUtf8(iri);
}

//! BLANK_NODE_LABEL after "_:", with PN_CHARS taken as ASCII letters, digits, '_', '-' and any
//! non-ASCII character (the parser applies the exact grammar).
bool IsValidBlankLabel(std::string_view label) {
  if (label.empty() || label.front() == '-' || label.front() == '.' || label.back() == '.') return false;
  for (char c : label) {
    if (!IsAsciiAlpha(c) && !IsAsciiDigit(c) && c != '_' && c != '-' && c != '.' &&
        static_cast<unsigned char>(c) < 0x80) {
      return false;
    }
  }
  return IsValidUtf8(label);
}

//! LANGTAG without '@': [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*.
bool IsValidLanguageTag(std::string_view tag) {
  bool first = true;
  size_t run = 0;
  for (char c : tag) {
    if (c == '-') {
      if (run == 0) return false;
      first = false;
      run = 0;
    } else if (IsAsciiAlpha(c) || (!first && IsAsciiDigit(c))) {
      ++run;
    } else {
      return false;
    }
  }
  return run > 0;
}

std::strong_ordering CompareBytes(std::string_view a, std::string_view b) {
  const int c = a.compare(b);
  return c < 0 ? std::strong_ordering::less : c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal;
}

}  // namespace

Term Term::Iri(std::string iri) {
  Term t;
  t.kind_ = TermKind::kIri;
  t.value_ = std::move(iri);
  return t;
}

Term Term::Blank(std::string label) {
  Term t;
  t.kind_ = TermKind::kBlank;
  t.value_ = std::move(label);
  return t;
}

Term Term::Literal(std::string lexical, std::string datatype) {
  Term t;
  t.kind_ = TermKind::kLiteral;
  t.value_ = std::move(lexical);
  t.datatype_ = datatype.empty() ? std::string(kXsdString) : std::move(datatype);
  return t;
}

Term Term::LangLiteral(std::string lexical, std::string_view language) {
  Term t;
  t.kind_ = TermKind::kLiteral;
  t.value_ = std::move(lexical);
  t.datatype_ = std::string(kRdfLangString);
  t.language_ = LowerAscii(language);
  return t;
}

int Term::LiteralClass() const {
  if (!language_.empty()) return 1;
  return datatype_ == kXsdString ? 0 : 2;
}

std::strong_ordering Term::operator<=>(const Term& other) const {
  if (kind_ != other.kind_) return kind_ <=> other.kind_;
  if (auto c = CompareBytes(value_, other.value_); std::is_neq(c)) return c;
  if (kind_ != TermKind::kLiteral) return std::strong_ordering::equal;
  if (auto c = LiteralClass() <=> other.LiteralClass(); std::is_neq(c)) return c;
  if (auto c = CompareBytes(language_, other.language_); std::is_neq(c)) return c;
  return CompareBytes(datatype_, other.datatype_);
}

std::strong_ordering Statement::operator<=>(const Statement& other) const {
  if (graph.has_value() != other.graph.has_value()) {
    return graph.has_value() ? std::strong_ordering::greater : std::strong_ordering::less;
  }
  if (graph) {
    if (auto c = *graph <=> *other.graph; std::is_neq(c)) return c;
  }
  if (auto c = subject <=> other.subject; std::is_neq(c)) return c;
  if (auto c = predicate <=> other.predicate; std::is_neq(c)) return c;
  return object <=> other.object;
}

void AppendNTriples(const Term& term, std::string* out) {
  switch (term.kind()) {
    case TermKind::kIri:
      AppendIri(term.value(), out);
      return;
    case TermKind::kBlank:
      out->append("_:").append(term.value());
      return;
    case TermKind::kLiteral:
      AppendLiteralText(term.value(), out);
      if (!term.language().empty()) {
        out->push_back('@');
        out->append(term.language());
      } else if (term.datatype() != kXsdString) {
        out->append("^^");
        AppendIri(term.datatype(), out);
      }
      return;
  }
}

std::string ToNTriples(const Term& term) {
  std::string out;
  AppendNTriples(term, &out);
  return out;
}

std::string ToNTriples(const Statement& st) {
  std::string out;
  AppendNTriples(st.subject, &out);
  out.push_back(' ');
  AppendNTriples(st.predicate, &out);
  out.push_back(' ');
  AppendNTriples(st.object, &out);
  out.append(" .");
  return out;
}

std::string ToNQuads(const Statement& st) {
  if (!st.graph) return ToNTriples(st);
  std::string out = ToNTriples(st);
  out.resize(out.size() - 1);
  AppendNTriples(*st.graph, &out);
  out.append(" .");
  return out;
}

Status ValidateStatement(const Statement& st) {
  auto check = [](const Term& t, const char* role, bool literal_ok, bool blank_ok) -> Status {
    auto bad = [role](const std::string& why) { return Status::InvalidArgument(std::string(role) + ": " + why); };
    switch (t.kind()) {
      case TermKind::kIri:
        if (!IsValidIri(t.value())) return bad("not an absolute IRI: " + ToNTriples(t));
        break;
      case TermKind::kBlank:
        if (!blank_ok) return bad("cannot be a blank node");
        if (!IsValidBlankLabel(t.value())) return bad("not a blank node label: " + t.value());
        break;
      case TermKind::kLiteral:
        if (!literal_ok) return bad("cannot be a literal");
        if (!IsValidUtf8(t.value())) return bad("not UTF-8");
        if ((t.datatype() == kRdfLangString) != !t.language().empty()) {
          return bad("rdf:langString goes with a language tag, and only it");
        }
        if (!t.language().empty() && !IsValidLanguageTag(t.language())) return bad("bad language tag " + t.language());
        if (!IsValidIri(t.datatype())) return bad("datatype is not an absolute IRI");
        break;
    }
    return Status::Ok();
  };
  RETURN_IF_ERROR(check(st.subject, "subject", false, true));
  RETURN_IF_ERROR(check(st.predicate, "predicate", false, false));
  RETURN_IF_ERROR(check(st.object, "object", true, true));
  if (st.graph) RETURN_IF_ERROR(check(*st.graph, "graph", false, true));
  return Status::Ok();
}

bool IsValidUtf8(std::string_view s) {
  // Terms are short and mostly ASCII: eight bytes at a time up to the first non-ASCII byte, then
  // simdjson's validator from there (a character boundary: the byte before it is ASCII).
  size_t i = 0;
  for (uint64_t word; i + 8 <= s.size(); i += 8) {
    std::memcpy(&word, s.data() + i, 8);
    if (word & 0x8080808080808080ull) break;
  }
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  return i == s.size() || simdjson::validate_utf8(s.data() + i, s.size() - i);
}

}  // namespace webindex::graph
