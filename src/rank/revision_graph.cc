#include "rank/revision_graph.h"

namespace webindex::rank {

void RevisionGraph::Add(const ingest::Revision& rev) {
  ++revisions_;
  if (until_ && rev.timestamp > *until_) {
    ++after_until_;
    return;
  }
  const uint32_t node = builder_.Intern(rev.title);
  if (node >= latest_.size()) latest_.resize(node + 1, 0);
  if (builder_.IsPage(node)) {
    ++superseded_;  // this one, or the title's revision counted so far
    if (rev.rev_id < latest_[node]) return;
  }
  targets_.clear();
  builder_.InternAll(rev.links, &targets_);
  builder_.SetOutlinks(node, targets_);
  latest_[node] = rev.rev_id;
}

}  // namespace webindex::rank
