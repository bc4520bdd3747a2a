// JSON records webindex writes to Kafka (schemas/ holds their JSON Schemas):
// internal deltas between stages, export records, and the page JSON of `page|cur`.
// Decoders reuse a parser: one RecordDecoder per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "model/page.h"

namespace webindex::codec {

//! Identifies where an internal record came from, for duplicate suppression downstream:
//! seq only grows per (gen, src). Stages read only the records of their own generation.
struct Origin {
  std::string src;
  uint64_t seq = 0;
  uint64_t gen = 1;  //!< the data-dir generation that wrote it (absent in JSON: 1)
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
struct ExportRecord {
  enum class Type { kPage, kUri, kDomain, kGeneration };
  Type type = Type::kPage;
  std::string key;                  //!< uri, uri, or domain
  uint64_t seq = 0;
  std::optional<model::Page> page;  //!< kPage: nullopt when the page is gone
  model::UriInfo info;              //!< kUri
  int64_t pagecount = 0;            //!< kDomain
  uint64_t gen = 1;                 //!< generation that wrote it; seq grows per (gen, type, key)
};

std::string EncodePageJson(const model::Page& page);
std::string Encode(const UriDelta& d);
std::string Encode(const DomainDelta& d);
std::string Encode(const ExportRecord& r);

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
