#include "graph/ntriples.h"

#include <serd/serd.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace webindex::graph {
namespace {

constexpr size_t kPageBytes = 4096;

//! The bytes of one line that holds a NUL byte, served to serd as a stream (so that NUL bytes
//! inside literals, which the grammar allows, are not taken for the end of a C string).
struct LineSource {
  const char* data;
  size_t size;
};

size_t ReadLine(void* buf, size_t size, size_t nmemb, void* stream) {
  auto* src = static_cast<LineSource*>(stream);
  const size_t n = std::min(src->size, size * nmemb);
  std::memcpy(buf, src->data, n);
  src->data += n;
  src->size -= n;
  return n;
}

int NoStreamError(void*) { return 0; }

std::string_view NodeText(const SerdNode* node) { return {reinterpret_cast<const char*>(node->buf), node->n_bytes}; }

//! Lines without a statement: empty, spaces and tabs, or a comment.
bool IsBlankLine(std::string_view line) {
  for (char c : line) {
    if (c == '#') return true;
    if (c != ' ' && c != '\t') return false;
  }
  return true;
}

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

//! A byte of a blank node label: ASCII ones and any of a multibyte character.
bool IsLabelByte(char c) {
  return IsAlnum(c) || c == '_' || c == '-' || c == ':' || c == '.' || static_cast<unsigned char>(c) >= 0x80;
}

//! Where the text after the first statement of `line` starts (the statement ends at its '.'),
//! when that text is more than spaces, tabs and a comment; npos otherwise, or when the line does
//! not start with up to `max_terms` terms and a '.'. For a line serd read a statement from.
size_t TrailingText(std::string_view line, size_t max_terms) {
  size_t i = 0, terms = 0;
  const auto skip_iri = [&] {
    i = line.find('>', i);  // IRIREF holds no raw '>'
    if (i != std::string_view::npos) ++i;
  };
  while (i < line.size()) {
    const char c = line[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    if (c == '.') {
      i = line.find_first_not_of(" \t", i + 1);
      return i == std::string_view::npos || line[i] == '#' ? std::string_view::npos : i;
    }
    if (++terms > max_terms) return std::string_view::npos;
    if (c == '<') {
      skip_iri();
    } else if (c == '"') {
      for (++i; i < line.size() && line[i] != '"'; ++i) i += line[i] == '\\';
      if (i >= line.size()) return std::string_view::npos;
      ++i;
      if (i < line.size() && line[i] == '@') {
        for (++i; i < line.size() && (IsAlnum(line[i]) || line[i] == '-');) ++i;
      } else if (line.compare(i, 2, "^^") == 0) {
        i += 2;
        skip_iri();
      }
    } else if (c == '_' && i + 1 < line.size() && line[i + 1] == ':') {
      size_t end = i + 2;
      while (end < line.size() && IsLabelByte(line[end])) ++end;
      while (end > i + 2 && line[end - 1] == '.') --end;  // a label ends in no '.': that one ends the statement
      i = end;
    } else {
      return std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

//! serd's messages that speak of Turtle (';') or of a file, said for one line of N-Triples or
//! N-Quads; others pass unchanged.
std::string InPlainWords(const std::string& serd, size_t line_size, unsigned column) {
  if (serd == "missing ';' or '.'") return "expected the statement's final '.' here";
  if (serd == "unexpected end of file" || (serd.starts_with("expected") && column > line_size)) {
    return "the line ends before the statement's final '.'";
  }
  return serd;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

struct StatementParser::Impl {
  explicit Impl(Syntax s) : syntax(s) {
    reader = serd_reader_new(s == Syntax::kNQuads ? SERD_NQUADS : SERD_NTRIPLES, this, nullptr, nullptr, nullptr,
                             &Impl::OnStatement, nullptr);
    serd_reader_set_strict(reader, true);
    serd_reader_set_error_sink(reader, &Impl::OnError, this);
  }
  ~Impl() { serd_reader_free(reader); }

  static SerdStatus OnStatement(void* handle, SerdStatementFlags, const SerdNode* graph, const SerdNode* subject,
                                const SerdNode* predicate, const SerdNode* object, const SerdNode* datatype,
                                const SerdNode* lang) {
    auto* self = static_cast<Impl*>(handle);
    ++self->line_statements;
    if (!self->error.empty()) return SERD_SUCCESS;
    self->statements_before_error = self->line_statements - 1;  // should this statement be refused
    Statement st;
    if (!self->Convert(subject, nullptr, nullptr, &st.subject) ||
        !self->Convert(predicate, nullptr, nullptr, &st.predicate) ||
        !self->Convert(object, datatype, lang, &st.object)) {
      return SERD_SUCCESS;
    }
    if (graph != nullptr && graph->type != SERD_NOTHING) {
      st.graph.emplace();
      if (!self->Convert(graph, nullptr, nullptr, &*st.graph)) return SERD_SUCCESS;
    }
    if (Status valid = ValidateStatement(st); !valid.ok()) {
      self->error = valid.message();
      return SERD_SUCCESS;
    }
    self->out->push_back(std::move(st));
    return SERD_SUCCESS;
  }

  static SerdStatus OnError(void* handle, const SerdError* e) {
    auto* self = static_cast<Impl*>(handle);
    if (!self->error.empty()) return SERD_SUCCESS;
    char buf[512];
    va_list args;
    va_copy(args, *e->args);
    std::vsnprintf(buf, sizeof buf, e->fmt, args);
    va_end(args);
    std::string msg(buf);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    self->error = msg.empty() ? "syntax error" : msg;
    self->error_column = e->col;
    self->statements_before_error = self->line_statements;
    return SERD_SUCCESS;
  }

  //! A serd node as a term; false (with `error` set) for what the store cannot hold.
  bool Convert(const SerdNode* node, const SerdNode* datatype, const SerdNode* lang, Term* term) {
    const std::string_view text = NodeText(node);
    if (!IsValidUtf8(text)) {
      error = "not a sequence of Unicode characters (a \\u escape of a surrogate?)";
      return false;
    }
    switch (node->type) {
      case SERD_URI:
        *term = Term::Iri(std::string(text));
        return true;
      case SERD_BLANK:
        *term = Term::Blank(std::string(text));
        return true;
      case SERD_LITERAL:
        if (lang != nullptr && lang->type != SERD_NOTHING) {
          *term = Term::LangLiteral(std::string(text), NodeText(lang));
        } else if (datatype != nullptr && datatype->type != SERD_NOTHING) {
          if (datatype->type != SERD_URI) {  // serd's N-Triples reader takes ^^prefix:name
            error = "datatype is not an IRI in angle brackets";
            return false;
          }
          if (!IsValidUtf8(NodeText(datatype))) {
            error = "datatype IRI is not a sequence of Unicode characters";
            return false;
          }
          *term = Term::Literal(std::string(text), std::string(NodeText(datatype)));
        } else {
          *term = Term::Literal(std::string(text));
        }
        return true;
      case SERD_CURIE:
        error = "prefixed names are not N-Triples";
        return false;
      default:
        error = "not a term of N-Triples";
        return false;
    }
  }

  //! Parses one line (without its line end) into `out`; the error without the line number.
  Status ParseLine(std::string_view line) {
    line_statements = 0;
    error.clear();
    error_column = 0;
    statements_before_error = 0;
    SerdStatus st;
    if (line.find('\0') == std::string_view::npos) {
      // As a C string: serd reads it in place, where a stream costs a page-aligned buffer, cleared,
      // per line (LineSource).
      line_copy.assign(line);
      st = serd_reader_read_string(reader, reinterpret_cast<const uint8_t*>(line_copy.c_str()));
    } else {
      LineSource src{line.data(), line.size()};
      st = serd_reader_read_source(reader, &ReadLine, &NoStreamError, &src, reinterpret_cast<const uint8_t*>("record"),
                                   kPageBytes);
    }
    // Text after a statement's final '.': serd takes it for the start of the next statement, and
    // stops there without a word (SERD_FAILURE, N-Quads), reads a second statement, or reports
    // an error at the place it gave up. Named as what it is, where it starts.
    const bool after_statement = error.empty() ? line_statements > 0 && (st != SERD_SUCCESS || line_statements > 1)
                                               : statements_before_error > 0;
    if (after_statement) {
      const size_t rest = TrailingText(line, syntax == Syntax::kNQuads ? 4 : 3);
      if (rest != std::string_view::npos) {
        error = line_statements > 1 ? "more than one statement on a line" : "text after the statement's final '.'";
        error_column = static_cast<unsigned>(rest + 1);
      }
    }
    if (!error.empty()) error = InPlainWords(error, line.size(), error_column);
    if (error.empty() && st != SERD_SUCCESS && st != SERD_FAILURE) error = "syntax error";
    if (error.empty() && line_statements > 1) error = "more than one statement on a line";
    // Every other line holds exactly one statement; serd's N-Quads reader skips some bad ones.
    if (error.empty() && line_statements == 0) error = "not a statement";
    if (error.empty()) return Status::Ok();
    return Status::InvalidArgument(error);
  }

  Syntax syntax;
  SerdReader* reader = nullptr;
  std::string line_copy;  //!< the line being read, NUL-terminated
  std::vector<Statement>* out = nullptr;
  size_t line_statements = 0;
  std::string error;
  unsigned error_column = 0;
  size_t statements_before_error = 0;  //!< read whole before `error` was set
};

StatementParser::StatementParser(Syntax syntax) : impl_(std::make_unique<Impl>(syntax)) {}
StatementParser::~StatementParser() = default;

Status StatementParser::Parse(std::string_view text, std::vector<Statement>* out, size_t first_line) {
  const size_t keep = out->size();
  impl_->out = out;
  size_t line_no = first_line - 1;
  size_t pos = 0;
  while (pos < text.size()) {
    ++line_no;
    size_t end = pos;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    const std::string_view line = text.substr(pos, end - pos);
    pos = end;
    if (pos < text.size() && text[pos] == '\r') ++pos;
    if (pos < text.size() && text[pos] == '\n' && (pos == end || text[pos - 1] == '\r')) ++pos;
    if (IsBlankLine(line)) continue;
    if (Status st = impl_->ParseLine(line); !st.ok()) {
      out->resize(keep);
      std::string where = "line " + std::to_string(line_no);
      if (impl_->error_column > 0) where += ", column " + std::to_string(impl_->error_column);
      return Status::InvalidArgument(where + ": " + st.message());
    }
  }
  return Status::Ok();
}

Result<std::vector<Statement>> ParseStatements(std::string_view text, Syntax syntax) {
  StatementParser parser(syntax);
  std::vector<Statement> out;
  RETURN_IF_ERROR(parser.Parse(text, &out));
  return out;
}

Result<Term> ParseTerm(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return Status::InvalidArgument("empty term");
  if (text.find_first_of("\r\n") != std::string_view::npos) return Status::InvalidArgument("a term is one line");
  std::string line = "<urn:x:s> <urn:x:p> ";
  line.append(text).append(" .");
  StatementParser parser(Syntax::kNTriples);
  std::vector<Statement> out;
  if (Status st = parser.Parse(line, &out); !st.ok() || out.size() != 1) {
    std::string why = st.ok() ? "not one term" : st.message();
    if (why.starts_with("line 1")) why = why.substr(why.find(": ") + 2);  // columns of the wrapped line mislead
    return Status::InvalidArgument("bad term " + std::string(text) + ": " + why);
  }
  return std::move(out.front().object);
}

Result<Term> ParseIri(std::string_view text) {
  text = Trim(text);
  if (text.starts_with('<')) {
    ASSIGN_OR_RETURN(Term term, ParseTerm(text));
    if (!term.is_iri()) return Status::InvalidArgument("not an IRI: " + std::string(text));
    return term;
  }
  if (text.empty() || text.starts_with('"') || text.starts_with("_:")) {
    return Status::InvalidArgument("not an IRI: " + std::string(text));
  }
  std::string bracketed;
  bracketed.reserve(text.size() + 2);
  bracketed.push_back('<');
  bracketed.append(text);
  bracketed.push_back('>');
  return ParseTerm(bracketed);
}

}  // namespace webindex::graph
