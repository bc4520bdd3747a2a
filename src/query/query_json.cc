#include "query/query_json.h"

#include <cstdio>

#include "codec/json_writer.h"

namespace webindex::query {
namespace {

void WriteNext(codec::JsonWriter& w, const std::optional<std::string>& next) {
  w.Key("next");
  if (next) {
    w.String(*next);
  } else {
    w.Null();
  }
}

void WriteOptional(codec::JsonWriter& w, std::string_view key, const std::optional<std::string>& v) {
  w.Key(key);
  if (v) {
    w.String(*v);
  } else {
    w.Null();
  }
}

void WriteRanked(codec::JsonWriter& w, const std::vector<RankedPage>& results) {
  w.Key("results").BeginArray();
  for (const auto& r : results) {
    w.BeginObject().Key("url").String(r.url).Key("uri").String(r.uri).Key("count").Uint(r.count).EndObject();
  }
  w.EndArray();
}

//! Length of the valid UTF-8 sequence at s[i], or 0 (RFC 3629: no overlongs, surrogates, > U+10FFFF).
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xbf) return 0;
  }
  return n;
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string ToJson(const TopResult& r) {
  codec::JsonWriter w;
  w.BeginObject();
  WriteRanked(w, r.results);
  WriteNext(w, r.next);
  return w.EndObject().Take();
}

std::string ToJson(const PagesResult& r) {
  codec::JsonWriter w;
  w.BeginObject().Key("domain").String(r.domain).Key("total").Uint(r.total);
  WriteRanked(w, r.results);
  WriteNext(w, r.next);
  return w.EndObject().Take();
}

std::string ToJson(const PageResult& r) {
  codec::JsonWriter w;
  w.BeginObject().Key("url").String(r.url).Key("uri").String(r.uri).Key("domain").String(r.domain);
  w.Key("incount").Uint(r.incount).Key("numOutbound").Uint(r.num_outbound).Key("crawled").Bool(r.crawled);
  WriteOptional(w, "crawlDate", r.crawl_date);
  WriteOptional(w, "title", r.title);
  WriteOptional(w, "server", r.server);
  if (r.pagerank) {
    char score[32];
    std::snprintf(score, sizeof score, "%.9g", *r.pagerank);
    w.Key("pagerank").BeginObject().Key("score").Raw(score).Key("result").Uint(r.pagerank_result).EndObject();
  }
  return w.EndObject().Take();
}

std::string ToJson(const LinksResult& r) {
  codec::JsonWriter w;
  w.BeginObject().Key("url").String(r.url).Key("uri").String(r.uri);
  w.Key("linkType").String(r.type == LinkType::kIn ? "in" : "out").Key("total").Uint(r.total);
  w.Key("results").BeginArray();
  for (const auto& l : r.results) {
    w.BeginObject().Key("url").String(l.url).Key("uri").String(l.uri).Key("anchorText").String(l.anchor_text);
    w.EndObject();
  }
  w.EndArray();
  WriteNext(w, r.next);
  return w.EndObject().Take();
}

std::string ToJson(const SuggestResult& r) {
  codec::JsonWriter w;
  w.BeginObject().Key("q").String(r.q).Key("results").BeginArray();
  for (const auto& s : r.results) {
    w.BeginObject().Key("name").String(s.name).Key("kind").String(s.is_domain ? "domain" : "host");
    w.Key("domain").String(s.domain);
    if (s.is_domain) w.Key("pages").Uint(s.pages);
    w.EndObject();
  }
  w.EndArray().Key("truncated").Bool(r.truncated);
  return w.EndObject().Take();
}

std::string ToJson(const sink::TableTotals& t) {
  codec::JsonWriter w;
  w.BeginObject().Key("pages").Uint(t.pages).Key("crawled").Uint(t.crawled).Key("linkedTo").Uint(t.linked);
  w.Key("links").Uint(t.links).Key("domains").Uint(t.domains);
  return w.EndObject().Take();
}

std::string ErrorJson(std::string_view message) {
  codec::JsonWriter w;
  return w.BeginObject().Key("error").String(ValidUtf8(message)).EndObject().Take();
}

}  // namespace webindex::query
