#include "ingest/wikipedia.h"

#include <array>
#include <cctype>
#include <charconv>

#include <fmt/format.h>
#include <simdjson.h>

#include "codec/json_writer.h"

namespace webindex::ingest {
namespace {

constexpr std::array<std::string_view, 13> kTags = {"REVISION", "CATEGORY", "IMAGE",    "MAIN",    "TALK",
                                                    "USER",     "USER_TALK", "OTHER",   "EXTERNAL", "TEMPLATE",
                                                    "COMMENT",  "MINOR",    "TEXTDATA"};
constexpr size_t kMain = 3;

bool IsBlank(std::string_view line) { return line.find_first_not_of(" \t") == std::string_view::npos; }

//! The entries after `tag` on `line`, or nullopt when the line does not start with that tag.
std::optional<std::string_view> AfterTag(std::string_view line, std::string_view tag) {
  if (line.substr(0, tag.size()) != tag) return std::nullopt;
  line.remove_prefix(tag.size());
  if (line.empty()) return line;
  if (line[0] != ' ' && line[0] != '\t') return std::nullopt;
  return line.substr(1);
}

//! YYYY-MM-DDTHH:MM:SSZ exactly, as the dump writes it.
bool IsDumpTimestamp(std::string_view s) {
  static constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:ddZ";
  if (s.size() != kShape.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (kShape[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(s[i])) : s[i] != kShape[i]) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string_view> SplitEntries(std::string_view list) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && (list[i] == ' ' || list[i] == '\t')) ++i;
    size_t j = i;
    while (j < list.size() && list[j] != ' ' && list[j] != '\t') ++j;
    if (j > i) out.push_back(list.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string WikipediaUrl(std::string_view title) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string url = "https://en.wikipedia.org/wiki/";
  for (unsigned char c : title) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      url.push_back(static_cast<char>(c));
    } else {
      url.push_back('%');
      url.push_back(kHex[c >> 4]);
      url.push_back(kHex[c & 15]);
    }
  }
  return url;
}

KeyedEvent RevisionEvent(const Revision& rev) {
  KeyedEvent event;
  event.key = WikipediaUrl(rev.title);
  codec::JsonWriter w;
  w.BeginObject().Key("url").String(event.key).Key("title").String(rev.title);
  w.Key("crawlDate").String(rev.timestamp_text).Key("revision").Uint(rev.rev_id);
  w.Key("outboundLinks").BeginArray();
  for (const auto& link : rev.links) w.BeginObject().Key("url").String(WikipediaUrl(link)).EndObject();
  w.EndArray().EndObject();
  event.value = w.Take();
  return event;
}

Result<std::unique_ptr<WikipediaReader>> WikipediaReader::Open(const std::string& path) {
  ASSIGN_OR_RETURN(auto in, ingest::ByteReader::Open(path));
  return std::unique_ptr<WikipediaReader>(new WikipediaReader(std::move(in)));
}

Result<bool> WikipediaReader::ReadBlock() {
  block_size_ = 0;
  block_line_ = 0;
  for (;;) {
    if (block_size_ == lines_.size()) lines_.emplace_back();
    std::string& line = lines_[block_size_];
    line.clear();
    auto got = in_->ReadLine(&line, kMaxLineBytes);
    if (!got.ok()) {
      // Not a malformed record: the input itself cannot be read on (IoError), so callers stop.
      return Status::IoError(fmt::format("{}:{}: {}", in_->path(), line_no_ + 1, got.status().message()));
    }
    if (!*got) return block_size_ > 0;
    ++line_no_;
    if (IsBlank(line)) {
      if (block_size_ > 0) return true;
      continue;  // blank lines between records
    }
    if (block_size_ == 0) block_line_ = line_no_;
    ++block_size_;
  }
}

Status WikipediaReader::Malformed(std::string_view what) const {
  return Status::Corruption(fmt::format("{}:{}: malformed revision record: {}", in_->path(), block_line_, what));
}

Status WikipediaReader::Parse(Revision* rev) const {
  for (size_t i = 0; i < kTags.size(); ++i) {
    if (i >= block_size_) {
      return Malformed(fmt::format("it ends after {} lines, without the {} line (a record is {} tagged lines, "
                                   "then an empty line)",
                                   block_size_, kTags[i], kTags.size()));
    }
    if (!AfterTag(lines_[i], kTags[i])) {
      const std::string_view got = std::string_view(lines_[i]).substr(0, lines_[i].find_first_of(" \t"));
      return Malformed(fmt::format("line {} starts with '{}' where {} is expected", block_line_ + i,
                                   got.substr(0, 40), kTags[i]));
    }
  }
  if (block_size_ > kTags.size()) {
    return Malformed(fmt::format("line {} follows TEXTDATA without an empty line between records",
                                 block_line_ + kTags.size()));
  }
  const std::string_view head = *AfterTag(lines_[0], kTags[0]);
  std::vector<std::string_view> fields;
  for (size_t start = 0;;) {
    const size_t sp = head.find(' ', start);
    fields.push_back(head.substr(start, sp == std::string_view::npos ? std::string_view::npos : sp - start));
    if (sp == std::string_view::npos) break;
    start = sp + 1;
  }
  static constexpr std::array<std::string_view, 6> kFields = {"article_id", "rev_id", "article_title",
                                                              "timestamp", "username", "user_id"};
  if (fields.size() != kFields.size()) {
    return Malformed(fmt::format("REVISION has {} fields separated by single spaces, expected 6: article_id rev_id "
                                 "article_title timestamp [ip:]username user_id",
                                 fields.size()));
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].empty() || fields[i].find('\t') != std::string_view::npos) {
      return Malformed(fmt::format("REVISION field {} ({}) is empty or holds a tab", i + 1, kFields[i]));
    }
  }
  const std::string_view id = fields[1];
  uint64_t rev_id = 0;
  const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), rev_id);
  if (ec != std::errc() || end != id.data() + id.size() || !std::isdigit(static_cast<unsigned char>(id[0]))) {
    return Malformed(fmt::format("rev_id '{}' is not a non-negative integer (up to 2^64-1)", id.substr(0, 40)));
  }
  const std::string_view ts = fields[3];
  std::optional<Instant> instant;
  if (IsDumpTimestamp(ts)) instant = ParseRfc3339(ts);
  if (!instant) {
    return Malformed(fmt::format("timestamp '{}' is not YYYY-MM-DDTHH:MM:SSZ", ts.substr(0, 40)));
  }
  if (!simdjson::validate_utf8(fields[2].data(), fields[2].size())) {
    return Malformed("article_title is not valid UTF-8");
  }
  rev->title.assign(fields[2]);
  rev->rev_id = rev_id;
  rev->timestamp = *instant;
  rev->timestamp_text.assign(ts);
  rev->line = block_line_;
  rev->links.clear();
  for (std::string_view link : SplitEntries(*AfterTag(lines_[kMain], kTags[kMain]))) rev->links.emplace_back(link);
  return Status::Ok();
}

Result<bool> WikipediaReader::Next(Revision* rev) {
  ASSIGN_OR_RETURN(const bool more, ReadBlock());
  if (!more) return false;
  ++records_;
  RETURN_IF_ERROR(Parse(rev));
  return true;
}

}  // namespace webindex::ingest
