#include "ingest/byte_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace webindex::ingest {

//! zlib's inflate state; inflateEnd on destruction.
struct ByteReader::Inflater {
  z_stream zs{};
  bool initialized = false;
  bool member_ended = false;  //!< the last inflate() ended a gzip member
  ~Inflater() {
    if (initialized) inflateEnd(&zs);
  }
};

void ByteReader::FileCloser::operator()(FILE* f) const {
  if (f != nullptr && f != stdin) fclose(f);
}

ByteReader::ByteReader(std::string path, std::unique_ptr<FILE, FileCloser> file)
    : path_(std::move(path)), file_(std::move(file)) {}

ByteReader::~ByteReader() = default;

Result<std::unique_ptr<ByteReader>> ByteReader::Open(const std::string& path) {
  std::unique_ptr<FILE, FileCloser> file(path == "-" ? stdin : fopen(path.c_str(), "rb"));
  if (!file) return Status::IoError(fmt::format("cannot open {}: {}", path, strerror(errno)));
  std::unique_ptr<ByteReader> reader(new ByteReader(path == "-" ? "<stdin>" : path, std::move(file)));
  RETURN_IF_ERROR(reader->Start());
  return reader;
}

Status ByteReader::Start() {
  in_ = std::make_unique<char[]>(kBufferSize);
  out_ = std::make_unique<char[]>(kBufferSize);
  ASSIGN_OR_RETURN(const size_t n, ReadFile(in_.get(), kBufferSize));
  gzip_ = n >= 2 && static_cast<unsigned char>(in_[0]) == 0x1f && static_cast<unsigned char>(in_[1]) == 0x8b;
  if (!gzip_) {
    std::swap(in_, out_);  // plain input is read straight into the output buffer
    in_.reset();
    out_end_ = n;
    return Status::Ok();
  }
  inflater_ = std::make_unique<Inflater>();
  z_stream& zs = inflater_->zs;
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return Status::Internal("inflateInit2 failed");  // 32: gzip header
  inflater_->initialized = true;
  zs.next_in = reinterpret_cast<Bytef*>(in_.get());
  zs.avail_in = static_cast<uInt>(n);
  return Status::Ok();
}

uint64_t ByteReader::compressed_offset() const { return gzip_ ? file_bytes_ - inflater_->zs.avail_in : offset_; }

Status ByteReader::Corrupt(uint64_t at, std::string_view what) const {
  if (!gzip_) return Status::Corruption(fmt::format("{}: offset {}: {}", path_, at, what));
  return Status::Corruption(
      fmt::format("{}: offset {} (compressed offset {}): {}", path_, at, compressed_offset(), what));
}

Result<size_t> ByteReader::ReadFile(char* buf, size_t n) {
  const size_t got = fread(buf, 1, n, file_.get());
  if (got < n) {
    if (ferror(file_.get())) return Status::IoError(fmt::format("cannot read {}: {}", path_, strerror(errno)));
    file_eof_ = true;
  }
  file_bytes_ += got;
  return got;
}

Status ByteReader::Fill() {
  if (Available() > 0) return Status::Ok();
  out_pos_ = out_end_ = 0;
  if (gzip_) return FillGzip();
  if (file_eof_) return Status::Ok();
  ASSIGN_OR_RETURN(out_end_, ReadFile(out_.get(), kBufferSize));
  return Status::Ok();
}

Status ByteReader::FillGzip() {
  z_stream& zs = inflater_->zs;
  while (out_end_ == 0 && !input_done_) {
    if (zs.avail_in == 0 && !file_eof_) {
      ASSIGN_OR_RETURN(const size_t n, ReadFile(in_.get(), kBufferSize));
      zs.next_in = reinterpret_cast<Bytef*>(in_.get());
      zs.avail_in = static_cast<uInt>(n);
    }
    if (inflater_->member_ended) {  // Common Crawl: one gzip member per record, back to back
      if (zs.avail_in == 0) {
        input_done_ = true;
        break;
      }
      inflateReset(&zs);
      inflater_->member_ended = false;
    }
    zs.next_out = reinterpret_cast<Bytef*>(out_.get());
    zs.avail_out = static_cast<uInt>(kBufferSize);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    out_end_ = kBufferSize - zs.avail_out;
    if (rc == Z_STREAM_END) {
      inflater_->member_ended = true;
    } else if (rc == Z_BUF_ERROR && zs.avail_in == 0 && file_eof_) {
      return Corrupt(offset_ + out_end_, "truncated gzip stream (the file ends inside a gzip member)");
    } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && zs.avail_in == 0)) {
      return Corrupt(offset_ + out_end_, fmt::format("bad gzip data: {}", zs.msg ? zs.msg : zError(rc)));
    }
  }
  return Status::Ok();
}

Result<bool> ByteReader::ReadLine(std::string* line, size_t max_bytes) {
  const uint64_t start = offset_;
  const size_t base = line->size();
  bool any = false;
  for (;;) {
    RETURN_IF_ERROR(Fill());
    if (Available() == 0) break;
    any = true;
    const char* begin = out_.get() + out_pos_;
    const auto* nl = static_cast<const char*>(memchr(begin, '\n', Available()));
    const size_t take = nl != nullptr ? static_cast<size_t>(nl - begin) : Available();
    if (line->size() - base + take > max_bytes) {
      return Corrupt(start, fmt::format("line longer than {} bytes", max_bytes));
    }
    line->append(begin, take);
    const size_t used = take + (nl != nullptr ? 1 : 0);
    out_pos_ += used;
    offset_ += used;
    if (nl != nullptr) break;
  }
  if (line->size() > base && line->back() == '\r') line->pop_back();
  return any;
}

Result<size_t> ByteReader::Read(size_t n, std::string* out) {
  size_t done = 0;
  while (done < n) {
    RETURN_IF_ERROR(Fill());
    if (Available() == 0) break;
    const size_t take = std::min(n - done, Available());
    if (out != nullptr) out->append(out_.get() + out_pos_, take);
    out_pos_ += take;
    offset_ += take;
    done += take;
  }
  return done;
}

Result<size_t> ByteReader::Skip(size_t n) { return Read(n, nullptr); }

Result<bool> ByteReader::AtEnd() {
  RETURN_IF_ERROR(Fill());
  return Available() == 0;
}

}  // namespace webindex::ingest
