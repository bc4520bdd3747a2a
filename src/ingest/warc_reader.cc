#include "ingest/warc_reader.h"

#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace webindex::ingest {
namespace {

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

//! A short, printable excerpt of a bad line for error messages.
std::string Excerpt(std::string_view line) {
  std::string out;
  for (char c : line.substr(0, 60)) out.push_back(c >= 32 && c < 127 ? c : '?');
  if (line.size() > 60) out += "...";
  return out;
}

}  // namespace

std::string_view WarcRecord::Field(std::string_view name) const {
  for (const auto& [k, v] : fields) {
    if (EqualsIgnoreCase(k, name)) return v;
  }
  return {};
}

Result<std::unique_ptr<WarcReader>> WarcReader::Open(const std::string& path, WarcReaderOptions options) {
  ASSIGN_OR_RETURN(auto bytes, ByteReader::Open(path));
  return std::unique_ptr<WarcReader>(new WarcReader(std::move(bytes), options));
}

Result<bool> WarcReader::Next(WarcRecord* record) {
  record->fields.clear();
  record->block.clear();
  record->block_skipped = false;
  record->content_length = 0;
  uint64_t at = 0;
  do {  // the blank lines that end the previous record
    at = bytes_->offset();
    line_.clear();
    ASSIGN_OR_RETURN(const bool got, bytes_->ReadLine(&line_, options_.max_header_line));
    if (!got) return false;
  } while (line_.empty());
  if (!line_.starts_with("WARC/")) {
    return bytes_->Corrupt(
        at, fmt::format("not a WARC record: expected a version line like 'WARC/1.0', found '{}'", Excerpt(line_)));
  }
  record->version = line_;
  record->offset = at;
  RETURN_IF_ERROR(ReadFields(record));
  RETURN_IF_ERROR(ReadBlock(record));
  ++records_;
  return true;
}

Status WarcReader::ReadFields(WarcRecord* record) {
  for (;;) {
    const uint64_t at = bytes_->offset();
    line_.clear();
    ASSIGN_OR_RETURN(const bool got, bytes_->ReadLine(&line_, options_.max_header_line));
    if (!got) return bytes_->Corrupt(record->offset, "truncated WARC record: the file ends inside its header");
    if (line_.empty()) break;
    if (line_[0] == ' ' || line_[0] == '\t') {  // a folded continuation of the previous field
      if (record->fields.empty()) return bytes_->Corrupt(at, "WARC header continuation line without a field");
      record->fields.back().second.append(" ").append(Trim(line_));
      continue;
    }
    const size_t colon = line_.find(':');
    if (colon == std::string::npos || colon == 0) {
      return bytes_->Corrupt(at, fmt::format("malformed WARC header line '{}'", Excerpt(line_)));
    }
    if (record->fields.size() >= options_.max_fields) {
      return bytes_->Corrupt(record->offset, fmt::format("WARC record with more than {} fields", options_.max_fields));
    }
    const std::string_view line = line_;
    record->fields.emplace_back(Trim(line.substr(0, colon)), Trim(line.substr(colon + 1)));
  }
  const std::string_view length = record->Field("Content-Length");
  const auto [end, ec] = std::from_chars(length.data(), length.data() + length.size(), record->content_length);
  if (length.empty() || ec != std::errc() || end != length.data() + length.size()) {
    return bytes_->Corrupt(record->offset,
                           fmt::format("WARC record without a valid Content-Length ('{}')", Excerpt(length)));
  }
  return Status::Ok();
}

Status WarcReader::ReadBlock(WarcRecord* record) {
  const uint64_t n = record->content_length;
  size_t got = 0;
  if (n > options_.max_block_bytes) {
    record->block_skipped = true;
    ASSIGN_OR_RETURN(got, bytes_->Skip(n));
  } else {
    if (record->block.capacity() > (8u << 20) && record->block.capacity() > 4 * n) std::string().swap(record->block);
    record->block.reserve(n + kBlockPadding);
    ASSIGN_OR_RETURN(got, bytes_->Read(n, &record->block));
  }
  if (got < n) {
    return bytes_->Corrupt(record->offset,
                           fmt::format("truncated WARC record: the file ends after {} of {} content bytes", got, n));
  }
  return Status::Ok();
}

}  // namespace webindex::ingest
