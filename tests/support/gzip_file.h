// Test helpers for compressed inputs, written with zlib's deflate independently of src/ingest:
// whole files, one gzip member per WARC record (as Common Crawl ships WAT), or one member.
#pragma once

#include <zlib.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace webindex::testing {

inline std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFileBytes(const std::string& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

//! One complete gzip member holding `data`.
inline std::string GzipMember(std::string_view data, int level = Z_DEFAULT_COMPRESSION) {
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::string out(deflateBound(&zs, data.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate failed");
  return out;
}

//! The WARC records of `warc`, each from its version line up to the next record's.
inline std::vector<std::string_view> SplitWarcRecords(std::string_view warc) {
  std::vector<size_t> starts;
  for (size_t pos = 0; pos != std::string_view::npos; pos = warc.find("\nWARC/1.", pos + 1)) {
    starts.push_back(pos == 0 ? 0 : pos + 1);
  }
  std::vector<std::string_view> records;
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t end = i + 1 < starts.size() ? starts[i + 1] : warc.size();
    records.push_back(warc.substr(starts[i], end - starts[i]));
  }
  return records;
}

//! Writes `warc` to `path` gzipped: one member per record when `per_record`, else one member.
inline void WriteGzipWarc(const std::string& path, std::string_view warc, bool per_record) {
  std::string out;
  if (per_record) {
    for (std::string_view record : SplitWarcRecords(warc)) out += GzipMember(record);
  } else {
    out = GzipMember(warc);
  }
  WriteFileBytes(path, out);
}

}  // namespace webindex::testing
