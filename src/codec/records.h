// JSON records webindex writes to Kafka (schemas/ holds their JSON Schemas):
// internal deltas between stages, export records, and the page JSON of `page|cur`.
// Decoders reuse a parser: one RecordDecoder per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "model/page.h"

namespace webindex::codec {

//! Identifies where an internal record came from, for duplicate suppression downstream:
//! src is the writing task ("<stage>.<input partition>"), seq only grows per (gen, src). Stages
//! read only the records of their own generation.
struct Origin {
  std::string src;
  uint64_t seq = 0;
  uint64_t gen = 1;  //!< the data-dir generation that wrote it (absent in JSON: 1)
  std::string inst;  //!< the data dir that wrote it (state::DataDir::InstanceId); "" when unknown
};

//! topic webindex.uri-deltas, keyed by uri.
struct UriDelta {
  Origin origin;
  std::string uri;
  model::UriInfo delta;
};

//! topic webindex.domain-deltas, keyed by domain.
struct DomainDelta {
  Origin origin;
  std::string domain;
  int64_t pages = 0;
};

//! topic webindex.exports: the full new value of one key; seq only grows per (type, key).
//! kGeneration announces that generation `gen` became current (key: its number, seq 0), once
//! in every partition: records of older generations that follow it are obsolete.
//! A page export too large for one record is sent as `parts` records of the same (type, key,
//! seq, gen), in order: part 0 carries the page with its first links (numOutbound counts them
//! all), parts 1.. carry more of its outboundLinks.
struct ExportRecord {
  enum class Type { kPage, kUri, kDomain, kGeneration };
  Type type = Type::kPage;
  std::string key;                  //!< uri, uri, or domain
  uint64_t seq = 0;
  std::optional<model::Page> page;  //!< kPage: nullopt when the page is gone
  model::UriInfo info;              //!< kUri
  int64_t pagecount = 0;            //!< kDomain
  uint64_t gen = 1;                 //!< generation that wrote it; seq grows per (gen, type, key)
  std::string inst;                 //!< data dir that wrote it (DataDir::InstanceId); "" when unknown
  uint32_t part = 0;                //!< kPage: this part's index in [0, parts)
  uint32_t parts = 1;               //!< kPage: 1 when not split
  size_t num_outbound = 0;          //!< kPage part 0 of several: the page's links in all parts
  std::vector<model::Link> links = {};  //!< kPage part 1..: more of the page's outboundLinks
};

//! Bounds on a page's fields so that any one link, and the page without links, fit in an export
//! part (see EncodePageExport) far below Kafka's default record size.
inline constexpr size_t kMaxAnchorTextBytes = 2048;  //!< longer anchor texts are cut
inline constexpr size_t kMaxPageTextBytes = 8192;    //!< longer titles and server fields are cut
inline constexpr size_t kMaxUrlBytes = 8192;         //!< links to longer URLs are dropped

//! What BoundPage changed.
struct BoundCounts {
  uint32_t cut_texts = 0;     //!< anchor texts, title or server cut (at a UTF-8 boundary)
  uint32_t dropped_links = 0; //!< links whose URL was over kMaxUrlBytes
};
//! Applies the bounds above to a decoded page. InvalidArgument (the dead-letter reason) when
//! the page's own URL is over kMaxUrlBytes.
Result<BoundCounts> BoundPage(model::Page* page);

std::string EncodePageJson(const model::Page& page);
std::string Encode(const UriDelta& d);
std::string Encode(const DomainDelta& d);
std::string Encode(const ExportRecord& r);
//! The record values of an export: one when it fits `max_bytes`, else (page exports only) its
//! parts, each at most `max_bytes` unless a single link alone is larger (BoundPage prevents it).
std::vector<std::string> EncodeParts(const ExportRecord& r, size_t max_bytes);

class RecordDecoder {
 public:
  RecordDecoder();
  ~RecordDecoder();
  RecordDecoder(const RecordDecoder&) = delete;
  RecordDecoder& operator=(const RecordDecoder&) = delete;

  Result<UriDelta> DecodeUriDelta(std::string_view json);
  Result<DomainDelta> DecodeDomainDelta(std::string_view json);
  Result<ExportRecord> DecodeExport(std::string_view json);
  Result<model::Page> DecodePageJson(std::string_view json);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace webindex::codec
