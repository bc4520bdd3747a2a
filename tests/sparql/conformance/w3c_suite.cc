#include "w3c_suite.h"

#include <serd/serd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "sparql/iri_resolve.h"
#include "sparql/results_format.h"
#include "test_paths.h"

namespace webindex::sparql::w3c {
namespace {

constexpr std::string_view kRs = "http://www.w3.org/2001/sw/DataAccess/tests/result-set#";
constexpr std::string_view kRdfType = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

std::vector<std::string> List(const std::string& field) {
  return field == "-" ? std::vector<std::string>{} : Split(field, ',');
}

std::string_view Text(const SerdNode* n) { return {reinterpret_cast<const char*>(n->buf), n->n_bytes}; }

//! serd's callbacks for one file: prefixes and base into the env, statements as terms.
struct RdfReader {
  SerdEnv* env = nullptr;
  std::string bnode_prefix;
  std::optional<graph::Term> graph;
  std::vector<graph::Statement> out;
  std::string error;

  bool Convert(const SerdNode* node, const SerdNode* datatype, const SerdNode* lang, graph::Term* term) {
    switch (node->type) {
      case SERD_URI: {
        // Not serd's resolution, which removes an absolute IRI's dot segments too: the query
        // parser's, which keeps an absolute IRI as written, so data and queries agree.
        const SerdNode* base = serd_env_get_base_uri(env, nullptr);
        *term = graph::Term::Iri(ResolveIri(Text(base), Text(node)));
        return true;
      }
      case SERD_CURIE: {
        SerdNode full = serd_env_expand_node(env, node);
        if (full.type == SERD_NOTHING) {
          error = "cannot expand " + std::string(Text(node));
          return false;
        }
        *term = graph::Term::Iri(std::string(Text(&full)));
        serd_node_free(&full);
        return true;
      }
      case SERD_BLANK: *term = graph::Term::Blank(bnode_prefix + std::string(Text(node))); return true;
      case SERD_LITERAL:
        if (lang != nullptr && lang->type != SERD_NOTHING) {
          *term = graph::Term::LangLiteral(std::string(Text(node)), Text(lang));
        } else if (datatype != nullptr && datatype->type != SERD_NOTHING) {
          graph::Term dt;
          if (!Convert(datatype, nullptr, nullptr, &dt)) return false;
          *term = graph::Term::Literal(std::string(Text(node)), dt.value());
        } else {
          *term = graph::Term::Literal(std::string(Text(node)));
        }
        return true;
      default: error = "unexpected node"; return false;
    }
  }

