// The web UI's files (src/http/ui/), compiled into the binary by embed_ui.cmake: GET / is
// index.html, GET /ui/<name> the others. Immutable static data; any thread.
#pragma once

#include <optional>
#include <string_view>

namespace webindex::http {

struct Asset {
  std::string_view body;
  std::string_view content_type;   //!< "text/html; charset=utf-8", ...
  std::string_view cache_control;  //!< index.html revalidates; the files it names carry a content hash
};

//! The file served at `path` ("/", "/ui/app.js", ...), or nullopt.
std::optional<Asset> FindUiAsset(std::string_view path);

}  // namespace webindex::http
