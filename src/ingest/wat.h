// Common Crawl WAT -> crawl events (docs/semantics.md §1): one event per WAT metadata record
// that describes an HTTP response, as JSON in the schema of schemas/crawl-event.schema.json.
// Converters and readers are owned and called by one thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "common/status.h"
#include "ingest/warc_reader.h"

namespace webindex::ingest {

struct WatOptions {
  bool all_links = false;  //!< false: only links to another registrable domain, as webindex does
  WarcReaderOptions warc;
};

//! What a conversion did; Add() sums the stats of several files.
struct WatStats {
  uint64_t records = 0;         //!< WARC records read
  uint64_t events = 0;          //!< crawl events made
  uint64_t links = 0;           //!< links written into events (before the pipeline's dedup)
  uint64_t dropped_links = 0;   //!< A@/href links that do not resolve to a valid http(s) URL
  uint64_t internal_links = 0;  //!< links within the page's own domain, left out without all_links
  //! Records that make no event, by kind.
  std::map<std::string, uint64_t> skipped;

  uint64_t skipped_total() const;
  //! "request 6, metadata 5, warcinfo 2" (largest first), or "none".
  std::string SkippedSummary() const;
  void Add(const WatStats& other);
};

//! A crawl event ready to produce: keyed by its page URL.
struct KeyedEvent {
  std::string key;
  std::string value;
};

//! Turns WAT records into crawl events; keeps a JSON parser and counts what it skipped.
class WatConverter {
 public:
  explicit WatConverter(WatOptions options = {});
  ~WatConverter();
  WatConverter(const WatConverter&) = delete;
  WatConverter& operator=(const WatConverter&) = delete;

  //! Fills `event` and returns true for a response record; otherwise counts the record in
  //! stats().skipped by kind ("request", "metadata", "warcinfo", "invalid-json", ...).
  bool Convert(const WarcRecord& record, KeyedEvent* event);
  const WatStats& stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

//! Streams one WAT file (plain or gzip) as crawl events. Memory: the ByteReader's buffers, the
//! current record and the JSON parser's buffers, never the whole file.
class WatEventReader {
 public:
  //! Opens `path` ("-": stdin).
  static Result<std::unique_ptr<WatEventReader>> Open(const std::string& path, WatOptions options = {});

  //! The next crawl event. False at the end of the file; Corruption naming the file and offset.
  Result<bool> Next(KeyedEvent* event);

  const WatStats& stats() const { return converter_.stats(); }
  //! Bytes of the file consumed so far (compressed bytes for gzip).
  uint64_t bytes_read() const { return warc_->bytes().compressed_offset(); }
  //! The current record, for inspection (e.g. its capacity in memory tests).
  const WarcRecord& record() const { return record_; }

 private:
  WatEventReader(std::unique_ptr<WarcReader> warc, WatOptions options) : warc_(std::move(warc)), converter_(options) {}

  std::unique_ptr<WarcReader> warc_;
  WatConverter converter_;
  WarcRecord record_;
};

}  // namespace webindex::ingest
