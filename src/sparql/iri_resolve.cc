// RFC 3986 §5.2.2 (strict) for relative references, on the IRI's characters as they are: no
// normalization beyond removing dot segments.
#include "sparql/iri_resolve.h"

#include <cctype>
#include <optional>

namespace webindex::sparql {
namespace {

struct Parts {
  std::optional<std::string_view> scheme, authority, query, fragment;
  std::string_view path;
};

Parts Split(std::string_view s) {
  Parts p;
  if (HasScheme(s)) {
    const size_t colon = s.find(':');
    p.scheme = s.substr(0, colon);
    s.remove_prefix(colon + 1);
  }
  if (const size_t hash = s.find('#'); hash != std::string_view::npos) {
    p.fragment = s.substr(hash + 1);
    s = s.substr(0, hash);
  }
  if (const size_t q = s.find('?'); q != std::string_view::npos) {
    p.query = s.substr(q + 1);
    s = s.substr(0, q);
  }
  if (s.substr(0, 2) == "//") {
    const size_t end = s.find('/', 2);
    p.authority = s.substr(2, end == std::string_view::npos ? std::string_view::npos : end - 2);
    s = end == std::string_view::npos ? std::string_view() : s.substr(end);
  }
  p.path = s;
  return p;
}

std::string RemoveDotSegments(std::string_view in) {
  std::string out;
  while (!in.empty()) {
    if (in.substr(0, 3) == "../") {
      in.remove_prefix(3);
    } else if (in.substr(0, 2) == "./") {
      in.remove_prefix(2);
    } else if (in.substr(0, 3) == "/./") {
      in.remove_prefix(2);
    } else if (in == "/.") {
      in = "/";
    } else if (in.substr(0, 4) == "/../" || in == "/..") {
      in = in.size() == 3 ? std::string_view("/") : in.substr(3);
      const size_t slash = out.rfind('/');
      out.resize(slash == std::string::npos ? 0 : slash);
      if (in.empty()) break;
    } else if (in == "." || in == "..") {
      in = {};
    } else {
      const size_t next = in.find('/', 1);
      const size_t n = next == std::string_view::npos ? in.size() : next;
      out.append(in.substr(0, n));
      in.remove_prefix(n);
    }
  }
  return out;
}

std::string Merge(const Parts& base, std::string_view path) {
  if (base.authority && base.path.empty()) return "/" + std::string(path);
  const size_t slash = base.path.rfind('/');
  if (slash == std::string_view::npos) return std::string(path);
  return std::string(base.path.substr(0, slash + 1)) + std::string(path);
}

std::string Recompose(const Parts& p, const std::string& path) {
  std::string out;
  if (p.scheme) out.append(*p.scheme).push_back(':');
  if (p.authority) out.append("//").append(*p.authority);
  out.append(path);
  if (p.query) out.append("?").append(*p.query);
  if (p.fragment) out.append("#").append(*p.fragment);
  return out;
}

}  // namespace

bool HasScheme(std::string_view iri) {
  if (iri.empty() || !std::isalpha(static_cast<unsigned char>(iri[0]))) return false;
  for (size_t i = 1; i < iri.size(); ++i) {
    const char c = iri[i];
    if (c == ':') return true;
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  }
  return false;
}

std::string ResolveIri(std::string_view base_iri, std::string_view reference) {
  if (base_iri.empty() || HasScheme(reference)) return std::string(reference);
  const Parts r = Split(reference);
  const Parts b = Split(base_iri);
  Parts t;
  std::string path;
  if (r.authority) {
    t = r;
    t.scheme = b.scheme;
    path = RemoveDotSegments(r.path);
  } else {
    t.scheme = b.scheme;
    t.authority = b.authority;
    if (r.path.empty()) {
      path = std::string(b.path);
      t.query = r.query ? r.query : b.query;
    } else {
      path = RemoveDotSegments(r.path[0] == '/' ? std::string(r.path) : Merge(b, r.path));
      t.query = r.query;
    }
  }
  t.fragment = r.fragment;
  return Recompose(t, path);
}

}  // namespace webindex::sparql
