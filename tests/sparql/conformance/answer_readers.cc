// The result formats read back: SRX with a small reader for its fixed shape, SRJ with simdjson,
// TSV terms in N-Triples / Turtle syntax, CSV fields as plain text.
#include <simdjson.h>

#include <cstdlib>

#include "sparql/iri_resolve.h"
#include "w3c_suite.h"

namespace webindex::sparql::w3c {
namespace {

constexpr std::string_view kXsd = "http://www.w3.org/2001/XMLSchema#";

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string XmlDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    size_t semi = s.find(';', i);
    std::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "lt") out += '<';
    else if (ent == "gt") out += '>';
    else if (ent == "amp") out += '&';
    else if (ent == "quot") out += '"';
    else if (ent == "apos") out += '\'';
    else if (ent.starts_with("#x")) AppendUtf8(std::strtoul(std::string(ent.substr(2)).c_str(), nullptr, 16), &out);
    else if (ent.starts_with("#")) AppendUtf8(std::strtoul(std::string(ent.substr(1)).c_str(), nullptr, 10), &out);
    i = semi;
  }
  return out;
}

struct XmlTag {
  std::string name;  //!< local name, prefix dropped
  std::map<std::string, std::string> attrs;
  bool end = false, empty = false;
};

XmlTag ParseTag(std::string_view body) {
  XmlTag t;
  if (!body.empty() && body[0] == '/') {
    t.end = true;
    body.remove_prefix(1);
  }
  if (!body.empty() && body.back() == '/') {
    t.empty = true;
    body.remove_suffix(1);
  }
  size_t i = body.find_first_of(" \t\r\n");
  std::string name(body.substr(0, i));
  if (size_t colon = name.find(':'); colon != std::string::npos) name = name.substr(colon + 1);
  t.name = name;
  while (i != std::string_view::npos && i < body.size()) {
    size_t eq = body.find('=', i);
    if (eq == std::string_view::npos) break;
    std::string key(body.substr(i, eq - i));
    key.erase(0, key.find_first_not_of(" \t\r\n"));
    key.erase(key.find_last_not_of(" \t\r\n") + 1);
    size_t q = body.find_first_of("\"'", eq);
    size_t q2 = body.find(body[q], q + 1);
    t.attrs[key] = XmlDecode(body.substr(q + 1, q2 - q - 1));
    i = q2 + 1;
  }
  return t;
}

Result<Answer> ParseSrx(std::string_view x, const std::string& base) {
  Answer a;
  std::map<std::string, graph::Term>* row = nullptr;
  std::string var, text;
  XmlTag term;
  bool in_term = false, in_boolean = false;
  size_t i = 0;
  while ((i = x.find('<', i)) != std::string_view::npos) {
    if (x.substr(i, 4) == "<!--") {
      i = x.find("-->", i) + 3;
      continue;
    }
    if (x.substr(i, 2) == "<?") {
      i = x.find("?>", i) + 2;
      continue;
    }
    size_t close = x.find('>', i);
    if (close == std::string_view::npos) return Status::InvalidArgument("srx: unclosed tag");
    XmlTag t = ParseTag(x.substr(i + 1, close - i - 1));
    size_t next = x.find('<', close);
    std::string_view between = x.substr(close + 1, next - close - 1);
    i = close + 1;
    if (!t.end) {
      if (t.name == "variable") a.vars.push_back(t.attrs["name"]);
      if (t.name == "result") row = &a.rows.emplace_back();
      if (t.name == "binding") var = t.attrs["name"];
      if (t.name == "boolean") in_boolean = true;
      if (t.name == "uri" || t.name == "bnode" || t.name == "literal") {
        term = t;
        in_term = true;
        text.clear();
      }
    }
    if (in_term && !(t.end && t.name == term.name)) text += XmlDecode(between);
    if (in_boolean && !t.end) {
      a.kind = Answer::Kind::kBoolean;
      a.boolean = XmlDecode(between).find("true") != std::string::npos;
      in_boolean = false;
    }
    if (in_term && (t.end || t.empty) && t.name == term.name) {
      in_term = false;
      if (row == nullptr) return Status::InvalidArgument("srx: binding outside a result");
      graph::Term value;
      if (term.name == "uri") {
        value = graph::Term::Iri(ResolveIri(base, text));
      } else if (term.name == "bnode") {
        value = graph::Term::Blank(text);
      } else if (term.attrs.count("xml:lang")) {
        value = graph::Term::LangLiteral(text, term.attrs["xml:lang"]);
      } else {
        value = graph::Term::Literal(text, term.attrs["datatype"]);
      }
      (*row)[var] = std::move(value);
    }
  }
  return a;
}

Result<Answer> ParseSrj(std::string_view text, const std::string& base) {
  simdjson::dom::parser parser;
  simdjson::padded_string json(text);
  simdjson::dom::element doc;
  if (parser.parse(json).get(doc)) return Status::InvalidArgument("srj: not JSON");
  Answer a;
  bool b;
  if (!doc["boolean"].get(b)) {
    a.kind = Answer::Kind::kBoolean;
    a.boolean = b;
    return a;
  }
  simdjson::dom::array vars, bindings;
  if (!doc["head"]["vars"].get(vars)) {
    for (auto v : vars) a.vars.emplace_back(std::string_view(v.get_string().value_unsafe()));
  }
  if (doc["results"]["bindings"].get(bindings)) return Status::InvalidArgument("srj: no results.bindings");
  for (auto binding : bindings) {
    auto& row = a.rows.emplace_back();
    simdjson::dom::object obj;
    if (binding.get(obj)) return Status::InvalidArgument("srj: a binding is not an object");
    for (auto [key, v] : obj) {
      std::string_view type, value, lang, datatype;
      if (v["type"].get(type) || v["value"].get(value)) return Status::InvalidArgument("srj: bad term");
      std::string val(value);
      if (type == "uri") {
        row[std::string(key)] = graph::Term::Iri(ResolveIri(base, val));
      } else if (type == "bnode") {
        row[std::string(key)] = graph::Term::Blank(val);
      } else if (!v["xml:lang"].get(lang)) {
        row[std::string(key)] = graph::Term::LangLiteral(val, lang);
      } else {
        if (v["datatype"].get(datatype)) datatype = {};
        row[std::string(key)] = graph::Term::Literal(val, std::string(datatype));
      }
    }
  }
  return a;
}

