// /api/pagerank's answer (docs/api.md): one page of the current PageRank result. On a whole
// table it is read from the table's store. On a partitioned table one member computes the
// PageRank of the whole table, the member serving table shard 0 (docs/scale-out.md §6.1): it
// answers from its results, and every other member forwards the question to it through
// /internal/pagerank, which only ever answers from the member's own results, so a question is
// forwarded once at most. Stateless functions; any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "state/store.h"

namespace webindex::http {

inline constexpr std::string_view kInternalPageRank = "/internal/pagerank";

//! Where a partitioned table's PageRank is answered, as one member sees it now.
struct PageRankHome {
  state::Store* results = nullptr;  //!< this member's results, while it computes them
  std::string forward_to;           //!< else the API address of the member that does ("": none)
};
using PageRankLocator = std::function<PageRankHome()>;

//! One page of the current result in `store` (limit, next: /api/pagerank's parameters).
//! NotFound before the first result, Aborted for a cursor of a replaced result.
Result<std::string> PageRankJson(state::Store& store, size_t limit, const std::string& next);

//! /api/pagerank (`internal`: /internal/pagerank) on a partitioned table: from `home.results`,
//! else (not `internal`) the answer of the member at `home.forward_to` to `query` (the request's
//! query string), asked within `timeout`; its 400, 404 and 409 come back as they are, anything
//! else (no answer, a 5xx) as Unavailable. Unavailable, in the user's words, when no member
//! computes it now.
Result<std::string> PartitionedPageRankJson(const PageRankHome& home, bool internal, size_t limit,
                                            const std::string& next, std::string_view query,
                                            std::chrono::milliseconds timeout);

}  // namespace webindex::http
