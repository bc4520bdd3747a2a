// The SPARQL 1.1 result formats: a QueryResult as Query Results JSON, XML (SRX), CSV and TSV,
// ASK as a JSON / XML boolean, CONSTRUCT / DESCRIBE as N-Triples. A ResultWriter writes row by row
// into an append callback, so an endpoint streams as the rows come; one thread per writer.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "graph/term.h"
#include "sparql/execute.h"

namespace webindex::sparql {

enum class ResultFormat { kJson, kXml, kCsv, kTsv, kNTriples };

//! application/sparql-results+json, application/sparql-results+xml, text/csv,
//! text/tab-separated-values, application/n-triples.
std::string_view MediaType(ResultFormat format);
//! The format of a media type (parameters such as `; charset=utf-8` ignored); nullopt if none.
std::optional<ResultFormat> FormatForMediaType(std::string_view media_type);
//! Whether `format` can carry a result of `form`: SELECT in JSON, XML, CSV, TSV; ASK in JSON and
//! XML; CONSTRUCT / DESCRIBE in N-Triples.
bool FormatFits(ResultFormat format, Query::Form form);

//! Writes one result: Begin (SELECT) then Row per solution then End; or Boolean (ASK); or
//! Statement per triple (CONSTRUCT / DESCRIBE, nothing before or after). Each call appends
//! whole pieces of text to the sink; the writer keeps only the variable names.
class ResultWriter {
 public:
  using Sink = std::function<void(std::string_view text)>;
  ResultWriter(ResultFormat format, Sink sink) : format_(format), sink_(std::move(sink)) {}

  void Begin(const std::vector<std::string>& vars);
  //! `row[i]` binds vars[i]; nullopt (or a short row) leaves it unbound.
  void Row(const std::vector<std::optional<graph::Term>>& row);
  void End();
  void Boolean(bool value);
  void Statement(const graph::Statement& statement);

 private:
  ResultFormat format_;
  Sink sink_;
  std::vector<std::string> vars_;
  bool first_row_ = true;
  std::string buf_;
};

//! The whole result in `format`; InvalidArgument when the format cannot carry the query's form.
Status WriteResult(const QueryResult& result, ResultFormat format, const ResultWriter::Sink& sink);
Result<std::string> FormatResult(const QueryResult& result, ResultFormat format);

//! Escapes for the formats, exposed for tests: a JSON string's contents; XML character data and
//! attribute values; a CSV field (quoted when it holds `"`, `,`, CR or LF); a CSV / TSV value.
void AppendJsonString(std::string_view s, std::string* out);
void AppendXmlEscaped(std::string_view s, std::string* out);
void AppendCsvField(std::string_view s, std::string* out);
//! CSV: an IRI bare, a literal's lexical form, a blank node `_:label`.
std::string CsvValue(const graph::Term& term);

}  // namespace webindex::sparql
