// Topic definitions (topics/), the default configuration (config/) and the demo's sample
// crawl (tests/data/5-pages.txt), compiled into the binary so that it runs from any directory.
#pragma once

#include <string_view>
#include <vector>

namespace webindex::cli {

struct EmbeddedFile {
  std::string_view path;  //!< relative to the source tree, e.g. "topics/pages.toml"
  std::string_view text;
};

const std::vector<EmbeddedFile>& EmbeddedFiles();

}  // namespace webindex::cli
