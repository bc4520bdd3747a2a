#include "graph/key_codec.h"

namespace webindex::graph {
namespace {

constexpr char kDefaultGraph = 0x01;
//! Kind bytes; after the default graph's byte, in Term order.
constexpr char kIriByte = 0x02, kBlankByte = 0x03, kLiteralByte = 0x04;
//! What follows a literal's lexical form: the order xsd:string < language tag < datatype.
constexpr char kPlainString = 0x01, kLanguage = 0x02, kDatatype = 0x03;

void AppendEscaped(std::string_view s, std::string* out) {
  for (size_t nul; (nul = s.find('\0')) != std::string_view::npos; s.remove_prefix(nul + 1)) {
    out->append(s.data(), nul + 1);
    out->push_back('\xff');
  }
  out->append(s);
  out->append("\0\x01", 2);
}

bool ReadEscaped(std::string_view* in, std::string* s) {
  s->clear();
  std::string_view rest = *in;
  for (size_t nul; (nul = rest.find('\0')) != std::string_view::npos && nul + 1 < rest.size();) {
    s->append(rest.data(), nul);  // the bytes up to a 0x00, a run at a time
    const char next = rest[nul + 1];
    rest.remove_prefix(nul + 2);
    if (next == '\x01') {
      *in = rest;
      return true;
    }
    if (next != '\xff') return false;
    s->push_back('\0');
  }
  return false;
}

}  // namespace

void AppendKeyString(std::string_view s, std::string* out) { AppendEscaped(s, out); }
bool ReadKeyString(std::string_view* in, std::string* s) { return ReadEscaped(in, s); }

std::array<int, 3> IndexOrder(Index index) {
  switch (index) {
    case Index::kSpo:
      return {0, 1, 2};
    case Index::kSop:
      return {0, 2, 1};
    case Index::kPos:
      return {1, 2, 0};
    case Index::kOsp:
      return {2, 0, 1};
  }
  return {0, 1, 2};
}

void AppendTerm(const Term& term, std::string* out) {
  switch (term.kind()) {
    case TermKind::kIri:
      out->push_back(kIriByte);
      AppendEscaped(term.value(), out);
      return;
    case TermKind::kBlank:
      out->push_back(kBlankByte);
      AppendEscaped(term.value(), out);
      return;
    case TermKind::kLiteral:
      out->push_back(kLiteralByte);
      AppendEscaped(term.value(), out);
      if (!term.language().empty()) {
        out->push_back(kLanguage);
        AppendEscaped(term.language(), out);
      } else if (term.datatype() == kXsdString) {
        out->push_back(kPlainString);
      } else {
        out->push_back(kDatatype);
        AppendEscaped(term.datatype(), out);
      }
      return;
  }
}

void AppendGraph(const std::optional<Term>& graph, std::string* out) {
  if (graph) {
    AppendTerm(*graph, out);
  } else {
    out->push_back(kDefaultGraph);
  }
}

bool ReadTerm(std::string_view* in, Term* term) {
  // Into the term's own strings: a scan decodes each row into the same Statement, and reusing
  // their buffers saves an allocation per string.
  if (in->empty()) return false;
  const char kind = in->front();
  in->remove_prefix(1);
  if (!ReadEscaped(in, &term->value_)) return false;
  if (kind == kIriByte || kind == kBlankByte) {
    term->kind_ = kind == kIriByte ? TermKind::kIri : TermKind::kBlank;
    term->datatype_.clear();
    term->language_.clear();
    return true;
  }
  if (kind != kLiteralByte || in->empty()) return false;
  term->kind_ = TermKind::kLiteral;
  const char suffix = in->front();
  in->remove_prefix(1);
  if (suffix == kPlainString) {
    term->datatype_.assign(kXsdString);
    term->language_.clear();
    return true;
  }
  if (suffix == kLanguage) {
    if (!ReadEscaped(in, &term->language_)) return false;
    for (char& c : term->language_) {  // stored lower case (Term::LangLiteral)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    term->datatype_.assign(kRdfLangString);
    return true;
  }
  if (suffix != kDatatype || !ReadEscaped(in, &term->datatype_)) return false;
  if (term->datatype_.empty()) term->datatype_.assign(kXsdString);
  term->language_.clear();
  return true;
}

bool ReadGraph(std::string_view* in, std::optional<Term>* graph) {
  if (in->empty()) return false;
  if (in->front() == kDefaultGraph) {
    in->remove_prefix(1);
    graph->reset();
    return true;
  }
  graph->emplace();
  return ReadTerm(in, &**graph);
}

void AppendRowKey(const KeySpace& space, Index index, const Statement& st, std::string* key) {
  const Term* terms[3] = {&st.subject, &st.predicate, &st.object};
  key->append(space.prefix);
  key->push_back(static_cast<char>(index));
  AppendGraph(st.graph, key);
  for (int pos : IndexOrder(index)) AppendTerm(*terms[pos], key);
}

std::string RowKey(const KeySpace& space, Index index, const Statement& st) {
  std::string key;
  key.reserve(space.prefix.size() + 16 + st.subject.value().size() + st.predicate.value().size() +
              st.object.value().size());
  AppendRowKey(space, index, st, &key);
  return key;
}

bool DecodeRowKey(std::string_view in, Index index, Statement* st) {
  Term* terms[3] = {&st->subject, &st->predicate, &st->object};
  if (!ReadGraph(&in, &st->graph)) return false;
  for (int pos : IndexOrder(index)) {
    if (!ReadTerm(&in, terms[pos])) return false;
  }
  return in.empty();
}

std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
  if (!end.empty()) end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  return end;
}

}  // namespace webindex::graph
