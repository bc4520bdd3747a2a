// A file's bytes through fixed-size buffers: plain, gzip, or multi-member gzip as Common Crawl
// ships it (auto-detected by the gzip magic). Owned and called by one thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

namespace webindex::ingest {

class ByteReader {
 public:
  static constexpr size_t kBufferSize = 256 << 10;  //!< one input and one output buffer

  //! Opens `path` ("-" reads stdin). IoError when it cannot be opened or read.
  static Result<std::unique_ptr<ByteReader>> Open(const std::string& path);
  ~ByteReader();
  ByteReader(const ByteReader&) = delete;
  ByteReader& operator=(const ByteReader&) = delete;

  //! Appends the next line, without its LF or CRLF, to `line`. False at the end of input when
  //! no byte was left; a last line without LF is still returned. Corruption past `max_bytes`.
  Result<bool> ReadLine(std::string* line, size_t max_bytes);
  //! Appends up to `n` bytes to `out`; fewer only at the end of input. Returns the count.
  Result<size_t> Read(size_t n, std::string* out);
  //! Discards up to `n` bytes; fewer only at the end of input. Returns the count.
  Result<size_t> Skip(size_t n);
  //! True when no byte is left.
  Result<bool> AtEnd();

  //! Decompressed bytes consumed so far: the offset of the next byte.
  uint64_t offset() const { return offset_; }
  //! Bytes of the file itself consumed so far (== offset() for plain files).
  uint64_t compressed_offset() const;
  const std::string& path() const { return path_; }
  bool gzip() const { return gzip_; }
  //! Memory this reader holds, all allocated when it opens: its two buffers and zlib's state.
  static constexpr size_t kFootprint = 2 * kBufferSize + (48 << 10);

  //! Corruption naming the file, the decompressed offset `at` and, for gzip, the compressed offset.
  Status Corrupt(uint64_t at, std::string_view what) const;

 private:
  struct Inflater;
  struct FileCloser {
    void operator()(FILE* f) const;
  };
  ByteReader(std::string path, std::unique_ptr<FILE, FileCloser> file);
  Status Start();
  //! Makes decompressed bytes available in [out_pos_, out_end_); none left means end of input.
  Status Fill();
  Status FillGzip();
  Result<size_t> ReadFile(char* buf, size_t n);
  size_t Available() const { return out_end_ - out_pos_; }

  std::string path_;
  std::unique_ptr<FILE, FileCloser> file_;
  std::unique_ptr<char[]> in_;
  std::unique_ptr<char[]> out_;
  std::unique_ptr<Inflater> inflater_;  //!< only for gzip input
  size_t out_pos_ = 0, out_end_ = 0;
  uint64_t offset_ = 0;
  uint64_t file_bytes_ = 0;  //!< read from the file into in_ (gzip) or out_ (plain)
  bool gzip_ = false;
  bool file_eof_ = false;
  bool input_done_ = false;  //!< gzip: the last member ended with no input left
};

}  // namespace webindex::ingest
