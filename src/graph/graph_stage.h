// Graph stage: applies the RDF statements of topic `triples` (N-Triples or N-Quads text, header
// `op` add or remove) to the graph store's four-row indexes, with set semantics. The rows are
// written in the batch's commit with its input positions, so the graph always equals the
// statements applied so far. A record with any bad line is dead-lettered whole. Runs on its
// StageRunner's thread, and works on a large batch in two lanes, the second on a thread of its
// own: records parsed in halves, statements applied by subject. The runner writes a batch's
// commit while the stage works on the next one (OverlapsCommits).
#pragma once

#include <array>
#include <vector>

#include "graph/graph_update.h"
#include "graph/ntriples.h"
#include "pipeline/stage.h"
#include "state/sorted_writes.h"

namespace webindex::graph {

//! The graph that holds the web graph as statements (docs/graph.md); producers may not write it.
inline constexpr char kWebGraph[] = "urn:webindex:web";

//! Counts (and warns about) the dateTime objects the temporal index could not read.
void NoteUnparsedDates(const IndexNotes& notes, pipeline::Metrics& metrics);

class GraphStage final : public pipeline::Stage {
 public:
  //! One record's statements, or why the record is refused.
  struct Parsed {
    Status status;
    bool add = true;
    std::vector<Statement> statements;
  };
  //! Parses and checks one record with `parser` as the stage does (header `op`, N-Quads, no
  //! statement in the web graph): a replay's bulk phase reads records alike (app/bulk_graph.h).
  static Status Parse(const InRecord& record, StatementParser& parser, Parsed* out);

  //! Records whose Kafka timestamp is before `from_ms` (when >= 0) are outside this generation
  //! (a replay --from a time) and skipped, as the page stage skips events.
  //! `indexes`: the derived indexes kept with the statements.
  explicit GraphStage(pipeline::TopicLayout layout, int64_t from_ms = -1, IndexSet indexes = {})
      : layout_(std::move(layout)),
        from_ms_(from_ms),
        indexes_(std::move(indexes)),
        parsers_{StatementParser(Syntax::kNQuads), StatementParser(Syntax::kNQuads)} {}
  std::string_view name() const override { return "graph"; }
  const std::string& input_topic() const override { return layout_.names.triples; }
  Status Process(const std::vector<InRecord>& records, pipeline::BatchContext& ctx) override;
  //! 1 MiB of statements (~10,000) per commit: 200,000 statements went 20% faster in commits of
  //! that size than in one or two (docs/performance-history.md, "Graph batches by size"). A batch's rows
  //! are built, sorted and written at once, and nothing combines across statements.
  size_t MaxBatchBytes() const override { return 1 << 20; }
  //! A batch's statements are read from the last batch's (each lane's own) before the store, so
  //! that a batch is processed while the last one is being written.
  bool OverlapsCommits() const override { return true; }

 private:
  //! A batch is worked on by kLanes threads: records parsed in contiguous shares, statements
  //! applied by subject (LaneOf), so that the rows of one lane never meet another's, but for the
  //! free-text word list's, which both may put (equal puts of an empty value, never deleted).
  static constexpr size_t kLanes = 2;
  pipeline::TopicLayout layout_;
  int64_t from_ms_;
  IndexSet indexes_;
  std::array<StatementParser, kLanes> parsers_;  //!< one per lane
  std::array<state::SortedWrites, kLanes> rows_;  //!< one per lane, reused
  //! Per lane, the statements of the last batch that had any in it, with whether each is present
  //! after it: that batch may still be being written when the next one reads.
  std::array<BatchStatements, kLanes> last_;
};

}  // namespace webindex::graph
