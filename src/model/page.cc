#include "model/page.h"

#include <string_view>
#include <unordered_set>

namespace webindex::model {

void DedupLinks(std::vector<Link>* links) {
  std::vector<Link> out;
  out.reserve(links->size());  // no reallocation: the views below stay valid
  std::unordered_set<std::string_view> seen;
  for (auto& l : *links) {
    if (seen.count(l.uri)) continue;
    out.push_back(std::move(l));
    seen.insert(out.back().uri);
  }
  *links = std::move(out);
}

}  // namespace webindex::model
