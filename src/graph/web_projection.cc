#include "graph/web_projection.h"

#include "common/bytes.h"
#include "common/time.h"
#include "graph/graph_stage.h"
#include "graph/key_codec.h"
#include "model/url.h"

namespace webindex::graph {
namespace {

constexpr char kXsdDateTime[] = "http://www.w3.org/2001/XMLSchema#dateTime";
//! After the key space prefix: the anchor-text counts, apart from the four indexes (01-04).
constexpr char kAnchorCounts = '\x10';

//! The canonical URL of a URI, or "" when it has none.
std::string UrlOf(std::string_view uri) {
  auto url = model::UrlFromUri(uri);
  return url.ok() ? url->ToString() : std::string();
}

//! A crawlDate as xsd:dateTime in UTC, whole seconds ("2015-07-28T03:06:17Z"); "" when it does
//! not parse.
std::string DateTimeOf(const std::string& text) {
  const auto instant = ParseRfc3339(text);
  if (!instant) return "";
  std::string s = FormatRfc3339Ms(instant->seconds * 1000);  // "...:SS.000Z"
  return s.size() > 5 && s.ends_with(".000Z") ? s.substr(0, s.size() - 5) + "Z" : s;
}

Statement InWeb(Term s, const char* p, Term o) { return {std::move(s), Term::Iri(p), std::move(o), Term::Iri(kWebGraph)}; }

}  // namespace

std::vector<Statement> PageStatements(const model::Page& page, uint64_t* skipped) {
  std::vector<Statement> out;
  const std::string url = UrlOf(page.uri);
  auto keep = [&](Statement s) {
    if (ValidateStatement(s).ok()) {
      out.push_back(std::move(s));
    } else {
      ++*skipped;
    }
  };
  if (url.empty()) {
    ++*skipped;
    return out;
  }
  const Term p = Term::Iri(url);
  for (const auto& l : page.links) keep(InWeb(p, kLinksTo, Term::Iri(l.url)));
  if (page.title) keep(InWeb(p, kTitle, Term::Literal(*page.title)));
  if (page.server) keep(InWeb(p, kServer, Term::Literal(*page.server)));
  if (page.crawl_date) {
    const std::string when = DateTimeOf(*page.crawl_date);
    if (!when.empty()) keep(InWeb(p, kCrawled, Term::Literal(when, kXsdDateTime)));
  }
  return out;
}

void WebProjection::Change(const std::optional<model::Page>& before, const std::optional<model::Page>& after) {
  // Removes first: a statement of both versions ends as an add (the last op wins), so it stays.
  if (before) {
    for (auto& s : PageStatements(*before, &skipped_)) update_.Remove(std::move(s)).PermitUncheckedError();
    for (const auto& l : before->links) {
      if (!l.anchor_text.empty()) --anchor_deltas_[{l.url, l.anchor_text}];
    }
  }
  if (after) {
    for (auto& s : PageStatements(*after, &skipped_)) update_.Add(std::move(s)).PermitUncheckedError();
    for (const auto& l : after->links) {
      if (!l.anchor_text.empty()) ++anchor_deltas_[{l.url, l.anchor_text}];
    }
  }
}

std::string WebProjection::CountKey(const std::string& target, const std::string& text) const {
  std::string key = space_.prefix;
  key.push_back(kAnchorCounts);
  AppendTerm(Term::Iri(target), &key);
  AppendTerm(Term::Literal(text), &key);
  return key;
}

Result<ApplyResult> WebProjection::Apply(state::Store& store, state::WriteBatch& batch) {
  std::vector<std::string> keys;
  std::vector<const std::pair<const std::pair<std::string, std::string>, int64_t>*> changed;
  for (const auto& entry : anchor_deltas_) {
    if (entry.second == 0) continue;
    keys.push_back(CountKey(entry.first.first, entry.first.second));
    changed.push_back(&entry);
  }
  std::vector<std::optional<std::string>> counts;
  RETURN_IF_ERROR(store.MultiGet(space_.family, keys, &counts));
  for (size_t i = 0; i < keys.size(); ++i) {
    uint64_t old = 0;
    if (counts[i]) {
      BytesReader r(*counts[i]);
      if (!r.GetFixed64BE(&old)) return Status::Corruption("web graph: anchor-text count");
    }
    const auto& [target, text] = changed[i]->first;
    const int64_t now = static_cast<int64_t>(old) + changed[i]->second;
    if (now < 0) {
      return Status::Corruption("web graph: the anchor text count of " + target + " would go below 0 (" +
                                std::to_string(now) + ")");
    }
    Statement s = InWeb(Term::Iri(target), kAnchorText, Term::Literal(text));
    if (old == 0 && now > 0) {
      if (!update_.Add(std::move(s)).ok()) ++skipped_;
    } else if (old > 0 && now == 0) {
      if (!update_.Remove(std::move(s)).ok()) ++skipped_;
    }
    if (now == 0) {
      batch.Delete(space_.family, keys[i]);
    } else {
      BytesWriter w;
      w.PutFixed64BE(static_cast<uint64_t>(now));
      batch.Put(space_.family, keys[i], w.str());
    }
  }
  anchor_deltas_.clear();
  return update_.Apply(store, batch);
}

}  // namespace webindex::graph
