#include "graph/graph_stage.h"

#include <functional>
#include <future>
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

//! How many headers of `record` are called `name` (InRecord::Header reads only the first).
size_t HeaderCount(const InRecord& record, std::string_view name) {
  size_t n = 0;
  for (const auto& header : record.headers) n += header.first == name;
  return n;
}

//! A batch is split into lanes only from these sizes on: below, a thread costs more than it saves.
constexpr size_t kMinRecordsInLanes = 32;
constexpr size_t kMinStatementsInLanes = 512;

//! The lane of a statement: by subject, the term every row of a statement names (docs/graph.md).
size_t LaneOf(const Statement& s) { return std::hash<std::string_view>{}(s.subject.value()) & 1; }

}  // namespace

void NoteUnparsedDates(const IndexNotes& notes, pipeline::Metrics& metrics) {
  if (notes.unparsed_dates == 0) return;
  // One warning per batch at most: the counter says how many.
  const uint64_t before = metrics.unparsed_dates.fetch_add(notes.unparsed_dates);
  LOG_WARN("temporal index: {} object(s) typed xsd:dateTime do not parse (e.g. \"{}\"); kept as statements, not "
           "indexed ({} so far)",
           notes.unparsed_dates, notes.last_unparsed.substr(0, 100), before + notes.unparsed_dates);
}

Status GraphStage::Parse(const InRecord& record, StatementParser& parser, Parsed* out) {
  if (const size_t ops = HeaderCount(record, "op"); ops > 1) {
    return Status::InvalidArgument("header op is set " + std::to_string(ops) + " times; a record takes it once");
  }
  const std::string_view op = record.Header("op").value_or("add");
  if (op != "add" && op != "remove") {
    return Status::InvalidArgument("header op is '" + std::string(op) + "'; it must be add or remove");
  }
  out->add = op == "add";
  RETURN_IF_ERROR(parser.Parse(record.value, &out->statements));
  const Term web = Term::Iri(kWebGraph);
  for (size_t i = 0; i < out->statements.size(); ++i) {
    const auto& s = out->statements[i];
    if (s.graph == web) {  // the parser checked the rest of each statement (ValidateStatement)
      return Status::InvalidArgument("line " + std::to_string(LineOfStatement(record.value, i)) + ": graph <" +
                                     kWebGraph + "> holds the web graph, which webindex keeps; it takes no statements");
    }
  }
  return Status::Ok();
}

Status GraphStage::Process(const std::vector<InRecord>& records, pipeline::BatchContext& ctx) {
  auto& m = ctx.metrics();
  std::vector<const InRecord*> taken;
  taken.reserve(records.size());
  for (const auto& r : records) {
    if (from_ms_ >= 0 && r.timestamp_ms < from_ms_) {
      ++m.before_from;
      continue;
    }
    ++m.triple_records;
    taken.push_back(&r);
  }
  // Each lane's share of the batch on a thread of its own when there is enough of it; the
  // lanes touch nothing in common but the store, which reads on any thread.
  auto in_lanes = [](bool parallel, const std::function<void(size_t)>& work) {
    if (!parallel) {
      for (size_t lane = 0; lane < kLanes; ++lane) work(lane);
      return;
    }
    std::future<void> other = std::async(std::launch::async, work, 1);
    work(0);
    other.get();
  };
  static_assert(kLanes == 2, "in_lanes runs lane 1 beside lane 0");

  std::vector<Parsed> parsed(taken.size());
  const size_t half = (taken.size() + 1) / 2;
  in_lanes(taken.size() >= kMinRecordsInLanes, [&](size_t lane) {
    for (size_t i = lane == 0 ? 0 : half; i < (lane == 0 ? half : taken.size()); ++i) {
      parsed[i].status = Parse(*taken[i], parsers_[lane], &parsed[i]);
    }
  });

  // In record order: the refused records dead-lettered, the statements to the lane of their
  // subject, where the last op of a statement wins as it did in the batch.
  struct Op {
    Statement* statement;
    bool add;
  };
  std::array<std::vector<Op>, kLanes> ops;
  for (size_t i = 0; i < taken.size(); ++i) {
    Parsed& p = parsed[i];
    if (!p.status.ok()) {
      ++m.invalid_triple_records;
      ctx.DeadLetter(*taken[i], layout_.names.dead_letters, "invalid statements: " + p.status.message());
      continue;
    }
    for (auto& s : p.statements) ops[LaneOf(s)].push_back({&s, p.add});
  }
  const size_t statements = ops[0].size() + ops[1].size();
  if (statements == 0) return Status::Ok();

  std::array<GraphUpdate, kLanes> updates{GraphUpdate({}, indexes_), GraphUpdate({}, indexes_)};
  std::array<Result<ApplyResult>, kLanes> applied{ApplyResult{}, ApplyResult{}};
  in_lanes(statements >= kMinStatementsInLanes, [&](size_t lane) {
    GraphUpdate& u = updates[lane];
    for (const Op& op : ops[lane]) {  // each checked by Parse
      if (op.add) {
        u.AddValid(std::move(*op.statement));
      } else {
        u.RemoveValid(std::move(*op.statement));
      }
    }
    applied[lane] = u.Collect(ctx.store(), &rows_[lane], &last_[lane], &last_[lane]);
  });
  for (size_t lane = 0; lane < kLanes; ++lane) {
    if (applied[lane].ok()) continue;
    for (auto& rows : rows_) rows.Clear();  // none of the batch's rows stays for the next one
    for (auto& last : last_) last.Clear();  // the stage stops: nothing of this batch is written
    return applied[lane].status();
  }
  IndexNotes notes;
  for (size_t lane = 0; lane < kLanes; ++lane) {
    m.statements_added += applied[lane]->added.size();
    m.statements_removed += applied[lane]->removed.size();
    if (const IndexNotes& n = applied[lane]->notes; n.unparsed_dates > 0) {
      notes.unparsed_dates += n.unparsed_dates;
      notes.last_unparsed = n.last_unparsed;
    }
  }
  NoteUnparsedDates(notes, m);
  // The lanes' rows are disjoint (every row names its statement's subject) but for the word
  // list's, which both may put alike (never deleted); each run sorted.
  for (size_t lane = 0; lane < kLanes; ++lane) rows_[lane].AddTo(updates[lane].space().family, ctx.batch());
  return Status::Ok();
}

}  // namespace webindex::graph
