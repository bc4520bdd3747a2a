// Run files of the external sort (state/external_sort.h): records in key order, written once
// and read once, in blocks that each carry a crc32c, and a footer with the record count. A
// damaged or cut run is refused with Corruption, never read as fewer records. Each writer and
// reader is owned by one sorter and used by its thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

namespace webindex::state {

//! Layout: blocks, then a 32-byte footer. A block is [u32 payload size][u32 crc32c of the size
//! and the payload] and a payload of whole records, each [varint key size][varint value size]
//! [key][value]. The footer is ["WIRUN001"][u64 records][u64 blocks][u32 crc32c of the 24
//! bytes before it][u32 0]. Little-endian.
constexpr size_t kRunBlockBytes = 64 << 10;  //!< a block is cut once its payload reaches this
constexpr size_t kRunFooterBytes = 32;
constexpr size_t kRunBlockHeaderBytes = 8;

//! crc32c (Castagnoli) of `a` followed by `b`: with the CPU's instruction where it has one.
uint32_t Crc32c(std::string_view a, std::string_view b = {});

//! A file removed when its owner drops it: a run file goes once nothing is to read it.
class TempFile {
 public:
  explicit TempFile(std::string path) : path_(std::move(path)) {}
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class RunWriter {
 public:
  //! Creates `path` (which must not exist yet).
  static Result<std::unique_ptr<RunWriter>> Create(const std::string& path);
  ~RunWriter();
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  //! The caller gives records in the order they are to be read (key order).
  Status Add(std::string_view key, std::string_view value);
  //! Writes the last block and the footer, and closes the file.
  Status Finish();
  uint64_t records() const { return records_; }
  uint64_t file_bytes() const { return file_bytes_; }

 private:
  RunWriter(int fd, std::string path);
  Status WriteBlock();
  Status WriteAll(const char* data, size_t n);

  int fd_;
  std::string path_;
  std::string block_;  //!< the block being filled, its header's room first
  uint64_t records_ = 0;
  uint64_t blocks_ = 0;
  uint64_t file_bytes_ = 0;
};

class RunReader {
 public:
  //! Opens `path` and checks its footer: Corruption when it is missing (a cut file) or damaged.
  static Result<std::unique_ptr<RunReader>> Open(const std::string& path);
  ~RunReader();
  RunReader(const RunReader&) = delete;
  RunReader& operator=(const RunReader&) = delete;

  //! Moves to the next record: true with key() and value() set (valid until the next call),
  //! false at the end or on an error (then status() says which). The end is only reached when
  //! exactly the footer's count of records and blocks was read.
  bool Next();
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }
  const Status& status() const { return status_; }
  uint64_t records() const { return expected_records_; }

 private:
  RunReader(int fd, std::string path, uint64_t data_bytes, uint64_t records, uint64_t blocks);
  bool ReadBlock();
  bool Fail(Status st);

  int fd_;
  std::string path_;
  uint64_t data_bytes_;  //!< where the footer starts
  uint64_t expected_records_;
  uint64_t expected_blocks_;
  uint64_t offset_ = 0;  //!< of the next block in the file
  uint64_t records_ = 0;
  uint64_t blocks_ = 0;
  std::string block_;
  std::string_view rest_;  //!< the records of block_ not yet returned
  std::string_view key_, value_;
  Status status_;
};

}  // namespace webindex::state
