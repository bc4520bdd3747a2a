// Wikipedia revision records (docs/pagerank.md): the University of Glasgow edit-history format,
// 14 tagged lines per revision, read one record at a time from a plain or gzip file, for
// `webindex pagerank` and, as crawl events, for `webindex load`. Owned and called by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/time.h"
#include "ingest/byte_reader.h"
#include "ingest/wat.h"

namespace webindex::ingest {

//! One revision: what PageRank and `load --format wikipedia` use of a record.
struct Revision {
  std::string title;           //!< article_title, as written (underscores for spaces)
  uint64_t rev_id = 0;
  Instant timestamp;           //!< whole seconds, UTC
  std::string timestamp_text;  //!< YYYY-MM-DDTHH:MM:SSZ as written
  std::vector<std::string> links;  //!< MAIN titles in order, duplicates kept
  uint64_t line = 0;           //!< 1-based line of REVISION in its file
};

class WikipediaReader {
 public:
  //! Lines longer than this are malformed (a MAIN line of ~1M links still fits).
  static constexpr size_t kMaxLineBytes = 64 << 20;

  //! Opens `path` ("-" reads stdin); gzip is detected by its magic bytes.
  static Result<std::unique_ptr<WikipediaReader>> Open(const std::string& path);

  //! Reads the next record into `rev`; false at the end of input. A malformed record gives
  //! Corruption "FILE:LINE: what is wrong" (LINE = the record's first line); the reader is then
  //! past that record, so the caller may go on with the next one. IoError when the input
  //! cannot be read on (damaged gzip, a line over kMaxLineBytes).
  Result<bool> Next(Revision* rev);

  uint64_t records() const { return records_; }     //!< records returned or rejected so far
  uint64_t file_bytes() const { return in_->compressed_offset(); }  //!< of the file, for progress
  const std::string& path() const { return in_->path(); }

 private:
  explicit WikipediaReader(std::unique_ptr<ingest::ByteReader> in) : in_(std::move(in)) {}
  //! Reads the lines of the next record, up to its empty line or the end of input.
  Result<bool> ReadBlock();
  Status Parse(Revision* rev) const;
  Status Malformed(std::string_view what) const;

  std::unique_ptr<ingest::ByteReader> in_;
  std::vector<std::string> lines_;  //!< the current record's lines, reused
  size_t block_size_ = 0;           //!< lines of the current record in lines_
  uint64_t line_no_ = 0;            //!< lines read so far
  uint64_t block_line_ = 0;         //!< first line of the current record
  uint64_t records_ = 0;
};

//! The URL of the article `title`: https://en.wikipedia.org/wiki/ + the title with every byte
//! outside A-Z a-z 0-9 - . _ ~ percent-encoded (%XX, uppercase hex).
std::string WikipediaUrl(std::string_view title);

//! The crawl event of a revision (docs/pagerank.md, "Wikipedia through Kafka"), keyed by its URL:
//! url, title, crawlDate, revision and the MAIN titles as outboundLinks, in order.
KeyedEvent RevisionEvent(const Revision& rev);

//! Splits a MAIN-style list on runs of spaces and tabs, ignoring empty tokens.
std::vector<std::string_view> SplitEntries(std::string_view list);

}  // namespace webindex::ingest
