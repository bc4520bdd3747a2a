// SPARQL 1.1 terminals (§19.8). Names follow the PN_* productions on code points; strings and
// IRIs decode \u \U (and strings ECHAR) escapes; a surrogate or a code point above U+10FFFF is
// refused.
#include "sparql/lexer.h"

#include <cctype>
#include <cstdint>

#include "graph/term.h"

namespace webindex::sparql {
namespace {

bool InRange(uint32_t c, uint32_t lo, uint32_t hi) { return c >= lo && c <= hi; }

bool IsPnCharsBase(uint32_t c) {
  return InRange(c, 'A', 'Z') || InRange(c, 'a', 'z') || InRange(c, 0xC0, 0xD6) || InRange(c, 0xD8, 0xF6) ||
         InRange(c, 0xF8, 0x2FF) || InRange(c, 0x370, 0x37D) || InRange(c, 0x37F, 0x1FFF) ||
         InRange(c, 0x200C, 0x200D) || InRange(c, 0x2070, 0x218F) || InRange(c, 0x2C00, 0x2FEF) ||
         InRange(c, 0x3001, 0xD7FF) || InRange(c, 0xF900, 0xFDCF) || InRange(c, 0xFDF0, 0xFFFD) ||
         InRange(c, 0x10000, 0xEFFFF);
}
bool IsPnCharsU(uint32_t c) { return IsPnCharsBase(c) || c == '_'; }
bool IsDigit(uint32_t c) { return InRange(c, '0', '9'); }
bool IsPnChars(uint32_t c) {
  return IsPnCharsU(c) || c == '-' || IsDigit(c) || c == 0xB7 || InRange(c, 0x300, 0x36F) || InRange(c, 0x203F, 0x2040);
}
//! VARNAME's first character; the rest may also be IsVarChar.
bool IsVarStart(uint32_t c) { return IsPnCharsU(c) || IsDigit(c); }
bool IsVarChar(uint32_t c) {
  return IsVarStart(c) || c == 0xB7 || InRange(c, 0x300, 0x36F) || InRange(c, 0x203F, 0x2040);
}
bool IsHex(char c) {
  return IsDigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsLocalEscape(char c) { return std::string_view("_~.-!$&'()*+,;=/?#@%").find(c) != std::string_view::npos; }

void AppendUtf8(uint32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view q) : q_(q) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> out;
    while (true) {
      bool space = false;
      RETURN_IF_ERROR(SkipSpace(&space));
      Token t;
      t.position = {line_, Column(i_)};
      t.space_before = space;
      const size_t start = i_;
      if (i_ >= q_.size()) {
        t.kind = Token::Kind::kEnd;
        out.push_back(std::move(t));
        return out;
      }
      Status st = Next(&t);
      if (!st.ok()) return st;
      t.raw = q_.substr(start, i_ - start);
      out.push_back(std::move(t));
    }
  }

 private:
  //! The code point at byte `at` and its length; length 0 for bad UTF-8.
  uint32_t Peek(size_t at, int* length) const {
    *length = 0;
    if (at >= q_.size()) return 0;
    const auto b = static_cast<unsigned char>(q_[at]);
    if (b < 0x80) {
      *length = 1;
      return b;
    }
    int n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
    if (n == 0 || at + n > q_.size() || !graph::IsValidUtf8(q_.substr(at, n))) return 0;
    uint32_t c = b & (0xFF >> (n + 1));
    for (int k = 1; k < n; ++k) c = (c << 6) | (static_cast<unsigned char>(q_[at + k]) & 0x3F);
    *length = n;
    return c;
  }
  uint32_t PeekCp(size_t at) const {
    int n;
    return Peek(at, &n);
  }
  //! Code points from the line's start; resumes from the last call (tokens come in order).
  int Column(size_t at) const {
    if (cache_at_ < line_start_ || cache_at_ > at) {
      cache_at_ = line_start_;
      cache_column_ = 1;
    }
    for (; cache_at_ < at; ++cache_at_) {
      if ((static_cast<unsigned char>(q_[cache_at_]) & 0xC0) != 0x80) ++cache_column_;
    }
    return cache_column_;
  }
  Status Error(size_t at, const std::string& what) const {
    return Status::InvalidArgument(At({line_, Column(at)}) + what);
  }
  void NewLine(size_t next) {
    ++line_;
    line_start_ = next;
  }

