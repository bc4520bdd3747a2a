#include "test_paths.h"

namespace webindex::testing {

const std::string& WebindexBinary() {
  static const std::string path = WEBINDEX_BINARY_PATH;
  return path;
}

const std::string& TestDataDir() {
  static const std::string path = WEBINDEX_TEST_DATA_DIR;
  return path;
}

}  // namespace webindex::testing
