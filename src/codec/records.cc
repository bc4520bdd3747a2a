#include "codec/records.h"

#include <simdjson.h>

#include "codec/json_writer.h"

namespace webindex::codec {

namespace dom = simdjson::dom;

namespace {

void WritePage(JsonWriter& w, const model::Page& p) {
  w.BeginObject().Key("url").String(p.url).Key("uri").String(p.uri);
  if (p.crawl_date) w.Key("crawlDate").String(*p.crawl_date);
  if (p.title) w.Key("title").String(*p.title);
  if (p.server) w.Key("server").String(*p.server);
  w.Key("numOutbound").Uint(p.links.size()).Key("outboundLinks").BeginArray();
  for (const auto& l : p.links) {
    w.BeginObject().Key("url").String(l.url).Key("uri").String(l.uri).Key("anchorText").String(l.anchor_text);
    w.EndObject();
  }
  w.EndArray().EndObject();
}

void WriteOrigin(JsonWriter& w, const Origin& o) {
  w.Key("src").String(o.src).Key("seq").Uint(o.seq).Key("gen").Uint(o.gen);
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

Status ReadOrigin(dom::object obj, std::string_view what, Origin* o) {
  RETURN_IF_ERROR(GetString(obj, what, "src", &o->src));
  RETURN_IF_ERROR(Get(obj, what, "seq", &o->seq));
  return ReadGeneration(obj, what, &o->gen);
}

Result<model::Page> ReadPage(dom::object obj) {
  model::Page p;
  RETURN_IF_ERROR(GetString(obj, "page", "url", &p.url));
  RETURN_IF_ERROR(GetString(obj, "page", "uri", &p.uri));
  std::string_view s;
  if (!obj["crawlDate"].get(s)) p.crawl_date = std::string(s);
  if (!obj["title"].get(s)) p.title = std::string(s);
  if (!obj["server"].get(s)) p.server = std::string(s);
  dom::array links;
  RETURN_IF_ERROR(Get(obj, "page", "outboundLinks", &links));
  for (dom::element el : links) {
    dom::object l;
    if (el.get(l)) return Bad("page", "outboundLinks");
    model::Link link;
    RETURN_IF_ERROR(GetString(l, "link", "url", &link.url));
    RETURN_IF_ERROR(GetString(l, "link", "uri", &link.uri));
    RETURN_IF_ERROR(GetString(l, "link", "anchorText", &link.anchor_text));
    p.links.push_back(std::move(link));
  }
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

std::string Encode(const ExportRecord& r) {
  JsonWriter w;
  w.BeginObject().Key("type").String(TypeName(r.type)).Key("key").String(r.key).Key("seq").Uint(r.seq);
  w.Key("gen").Uint(r.gen);
  switch (r.type) {
    case ExportRecord::Type::kPage:
      w.Key("page");
      if (r.page) {
        WritePage(w, *r.page);
      } else {
        w.Null();
      }
      break;
    case ExportRecord::Type::kUri:
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
  if (type == "page") {
    r.type = ExportRecord::Type::kPage;
    dom::element page;
    RETURN_IF_ERROR(Get(obj, "export", "page", &page));
    if (!page.is_null()) {
      dom::object page_obj;
      if (page.get(page_obj)) return Bad("export", "page");
      ASSIGN_OR_RETURN(r.page, ReadPage(page_obj));
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
