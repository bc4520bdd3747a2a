#include "sparql/results_format.h"

#include <cctype>
#include <cstdio>

namespace webindex::sparql {
namespace {

constexpr std::string_view kXmlHead =
    "<?xml version=\"1.0\"?>\n<sparql xmlns=\"http://www.w3.org/2005/sparql-results#\">\n";

bool IsXsdString(const graph::Term& t) { return t.datatype().empty() || t.datatype() == graph::kXsdString; }

void AppendJsonTerm(const graph::Term& t, std::string* out) {
  switch (t.kind()) {
    case graph::TermKind::kIri:
      *out += "{\"type\":\"uri\",\"value\":\"";
      AppendJsonString(t.value(), out);
      *out += "\"}";
      return;
    case graph::TermKind::kBlank:
      *out += "{\"type\":\"bnode\",\"value\":\"";
      AppendJsonString(t.value(), out);
      *out += "\"}";
      return;
    case graph::TermKind::kLiteral:
      *out += "{\"type\":\"literal\",\"value\":\"";
      AppendJsonString(t.value(), out);
      *out += '"';
      if (!t.language().empty()) {
        *out += ",\"xml:lang\":\"";
        AppendJsonString(t.language(), out);
        *out += '"';
      } else if (!IsXsdString(t)) {
        *out += ",\"datatype\":\"";
        AppendJsonString(t.datatype(), out);
        *out += '"';
      }
      *out += '}';
      return;
  }
}

void AppendXmlTerm(const graph::Term& t, std::string* out) {
  switch (t.kind()) {
    case graph::TermKind::kIri:
      *out += "<uri>";
      AppendXmlEscaped(t.value(), out);
      *out += "</uri>";
      return;
    case graph::TermKind::kBlank:
      *out += "<bnode>";
      AppendXmlEscaped(t.value(), out);
      *out += "</bnode>";
      return;
    case graph::TermKind::kLiteral:
      *out += "<literal";
      if (!t.language().empty()) {
        *out += " xml:lang=\"";
        AppendXmlEscaped(t.language(), out);
        *out += '"';
      } else if (!IsXsdString(t)) {
        *out += " datatype=\"";
        AppendXmlEscaped(t.datatype(), out);
        *out += '"';
      }
      *out += '>';
      AppendXmlEscaped(t.value(), out);
      *out += "</literal>";
      return;
  }
}

}  // namespace

std::string_view MediaType(ResultFormat format) {
  switch (format) {
    case ResultFormat::kJson: return "application/sparql-results+json";
    case ResultFormat::kXml: return "application/sparql-results+xml";
    case ResultFormat::kCsv: return "text/csv";
    case ResultFormat::kTsv: return "text/tab-separated-values";
    case ResultFormat::kNTriples: return "application/n-triples";
  }
  return "";
}

std::optional<ResultFormat> FormatForMediaType(std::string_view media_type) {
  media_type = media_type.substr(0, media_type.find(';'));
  while (!media_type.empty() && media_type.back() == ' ') media_type.remove_suffix(1);
  while (!media_type.empty() && media_type.front() == ' ') media_type.remove_prefix(1);
  std::string lower(media_type);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (auto f : {ResultFormat::kJson, ResultFormat::kXml, ResultFormat::kCsv, ResultFormat::kTsv,
                 ResultFormat::kNTriples}) {
    if (lower == MediaType(f)) return f;
  }
  if (lower == "text/plain") return ResultFormat::kNTriples;  // N-Triples' former media type
  return std::nullopt;
}

bool FormatFits(ResultFormat format, Query::Form form) {
  switch (form) {
    case Query::Form::kSelect: return format != ResultFormat::kNTriples;
    case Query::Form::kAsk: return format == ResultFormat::kJson || format == ResultFormat::kXml;
    case Query::Form::kConstruct:
    case Query::Form::kDescribe: return format == ResultFormat::kNTriples;
  }
  return false;
}

void AppendJsonString(std::string_view s, std::string* out) {
  for (char c : s) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
          *out += buf;
        } else {
          *out += c;
        }
    }
  }
}

void AppendXmlEscaped(std::string_view s, std::string* out) {
  for (char c : s) {
    switch (c) {
      case '&': *out += "&amp;"; break;
      case '<': *out += "&lt;"; break;
      case '>': *out += "&gt;"; break;
      case '"': *out += "&quot;"; break;
      case '\r': *out += "&#13;"; break;  // a raw CR would be normalized away by the reader
      default: *out += c;
    }
  }
}

void AppendCsvField(std::string_view s, std::string* out) {
  if (s.find_first_of("\",\r\n") == std::string_view::npos) {
    *out += s;
    return;
  }
  *out += '"';
  for (char c : s) {
    if (c == '"') *out += '"';
    *out += c;
  }
  *out += '"';
}

std::string CsvValue(const graph::Term& term) {
  return term.is_blank() ? "_:" + term.value() : term.value();
}

