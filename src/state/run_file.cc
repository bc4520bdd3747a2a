#include "state/run_file.h"

#include <rocksdb/file_checksum.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace webindex::state {
namespace {

constexpr std::string_view kMagic = "WIRUN001";

#if defined(__x86_64__)
//! crc32c with the CPU's instruction (SSE 4.2), 8 bytes a step; `crc` not inverted.
__attribute__((target("sse4.2"))) uint32_t ExtendWithSse42(uint32_t crc, std::string_view data) {
  const char* p = data.data();
  size_t n = data.size();
  uint64_t c = crc;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, sizeof(word));
    c = _mm_crc32_u64(c, word);
  }
  auto c32 = static_cast<uint32_t>(c);
  for (; n > 0; ++p, --n) c32 = _mm_crc32_u8(c32, static_cast<uint8_t>(*p));
  return c32;
}
#endif

}  // namespace

uint32_t Crc32c(std::string_view a, std::string_view b) {
#if defined(__x86_64__)
  static const bool sse42 = __builtin_cpu_supports("sse4.2");
  if (sse42) return ~ExtendWithSse42(ExtendWithSse42(~uint32_t{0}, a), b);
#endif
  // Debian's RocksDB is built portable: its crc32c is a table's, about 1.5 GB/s.
  static const auto factory = rocksdb::GetFileChecksumGenCrc32cFactory();
  auto gen = factory->CreateFileChecksumGenerator(rocksdb::FileChecksumGenContext());
  gen->Update(a.data(), a.size());
  gen->Update(b.data(), b.size());
  gen->Finalize();
  const std::string sum = gen->GetChecksum();  // 4 bytes, big-endian
  uint32_t v = 0;
  for (unsigned char c : sum) v = (v << 8) | c;
  return v;
}

namespace {

void PutFixed32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void PutFixed64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
uint32_t GetFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint64_t GetFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
bool GetVarint(std::string_view& in, uint64_t* v) {
  uint64_t r = 0;
  for (int shift = 0; shift <= 63 && !in.empty(); shift += 7) {
    const auto b = static_cast<uint8_t>(in.front());
    in.remove_prefix(1);
    r |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *v = r;
      return true;
    }
  }
  return false;
}

Status Errno(const std::string& what, const std::string& path) {
  return Status::IoError(fmt::format("{} {}: {}", what, path, std::strerror(errno)));
}

//! Reads exactly n bytes at the file's position; false with `*st` set otherwise.
bool ReadAll(int fd, char* data, size_t n, const std::string& path, Status* st) {
  while (n > 0) {
    const ssize_t r = ::read(fd, data, n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      *st = Errno("reading", path);
      return false;
    }
    if (r == 0) {
      *st = Status::Corruption("run file " + path + " ends before its footer says");
      return false;
    }
    data += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

TempFile::~TempFile() {
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

Result<std::unique_ptr<RunWriter>> RunWriter::Create(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("creating the run file", path);
  return std::unique_ptr<RunWriter>(new RunWriter(fd, path));
}

RunWriter::RunWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {
  block_.reserve(kRunBlockBytes + 1024);
  block_.resize(kRunBlockHeaderBytes);
}

RunWriter::~RunWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Status RunWriter::Add(std::string_view key, std::string_view value) {
  PutVarint(block_, key.size());
  PutVarint(block_, value.size());
  block_.append(key);
  block_.append(value);
  ++records_;
  if (block_.size() - kRunBlockHeaderBytes >= kRunBlockBytes) return WriteBlock();
  return Status::Ok();
}

Status RunWriter::WriteBlock() {
  const size_t payload = block_.size() - kRunBlockHeaderBytes;
  if (payload == 0) return Status::Ok();
  if (payload > UINT32_MAX) return Status::InvalidArgument("a record of a run file exceeds 4 GiB");
  PutFixed32(block_.data(), static_cast<uint32_t>(payload));
  const std::string_view block(block_);
  PutFixed32(block_.data() + 4, Crc32c(block.substr(0, 4), block.substr(kRunBlockHeaderBytes)));
  RETURN_IF_ERROR(WriteAll(block_.data(), block_.size()));
  ++blocks_;
  block_.resize(kRunBlockHeaderBytes);
  return Status::Ok();
}

Status RunWriter::Finish() {
  RETURN_IF_ERROR(WriteBlock());
  char footer[kRunFooterBytes] = {};
  std::memcpy(footer, kMagic.data(), kMagic.size());
  PutFixed64(footer + 8, records_);
  PutFixed64(footer + 16, blocks_);
  PutFixed32(footer + 24, Crc32c(std::string_view(footer, 24)));
  RETURN_IF_ERROR(WriteAll(footer, sizeof(footer)));
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return Errno("closing", path_);
  return Status::Ok();
}

Status RunWriter::WriteAll(const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd_, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return Errno("writing", path_);
    data += w;
    n -= static_cast<size_t>(w);
    file_bytes_ += static_cast<uint64_t>(w);
  }
  return Status::Ok();
}

Result<std::unique_ptr<RunReader>> RunReader::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Errno("opening the run file", path);
  std::unique_ptr<RunReader> reader(new RunReader(fd, path, 0, 0, 0));  // closes fd on a return
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) return Errno("reading the size of", path);
  char footer[kRunFooterBytes];
  if (static_cast<uint64_t>(size) < kRunFooterBytes ||
      ::pread(fd, footer, sizeof(footer), size - static_cast<off_t>(kRunFooterBytes)) !=
          static_cast<ssize_t>(kRunFooterBytes) ||
      std::string_view(footer, kMagic.size()) != kMagic) {
    return Status::Corruption("run file " + path + " has no footer: it was cut short or damaged");
  }
  if (GetFixed32(footer + 24) != Crc32c(std::string_view(footer, 24))) {
    return Status::Corruption("run file " + path + ": the checksum of its footer does not match");
  }
  if (::lseek(fd, 0, SEEK_SET) != 0) return Errno("reading", path);
  reader->data_bytes_ = static_cast<uint64_t>(size) - kRunFooterBytes;
  reader->expected_records_ = GetFixed64(footer + 8);
  reader->expected_blocks_ = GetFixed64(footer + 16);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return reader;
}

