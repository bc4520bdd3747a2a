// The JSON form of query results, shared by the HTTP API and `webindex query`. Stateless.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "query/query_service.h"

namespace webindex::query {

//! {"results":[{"url","uri","count"}...],"next":cursor|null}
std::string ToJson(const TopResult& r);
//! {"domain","total","results":[...],"next"}
std::string ToJson(const PagesResult& r);
//! {"url","uri","domain","incount","numOutbound","crawled","crawlDate","title","server"}
std::string ToJson(const PageResult& r);
//! {"url","uri","linkType","total","results":[{"url","uri","anchorText"}...],"next"}
std::string ToJson(const LinksResult& r);
//! {"q","results":[{"name","kind":"domain"|"host","domain","pages" (domains)}...],"truncated"}
std::string ToJson(const SuggestResult& r);
//! {"pages","crawled","linkedTo","links","domains"}
std::string ToJson(const sink::TableTotals& t);
//! {"error": message}; `message` may hold invalid UTF-8 (it is repaired).
std::string ErrorJson(std::string_view message);

//! Replaces each invalid UTF-8 sequence with U+FFFD.
std::string ValidUtf8(std::string_view s);
bool IsValidUtf8(std::string_view s);

}  // namespace webindex::query
