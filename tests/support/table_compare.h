// Compares the answers of two query services over the same table, question by question: top
// pages, every domain's pages, every page and its in- and outlinks, each walked through its
// cursors with random page sizes (the same on both sides), suggestions for the starts of domain
// and host names, and the totals.
#pragma once

#include <random>
#include <string>

#include "query/query_service.h"
#include "state/store.h"

namespace webindex::testing {

//! Every answer of `other` equals `whole`'s (gtest failures naming the question otherwise);
//! `table` is the whole table's store, which says which domains and pages to ask about.
//! Returns the number of answers that differed.
size_t ExpectSameAnswers(state::Store& table, query::QueryService& whole, query::QueryService& other,
                         std::mt19937_64& rng);

//! One page's answer as text (its error, or every field), for comparisons.
std::string PageText(const Result<query::PageResult>& page);

}  // namespace webindex::testing
