#include "cli/pagerank_command.h"

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "cli/exit_codes.h"
#include "common/log.h"
#include "common/progress.h"
#include "rank/pagerank.h"
#include "rank/revision_graph.h"
#include "rank/table_graph.h"

namespace webindex::cli {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

//! Reads every revision of `files` into `graph`; stops at the first malformed record.
Status ReadRevisions(const std::vector<std::string>& files, rank::RevisionGraph* graph) {
  Progress::Options progress_options;
  progress_options.unit = "revisions";
  progress_options.total_bytes = TotalFileBytes(files);
  Progress progress(progress_options);
  uint64_t bytes_before = 0;
  ingest::Revision rev;
  for (const auto& file : files) {
    ASSIGN_OR_RETURN(auto reader, ingest::WikipediaReader::Open(file));
    for (;;) {
      auto more = reader->Next(&rev);
      if (!more.ok()) {
        progress.Finish();
        return more.status();
      }
      if (!*more) break;
      graph->Add(rev);
      progress.Update(graph->revisions(), bytes_before + reader->file_bytes());
    }
    bytes_before += reader->file_bytes();
  }
  progress.Finish();
  return Status::Ok();
}

//! PageRank of the live graph in the data dir's table, from one snapshot.
Status RunOnTable(const Settings& settings, const PageRankCommandOptions& options, bool* no_table) {
  ASSIGN_OR_RETURN(auto store, OpenQueryTable(settings, no_table));
  rank::TableGraphStats stats;
  ASSIGN_OR_RETURN(const rank::LinkGraph graph, rank::ReadTableGraph(*store, nullptr, &stats));
  const auto ranked = std::chrono::steady_clock::now();
  const std::vector<double> scores = rank::ComputePageRank(graph, {options.iterations, options.threads});
  LOG_INFO("{} nodes, {} links from {} table cells; read in {:.1f} s, {} iterations in {:.2f} s", graph.nodes(),
           graph.edges(), stats.cells, stats.seconds, options.iterations, SecondsSince(ranked));
  return rank::WriteRanking(stdout, graph, scores, rank::RankOrder(graph, scores, options.limit));
}

//! The command line's combinations, checked before any file is read (a usage error).
Status CheckArguments(const PageRankCommandOptions& options) {
  if (options.iterations < 0) return Status::InvalidArgument("--iterations must be 0 or more");
  if (!options.data_dir.empty()) {
    if (!options.files.empty()) return Status::InvalidArgument("give either --data-dir or revision files, not both");
    if (!options.format.empty() || !options.until.empty()) {
      return Status::InvalidArgument("--format and --until apply to revision files, not to --data-dir");
    }
    return Status::Ok();
  }
  if (options.files.empty()) {
    return Status::InvalidArgument(
        "give the Wikipedia revision files to read, or --data-dir DIR for the live graph of a data dir's table");
  }
  if (!options.until.empty() && !ParseRfc3339(options.until)) {
    return Status::InvalidArgument("--until '" + options.until + "' is not an RFC 3339 time, e.g. 2008-01-01T00:00:00Z");
  }
  return Status::Ok();
}

Status Run(const Settings& settings, const PageRankCommandOptions& options, bool* no_table) {
  if (!options.data_dir.empty()) return RunOnTable(settings, options, no_table);
  std::optional<Instant> until;
  if (!options.until.empty()) until = ParseRfc3339(options.until);
  const auto start = std::chrono::steady_clock::now();
  rank::RevisionGraph revisions(until);
  RETURN_IF_ERROR(ReadRevisions(options.files, &revisions));
  const double read_s = SecondsSince(start);
  const rank::LinkGraph graph = revisions.Build();
  const auto ranked = std::chrono::steady_clock::now();
  const std::vector<double> scores = rank::ComputePageRank(graph, {options.iterations, options.threads});
  const double rank_s = SecondsSince(ranked);
  std::string counts = fmt::format("{} revisions read", revisions.revisions());
  if (until) counts += fmt::format(", {} after --until left out", revisions.after_until());
  LOG_INFO("{}, {} superseded by a later revision; {} nodes, {} links; read in {:.1f} s, {} iterations in {:.2f} s",
           counts, revisions.superseded(), graph.nodes(), graph.edges(), read_s, options.iterations, rank_s);
  return rank::WriteRanking(stdout, graph, scores, rank::RankOrder(graph, scores, options.limit));
}

}  // namespace

int RunPageRank(const Settings& settings, const PageRankCommandOptions& options) {
  if (Status st = CheckArguments(options); !st.ok()) {
    LOG_ERROR("{}", st.message());
    return kExitUsage;
  }
  bool no_table = false;
  if (Status st = Run(settings, options, &no_table); !st.ok()) {
    LOG_ERROR("{}", no_table ? st.message() : st.ToString());
    return no_table ? kExitNotFound : kExitFailure;
  }
  return kExitOk;
}

}  // namespace webindex::cli