std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    switch (c) {
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u':
      case 'U': {
        size_t n = c == 'u' ? 4 : 8;
        AppendUtf8(std::strtoul(std::string(s.substr(i + 1, n)).c_str(), nullptr, 16), &out);
        i += n;
        break;
      }
      default: out += c;
    }
  }
  return out;
}

Result<graph::Term> ParseTsvTerm(std::string_view s, const std::string& base) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  if (s.size() >= 2 && s.front() == '<' && s.back() == '>') {
    return graph::Term::Iri(ResolveIri(base, Unescape(s.substr(1, s.size() - 2))));
  }
  if (s.starts_with("_:")) return graph::Term::Blank(std::string(s.substr(2)));
  if (s.starts_with("\"")) {
    size_t end = 1;
    while (end < s.size() && s[end] != '"') end += s[end] == '\\' ? 2 : 1;
    if (end >= s.size()) return Status::InvalidArgument("tsv: unterminated literal");
    std::string lex = Unescape(s.substr(1, end - 1));
    std::string_view rest = s.substr(end + 1);
    if (rest.starts_with("@")) return graph::Term::LangLiteral(lex, rest.substr(1));
    if (rest.starts_with("^^<") && rest.ends_with(">")) {
      return graph::Term::Literal(lex, ResolveIri(base, rest.substr(3, rest.size() - 4)));
    }
    if (!rest.empty()) return Status::InvalidArgument("tsv: bad literal " + std::string(s));
    return graph::Term::Literal(lex);
  }
  if (s == "true" || s == "false") return graph::Term::Literal(std::string(s), std::string(kXsd) + "boolean");
  if (s.find_first_not_of("+-0123456789.eE") == std::string_view::npos && !s.empty()) {
    std::string type = s.find_first_of("eE") != std::string_view::npos ? "double"
                       : s.find('.') != std::string_view::npos  ? "decimal"
                                                                : "integer";
    return graph::Term::Literal(std::string(s), std::string(kXsd) + type);
  }
  return Status::InvalidArgument("tsv: bad term " + std::string(s));
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

std::vector<std::string_view> Cells(std::string_view line) {
  std::vector<std::string_view> cells;
  while (true) {
    size_t tab = line.find('\t');
    cells.push_back(line.substr(0, tab));
    if (tab == std::string_view::npos) return cells;
    line.remove_prefix(tab + 1);
  }
}

Result<Answer> ParseTsv(std::string_view text, const std::string& base) {
  auto lines = Lines(text);
  if (lines.empty()) return Status::InvalidArgument("tsv: no header");
  Answer a;
  for (auto h : Cells(lines[0])) {
    while (!h.empty() && h.back() == '\r') h.remove_suffix(1);
    a.vars.emplace_back(h.substr(h.starts_with("?") || h.starts_with("$") ? 1 : 0));
  }
  for (size_t i = 1; i < lines.size(); ++i) {
    auto cells = Cells(lines[i]);
    auto& row = a.rows.emplace_back();
    for (size_t c = 0; c < cells.size() && c < a.vars.size(); ++c) {
      std::string_view cell = cells[c];
      while (!cell.empty() && cell.back() == '\r') cell.remove_suffix(1);
      if (cell.empty()) continue;
      ASSIGN_OR_RETURN(row[a.vars[c]], ParseTsvTerm(cell, base));
    }
  }
  return a;
}

//! RFC 4180 records: quoted fields may hold commas, quotes (doubled) and line ends.
std::vector<std::vector<std::string>> CsvRecords(std::string_view text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
    } else if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      record.push_back(std::move(field));
      field.clear();
      records.push_back(std::move(record));
      record.clear();
    } else {
      field += c;
    }
  }
  if (!field.empty() || !record.empty()) {
    record.push_back(std::move(field));
    records.push_back(std::move(record));
  }
  return records;
}

Result<Answer> ParseCsv(std::string_view text) {
  auto records = CsvRecords(text);
  if (records.empty()) return Status::InvalidArgument("csv: no header");
  Answer a;
  a.csv = true;
  a.vars = records[0];
  for (size_t i = 1; i < records.size(); ++i) {
    auto& row = a.rows.emplace_back();
    for (size_t c = 0; c < records[i].size() && c < a.vars.size(); ++c) {
      if (!records[i][c].empty()) row[a.vars[c]] = graph::Term::Literal(records[i][c]);
    }
  }
  return a;
}

}  // namespace

Result<Answer> ParseAnswer(std::string_view text, std::string_view ext, const std::string& base) {
  if (ext == "srx") return ParseSrx(text, base);
  if (ext == "srj") return ParseSrj(text, base);
  if (ext == "tsv") return ParseTsv(text, base);
  if (ext == "csv") return ParseCsv(text);
  return Status::InvalidArgument("no reader for ." + std::string(ext));
}

}  // namespace webindex::sparql::w3c
