// QueryService::Suggest and Totals: answers from what the sink keeps beside the table
// (sink/summary.h). Domain keys sort by their last label ("com.stackoverflow"), so the start of
// a name is looked up in the sink's index of plain names, and a domain's hosts in its p: rows.
// Both through one TableRead: a partitioned table merges them across its shards.
#include <algorithm>
#include <charconv>
#include <set>

#include "model/url.h"
#include "query/query_service.h"
#include "sink/summary.h"
#include "sink/table.h"

namespace webindex::query {
namespace {

constexpr size_t kMaxDomainsRead = 1000;       //!< index entries read for the whole text
constexpr size_t kMaxParentDomainsRead = 200;  //!< ... for each way the text may name a host
constexpr size_t kMaxSplits = 4;               //!< dots of the text tried as host / domain borders
constexpr size_t kMaxHostsPerDomain = 20;      //!< hosts listed under one domain
constexpr size_t kMaxNameChars = 253;          //!< the longest DNS name

struct Candidate {
  std::string name;
  uint64_t pages = 0;
};

bool IsNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'; }

//! The start of a host name the text stands for: lowercased, without a scheme, port or path.
Result<std::string> NameStart(std::string_view text) {
  std::string q;
  for (char c : text) q.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  const size_t first = q.find_first_not_of(' '), last = q.find_last_not_of(' ');
  q = first == std::string::npos ? "" : q.substr(first, last - first + 1);
  for (std::string_view scheme : {"http://", "https://"}) {
    if (q.starts_with(scheme)) q.erase(0, scheme.size());
  }
  q = q.substr(0, q.find_first_of("/?#:"));
  if (q.empty()) return Status::InvalidArgument("q is empty: give the start of a domain or host name (stackoverflow)");
  if (q.size() > kMaxNameChars) {
    return Status::InvalidArgument("q is longer than " + std::to_string(kMaxNameChars) +
                                   " characters, the longest host name");
  }
  if (!std::all_of(q.begin(), q.end(), IsNameChar)) {
    return Status::InvalidArgument("q '" + std::string(text) +
                                   "' cannot start a host name: letters, digits, '-', '_' and '.' only");
  }
  return q;
}

uint64_t ParseCount(std::string_view text) {
  uint64_t n = 0;
  std::from_chars(text.data(), text.data() + text.size(), n);
  return n;
}

//! Up to `max` domains whose name starts with `prefix`, the one named `prefix` first, then most
//! pages first; `truncated` set when more start so.
Status DomainsStartingWith(TableRead& read, const std::string& prefix, size_t max, std::vector<Candidate>* out,
                           bool* truncated) {
  std::vector<KeyValue> entries;
  RETURN_IF_ERROR(read.ScanDomainIndex(prefix, max + 1, &entries));
  for (const KeyValue& e : entries) {
    if (out->size() == max) {
      *truncated = true;
      break;
    }
    out->push_back({e.key, ParseCount(e.value)});
  }
  std::sort(out->begin(), out->end(), [&](const Candidate& a, const Candidate& b) {
    if ((a.name == prefix) != (b.name == prefix)) return a.name == prefix;
    return a.pages != b.pages ? a.pages > b.pages : a.name < b.name;
  });
  return Status::Ok();
}

//! Some row of the table starts with `row_prefix` (the cell keys of such rows start with its
//! RowPrefixKey).
Result<bool> AnyRow(TableRead& read, const std::string& row_prefix) {
  std::vector<KeyValue> cells;
  RETURN_IF_ERROR(read.Scan(sink::RowPrefixKey(row_prefix), "", 1, &cells));
  return !cells.empty();
}

//! Hosts of the domain with key `key` ("com.stackoverflow") other than the domain itself, in
//! key order: one read of one cell per host, at most `max`.
Status HostsOf(TableRead& read, const std::string& key, size_t max, std::vector<std::string>* hosts) {
  const std::string prefix = "p:" + key + ">";  // then the rest of the reversed host, '>', ...
  const std::string cells_prefix = sink::RowPrefixKey(prefix);
  std::string after;  // no cell key is a row prefix key: "after" it is "at or after" it
  std::vector<KeyValue> cells;
  sink::Cell c;
  while (hosts->size() < max) {
    RETURN_IF_ERROR(read.Scan(cells_prefix, after, 1, &cells));
    if (cells.empty()) break;
    if (!sink::DecodeCellKey(cells[0].key, &c.row, &c.cf, &c.cq)) return Status::Corruption("undecodable table key");
    const size_t end = c.row.find('>', prefix.size());
    const std::string rest = c.row.substr(prefix.size(), end - prefix.size());  // ".meta", "" for the domain
    if (!rest.empty()) hosts->push_back(model::HostName(key + rest));
    after = sink::RowPrefixKey(prefix + rest + "?");  // '>' + 1: past this host's rows
  }
  return Status::Ok();
}

}  // namespace

Result<SuggestResult> QueryService::Suggest(std::string_view text, size_t limit) {
  if (limit < 1 || limit > kMaxSuggestLimit) {
    return Status::InvalidArgument("limit must be between 1 and " + std::to_string(kMaxSuggestLimit));
  }
  SuggestResult out;
  ASSIGN_OR_RETURN(out.q, NameStart(text));
  const std::string& q = out.q;
  const std::unique_ptr<TableRead> read = source_->Read();
  ASSIGN_OR_RETURN(auto kept, read->Totals());
  if (!kept) {
    return Status::NotFound(
        "this table has no index of domain names yet: `webindex run` builds it when it opens "
        "the data dir");
  }
  std::vector<Candidate> domains;
  RETURN_IF_ERROR(DomainsStartingWith(*read, q, kMaxDomainsRead, &domains, &out.truncated));

  // The text may name a host: "meta.stackoverflow" is meta. of a domain starting "stackoverflow".
  std::vector<Suggestion> named_hosts;
  size_t dot = q.find('.');
  for (size_t splits = 0; dot != std::string::npos && splits < kMaxSplits; ++splits, dot = q.find('.', dot + 1)) {
    const std::string sub = q.substr(0, dot), rest = q.substr(dot + 1);
    if (sub.empty() || rest.empty()) continue;
    std::vector<Candidate> parents;
    RETURN_IF_ERROR(DomainsStartingWith(*read, rest, kMaxParentDomainsRead, &parents, &out.truncated));
    for (const auto& d : parents) {
      ASSIGN_OR_RETURN(bool has, AnyRow(*read, "p:" + model::HostName(d.name) + ">." + model::HostName(sub) + ">"));
      if (has) named_hosts.push_back({sub + "." + d.name, d.name, false, d.pages});
    }
  }

  std::set<std::string> seen;
  auto add = [&](Suggestion s) {
    if (out.results.size() == limit || !seen.insert(s.name).second) return false;
    out.results.push_back(std::move(s));
    return true;
  };
  std::stable_partition(named_hosts.begin(), named_hosts.end(), [&](const Suggestion& s) { return s.name == q; });
  for (auto& s : named_hosts) add(std::move(s));
  // Each domain, followed by as many of its hosts as the slots the domains leave allow.
  const size_t listed = std::min(domains.size(), limit - out.results.size());
  size_t host_slots = limit - out.results.size() - listed;
  for (size_t i = 0; i < listed; ++i) {
    const Candidate& d = domains[i];
    add({d.name, d.name, true, d.pages});
    if (host_slots == 0) continue;
    std::vector<std::string> hosts;
    RETURN_IF_ERROR(HostsOf(*read, model::HostName(d.name), std::min(host_slots, kMaxHostsPerDomain), &hosts));
    for (auto& h : hosts) {
      if (host_slots > 0 && add({std::move(h), d.name, false, d.pages})) --host_slots;
    }
  }
  return out;
}

Result<sink::TableTotals> QueryService::Totals() {
  ASSIGN_OR_RETURN(auto totals, source_->Read()->Totals());
  if (!totals) {
    return Status::NotFound("this table has no totals yet: `webindex run` counts them when it opens the data dir");
  }
  return *totals;
}

}  // namespace webindex::query