  //! Whitespace and comments; a comment is checked for UTF-8 too, as the whole query must be.
  Status SkipSpace(bool* any) {
    while (i_ < q_.size()) {
      const char c = q_[i_];
      if (c == '\n') {
        NewLine(++i_);
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
      } else if (c == '#') {
        while (i_ < q_.size() && q_[i_] != '\n') {
          int len;
          Peek(i_, &len);
          if (len == 0) return Error(i_, "invalid UTF-8");
          i_ += len;
        }
      } else {
        break;
      }
      *any = true;
    }
    return Status::Ok();
  }

  Status Next(Token* t);
  //! An IRIREF at i_ sets t->kind to kIri; anything else leaves t and i_ alone (the operator
  //! '<'); an error only for a bad escape inside what is otherwise an IRI.
  Status LexIri(Token* t);
  Status LexString(Token* t);
  Status LexName(Token* t);
  Status LexNumber(Token* t);
  //! \uXXXX or \UXXXXXXXX at i_ (on the backslash): appends the code point.
  Status Unicode(std::string* out);
  //! From i_, the longest run of PN_CHARS / '.' / extra, not ending in '.'; returns its end.
  size_t ScanName(size_t from, bool local) const;

  std::string_view q_;
  size_t i_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  mutable size_t cache_at_ = 0;
  mutable int cache_column_ = 1;
};

Status Lexer::Next(Token* t) {
  const char c = q_[i_];
  const char n = i_ + 1 < q_.size() ? q_[i_ + 1] : '\0';
  auto punct = [&](size_t len) {
    t->kind = Token::Kind::kPunct;
    t->text = std::string(q_.substr(i_, len));
    i_ += len;
    return Status::Ok();
  };
  if (c == '<') {
    RETURN_IF_ERROR(LexIri(t));
    if (t->kind == Token::Kind::kIri) return Status::Ok();
    return punct(n == '=' ? 2 : 1);  // not an IRIREF: the operator
  }
  if (c == '"' || c == '\'') return LexString(t);
  if (c == '?' || c == '$') {
    int len;
    uint32_t cp = Peek(i_ + 1, &len);
    if (len > 0 && IsVarStart(cp)) {
      size_t end = i_ + 1;
      while (end < q_.size() && (cp = Peek(end, &len), len > 0 && IsVarChar(cp))) end += len;
      t->kind = Token::Kind::kVar;
      t->text = std::string(q_.substr(i_ + 1, end - i_ - 1));
      i_ = end;
      return Status::Ok();
    }
    if (c == '$') return Error(i_, "expected a variable name after '$'");
    return punct(1);
  }
  if (c == '@') {
    size_t end = i_ + 1;
    while (end < q_.size() && std::isalpha(static_cast<unsigned char>(q_[end]))) ++end;
    if (end == i_ + 1) return Error(i_, "expected a language tag after '@'");
    while (end + 1 < q_.size() && q_[end] == '-' && std::isalnum(static_cast<unsigned char>(q_[end + 1]))) {
      ++end;
      while (end < q_.size() && std::isalnum(static_cast<unsigned char>(q_[end]))) ++end;
    }
    t->kind = Token::Kind::kLangTag;
    t->text = std::string(q_.substr(i_ + 1, end - i_ - 1));
    i_ = end;
    return Status::Ok();
  }
  if (IsDigit(static_cast<unsigned char>(c)) || (c == '.' && IsDigit(static_cast<unsigned char>(n)))) {
    return LexNumber(t);
  }
  if (c == '_' && n == ':') {
    int len;
    const uint32_t first = Peek(i_ + 2, &len);
    if (len == 0 || !(IsPnCharsU(first) || IsDigit(first))) return Error(i_, "expected a blank node label after '_:'");
    const size_t end = ScanName(i_ + 2 + len, false);
    t->kind = Token::Kind::kBlank;
    t->text = std::string(q_.substr(i_ + 2, end - i_ - 2));
    i_ = end;
    return Status::Ok();
  }
  int len;
  const uint32_t cp = Peek(i_, &len);
  if (len == 0) return Error(i_, "invalid UTF-8");
  if (c == ':' || IsPnCharsBase(cp)) return LexName(t);
  static constexpr std::string_view kTwo[] = {"!=", "<=", ">=", "&&", "||", "^^"};
  for (std::string_view two : kTwo) {
    if (q_.substr(i_, 2) == two) return punct(2);
  }
  if (std::string_view("{}()[];,.=<>!+-*/^?|").find(c) != std::string_view::npos) return punct(1);
  return Error(i_, "unexpected character '" + std::string(q_.substr(i_, len)) + "'");
}

Status Lexer::Unicode(std::string* out) {
  const size_t digits = q_[i_ + 1] == 'u' ? 4 : 8;
  if (i_ + 2 + digits > q_.size()) return Error(i_, "incomplete \\u escape");
  uint32_t cp = 0;
  for (size_t k = 0; k < digits; ++k) {
    const char h = q_[i_ + 2 + k];
    if (!IsHex(h)) return Error(i_, "expected hex digits in the \\u escape");
    cp = cp * 16 + static_cast<uint32_t>(IsDigit(static_cast<unsigned char>(h)) ? h - '0' : (h | 0x20) - 'a' + 10);
  }
  if (InRange(cp, 0xD800, 0xDFFF) || cp > 0x10FFFF) return Error(i_, "the escape is not a Unicode scalar value");
  AppendUtf8(cp, out);
  i_ += 2 + digits;
  return Status::Ok();
}

Status Lexer::LexIri(Token* t) {
  const size_t start = i_;
  std::string value;
  size_t k = i_ + 1;
  while (k < q_.size()) {
    const auto c = static_cast<unsigned char>(q_[k]);
    if (c == '>') {
      if (!graph::IsValidUtf8(value)) return Error(start, "invalid UTF-8 in an IRI");
      t->kind = Token::Kind::kIri;
      t->text = std::move(value);
      i_ = k + 1;
      return Status::Ok();
    }
    if (c == '\\') {
      // Only an escape inside something that is already an IRI; a stray '\' ends the attempt.
      if (k + 1 < q_.size() && (q_[k + 1] == 'u' || q_[k + 1] == 'U')) {
        i_ = k;
        const size_t before = value.size();
        Status st = Unicode(&value);
        if (!st.ok()) return st;
        const auto d = static_cast<unsigned char>(value[before]);
        if (value.size() == before + 1 &&
            (d <= 0x20 || std::string_view("<>\"{}|^`\\").find(static_cast<char>(d)) != std::string_view::npos)) {
          return Error(k, "the escape gives a character an IRI cannot hold");
        }
        k = i_;
        continue;
      }
      break;
    }
    if (c <= 0x20 || c == '<' || c == '"' || c == '{' || c == '}' || c == '|' || c == '^' || c == '`') break;
    value.push_back(static_cast<char>(c));
    ++k;
  }
  i_ = start;
  return Status::Ok();
}

Status Lexer::LexString(Token* t) {
  const char quote = q_[i_];
  const bool is_long = q_.substr(i_, 3) == std::string(3, quote);
  const int open_line = line_;
  const int open_column = Column(i_);
  i_ += is_long ? 3 : 1;
  std::string value;
  while (true) {
    if (i_ >= q_.size()) {
      return Status::InvalidArgument(At({open_line, open_column}) + "string not closed before the end of the query");
    }
    const char c = q_[i_];
    if (c == quote && (!is_long || q_.substr(i_, 3) == std::string(3, quote))) {
      i_ += is_long ? 3 : 1;
      break;
    }
    if (!is_long && (c == '\n' || c == '\r')) return Error(i_, "line break inside a short string");
    if (c == '\\') {
      const char e = i_ + 1 < q_.size() ? q_[i_ + 1] : '\0';
      if (e == 'u' || e == 'U') {
        RETURN_IF_ERROR(Unicode(&value));
        continue;
      }
      static constexpr std::string_view kFrom = "tnrbf\"'\\", kTo = "\t\n\r\b\f\"'\\";
      const size_t at = kFrom.find(e);
      if (e == '\0' || at == std::string_view::npos) return Error(i_, "invalid escape in a string");
      value.push_back(kTo[at]);
      i_ += 2;
      continue;
    }
    int len;
    Peek(i_, &len);
    if (len == 0) return Error(i_, "invalid UTF-8");
    value.append(q_.substr(i_, len));
    if (c == '\n') NewLine(i_ + 1);
    i_ += len;
  }
  t->kind = Token::Kind::kString;
  t->text = std::move(value);
  return Status::Ok();
}

size_t Lexer::ScanName(size_t from, bool local) const {
  size_t end = from, last_good = from;
  while (end < q_.size()) {
    int len;
    const uint32_t cp = Peek(end, &len);
    if (len == 0) break;
    if (local && cp == '%') {
      if (end + 2 < q_.size() && IsHex(q_[end + 1]) && IsHex(q_[end + 2])) {
        end += 3;
        last_good = end;
        continue;
      }
      break;
    }
    if (local && cp == '\\') {
      if (end + 1 < q_.size() && IsLocalEscape(q_[end + 1])) {
        end += 2;
        last_good = end;
        continue;
      }
      break;
    }
    if (IsPnChars(cp) || (local && cp == ':')) {
      end += len;
      last_good = end;
    } else if (cp == '.') {
      end += len;
    } else {
      break;
    }
  }
  return last_good;
}

Status Lexer::LexName(Token* t) {
  // PN_PREFIX? ':' PN_LOCAL?, or a keyword (ASCII letters, digits, '_').
  int first_len;
  Peek(i_, &first_len);  // ':' or a PN_CHARS_BASE, as Next checked
  size_t prefix_end = i_;
  if (q_[i_] != ':') prefix_end = ScanName(i_ + first_len, false);
  if (prefix_end < q_.size() && q_[prefix_end] == ':') {
    t->kind = Token::Kind::kPrefixedName;
    t->text = std::string(q_.substr(i_, prefix_end - i_));
    const size_t local_start = prefix_end + 1;
    size_t end = local_start;
    int len;
    const uint32_t first = Peek(local_start, &len);
    if (len > 0 && (IsPnCharsU(first) || first == ':' || IsDigit(first) || first == '%' || first == '\\')) {
      end = ScanName(local_start, true);
    }
    for (size_t k = local_start; k < end; ++k) {
      if (q_[k] == '\\') ++k;
      t->local.push_back(q_[k]);
    }
    i_ = end;
    return Status::Ok();
  }
  size_t end = i_;
  while (end < q_.size() && (std::isalnum(static_cast<unsigned char>(q_[end])) || q_[end] == '_')) ++end;
  if (end == i_) {  // a name of non-ASCII letters without ':' is no token; say why it stopped
    int next_len;
    Peek(prefix_end, &next_len);
    if (prefix_end < q_.size() && next_len == 0) return Error(prefix_end, "invalid UTF-8");
    return Error(i_, "unexpected character '" + std::string(q_.substr(i_, first_len)) + "'");
  }
  t->kind = Token::Kind::kKeyword;
  for (size_t k = i_; k < end; ++k)
    t->text.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(q_[k]))));
  i_ = end;
  return Status::Ok();
}

