#include "wat_extract.h"

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "codec/json_writer.h"
#include "model/url.h"

namespace webindex::testing {
namespace {

// Cursor over the raw file bytes.
class Reader {
 public:
  explicit Reader(std::string data) : data_(std::move(data)) {}
  bool AtEnd() const { return pos_ >= data_.size(); }
  //! The next line without its CRLF / LF terminator.
  std::string_view Line() {
    const size_t nl = data_.find('\n', pos_);
    const size_t end = nl == std::string::npos ? data_.size() : nl;
    std::string_view line(data_.data() + pos_, end - pos_);
    pos_ = nl == std::string::npos ? data_.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  }
  std::string_view Bytes(size_t n) {
    n = std::min(n, data_.size() - pos_);
    std::string_view out(data_.data() + pos_, n);
    pos_ += n;
    return out;
  }

 private:
  std::string data_;
  size_t pos_ = 0;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

//! The string at `pointer` in `doc`; nullopt when absent or not a string.
std::optional<std::string_view> StringAt(simdjson::dom::element doc, std::string_view pointer) {
  std::string_view s;
  if (doc.at_pointer(pointer).get_string().get(s) != simdjson::SUCCESS) return std::nullopt;
  return s;
}

std::optional<std::string_view> Field(simdjson::dom::object obj, std::string_view key) {
  std::string_view s;
  if (obj[key].get_string().get(s) != simdjson::SUCCESS) return std::nullopt;
  return s;
}

//! The crawl event for one WAT JSON payload, or nothing when it is not a usable response.
std::optional<std::string> EventFromPayload(simdjson::dom::parser& parser, std::string_view body,
                                            bool external_links_only) {
  simdjson::dom::element doc;
  if (parser.parse(body.data(), body.size()).get(doc) != simdjson::SUCCESS) return std::nullopt;
  if (StringAt(doc, "/Envelope/WARC-Header-Metadata/WARC-Type") != "response") return std::nullopt;
  const auto url = StringAt(doc, "/Envelope/WARC-Header-Metadata/WARC-Target-URI");
  if (!url) return std::nullopt;
  const auto page = model::ParseUrl(*url);
  if (!page.ok()) return std::nullopt;

  const std::string http = "/Envelope/Payload-Metadata/HTTP-Response-Metadata";
  codec::JsonWriter w;
  w.BeginObject();
  w.Key("url").String(*url);
  if (auto date = StringAt(doc, "/Envelope/WARC-Header-Metadata/WARC-Date")) w.Key("crawlDate").String(*date);
  if (auto title = StringAt(doc, http + "/HTML-Metadata/Head/Title")) w.Key("title").String(*title);
  if (auto server = StringAt(doc, http + "/Headers/Server")) w.Key("server").String(*server);
  w.Key("outboundLinks").BeginArray();
  simdjson::dom::array links;
  if (doc.at_pointer(http + "/HTML-Metadata/Links").get_array().get(links) == simdjson::SUCCESS) {
    for (simdjson::dom::element e : links) {
      simdjson::dom::object link;
      if (e.get_object().get(link) != simdjson::SUCCESS) continue;
      if (Field(link, "path") != "A@/href") continue;
      const auto link_url = Field(link, "url");
      if (!link_url) continue;
      if (external_links_only) {
        const auto target = model::ResolveLink(*page, *link_url);
        if (target.ok() && target->domain == page->domain) continue;
      }
      w.BeginObject().Key("url").String(*link_url);
      auto anchor = Field(link, "text");
      if (!anchor) anchor = Field(link, "title");
      if (anchor) w.Key("anchorText").String(*anchor);
      w.EndObject();
    }
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace

std::vector<std::string> ExtractWatEvents(const std::string& path, bool external_links_only) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  Reader r(ss.str());

  simdjson::dom::parser parser;
  std::vector<std::string> events;
  while (!r.AtEnd()) {
    // Skip the blank lines between records up to the next version line.
    if (!r.Line().starts_with("WARC/")) continue;
    size_t length = 0;
    bool json = false;
    for (std::string_view line = r.Line(); !line.empty(); line = r.Line()) {
      const size_t colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      const std::string_view name = Trim(line.substr(0, colon));
      const std::string_view value = Trim(line.substr(colon + 1));
      if (EqualsIgnoreCase(name, "Content-Length")) {
        length = std::strtoull(std::string(value).c_str(), nullptr, 10);
      } else if (EqualsIgnoreCase(name, "Content-Type")) {
        json = value.starts_with("application/json");
      }
      if (r.AtEnd()) break;
    }
    const std::string_view body = r.Bytes(length);
    if (!json) continue;
    if (auto ev = EventFromPayload(parser, body, external_links_only)) events.push_back(std::move(*ev));
  }
  return events;
}

}  // namespace webindex::testing
