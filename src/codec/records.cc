#include "codec/records.h"

#include <simdjson.h>

#include "codec/json_writer.h"
#include "model/url.h"

namespace webindex::codec {

namespace dom = simdjson::dom;

namespace {

void WriteLinks(JsonWriter& w, const std::vector<model::Link>& links) {
  w.BeginArray();
  for (const auto& l : links) {
    w.BeginObject().Key("url").String(l.url).Key("uri").String(l.uri).Key("anchorText").String(l.anchor_text);
    w.EndObject();
  }
  w.EndArray();
}

//! `num_outbound`: the page's links in all parts when it is split, else p.links.size().
void WritePage(JsonWriter& w, const model::Page& p, size_t num_outbound) {
  w.BeginObject().Key("url").String(p.url).Key("uri").String(p.uri);
  if (p.crawl_date) w.Key("crawlDate").String(*p.crawl_date);
  if (p.title) w.Key("title").String(*p.title);
  if (p.server) w.Key("server").String(*p.server);
  w.Key("numOutbound").Uint(num_outbound).Key("outboundLinks");
  WriteLinks(w, p.links);
  w.EndObject();
}

void WritePage(JsonWriter& w, const model::Page& p) { WritePage(w, p, p.links.size()); }

//! Cuts `s` to at most `n` bytes without splitting a UTF-8 sequence; true if it was cut.
bool CutUtf8(std::string* s, size_t n) {
  if (s->size() <= n) return false;
  while (n > 0 && (static_cast<unsigned char>((*s)[n]) & 0xC0) == 0x80) --n;
  s->resize(n);
  return true;
}

void WriteOrigin(JsonWriter& w, const Origin& o) {
  w.Key("src").String(o.src).Key("seq").Uint(o.seq).Key("gen").Uint(o.gen);
  if (!o.inst.empty()) w.Key("inst").String(o.inst);
}

const char* TypeName(ExportRecord::Type t) {
  switch (t) {
    case ExportRecord::Type::kPage: return "page";
    case ExportRecord::Type::kUri: return "uri";
    case ExportRecord::Type::kDomain: return "domain";
    case ExportRecord::Type::kGeneration: return "generation";
  }
  return "?";
}

Status Bad(std::string_view what, std::string_view field) {
  return Status::Corruption(std::string(what) + " record: field '" + std::string(field) + "' missing or mistyped");
}

template <typename T>
Status Get(dom::object obj, std::string_view what, std::string_view field, T* out) {
  if (obj[field].get(*out)) return Bad(what, field);
  return Status::Ok();
}

Status GetString(dom::object obj, std::string_view what, std::string_view field, std::string* out) {
  std::string_view v;
  RETURN_IF_ERROR(Get(obj, what, field, &v));
  out->assign(v);
  return Status::Ok();
}

//! The optional "gen" field: absent means generation 1.
Status ReadGeneration(dom::object obj, std::string_view what, uint64_t* gen) {
  dom::element e;
  if (obj["gen"].get(e)) {
    *gen = 1;
    return Status::Ok();
  }
  if (e.get(*gen) || *gen == 0) return Bad(what, "gen");
  return Status::Ok();
}

//! The optional "inst" field: absent (records of versions before it) means unknown.
Status ReadInstance(dom::object obj, std::string_view what, std::string* inst) {
  dom::element e;
  if (obj["inst"].get(e)) {
    inst->clear();
    return Status::Ok();
  }
  std::string_view v;
  if (e.get(v)) return Bad(what, "inst");
  inst->assign(v);
  return Status::Ok();
}

Status ReadOrigin(dom::object obj, std::string_view what, Origin* o) {
  RETURN_IF_ERROR(GetString(obj, what, "src", &o->src));
  RETURN_IF_ERROR(Get(obj, what, "seq", &o->seq));
  RETURN_IF_ERROR(ReadInstance(obj, what, &o->inst));
  return ReadGeneration(obj, what, &o->gen);
}

Status ReadLinks(dom::object obj, std::string_view what, std::vector<model::Link>* out) {
  dom::array links;
  RETURN_IF_ERROR(Get(obj, what, "outboundLinks", &links));
  for (dom::element el : links) {
    dom::object l;
    if (el.get(l)) return Bad(what, "outboundLinks");
    model::Link link;
    RETURN_IF_ERROR(GetString(l, "link", "url", &link.url));
    RETURN_IF_ERROR(GetString(l, "link", "uri", &link.uri));
    RETURN_IF_ERROR(GetString(l, "link", "anchorText", &link.anchor_text));
    out->push_back(std::move(link));
  }
  return Status::Ok();
}

Result<model::Page> ReadPage(dom::object obj) {
  model::Page p;
  RETURN_IF_ERROR(GetString(obj, "page", "url", &p.url));
  RETURN_IF_ERROR(GetString(obj, "page", "uri", &p.uri));
  std::string_view s;
  if (!obj["crawlDate"].get(s)) p.crawl_date = std::string(s);
  if (!obj["title"].get(s)) p.title = std::string(s);
  if (!obj["server"].get(s)) p.server = std::string(s);
  RETURN_IF_ERROR(ReadLinks(obj, "page", &p.links));
  return p;
}

}  // namespace

std::string EncodePageJson(const model::Page& page) {
  JsonWriter w;
  WritePage(w, page);
  return w.Take();
}

std::string Encode(const UriDelta& d) {
  JsonWriter w;
  w.BeginObject();
  WriteOrigin(w, d.origin);
  w.Key("uri").String(d.uri).Key("linksTo").Int(d.delta.links_to).Key("docs").Int(d.delta.docs).EndObject();
  return w.Take();
}

std::string Encode(const DomainDelta& d) {
  JsonWriter w;
  w.BeginObject();
  WriteOrigin(w, d.origin);
  w.Key("domain").String(d.domain).Key("pages").Int(d.pages).EndObject();
  return w.Take();
}

Result<BoundCounts> BoundPage(model::Page* page) {
  if (page->url.size() > kMaxUrlBytes) {
    return Status::InvalidArgument("url is longer than " + std::to_string(kMaxUrlBytes) + " bytes");
  }
  BoundCounts counts;
  if (page->title && CutUtf8(&*page->title, kMaxPageTextBytes)) ++counts.cut_texts;
  if (page->server && CutUtf8(&*page->server, kMaxPageTextBytes)) ++counts.cut_texts;
  const size_t before = page->links.size();
  std::erase_if(page->links, [](const model::Link& l) { return l.url.size() > kMaxUrlBytes; });
  counts.dropped_links = static_cast<uint32_t>(before - page->links.size());
  for (auto& l : page->links) {
    if (CutUtf8(&l.anchor_text, kMaxAnchorTextBytes)) ++counts.cut_texts;
  }
  return counts;
}

std::string Encode(const ExportRecord& r) {
  JsonWriter w;
  w.BeginObject().Key("type").String(TypeName(r.type)).Key("key").String(r.key).Key("seq").Uint(r.seq);
  w.Key("gen").Uint(r.gen);
  if (!r.inst.empty()) w.Key("inst").String(r.inst);
  switch (r.type) {
    case ExportRecord::Type::kPage:
      if (r.parts > 1) w.Key("part").Uint(r.part).Key("parts").Uint(r.parts);
      if (r.part > 0) {
        w.Key("outboundLinks");
        WriteLinks(w, r.links);
        break;
      }
      w.Key("page");
      if (r.page) {
        WritePage(w, *r.page, r.parts > 1 ? r.num_outbound : r.page->links.size());
      } else {
        w.Null();
      }
      break;
    case ExportRecord::Type::kUri:
      // The URL the key stands for, so that consumers need not decode URIs themselves.
      if (auto url = model::UrlFromUri(r.key); url.ok()) w.Key("url").String(url->ToString());
      w.Key("linksTo").Int(r.info.links_to).Key("docs").Int(r.info.docs);
      break;
    case ExportRecord::Type::kDomain:
      w.Key("pagecount").Int(r.pagecount);
      break;
    case ExportRecord::Type::kGeneration:
      break;
  }
  w.EndObject();
  return w.Take();
}

std::vector<std::string> EncodeParts(const ExportRecord& r, size_t max_bytes) {
  std::string whole = Encode(r);
  if (whole.size() <= max_bytes || r.type != ExportRecord::Type::kPage || !r.page || r.page->links.empty()) {
    return {std::move(whole)};
  }
  const std::vector<model::Link>& links = r.page->links;
  // The size of every part is its size without links plus theirs: measure the empty parts with
  // the widest part numbers, and each link once.
  ExportRecord head = r;
  head.page->links.clear();
  head.part = 0;
  head.parts = UINT32_MAX;
  head.num_outbound = links.size();
  ExportRecord tail = head;
  tail.page.reset();
  tail.part = UINT32_MAX;
  const size_t head_bytes = Encode(head).size(), tail_bytes = Encode(tail).size();
  std::vector<size_t> ends;  // links [ends[i-1], ends[i]) go to part i
  size_t size = head_bytes;
  size_t in_part = 0;
  for (size_t i = 0; i < links.size();) {
    JsonWriter w;
    WriteLinks(w, {links[i]});
    const size_t link_bytes = w.str().size() - 2 + (in_part > 0 ? 1 : 0);  // no brackets; a comma
    // A link that does not fit starts the next part; one that fits no part goes alone.
    if (size + link_bytes > max_bytes && (in_part > 0 || ends.empty())) {
      ends.push_back(i);
      size = tail_bytes;
      in_part = 0;
      continue;
    }
    size += link_bytes;
    ++in_part;
    ++i;
  }
  ends.push_back(links.size());
  std::vector<std::string> out;
  size_t begin = 0;
  for (uint32_t part = 0; part < ends.size(); ++part) {
    ExportRecord p = part == 0 ? head : tail;
    p.part = part;
    p.parts = static_cast<uint32_t>(ends.size());
    std::vector<model::Link>& dest = part == 0 ? p.page->links : p.links;
    dest.assign(links.begin() + static_cast<ptrdiff_t>(begin), links.begin() + static_cast<ptrdiff_t>(ends[part]));
    out.push_back(Encode(p));
    begin = ends[part];
  }
  return out;
}

struct RecordDecoder::Impl {
  dom::parser parser;
  Result<dom::object> Parse(std::string_view json, std::string_view what) {
    dom::object obj;
    if (parser.parse(json.data(), json.size()).get(obj)) {
      return Status::Corruption(std::string(what) + " record is not a JSON object");
    }
    return obj;
  }
};

RecordDecoder::RecordDecoder() : impl_(std::make_unique<Impl>()) {}
RecordDecoder::~RecordDecoder() = default;

Result<UriDelta> RecordDecoder::DecodeUriDelta(std::string_view json) {
  ASSIGN_OR_RETURN(dom::object obj, impl_->Parse(json, "uri delta"));
  UriDelta d;
  RETURN_IF_ERROR(ReadOrigin(obj, "uri delta", &d.origin));
  RETURN_IF_ERROR(GetString(obj, "uri delta", "uri", &d.uri));
  RETURN_IF_ERROR(Get(obj, "uri delta", "linksTo", &d.delta.links_to));
  RETURN_IF_ERROR(Get(obj, "uri delta", "docs", &d.delta.docs));
  return d;
}

Result<DomainDelta> RecordDecoder::DecodeDomainDelta(std::string_view json) {
  ASSIGN_OR_RETURN(dom::object obj, impl_->Parse(json, "domain delta"));
  DomainDelta d;
  RETURN_IF_ERROR(ReadOrigin(obj, "domain delta", &d.origin));
  RETURN_IF_ERROR(GetString(obj, "domain delta", "domain", &d.domain));
  RETURN_IF_ERROR(Get(obj, "domain delta", "pages", &d.pages));
  return d;
}

Result<ExportRecord> RecordDecoder::DecodeExport(std::string_view json) {
  ASSIGN_OR_RETURN(dom::object obj, impl_->Parse(json, "export"));
  ExportRecord r;
  std::string type;
  RETURN_IF_ERROR(GetString(obj, "export", "type", &type));
  RETURN_IF_ERROR(GetString(obj, "export", "key", &r.key));
  RETURN_IF_ERROR(Get(obj, "export", "seq", &r.seq));
  RETURN_IF_ERROR(ReadGeneration(obj, "export", &r.gen));
  RETURN_IF_ERROR(ReadInstance(obj, "export", &r.inst));
  if (type == "page") {
    r.type = ExportRecord::Type::kPage;
    dom::element e;
    if (!obj["parts"].get(e)) {
      uint64_t part = 0, parts = 0;
      RETURN_IF_ERROR(Get(obj, "export", "part", &part));
      if (e.get(parts) || parts < 2 || parts > UINT32_MAX) return Bad("export", "parts");
      if (part >= parts) return Bad("export", "part");
      r.part = static_cast<uint32_t>(part);
      r.parts = static_cast<uint32_t>(parts);
      if (r.part > 0) {
        RETURN_IF_ERROR(ReadLinks(obj, "export", &r.links));
        return r;
      }
    }
    dom::element page;
    RETURN_IF_ERROR(Get(obj, "export", "page", &page));
    if (!page.is_null()) {
      dom::object page_obj;
      if (page.get(page_obj)) return Bad("export", "page");
      ASSIGN_OR_RETURN(r.page, ReadPage(page_obj));
      if (r.parts > 1) {
        uint64_t n = 0;
        RETURN_IF_ERROR(Get(page_obj, "page", "numOutbound", &n));
        r.num_outbound = n;
      }
    } else if (r.parts > 1) {
      return Bad("export", "page");  // a deleted page is never split
    }
  } else if (type == "uri") {
    r.type = ExportRecord::Type::kUri;
    RETURN_IF_ERROR(Get(obj, "export", "linksTo", &r.info.links_to));
    RETURN_IF_ERROR(Get(obj, "export", "docs", &r.info.docs));
  } else if (type == "domain") {
    r.type = ExportRecord::Type::kDomain;
    RETURN_IF_ERROR(Get(obj, "export", "pagecount", &r.pagecount));
  } else if (type == "generation") {
    r.type = ExportRecord::Type::kGeneration;
  } else {
    return Status::Corruption("export record of unknown type '" + type + "'");
  }
  return r;
}

Result<model::Page> RecordDecoder::DecodePageJson(std::string_view json) {
  ASSIGN_OR_RETURN(dom::object obj, impl_->Parse(json, "page"));
  return ReadPage(obj);
}

}  // namespace webindex::codec
