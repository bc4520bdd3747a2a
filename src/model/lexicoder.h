// Accumulo's ReverseLexicoder(ULongLexicoder) as lowercase hex: larger counts sort first.
#pragma once

#include <cstdint>
#include <string>

namespace webindex::model {

//! rev(0) = "fefeff", rev(1) = "fefdfefdff", rev(256) = "fdfefdfefeff".
std::string ReverseCountHex(uint64_t n);

}  // namespace webindex::model
