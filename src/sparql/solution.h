// Solutions (§18.1.8): the variables of a query numbered once (VarTable), a solution a row of
// optional terms by those numbers. Plain values; no thread affinity.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/term.h"

namespace webindex::sparql {

//! Every variable a query mentions (its subqueries, EXISTS patterns and the aggregates'
//! `.0`, `.1` ... included), each with one slot.
class VarTable {
 public:
  //! The slot of `name`, added when new.
  int Add(std::string_view name);
  //! The slot of `name`, -1 when the query never mentions it.
  int Find(std::string_view name) const;
  const std::string& Name(int slot) const { return names_[slot]; }
  int size() const { return static_cast<int>(names_.size()); }

 private:
  std::unordered_map<std::string, int> slots_;
  std::vector<std::string> names_;
};

inline int VarTable::Add(std::string_view name) {
  auto [it, added] = slots_.try_emplace(std::string(name), static_cast<int>(names_.size()));
  if (added) names_.emplace_back(name);
  return it->second;
}

inline int VarTable::Find(std::string_view name) const {
  auto it = slots_.find(std::string(name));
  return it == slots_.end() ? -1 : it->second;
}

//! One solution: slot -> term, nullopt where unbound. Sized to the VarTable (or shorter: slots
//! past the end are unbound).
using Solution = std::vector<std::optional<graph::Term>>;

}  // namespace webindex::sparql
