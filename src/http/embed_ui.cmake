# Writes OUT: a C++ file defining FindUiAsset (ui_assets.h) over the files in FILES, as bytes.
# index.html is served at "/", every other file at "/ui/<name>"; "@UI_VERSION@" in index.html
# becomes a hash of the other files, so browsers may cache them and still see a new build.
set(version_input "")
foreach(f IN LISTS FILES)
  get_filename_component(name "${f}" NAME)
  if(NOT name STREQUAL "index.html")
    file(SHA256 "${f}" file_hash)
    string(APPEND version_input "${name}:${file_hash};")
  endif()
endforeach()
string(SHA256 version "${version_input}")
string(SUBSTRING "${version}" 0 12 version)

set(arrays "")
set(entries "")
set(i 0)
foreach(f IN LISTS FILES)
  get_filename_component(name "${f}" NAME)
  get_filename_component(ext "${f}" LAST_EXT)
  if(name STREQUAL "index.html")
    file(READ "${f}" text)
    string(REPLACE "@UI_VERSION@" "${version}" text "${text}")
    file(WRITE "${OUT}.index.tmp" "${text}")
    file(READ "${OUT}.index.tmp" hex HEX)
    file(REMOVE "${OUT}.index.tmp")
    set(path "/")
    set(cache "no-cache")
  else()
    file(READ "${f}" hex HEX)
    set(path "/ui/${name}")
    set(cache "public, max-age=31536000, immutable")
  endif()
  if(ext STREQUAL ".html")
    set(type "text/html; charset=utf-8")
  elseif(ext STREQUAL ".js")
    set(type "application/javascript; charset=utf-8")
  elseif(ext STREQUAL ".css")
    set(type "text/css; charset=utf-8")
  else()
    message(FATAL_ERROR "embed_ui.cmake: no content type for ${f}")
  endif()
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
  string(APPEND arrays "// ${name}\nconstexpr char kFile${i}[] = {${bytes}'\\0'};\n")
  string(APPEND entries "      {\"${path}\", {std::string_view(kFile${i}, ${size}), \"${type}\", \"${cache}\"}},\n")
  math(EXPR i "${i} + 1")
endforeach()

set(content "// Generated from src/http/ui/ by src/http/embed_ui.cmake at build time.
#include <array>
#include <utility>

#include \"http/ui_assets.h\"

namespace webindex::http {
namespace {

${arrays}
}  // namespace

std::optional<Asset> FindUiAsset(std::string_view path) {
  static constexpr std::array<std::pair<std::string_view, Asset>, ${i}> kAssets = {{
${entries}  }};
  for (const auto& [p, asset] : kAssets) {
    if (p == path) return asset;
  }
  return std::nullopt;
}

}  // namespace webindex::http
")
file(WRITE "${OUT}.tmp" "${content}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