Status Lexer::LexNumber(Token* t) {
  auto digits = [&](size_t at) {
    while (at < q_.size() && IsDigit(static_cast<unsigned char>(q_[at]))) ++at;
    return at;
  };
  size_t end = digits(i_);
  t->kind = Token::Kind::kInteger;
  if (end < q_.size() && q_[end] == '.') {
    const size_t frac = digits(end + 1);
    const bool exponent_follows = frac < q_.size() && (q_[frac] == 'e' || q_[frac] == 'E');
    if (frac > end + 1 || exponent_follows) {
      t->kind = Token::Kind::kDecimal;
      end = frac;
    }
  }
  if (end < q_.size() && (q_[end] == 'e' || q_[end] == 'E')) {
    size_t e = end + 1;
    if (e < q_.size() && (q_[e] == '+' || q_[e] == '-')) ++e;
    const size_t exp_end = digits(e);
    if (exp_end > e) {
      t->kind = Token::Kind::kDouble;
      end = exp_end;
    }
  }
  if (t->kind == Token::Kind::kDecimal && q_[end - 1] == '.') {  // "1.e" without digits: 1 then '.'
    t->kind = Token::Kind::kInteger;
    --end;
  }
  t->text = std::string(q_.substr(i_, end - i_));
  i_ = end;
  return Status::Ok();
}

}  // namespace

std::string LineColumn(Position position) {
  return "line " + std::to_string(position.line) + ", column " + std::to_string(position.column);
}

std::string At(Position position) { return LineColumn(position) + ": "; }

std::string Describe(const Token& token) {
  if (token.kind == Token::Kind::kEnd) return "end of query";
  std::string raw(token.raw.substr(0, 40));
  return "'" + raw + (token.raw.size() > 40 ? "...'" : "'");
}

Result<std::vector<Token>> Tokenize(std::string_view query) { return Lexer(query).Run(); }

}  // namespace webindex::sparql
