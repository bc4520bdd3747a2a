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
