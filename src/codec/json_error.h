// Why a text is not JSON, in the terms of the person who wrote it: what is wrong and the column
// where it goes wrong, instead of the parser's own words ("Problem while parsing an atom
// starting with the letter 'n'"). Stateless; any thread.
#pragma once

#include <string_view>

#include "common/status.h"

namespace webindex::codec {

//! InvalidArgument "not JSON at column C: what" (C 1-based, in bytes) for a text that does not
//! parse, or "not JSON: what" where no column applies; Ok for a text that parses.
Status NotJson(std::string_view json);

}  // namespace webindex::codec
