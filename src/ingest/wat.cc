#include "ingest/wat.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "codec/json_writer.h"
#include "common/time.h"
#include "model/url.h"

namespace webindex::ingest {

namespace dom = simdjson::dom;
static_assert(kBlockPadding >= simdjson::SIMDJSON_PADDING, "blocks must be parseable in place");

uint64_t WatStats::skipped_total() const {
  uint64_t n = 0;
  for (const auto& [kind, count] : skipped) n += count;
  return n;
}

std::string WatStats::SkippedSummary() const {
  std::vector<std::pair<std::string, uint64_t>> kinds(skipped.begin(), skipped.end());
  std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [kind, count] : kinds) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", kind, count);
  return out.empty() ? "none" : out;
}

void WatStats::Add(const WatStats& other) {
  records += other.records;
  events += other.events;
  links += other.links;
  dropped_links += other.dropped_links;
  internal_links += other.internal_links;
  for (const auto& [kind, count] : other.skipped) skipped[kind] += count;
}

namespace {

//! The string `key` of `obj`; nullopt when absent or not a string.
std::optional<std::string_view> StringIn(dom::object obj, std::string_view key) {
  std::string_view s;
  if (obj[key].get_string().get(s) != simdjson::SUCCESS) return std::nullopt;
  return s;
}

std::optional<dom::object> ObjectAt(dom::element doc, std::string_view pointer) {
  dom::object obj;
  if (doc.at_pointer(pointer).get_object().get(obj) != simdjson::SUCCESS) return std::nullopt;
  return obj;
}

//! A WARC-Type as a skip kind; unknown values share one kind so the counts stay few.
std::string_view RecordKind(std::string_view type) {
  static constexpr std::array<std::string_view, 8> kTypes = {"warcinfo", "request", "response",   "metadata",
                                                             "resource", "revisit", "conversion", "continuation"};
  if (type.empty()) return "untyped";
  return std::find(kTypes.begin(), kTypes.end(), type) != kTypes.end() ? type : "other";
}

//! HTTP header names are case-insensitive: "Server", "server", ...
std::optional<std::string_view> HeaderIn(dom::object headers, std::string_view name) {
  for (auto [key, value] : headers) {
    std::string_view s;
    if (key.size() == name.size() &&
        std::equal(key.begin(), key.end(), name.begin(), [](char a, char b) { return (a | 0x20) == (b | 0x20); }) &&
        value.get_string().get(s) == simdjson::SUCCESS) {
      return s;
    }
  }
  return std::nullopt;
}

}  // namespace

struct WatConverter::Impl {
  WatOptions options;
  WatStats stats;
  dom::parser parser;

  bool Skip(std::string_view kind) {
    ++stats.skipped[std::string(kind)];
    return false;
  }
  bool Convert(const WarcRecord& record, KeyedEvent* event);
  //! title, server and outboundLinks of the HTTP-Response-Metadata.
  void WriteResponse(dom::element doc, const model::Url& page, codec::JsonWriter* w);
  void WriteLinks(dom::array links, const model::Url& page, codec::JsonWriter* w);
};

WatConverter::WatConverter(WatOptions options) : impl_(std::make_unique<Impl>()) { impl_->options = options; }
WatConverter::~WatConverter() = default;
const WatStats& WatConverter::stats() const { return impl_->stats; }

bool WatConverter::Convert(const WarcRecord& record, KeyedEvent* event) {
  ++impl_->stats.records;
  if (!impl_->Convert(record, event)) return false;
  ++impl_->stats.events;
  return true;
}

bool WatConverter::Impl::Convert(const WarcRecord& record, KeyedEvent* event) {
  if (record.block_skipped) return Skip("oversized");
  if (!record.Field("Content-Type").starts_with("application/json")) return Skip(RecordKind(record.Field("WARC-Type")));
  const std::string& block = record.block;
  const bool padded = block.capacity() - block.size() >= simdjson::SIMDJSON_PADDING;
  dom::element doc;
  if (parser.parse(block.data(), block.size(), /*realloc_if_needed=*/!padded).get(doc) != simdjson::SUCCESS) {
    return Skip("invalid-json");
  }
  const auto warc = ObjectAt(doc, "/Envelope/WARC-Header-Metadata");
  const std::string_view type = warc ? StringIn(*warc, "WARC-Type").value_or("") : "";
  if (type != "response") return Skip(RecordKind(type));
  const std::string_view url = StringIn(*warc, "WARC-Target-URI").value_or(record.Field("WARC-Target-URI"));
  const auto page = model::ParseUrl(url);
  if (!page.ok()) return Skip("invalid-url");
  // The response's own date; the metadata record's header carries the same one.
  std::optional<std::string_view> date = StringIn(*warc, "WARC-Date");
  if (!date && !record.Field("WARC-Date").empty()) date = record.Field("WARC-Date");
  if (date && !ParseRfc3339(*date)) return Skip("invalid-date");

  codec::JsonWriter w;
  w.BeginObject().Key("url").String(url);
  if (date) w.Key("crawlDate").String(*date);
  WriteResponse(doc, *page, &w);
  w.EndObject();
  event->key.assign(url);
  event->value = w.Take();
  return true;
}

void WatConverter::Impl::WriteResponse(dom::element doc, const model::Url& page, codec::JsonWriter* w) {
  const auto http = ObjectAt(doc, "/Envelope/Payload-Metadata/HTTP-Response-Metadata");
  const auto html = ObjectAt(doc, "/Envelope/Payload-Metadata/HTTP-Response-Metadata/HTML-Metadata");
  std::string_view title;
  if (html && html->at_pointer("/Head/Title").get_string().get(title) == simdjson::SUCCESS) {
    w->Key("title").String(title);
  }
  dom::object headers;
  if (http && (*http)["Headers"].get_object().get(headers) == simdjson::SUCCESS) {
    if (auto server = HeaderIn(headers, "Server")) w->Key("server").String(*server);
  }
  w->Key("outboundLinks").BeginArray();
  dom::array links;
  if (html && (*html)["Links"].get_array().get(links) == simdjson::SUCCESS) WriteLinks(links, page, w);
  w->EndArray();
}

void WatConverter::Impl::WriteLinks(dom::array links, const model::Url& page, codec::JsonWriter* w) {
  for (dom::element e : links) {
    dom::object link;
    if (e.get_object().get(link) != simdjson::SUCCESS || StringIn(link, "path") != "A@/href") continue;
    const auto url = StringIn(link, "url");
    if (!url) continue;
    const auto target = model::ResolveLink(page, *url);
    if (!target.ok()) {
      ++stats.dropped_links;
      continue;
    }
    if (!options.all_links && target->domain == page.domain) {
      ++stats.internal_links;
      continue;
    }
    auto anchor = StringIn(link, "text");
    if (!anchor) anchor = StringIn(link, "title");
    w->BeginObject().Key("url").String(target->ToString());
    if (anchor) w->Key("anchorText").String(*anchor);
    w->EndObject();
    ++stats.links;
  }
}

Result<std::unique_ptr<WatEventReader>> WatEventReader::Open(const std::string& path, WatOptions options) {
  ASSIGN_OR_RETURN(auto warc, WarcReader::Open(path, options.warc));
  return std::unique_ptr<WatEventReader>(new WatEventReader(std::move(warc), options));
}

Result<bool> WatEventReader::Next(KeyedEvent* event) {
  for (;;) {
    ASSIGN_OR_RETURN(const bool got, warc_->Next(&record_));
    if (!got) return false;
    if (converter_.Convert(record_, event)) return true;
  }
}

}  // namespace webindex::ingest
