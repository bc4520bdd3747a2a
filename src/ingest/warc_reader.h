// WARC records (ISO 28500: a version line, named fields, a blank line, a Content-Length block)
// streamed from a plain or gzip file. Owned and called by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "ingest/byte_reader.h"

namespace webindex::ingest {

struct WarcReaderOptions {
  uint64_t max_block_bytes = 64 << 20;  //!< larger blocks are skipped, never held in memory
  size_t max_header_line = 1 << 20;     //!< a longer header line is corruption
  size_t max_fields = 1000;             //!< more named fields in one record is corruption
};

//! One record; Next() reuses its buffers.
struct WarcRecord {
  std::string version;  //!< "WARC/1.0"
  std::vector<std::pair<std::string, std::string>> fields;
  std::string block;    //!< the content block, with spare capacity for parsers (kBlockPadding)
  uint64_t offset = 0;  //!< decompressed offset of the version line in the file
  uint64_t content_length = 0;
  bool block_skipped = false;  //!< longer than max_block_bytes: `block` is empty

  //! The value of the first field named `name` (case-insensitive); empty when absent.
  std::string_view Field(std::string_view name) const;
};

//! Spare bytes reserved after every block so that simdjson can parse it in place.
inline constexpr size_t kBlockPadding = 64;

class WarcReader {
 public:
  //! Opens `path` ("-": stdin), plain or gzip.
  static Result<std::unique_ptr<WarcReader>> Open(const std::string& path, WarcReaderOptions options = {});

  //! Reads the next record into `record`. False at the end of the file; Corruption naming the
  //! file and the offset of the bad record or line.
  Result<bool> Next(WarcRecord* record);

  const ByteReader& bytes() const { return *bytes_; }
  uint64_t records() const { return records_; }

 private:
  WarcReader(std::unique_ptr<ByteReader> bytes, WarcReaderOptions options)
      : bytes_(std::move(bytes)), options_(options) {}
  Status ReadFields(WarcRecord* record);
  Status ReadBlock(WarcRecord* record);

  std::unique_ptr<ByteReader> bytes_;
  WarcReaderOptions options_;
  std::string line_;
  uint64_t records_ = 0;
};

}  // namespace webindex::ingest
