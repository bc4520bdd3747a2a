#include "graph/graph_stage.h"

#include <string>

#include "common/log.h"

namespace webindex::graph {
namespace {

//! The 1-based line of `text` that holds its `index`-th statement (0-based): statements are
//! the lines that are neither blank nor comments.
size_t LineOfStatement(std::string_view text, size_t index) {
  size_t line = 1, seen = 0, pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(pos, end - pos);
    const size_t first = l.find_first_not_of(" \t");
    if (first != std::string_view::npos && l[first] != '#' && seen++ == index) return line;
    if (end == text.size()) break;
    pos = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
    ++line;
  }
  return line;
}

}  // namespace

void NoteUnparsedDates(const IndexNotes& notes, pipeline::Metrics& metrics) {
  if (notes.unparsed_dates == 0) return;
  // One warning per batch at most: the counter says how many.
  const uint64_t before = metrics.unparsed_dates.fetch_add(notes.unparsed_dates);
  LOG_WARN("temporal index: {} object(s) typed xsd:dateTime do not parse (e.g. \"{}\"); kept as statements, not "
           "indexed ({} so far)",
           notes.unparsed_dates, notes.last_unparsed.substr(0, 100), before + notes.unparsed_dates);
}

Status GraphStage::Take(const InRecord& record, GraphUpdate* update) {
  const std::string_view op = record.Header("op").value_or("add");
  if (op != "add" && op != "remove") {
    return Status::InvalidArgument("header op is '" + std::string(op) + "'; it must be add or remove");
  }
  statements_.clear();
  RETURN_IF_ERROR(parser_.Parse(record.value, &statements_));
  const Term web = Term::Iri(kWebGraph);
  for (size_t i = 0; i < statements_.size(); ++i) {
    const auto& s = statements_[i];
    if (s.graph == web) {
      return Status::InvalidArgument("line " + std::to_string(LineOfStatement(record.value, i)) + ": graph <" +
                                     kWebGraph + "> holds the web graph, which webindex keeps; it takes no statements");
    }
    if (Status st = ValidateStatement(s); !st.ok()) {
      return Status::InvalidArgument("line " + std::to_string(LineOfStatement(record.value, i)) + ": " +
                                     st.message());
    }
  }
  for (auto& s : statements_) {
    RETURN_IF_ERROR(op == "add" ? update->Add(std::move(s)) : update->Remove(std::move(s)));
  }
  return Status::Ok();
}

Status GraphStage::Process(const std::vector<InRecord>& records, pipeline::BatchContext& ctx) {
  GraphUpdate update({}, indexes_);
  auto& m = ctx.metrics();
  for (const auto& r : records) {
    if (from_ms_ >= 0 && r.timestamp_ms < from_ms_) {
      ++m.before_from;
      continue;
    }
    ++m.triple_records;
    if (Status st = Take(r, &update); !st.ok()) {
      ++m.invalid_triple_records;
      ctx.DeadLetter(r, layout_.names.dead_letters, "invalid statements: " + st.message());
    }
  }
  if (update.size() == 0) return Status::Ok();
  ASSIGN_OR_RETURN(const ApplyResult applied, update.Apply(ctx.store(), ctx.batch()));
  m.statements_added += applied.added.size();
  m.statements_removed += applied.removed.size();
  NoteUnparsedDates(applied.notes, m);
  return Status::Ok();
}

}  // namespace webindex::graph
