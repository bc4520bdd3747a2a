#include "event_generator.h"

#include <algorithm>

#include "codec/json_writer.h"
#include "model/url.h"
#include "pipeline/topics.h"

namespace webindex::testing {
namespace {

const char* kHosts[] = {"a.com", "www.a.com", "b.co.uk", "c.blogspot.com", "1.2.3.4", "sub.d.org:8080", "e.com.au"};
const char* kMoreHosts[] = {"a.com", "b.co.uk", "c.blogspot.com", "e.com.au", "f.net"};
const char* kDates[] = {"2015-01-01T00:00:00Z", "2015-01-02T00:00:00Z", "2015-01-02T01:00:00+01:00",
                        "2015-01-03T00:00:00Z", "2015-01-04T12:30:00.5Z", "2015-01-05T00:00:00-00:30"};
const char* kAnchors[] = {"", "home", "Home", "caf\xc3\xa9", "say \"hi\"", "back\\slash", "a|b", "tab\there"};
const char* kRelative[] = {"/p1", "p2", "../p3", "?q=1", "#top", "//a.com/p4", "./p0"};
const char* kBadLinks[] = {"mailto:x@a.com", "http://co.uk/", "javascript:void(0)", "ftp://a.com/", "http://a.com:x/",
                           "http://bad>host.com/"};

}  // namespace

EventGenerator::EventGenerator(uint64_t seed, int partitions, size_t pages) : rng_(seed), partitions_(partitions) {
  for (size_t i = 0; i < pages; ++i) {
    const std::string host = i < 24 ? kHosts[i % std::size(kHosts)]
                                    : "x" + std::to_string(i % 61) + "." + kMoreHosts[i % std::size(kMoreHosts)];
    pages_.push_back((i % 5 == 3 ? "https://" : "http://") + host + "/p" + std::to_string(i / 3));
  }
}

std::string EventGenerator::Spell(const std::string& url) {
  std::string s = url;
  switch (rng_() % 6) {
    case 0:  // uppercase scheme and host
      std::transform(s.begin(), s.begin() + s.find('/', 8), s.begin(), ::toupper);
      break;
    case 1:
      s = "  " + s + " \t";
      break;
    case 2:  // explicit default port
      if (s.starts_with("http://") && s.find(':', 7) == std::string::npos) s.insert(s.find('/', 7), ":80");
      break;
    default:
      break;
  }
  return s;
}

std::string EventGenerator::Date() { return kDates[rng_() % std::size(kDates)]; }
std::string EventGenerator::Anchor() { return kAnchors[rng_() % std::size(kAnchors)]; }

std::string EventGenerator::Link(size_t self) {
  const uint64_t r = rng_() % 20;
  if (r < 2) return pages_[self];
  if (r < 5) return kRelative[rng_() % std::size(kRelative)];
  if (r < 6) return kBadLinks[rng_() % std::size(kBadLinks)];
  if (r < 8) return "http://fresh" + std::to_string(rng_() % 5) + ".com/only-linked";
  return Spell(pages_[rng_() % pages_.size()]);
}

GeneratedEvent EventGenerator::Make(size_t page, std::string value) {
  auto url = model::ParseUrl(pages_[page]);
  const int partition = pipeline::PartitionFor(url.ok() ? url->ToUri() : pages_[page], partitions_);
  return {Spell(pages_[page]), std::move(value), partition};
}

GeneratedEvent EventGenerator::Upsert(size_t page, bool anchor_only) {
  auto& links = last_links_[page];
  if (anchor_only && !links.empty()) {
    for (auto& l : links) l.second = Anchor();
  } else {
    links.clear();
    const size_t n = rng_() % 9;
    for (size_t i = 0; i < n; ++i) links.emplace_back(Link(page), Anchor());
  }
  codec::JsonWriter w;
  w.BeginObject().Key("url").String(Spell(pages_[page]));
  if (rng_() % 5) w.Key("crawlDate").String(Date());
  if (rng_() % 4 == 0) w.Key("revision").Uint(rng_() % 4);  // revisions decide over dates
  if (rng_() % 2) w.Key("title").String("Page " + std::to_string(page));
  if (rng_() % 3 == 0) w.Key("server").String("nginx");
  if (rng_() % 7 == 0) w.Key("uri").String("ignored");
  w.Key("outboundLinks").BeginArray();
  for (const auto& [url, anchor] : links) {
    w.BeginObject().Key("url").String(url);
    if (!anchor.empty() || rng_() % 2) w.Key("anchorText").String(anchor);
    w.EndObject();
  }
  w.EndArray().EndObject();
  return Make(page, w.Take());
}

GeneratedEvent EventGenerator::Delete(size_t page) {
  codec::JsonWriter w;
  w.BeginObject().Key("url").String(Spell(pages_[page])).Key("deleted").Bool(true);
  if (rng_() % 4) w.Key("crawlDate").String(Date());
  if (rng_() % 4 == 0) w.Key("revision").Uint(rng_() % 4);
  w.EndObject();
  return Make(page, w.Take());
}

GeneratedEvent EventGenerator::Invalid() {
  static const char* kInvalid[] = {
      "not json", "[1,2]", R"({"url":5})", R"({"title":"no url"})", R"({"url":"ftp://a.com/"})",
      R"({"url":"http://co.uk/"})", R"({"url":"http://a.com/x","deleted":"yes"})",
      R"({"url":"http://a.com/x","crawlDate":"yesterday"})", R"({"url":"http://a.com/x","crawlDate":20150101})",
      R"({"url":"http://a.com/x","outboundLinks":{}})", R"({"url":"http://a.com/x","outboundLinks":[5]})",
      R"({"url":"http://a.com/x","outboundLinks":[{"url":7}]})",
      R"({"url":"http://a.com/x","outboundLinks":[{"url":"http://b.com/","anchorText":3}]})", "{\"url\":\"http://a.com/\xff\"}",
      R"({"url":"http://a.com/x","revision":-1})", R"({"url":"http://a.com/x","revision":"3"})",
      R"({"url":"http://a.com/x","revision":1.5})"};
  return {"bad", kInvalid[rng_() % std::size(kInvalid)], static_cast<int>(rng_() % partitions_)};
}

std::vector<GeneratedEvent> EventGenerator::Next(size_t count) {
  std::vector<GeneratedEvent> out;
  while (out.size() < count) {
    const uint64_t r = rng_() % 100;
    const size_t page = rng_() % pages_.size();
    GeneratedEvent ev;
    if (r < 55) {
      ev = Upsert(page, false);
    } else if (r < 63) {
      ev = Upsert(page, true);
    } else if (r < 75) {
      ev = Delete(page);
    } else if (r < 83) {
      ev = Invalid();
    } else if (r < 90 && has_previous_) {
      ev = previous_;  // duplicate delivery
    } else {
      ev = Upsert(page, false);
    }
    previous_ = ev;
    has_previous_ = true;
    out.push_back(std::move(ev));
  }
  return out;
}

}  // namespace webindex::testing