RunReader::RunReader(int fd, std::string path, uint64_t data_bytes, uint64_t records, uint64_t blocks)
    : fd_(fd), path_(std::move(path)), data_bytes_(data_bytes), expected_records_(records), expected_blocks_(blocks) {}

RunReader::~RunReader() { ::close(fd_); }

bool RunReader::Fail(Status st) {
  status_ = std::move(st);
  key_ = value_ = {};
  rest_ = {};
  return false;
}

bool RunReader::Next() {
  if (!status_.ok()) return false;
  if (rest_.empty() && !ReadBlock()) return false;
  uint64_t key_size = 0, value_size = 0;
  if (!GetVarint(rest_, &key_size) || !GetVarint(rest_, &value_size) || key_size > rest_.size() ||
      value_size > rest_.size() - key_size) {
    return Fail(Status::Corruption(
        fmt::format("run file {}: a record of the block that ends at byte {} is cut", path_, offset_)));
  }
  key_ = rest_.substr(0, key_size);
  value_ = rest_.substr(key_size, value_size);
  rest_.remove_prefix(key_size + value_size);
  ++records_;
  return true;
}

//! Reads the next block into block_; false at the end (checked against the footer) or on damage.
bool RunReader::ReadBlock() {
  if (offset_ == data_bytes_) {
    if (records_ == expected_records_ && blocks_ == expected_blocks_) {
      key_ = value_ = {};
      return false;
    }
    return Fail(Status::Corruption(fmt::format("run file {} holds {} records in {} blocks, its footer says {} in {}",
                                               path_, records_, blocks_, expected_records_, expected_blocks_)));
  }
  char header[kRunBlockHeaderBytes];
  if (data_bytes_ - offset_ < kRunBlockHeaderBytes || !ReadAll(fd_, header, sizeof(header), path_, &status_)) {
    return Fail(status_.ok() ? Status::Corruption("run file " + path_ + ": a block header is cut") : status_);
  }
  const uint32_t size = GetFixed32(header);
  if (size == 0 || size > data_bytes_ - offset_ - kRunBlockHeaderBytes) {
    return Fail(
        Status::Corruption(fmt::format("run file {}: the block at byte {} has a damaged size", path_, offset_)));
  }
  block_.resize(size);
  if (!ReadAll(fd_, block_.data(), size, path_, &status_)) return Fail(status_);
  if (GetFixed32(header + 4) != Crc32c(std::string_view(header, 4), block_)) {
    return Fail(Status::Corruption(
        fmt::format("run file {}: the checksum of the block at byte {} does not match", path_, offset_)));
  }
  offset_ += kRunBlockHeaderBytes + size;
  ++blocks_;
  rest_ = block_;
  return true;
}

}  // namespace webindex::state
