#include "codec/state_codec.h"

#include <algorithm>

#include "common/bytes.h"

namespace webindex::codec {
namespace {

constexpr char kFormat = 1;
//! Page states with a recorded revision: the format byte, then the revision, then as kFormat.
//! States without one keep kFormat, so their bytes are what they always were.
constexpr char kPageStateWithRevision = 2;
//! Outbox rows holding the records of one commit: the format byte, a count, then each record
//! as kFormat's body. A row of kFormat holds one record.
constexpr char kOutBatch = 3;
//! As kOutBatch, each record preceded by a flags varint (kTombstoneFlag); written only for
//! batches holding a tombstone, so other rows keep the kOutBatch bytes.
constexpr char kOutBatchWithFlags = 4;
constexpr uint64_t kTombstoneFlag = 1;

void PutOpt(BytesWriter& w, const std::optional<std::string>& s) {
  w.PutBool(s.has_value());
  if (s) w.PutString(*s);
}

bool GetOpt(BytesReader& r, std::optional<std::string>* s) {
  bool has;
  if (!r.GetBool(&has)) return false;
  if (!has) return true;
  s->emplace();
  return r.GetString(&**s);
}

Status Corrupt(const char* what) { return Status::Corruption(std::string("undecodable ") + what + " value"); }

bool CheckFormat(std::string_view* v) {
  if (v->empty() || (*v)[0] != kFormat) return false;
  v->remove_prefix(1);
  return true;
}

}  // namespace

std::string EncodePageState(const model::PageState& s) {
  BytesWriter w;
  if (s.revision) {
    w.str().push_back(kPageStateWithRevision);
    w.PutVarint(*s.revision);
  } else {
    w.str().push_back(kFormat);
  }
  w.PutVarint(s.version);
  w.PutBool(s.date.has_value());
  if (s.date) {
    w.PutSigned(s.date->seconds);
    w.PutVarint(static_cast<uint64_t>(s.date->nanos));
  }
  PutOpt(w, s.date_text);
  w.PutBool(s.page.has_value());
  if (s.page) {
    const auto& p = *s.page;
    w.PutString(p.url);
    w.PutString(p.uri);
    PutOpt(w, p.crawl_date);
    PutOpt(w, p.title);
    PutOpt(w, p.server);
    w.PutVarint(p.links.size());
    for (const auto& l : p.links) {
      w.PutString(l.url);
      w.PutString(l.uri);
      w.PutString(l.anchor_text);
    }
  }
  return w.Take();
}

Result<model::PageState> DecodePageState(std::string_view v) {
  const bool with_revision = !v.empty() && v[0] == kPageStateWithRevision;
  if (with_revision) {
    v.remove_prefix(1);
  } else if (!CheckFormat(&v)) {
    return Corrupt("page state");
  }
  BytesReader r(v);
  model::PageState s;
  if (with_revision) {
    uint64_t revision = 0;
    if (!r.GetVarint(&revision)) return Corrupt("page state");
    s.revision = revision;
  }
  bool has_date, has_page;
  if (!r.GetVarint(&s.version) || !r.GetBool(&has_date)) return Corrupt("page state");
  if (has_date) {
    int64_t seconds;
    uint64_t nanos;
    if (!r.GetSigned(&seconds) || !r.GetVarint(&nanos) || nanos >= 1000000000) return Corrupt("page state");
    s.date = Instant{seconds, static_cast<int32_t>(nanos)};
  }
  if (!GetOpt(r, &s.date_text) || !r.GetBool(&has_page)) return Corrupt("page state");
  if (has_page) {
    model::Page p;
    uint64_t n;
    if (!r.GetString(&p.url) || !r.GetString(&p.uri) || !GetOpt(r, &p.crawl_date) || !GetOpt(r, &p.title) ||
        !GetOpt(r, &p.server) || !r.GetVarint(&n)) {
      return Corrupt("page state");
    }
    if (n > v.size()) return Corrupt("page state");
    p.links.resize(n);
    for (auto& l : p.links) {
      if (!r.GetString(&l.url) || !r.GetString(&l.uri) || !r.GetString(&l.anchor_text)) return Corrupt("page state");
    }
    s.page = std::move(p);
  }
  return s;
}

std::string EncodeCounted(const Counted& c) {
  BytesWriter w;
  w.str().push_back(kFormat);
  w.PutSigned(c.info.links_to);
  w.PutSigned(c.info.docs);
  w.PutVarint(c.version);
  return w.Take();
}

Result<Counted> DecodeCounted(std::string_view v) {
  if (!CheckFormat(&v)) return Corrupt("counter");
  BytesReader r(v);
  Counted c;
  if (!r.GetSigned(&c.info.links_to) || !r.GetSigned(&c.info.docs) || !r.GetVarint(&c.version)) {
    return Corrupt("counter");
  }
  return c;
}

namespace {

void PutOutRecordBody(BytesWriter& w, const OutRecord& rec) {
  w.PutString(rec.topic);
  w.PutSigned(rec.partition);
  w.PutString(rec.key);
  w.PutString(rec.value);
  w.PutVarint(rec.headers.size());
  for (const auto& [k, v] : rec.headers) {
    w.PutString(k);
    w.PutString(v);
  }
}

bool GetOutRecordBody(BytesReader& r, size_t max_headers, OutRecord* rec) {
  int64_t partition;
  uint64_t n;
  if (!r.GetString(&rec->topic) || !r.GetSigned(&partition) || !r.GetString(&rec->key) ||
      !r.GetString(&rec->value) || !r.GetVarint(&n)) {
    return false;
  }
  rec->partition = static_cast<int32_t>(partition);
  if (n > max_headers) return false;
  // Grown as they decode: a corrupt count fails on the bytes, not on an allocation it names.
  rec->headers.clear();
  for (uint64_t i = 0; i < n; ++i) {
    auto& [k, hv] = rec->headers.emplace_back();
    if (!r.GetString(&k) || !r.GetString(&hv)) return false;
  }
  return true;
}

}  // namespace

std::string EncodeOutRecord(const OutRecord& rec) {
  BytesWriter w;
  w.str().push_back(kFormat);
  PutOutRecordBody(w, rec);
  return w.Take();
}

Result<OutRecord> DecodeOutRecord(std::string_view v) {
  if (!CheckFormat(&v)) return Corrupt("outbox");
  BytesReader r(v);
  OutRecord rec;
  if (!GetOutRecordBody(r, v.size(), &rec)) return Corrupt("outbox");
  return rec;
}

std::string EncodeOutBatch(const std::vector<OutRecord>& records) {
  size_t bytes = 16;
  for (const auto& rec : records) bytes += rec.topic.size() + rec.key.size() + rec.value.size() + 16;
  const bool flags = std::any_of(records.begin(), records.end(), [](const OutRecord& r) { return r.tombstone; });
  BytesWriter w;
  w.str().reserve(bytes);
  w.str().push_back(flags ? kOutBatchWithFlags : kOutBatch);
  w.PutVarint(records.size());
  for (const auto& rec : records) {
    if (flags) w.PutVarint(rec.tombstone ? kTombstoneFlag : 0);
    PutOutRecordBody(w, rec);
  }
  return w.Take();
}

Result<std::vector<OutRecord>> DecodeOutBatch(std::string_view v) {
  std::vector<OutRecord> out;
  if (!v.empty() && v[0] == kFormat) {
    ASSIGN_OR_RETURN(OutRecord rec, DecodeOutRecord(v));
    out.push_back(std::move(rec));
    return out;
  }
  if (v.empty() || (v[0] != kOutBatch && v[0] != kOutBatchWithFlags)) return Corrupt("outbox");
  const bool flags = v[0] == kOutBatchWithFlags;
  v.remove_prefix(1);
  BytesReader r(v);
  uint64_t n;
  if (!r.GetVarint(&n) || n == 0 || n > v.size()) return Corrupt("outbox");
  // Grown as they decode (an encoded record takes at least kMinRecordBytes).
  constexpr size_t kMinRecordBytes = 5;
  out.reserve(std::min<uint64_t>(n, v.size() / kMinRecordBytes));
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t f = 0;
    if (flags && (!r.GetVarint(&f) || (f & ~kTombstoneFlag) != 0)) return Corrupt("outbox");
    OutRecord& rec = out.emplace_back();
    if (!GetOutRecordBody(r, v.size(), &rec)) return Corrupt("outbox");
    rec.tombstone = (f & kTombstoneFlag) != 0;
    if (rec.tombstone && !rec.value.empty()) return Corrupt("outbox");
  }
  if (!r.empty()) return Corrupt("outbox");
  return out;
}

}  // namespace webindex::codec
