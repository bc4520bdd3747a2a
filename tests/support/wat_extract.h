// A minimal Common Crawl WAT reader for tests: turns the response records of an uncompressed
// WAT file (WARC records whose JSON payload describes the original record) into crawl events.
#pragma once

#include <string>
#include <vector>

namespace webindex::testing {

//! Reads the uncompressed WARC file at `path` and returns one crawl-event JSON string per
//! response page, in file order: url (WARC-Target-URI), crawlDate (WARC-Date), title and server
//! when present, and the page's `A@/href` links (anchor text from "text", else "title").
//! With `external_links_only`, only links to another registrable domain than the page's are
//! kept (links that do not resolve are kept as they are; the pipeline drops them).
//! Records that are not JSON, not responses, or whose URL does not parse are skipped.
//! Throws std::runtime_error when the file cannot be read.
std::vector<std::string> ExtractWatEvents(const std::string& path, bool external_links_only = true);

}  // namespace webindex::testing