void ResultWriter::Begin(const std::vector<std::string>& vars) {
  vars_ = vars;
  first_row_ = true;
  buf_.clear();
  switch (format_) {
    case ResultFormat::kJson:
      buf_ += "{\"head\":{\"vars\":[";
      for (size_t i = 0; i < vars.size(); ++i) {
        if (i) buf_ += ',';
        buf_ += '"';
        AppendJsonString(vars[i], &buf_);
        buf_ += '"';
      }
      buf_ += "]},\"results\":{\"bindings\":[";
      break;
    case ResultFormat::kXml:
      buf_ += kXmlHead;
      buf_ += "<head>\n";
      for (const auto& v : vars) {
        buf_ += "<variable name=\"";
        AppendXmlEscaped(v, &buf_);
        buf_ += "\"/>\n";
      }
      buf_ += "</head>\n<results>\n";
      break;
    case ResultFormat::kCsv:
      for (size_t i = 0; i < vars.size(); ++i) {
        if (i) buf_ += ',';
        AppendCsvField(vars[i], &buf_);
      }
      buf_ += "\r\n";
      break;
    case ResultFormat::kTsv:
      for (size_t i = 0; i < vars.size(); ++i) {
        if (i) buf_ += '\t';
        buf_ += '?';
        buf_ += vars[i];
      }
      buf_ += '\n';
      break;
    case ResultFormat::kNTriples: break;
  }
  sink_(buf_);
}

void ResultWriter::Row(const std::vector<std::optional<graph::Term>>& row) {
  buf_.clear();
  auto bound = [&](size_t i) -> const graph::Term* {
    return i < row.size() && row[i] ? &*row[i] : nullptr;
  };
  switch (format_) {
    case ResultFormat::kJson: {
      buf_ += first_row_ ? "\n{" : ",\n{";
      bool first = true;
      for (size_t i = 0; i < vars_.size(); ++i) {
        const graph::Term* t = bound(i);
        if (!t) continue;
        if (!first) buf_ += ',';
        first = false;
        buf_ += '"';
        AppendJsonString(vars_[i], &buf_);
        buf_ += "\":";
        AppendJsonTerm(*t, &buf_);
      }
      buf_ += '}';
      break;
    }
    case ResultFormat::kXml:
      buf_ += "<result>";
      for (size_t i = 0; i < vars_.size(); ++i) {
        const graph::Term* t = bound(i);
        if (!t) continue;
        buf_ += "<binding name=\"";
        AppendXmlEscaped(vars_[i], &buf_);
        buf_ += "\">";
        AppendXmlTerm(*t, &buf_);
        buf_ += "</binding>";
      }
      buf_ += "</result>\n";
      break;
    case ResultFormat::kCsv:
      for (size_t i = 0; i < vars_.size(); ++i) {
        if (i) buf_ += ',';
        if (const graph::Term* t = bound(i)) AppendCsvField(CsvValue(*t), &buf_);
      }
      buf_ += "\r\n";
      break;
    case ResultFormat::kTsv:
      for (size_t i = 0; i < vars_.size(); ++i) {
        if (i) buf_ += '\t';
        if (const graph::Term* t = bound(i)) graph::AppendNTriples(*t, &buf_);
      }
      buf_ += '\n';
      break;
    case ResultFormat::kNTriples: break;
  }
  first_row_ = false;
  sink_(buf_);
}

void ResultWriter::End() {
  if (format_ == ResultFormat::kJson) sink_(first_row_ ? "]}}\n" : "\n]}}\n");
  if (format_ == ResultFormat::kXml) sink_("</results>\n</sparql>\n");
}

void ResultWriter::Boolean(bool value) {
  buf_.clear();
  if (format_ == ResultFormat::kJson) {
    buf_ += value ? "{\"head\":{},\"boolean\":true}\n" : "{\"head\":{},\"boolean\":false}\n";
  } else if (format_ == ResultFormat::kXml) {
    buf_ += kXmlHead;
    buf_ += value ? "<head/>\n<boolean>true</boolean>\n</sparql>\n" : "<head/>\n<boolean>false</boolean>\n</sparql>\n";
  }
  sink_(buf_);
}

void ResultWriter::Statement(const graph::Statement& statement) {
  buf_ = graph::ToNTriples(statement);
  buf_ += '\n';
  sink_(buf_);
}

Status WriteResult(const QueryResult& result, ResultFormat format, const ResultWriter::Sink& sink) {
  if (!FormatFits(format, result.form)) {
    return Status::InvalidArgument(std::string("this query's result cannot be written as ") +
                                   std::string(MediaType(format)));
  }
  ResultWriter writer(format, sink);
  switch (result.form) {
    case Query::Form::kSelect:
      writer.Begin(result.vars);
      for (const auto& row : result.rows) writer.Row(row);
      writer.End();
      break;
    case Query::Form::kAsk: writer.Boolean(result.boolean); break;
    case Query::Form::kConstruct:
    case Query::Form::kDescribe:
      for (const auto& s : result.statements) writer.Statement(s);
      break;
  }
  return Status::Ok();
}

Result<std::string> FormatResult(const QueryResult& result, ResultFormat format) {
  std::string out;
  RETURN_IF_ERROR(WriteResult(result, format, [&](std::string_view s) { out += s; }));
  return out;
}

}  // namespace webindex::sparql
