#include "graph/index_set.h"

#include "graph/temporal_index.h"
#include "graph/text_index.h"

namespace webindex::graph {

void AppendIndexRows(const IndexSet& indexes, const KeySpace& space, const Statement& statement, bool add,
                     std::vector<IndexRow>* rows, IndexNotes* notes) {
  AppendTemporalRows(indexes, space, statement, add, rows, notes);
  AppendTextRows(indexes, space, statement, add, rows);
}

}  // namespace webindex::graph
