// The web graph as statements (docs/graph.md, "The web graph"): graph <urn:webindex:web> kept
// equal to the current pages by the sink, from the page changes it applies, in the sink's own
// commit. Per current page P (named by its canonical URL): P linksTo T for each outlink target,
// P title / server / crawled when present; and T anchorText "text" while at least one current
// page links to T with that non-empty text (counted per (T, text) beside the statements).
// One per sink; used on its thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph_update.h"
#include "model/page.h"

namespace webindex::graph {

//! The predicates of the web graph.
inline constexpr char kLinksTo[] = "urn:webindex:linksTo";
inline constexpr char kTitle[] = "urn:webindex:title";
inline constexpr char kServer[] = "urn:webindex:server";
inline constexpr char kCrawled[] = "urn:webindex:crawled";
inline constexpr char kAnchorText[] = "urn:webindex:anchorText";

//! The statements one current page makes (anchor texts aside); those whose URL or text cannot
//! be an RDF term (an IRI with a space, say) are left out and counted in `*skipped`.
std::vector<Statement> PageStatements(const model::Page& page, uint64_t* skipped);

class WebProjection {
 public:
  explicit WebProjection(KeySpace space = {}, IndexSet indexes = {}) : space_(space), update_(space, std::move(indexes)) {}

  //! Records one page's change from `before` to `after` (nullopt: no current page).
  void Change(const std::optional<model::Page>& before, const std::optional<model::Page>& after);

  //! Adds to `batch` the rows of the statements that change and the new anchor-text counts,
  //! reading the committed ones from `store`. Clears the recorded changes.
  Result<ApplyResult> Apply(state::Store& store, state::WriteBatch& batch);

  //! Statements left out so far because a URL or a text cannot be an RDF term.
  uint64_t skipped() const { return skipped_; }

 private:
  std::string CountKey(const std::string& target, const std::string& text) const;
  KeySpace space_;
  GraphUpdate update_;
  std::map<std::pair<std::string, std::string>, int64_t> anchor_deltas_;  //!< (target URL, text) -> change
  uint64_t skipped_ = 0;
};

}  // namespace webindex::graph
