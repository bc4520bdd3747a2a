// Where the tests find the webindex binary and tests/data. Defined in test_paths.cc alone, the
// one file compiled with the build's absolute paths, so that the others compile the same in any
// checkout (the suite's builds go through ccache: tests/run.sh).
#pragma once

#include <string>

namespace webindex::testing {

//! The webindex executable of this build.
const std::string& WebindexBinary();
//! tests/data of the source tree.
const std::string& TestDataDir();

}  // namespace webindex::testing

#define WEBINDEX_BINARY (::webindex::testing::WebindexBinary())
#define WEBINDEX_TEST_DATA (::webindex::testing::TestDataDir())