  static SerdStatus OnBase(void* h, const SerdNode* uri) {
    return serd_env_set_base_uri(static_cast<RdfReader*>(h)->env, uri);
  }
  static SerdStatus OnPrefix(void* h, const SerdNode* name, const SerdNode* uri) {
    return serd_env_set_prefix(static_cast<RdfReader*>(h)->env, name, uri);
  }
  static SerdStatus OnStatement(void* h, SerdStatementFlags, const SerdNode* g, const SerdNode* s,
                                const SerdNode* p, const SerdNode* o, const SerdNode* dt, const SerdNode* lang) {
    auto* self = static_cast<RdfReader*>(h);
    graph::Statement st;
    if (!self->Convert(s, nullptr, nullptr, &st.subject) || !self->Convert(p, nullptr, nullptr, &st.predicate) ||
        !self->Convert(o, dt, lang, &st.object)) {
      return SERD_ERR_BAD_SYNTAX;
    }
    if (g != nullptr && g->type != SERD_NOTHING) {
      st.graph.emplace();
      if (!self->Convert(g, nullptr, nullptr, &*st.graph)) return SERD_ERR_BAD_SYNTAX;
    } else {
      st.graph = self->graph;
    }
    self->out.push_back(std::move(st));
    return SERD_SUCCESS;
  }
};

//! The one object of (s, p, ?) in `g`, or nullptr.
const graph::Term* Object(const std::vector<graph::Statement>& g, const graph::Term& s, std::string_view p) {
  for (const auto& st : g) {
    if (st.subject == s && st.predicate.value() == p) return &st.object;
  }
  return nullptr;
}

std::string Rs(std::string_view local) { return std::string(kRs) + std::string(local); }

//! An rs:ResultSet graph as rows; nullopt when `g` holds none.
std::optional<Answer> ResultSetOf(const std::vector<graph::Statement>& g) {
  const graph::Term* set = nullptr;
  for (const auto& st : g) {
    if (st.predicate.value() == kRdfType && st.object == graph::Term::Iri(Rs("ResultSet"))) set = &st.subject;
  }
  if (set == nullptr) return std::nullopt;
  Answer a;
  if (const graph::Term* b = Object(g, *set, Rs("boolean"))) {
    a.kind = Answer::Kind::kBoolean;
    a.boolean = b->value() == "true" || b->value() == "1";
    return a;
  }
  std::vector<std::pair<long, std::map<std::string, graph::Term>>> sols;
  for (const auto& st : g) {
    if (st.subject == *set && st.predicate.value() == Rs("resultVariable")) a.vars.push_back(st.object.value());
    if (st.subject != *set || st.predicate.value() != Rs("solution")) continue;
    std::map<std::string, graph::Term> row;
    for (const auto& b : g) {
      if (b.subject != st.object || b.predicate.value() != Rs("binding")) continue;
      const graph::Term* var = Object(g, b.object, Rs("variable"));
      const graph::Term* value = Object(g, b.object, Rs("value"));
      if (var && value) row[var->value()] = *value;
    }
    const graph::Term* index = Object(g, st.object, Rs("index"));
    sols.emplace_back(index ? std::stol(index->value()) : 0, std::move(row));
  }
  std::stable_sort(sols.begin(), sols.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [i, row] : sols) a.rows.push_back(std::move(row));
  return a;
}

}  // namespace

std::string TestCase::Dir() const { return WEBINDEX_TEST_DATA + "/sparql/eval/" + folder; }

Result<std::vector<TestCase>> ReadManifest(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read " + path);
  std::vector<TestCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto f = Split(line, '\t');
    if (f.size() < 4) return Status::InvalidArgument("bad manifest line: " + line);
    TestCase c;
    c.folder = f[0];
    c.name = f[1];
    if (f[2] == "out-of-scope") {
      c.out_of_scope = f[3];
    } else {
      if (f.size() != 8) return Status::InvalidArgument("bad manifest line: " + line);
      c.query = f[3];
      c.data = List(f[4]);
      for (const auto& g : List(f[5])) {
        size_t eq = g.find('=');
        c.graphs.emplace_back(g.substr(0, eq), g.substr(eq + 1));
      }
      c.result = f[6];
      c.lax = f[7] == "lax";
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

Result<ExpectedFailures> ReadExpectedFailures(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read " + path);
  ExpectedFailures out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string category, id, reason;
    fields >> category >> id;
    std::getline(fields >> std::ws, reason);
    if (category == "known-failure") {
      out.known[id] = reason;
    } else if (category == "out-of-scope") {
      out.out_of_scope[id] = reason;
    } else {
      return Status::InvalidArgument("bad line in " + path + ": " + line);
    }
  }
  return out;
}

Result<std::vector<graph::Statement>> ReadRdf(const std::string& path, const std::string& base,
                                              const std::string& bnode_prefix, const std::optional<graph::Term>& graph) {
  std::string file = path;
  SerdSyntax syntax = SERD_TURTLE;
  if (path.ends_with(".rdf")) file += ".nt";
  if (file.ends_with(".nt")) syntax = SERD_NTRIPLES;
  if (file.ends_with(".trig")) syntax = SERD_TRIG;
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::NotFound("cannot read " + file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string body = text.str();
  if (body.empty()) return std::vector<graph::Statement>{};  // serd reads past the end of ""
  SerdNode base_node = serd_node_from_string(SERD_URI, reinterpret_cast<const uint8_t*>(base.c_str()));
  RdfReader r;
  r.env = serd_env_new(&base_node);
  r.bnode_prefix = bnode_prefix;
  r.graph = graph;
  SerdReader* reader = serd_reader_new(syntax, &r, nullptr, &RdfReader::OnBase, &RdfReader::OnPrefix,
                                       &RdfReader::OnStatement, nullptr);
  SerdStatus st = serd_reader_read_string(reader, reinterpret_cast<const uint8_t*>(body.c_str()));
  serd_reader_free(reader);
  serd_env_free(r.env);
  if (!r.error.empty()) return Status::InvalidArgument(file + ": " + r.error);
  if (st != SERD_SUCCESS) return Status::InvalidArgument(file + ": syntax error");
  return std::move(r.out);
}

Result<Answer> ReadAnswer(const std::string& path, const std::string& base) {
  const std::string ext = path.substr(path.rfind('.') + 1);
  if (ext == "srx" || ext == "srj" || ext == "tsv" || ext == "csv") {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::NotFound("cannot read " + path);
    std::stringstream text;
    text << in.rdbuf();
    return ParseAnswer(text.str(), ext, base);
  }
  ASSIGN_OR_RETURN(auto g, ReadRdf(path, base, "", std::nullopt));
  if (auto rows = ResultSetOf(g)) return std::move(*rows);
  Answer a;
  a.kind = Answer::Kind::kGraph;
  a.graph = std::move(g);
  return a;
}

Answer FromQueryResult(const QueryResult& result) {
  Answer a;
  if (result.form == Query::Form::kAsk) {
    a.kind = Answer::Kind::kBoolean;
    a.boolean = result.boolean;
  } else if (result.form != Query::Form::kSelect) {
    a.kind = Answer::Kind::kGraph;
    a.graph = result.statements;
  } else {
    a.vars = result.vars;
    for (const auto& row : result.rows) {
      auto& out = a.rows.emplace_back();
      for (size_t i = 0; i < row.size() && i < result.vars.size(); ++i) {
        if (row[i]) out[result.vars[i]] = *row[i];
      }
    }
  }
  return a;
}

QueryResult ToQueryResult(const Answer& answer) {
  QueryResult r;
  if (answer.kind == Answer::Kind::kBoolean) {
    r.form = Query::Form::kAsk;
    r.boolean = answer.boolean;
    return r;
  }
  if (answer.kind == Answer::Kind::kGraph) {
    r.form = Query::Form::kConstruct;
    r.statements = answer.graph;
    return r;
  }
  r.vars = answer.vars;
  for (const auto& row : answer.rows) {  // variables bound but not declared still get a column
    for (const auto& [v, t] : row) {
      if (std::find(r.vars.begin(), r.vars.end(), v) == r.vars.end()) r.vars.push_back(v);
    }
  }
  for (const auto& row : answer.rows) {
    auto& out = r.rows.emplace_back(r.vars.size());
    for (size_t i = 0; i < r.vars.size(); ++i) {
      if (auto it = row.find(r.vars[i]); it != row.end()) out[i] = it->second;
    }
  }
  return r;
}

//! `result` through a writer and its reader: empty when nothing changed.
std::string RoundTrip(const QueryResult& result, const Answer& answer, bool csv) {
  std::vector<std::pair<ResultFormat, std::string>> formats;
  if (csv) {
    formats = {{ResultFormat::kCsv, "csv"}};
  } else if (result.form == Query::Form::kSelect) {
    formats = {{ResultFormat::kJson, "srj"}, {ResultFormat::kXml, "srx"}, {ResultFormat::kTsv, "tsv"}};
  } else if (result.form == Query::Form::kAsk) {
    formats = {{ResultFormat::kJson, "srj"}, {ResultFormat::kXml, "srx"}};
  }
  for (const auto& [format, ext] : formats) {
    auto text = FormatResult(result, format);
    if (!text.ok()) return "writing " + ext + ": " + text.status().ToString();
    auto back = ParseAnswer(*text, ext, "");
    if (!back.ok()) return "reading back " + ext + ": " + back.status().ToString();
    std::string why = Compare(*back, answer, /*ordered=*/true, false);
    if (!why.empty()) return "written as " + ext + " and read back: " + why;
  }
  return "";
}

}  // namespace webindex::sparql::w3c
