#include "codec/event.h"

#include <simdjson.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "codec/json_error.h"
#include "common/time.h"
#include "model/url.h"

namespace webindex::codec {

namespace dom = simdjson::dom;

struct EventDecoder::Impl {
  DecodeLimits limits;
  dom::parser parser;
  std::vector<std::string_view> keys;  //!< an object's keys, reused (DuplicateKey)
};

EventDecoder::EventDecoder(DecodeLimits limits) : impl_(std::make_unique<Impl>()) { impl_->limits = limits; }
EventDecoder::~EventDecoder() = default;

namespace {

//! Looks up an optional field; JSON null counts as absent.
bool Field(dom::object obj, std::string_view name, dom::element* out) {
  auto r = obj[name];
  if (r.error()) return false;
  *out = r.value_unsafe();
  return !out->is_null();
}

//! A key that `obj` holds more than once, if any: lookups find only the first of them, so the
//! event would say two things. `keys` is scratch.
std::optional<std::string_view> DuplicateKey(dom::object obj, std::vector<std::string_view>* keys) {
  constexpr size_t kCompared = 8;  // the first keys are compared with each other, the rest sorted
  keys->clear();
  for (dom::key_value_pair field : obj) {
    if (keys->size() < kCompared && std::find(keys->begin(), keys->end(), field.key) != keys->end()) return field.key;
    keys->push_back(field.key);
  }
  if (keys->size() <= kCompared) return std::nullopt;
  std::sort(keys->begin(), keys->end());
  const auto dup = std::adjacent_find(keys->begin(), keys->end());
  if (dup == keys->end()) return std::nullopt;
  return *dup;
}

//! Whether an RFC 3339 text's fraction of a second has more than the 9 digits an Instant holds.
bool FractionPastNanoseconds(std::string_view date) {
  constexpr size_t kFraction = 20;  // after "YYYY-MM-DDTHH:MM:SS."
  if (date.size() <= kFraction || date[kFraction - 1] != '.') return false;
  size_t digits = 0;
  while (kFraction + digits < date.size() && date[kFraction + digits] >= '0' && date[kFraction + digits] <= '9') {
    ++digits;
  }
  return digits > 9;
}

Status DecodeLinks(dom::element links_el, const model::Url& base, const DecodeLimits& limits,
                   std::vector<std::string_view>* keys, model::CrawlEvent* ev) {
  dom::array links;
  if (links_el.get_array().get(links)) return Status::InvalidArgument("outboundLinks is not an array");
  for (dom::element link_el : links) {
    dom::object link;
    if (link_el.get_object().get(link)) return Status::InvalidArgument("a link is not an object");
    if (const auto key = DuplicateKey(link, keys)) {
      return Status::InvalidArgument("a link has the key \"" + std::string(*key) + "\" more than once");
    }
    dom::element url_el, anchor_el;
    std::string_view link_url, anchor;
    if (!Field(link, "url", &url_el) || url_el.get_string().get(link_url)) {
      return Status::InvalidArgument("a link's url is missing or not a string");
    }
    if (Field(link, "anchorText", &anchor_el) && anchor_el.get_string().get(anchor)) {
      return Status::InvalidArgument("a link's anchorText is not a string");
    }
    auto target = model::ResolveLink(base, link_url);
    if (!target.ok()) {
      ++ev->dropped_links;
      continue;
    }
    ev->page.links.push_back({target->ToString(), target->ToUri(), std::string(anchor)});
  }
  model::DedupLinks(&ev->page.links);
  if (ev->page.links.size() > limits.max_outlinks) {
    ev->truncated_links = static_cast<uint32_t>(ev->page.links.size() - limits.max_outlinks);
    ev->page.links.resize(limits.max_outlinks);
  }
  return Status::Ok();
}

}  // namespace

Result<model::CrawlEvent> EventDecoder::Decode(std::string_view json) {
  if (json.size() > impl_->limits.max_event_bytes) {
    return Status::InvalidArgument("event of " + std::to_string(json.size()) + " bytes exceeds the limit of " +
                                   std::to_string(impl_->limits.max_event_bytes));
  }
  dom::element root;
  if (impl_->parser.parse(json.data(), json.size()).get(root)) return NotJson(json);
  dom::object obj;
  if (root.get_object().get(obj)) return Status::InvalidArgument("not a JSON object");
  if (const auto key = DuplicateKey(obj, &impl_->keys)) {
    return Status::InvalidArgument("the key \"" + std::string(*key) + "\" appears more than once");
  }
  dom::element el;
  std::string_view raw_url;
  if (!Field(obj, "url", &el) || el.get_string().get(raw_url)) {
    return Status::InvalidArgument("url is missing or not a string");
  }
  auto url = model::ParseUrl(raw_url);
  if (!url.ok()) return url.status();

  model::CrawlEvent ev;
  ev.page.url = url->ToString();
  ev.page.uri = url->ToUri();
  if (Field(obj, "deleted", &el) && el.get_bool().get(ev.deleted)) {
    return Status::InvalidArgument("deleted is not a bool");
  }
  if (Field(obj, "crawlDate", &el)) {
    std::string_view date;
    if (el.get_string().get(date)) return Status::InvalidArgument("crawlDate is not a string");
    ev.crawl_time = ParseRfc3339(date);
    if (!ev.crawl_time && FractionPastNanoseconds(date)) {
      return Status::InvalidArgument("crawlDate has more than 9 fraction digits (finer than nanoseconds)");
    }
    if (!ev.crawl_time) return Status::InvalidArgument("crawlDate is not an RFC 3339 date-time");
    ev.page.crawl_date = std::string(date);
  }
  if (Field(obj, "revision", &el)) {
    uint64_t revision = 0;
    if (el.get_uint64().get(revision)) return Status::InvalidArgument("revision is not a non-negative integer");
    ev.revision = revision;
  }
  std::string_view text;
  if (Field(obj, "title", &el)) {
    if (el.get_string().get(text)) return Status::InvalidArgument("title is not a string");
    ev.page.title = std::string(text);
  }
  if (Field(obj, "server", &el)) {
    if (el.get_string().get(text)) return Status::InvalidArgument("server is not a string");
    ev.page.server = std::string(text);
  }
  if (Field(obj, "outboundLinks", &el)) RETURN_IF_ERROR(DecodeLinks(el, *url, impl_->limits, &impl_->keys, &ev));
  if (ev.deleted) ev.page.links.clear();
  return ev;
}

Result<std::string> ExtractEventUrl(std::string_view json) {
  thread_local dom::parser parser;
  dom::element root;
  if (parser.parse(json.data(), json.size()).get(root)) return NotJson(json);
  dom::object obj;
  if (root.get_object().get(obj)) return Status::InvalidArgument("not a JSON object");
  std::string_view url;
  if (obj["url"].get_string().get(url)) return Status::InvalidArgument("url is missing or not a string");
  return std::string(url);
}

}  // namespace webindex::codec
