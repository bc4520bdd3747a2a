#include "model/url.h"

#include <fmt/format.h>
#include <libpsl.h>
#include <uriparser/Uri.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

namespace webindex::model {
namespace {

constexpr std::string_view kHttp = "http://";
constexpr std::string_view kHttps = "https://";
constexpr size_t kMaxHostLength = 253;
constexpr size_t kMaxLabelLength = 63;

bool IsControl(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

//! The reason, with `raw` quoted and its control characters written as \xNN, so that a reason
//! stays one line of text.
Status Invalid(std::string_view reason, std::string_view raw) {
  std::string msg(reason);
  msg += " in URL '";
  for (char c : raw) {
    if (IsControl(c)) {
      msg += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      msg += c;
    }
  }
  msg += '\'';
  return Status::InvalidArgument(msg);
}

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

//! Drops spaces, tabs, CRs and LFs at both ends; unlike Java's String.trim (URL.from), not the
//! other control characters: they make a URL invalid.
std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsWhitespace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsWhitespace(s.back())) s.remove_suffix(1);
  return s;
}

char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (AsciiLower(s[i]) != prefix[i]) return false;
  }
  return true;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t pos; (pos = s.find(sep, start)) != std::string_view::npos; start = pos + 1) {
    parts.push_back(s.substr(start, pos - start));
  }
  parts.push_back(s.substr(start));
  return parts;
}

//! 1..5 decimal digits, value <= 65535.
std::optional<int> ParsePort(std::string_view s) {
  if (s.empty() || s.size() > 5) return std::nullopt;
  int port = 0;
  for (char c : s) {
    if (!IsDigit(c)) return std::nullopt;
    port = port * 10 + (c - '0');
  }
  if (port > 65535) return std::nullopt;
  return port;
}

//! Four dotted decimal parts 0-255 without leading zeros.
bool IsIpv4(std::string_view host) {
  const auto parts = Split(host, '.');
  if (parts.size() != 4) return false;
  for (std::string_view p : parts) {
    if (p.empty() || p.size() > 3 || (p.size() > 1 && p[0] == '0')) return false;
    int v = 0;
    for (char c : p) {
      if (!IsDigit(c)) return false;
      v = v * 10 + (c - '0');
    }
    if (v > 255) return false;
  }
  return true;
}

bool IsDnsLabelChar(char c) { return (c >= 'a' && c <= 'z') || IsDigit(c) || c == '-' || c == '_'; }

//! A lowercased DNS name; no trailing dot, the last label may not start with a digit.
bool IsDnsName(std::string_view host) {
  if (host.empty() || host.size() > kMaxHostLength) return false;
  const auto labels = Split(host, '.');
  for (std::string_view label : labels) {
    if (label.empty() || label.size() > kMaxLabelLength) return false;
    if (label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      if (!IsDnsLabelChar(c)) return false;
    }
  }
  return !IsDigit(labels.back().front());
}

const psl_ctx_t* Psl() {
  // Never freed: shared by all threads until exit. Function-local static init is thread-safe.
  static const psl_ctx_t* const psl = [] {
    const psl_ctx_t* p = psl_latest(nullptr);
    return p != nullptr ? p : psl_builtin();
  }();
  return psl;
}

//! The registrable domain of `host` (private suffixes included), or nullopt when `host` is not strictly under a
//! listed public suffix (the implicit "*" rule does not count).
std::optional<std::string> LookUpRegistrableDomain(const std::string& host) {
  const psl_ctx_t* psl = Psl();
  if (psl == nullptr) return std::nullopt;
  const char* reg = psl_registrable_domain(psl, host.c_str());
  if (reg == nullptr) return std::nullopt;
  const std::string domain(reg);
  const size_t dot = domain.find('.');
  if (dot == std::string::npos) return std::nullopt;
  const std::string suffix = domain.substr(dot + 1);
  if (!psl_is_public_suffix2(psl, suffix.c_str(), PSL_TYPE_ANY | PSL_TYPE_NO_STAR_RULE)) return std::nullopt;
  const bool under = host == domain || (host.size() > domain.size() && host.ends_with(domain) &&
                                        host[host.size() - domain.size() - 1] == '.');
  if (!under) return std::nullopt;
  return domain;
}

//! LookUpRegistrableDomain with a per-thread memo: crawls repeat hosts, and the suffix lookup
//! dominates URL parsing. Bounded: cleared when it reaches kMaxHosts entries.
std::optional<std::string> RegistrableDomain(const std::string& host) {
  constexpr size_t kMaxHosts = 1 << 16;
  thread_local std::unordered_map<std::string, std::optional<std::string>> memo;
  if (auto it = memo.find(host); it != memo.end()) return it->second;
  if (memo.size() >= kMaxHosts) memo.clear();
  auto domain = LookUpRegistrableDomain(host);
  memo.emplace(host, domain);
  return domain;
}

//! "a.b.c.com" -> "com.c.b.a".
std::string ReverseHost(std::string_view host) {
  const auto labels = Split(host, '.');
  std::string out;
  out.reserve(host.size());
  for (auto it = labels.rbegin(); it != labels.rend(); ++it) {
    if (!out.empty()) out.push_back('.');
    out.append(*it);
  }
  return out;
}

//! Fills host, port, domain and ip_host from the "host[:port]" part of `raw`.
Status ParseHostPort(std::string_view host_port, std::string_view raw, Url* url) {
  std::string lowered(host_port);
  for (char& c : lowered) c = AsciiLower(c);
  const size_t colon = lowered.find(':');
  url->host = lowered.substr(0, colon);
  if (colon != std::string::npos) {
    const std::string port_text = lowered.substr(colon + 1);
    const auto port = ParsePort(port_text);
    if (!port) return Invalid("invalid port '" + port_text + "'", raw);
    url->port = *port;
  }
  if (url->host.empty()) return Invalid("empty host", raw);
  if (IsIpv4(url->host)) {
    url->ip_host = true;
    url->domain = url->host;
    return Status::Ok();
  }
  if (!IsDnsName(url->host)) return Invalid("invalid host '" + url->host + "'", raw);
  auto domain = RegistrableDomain(url->host);
  if (!domain) return Invalid("invalid host '" + url->host + "'", raw);
  url->domain = std::move(*domain);
  return Status::Ok();
}

//! RFC 3986 scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":".
bool HasScheme(std::string_view s) {
  if (s.empty() || !IsAlpha(s[0])) return false;
  for (size_t i = 1; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ':') return true;
    if (!IsAlpha(c) && !IsDigit(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return false;
}

//! Owns a UriUriA filled by uriparser and frees its members.
class ParsedUri {
 public:
  ParsedUri() = default;
  ParsedUri(const ParsedUri&) = delete;
  ParsedUri& operator=(const ParsedUri&) = delete;
  ~ParsedUri() {
    if (filled_) uriFreeUriMembersA(&uri_);
  }
  UriUriA* get() { return &uri_; }
  //! Call once uriparser has written to get(); it frees the members even on failure.
  void MarkFilled() { filled_ = true; }

 private:
  UriUriA uri_{};
  bool filled_ = false;
};

bool ParseUri(std::string_view text, ParsedUri* out) {
  const char* error_pos = nullptr;
  const int rc = uriParseSingleUriExA(out->get(), text.data(), text.data() + text.size(), &error_pos);
  out->MarkFilled();
  return rc == URI_SUCCESS;
}

//! RFC 3986 §5 resolution of `ref` against the absolute `base`; nullopt when either cannot be parsed.
std::optional<std::string> Resolve(const std::string& base, std::string_view ref) {
  ParsedUri base_uri, ref_uri, resolved;
  if (!ParseUri(base, &base_uri) || !ParseUri(ref, &ref_uri)) return std::nullopt;
  const int rc = uriAddBaseUriA(resolved.get(), ref_uri.get(), base_uri.get());
  resolved.MarkFilled();
  if (rc != URI_SUCCESS) return std::nullopt;
  int chars = 0;
  if (uriToStringCharsRequiredA(resolved.get(), &chars) != URI_SUCCESS) return std::nullopt;
  std::string out(static_cast<size_t>(chars) + 1, '\0');
  int written = 0;
  if (uriToStringA(out.data(), resolved.get(), chars + 1, &written) != URI_SUCCESS) return std::nullopt;
  out.resize(static_cast<size_t>(written > 0 ? written - 1 : 0));  // `written` counts the terminator
  return out;
}

}  // namespace

std::string Url::ToString() const {
  std::string out(secure ? kHttps : kHttp);
  out += host;
  if (port != (secure ? 443 : 80)) out += ":" + std::to_string(port);
  out += path;
  return out;
}

std::string Url::ReverseDomain() const { return ip_host ? domain : ReverseHost(domain); }

std::string Url::ToUri() const {
  const std::string rev_domain = ReverseDomain();
  const std::string rev_host = ip_host ? host : ReverseHost(host);
  std::string out = rev_domain;
  out += '>';
  out += rev_host.substr(rev_domain.size());
  out += '>';
  out += secure ? 's' : 'o';
  if (port != (secure ? 443 : 80)) out += std::to_string(port);
  out += '>';
  out += path;
  return out;
}

Result<Url> ParseUrl(std::string_view raw) {
  if (raw.find('>') != std::string_view::npos) return Invalid("'>' not allowed", raw);
  const std::string_view url_text = Trim(raw);
  if (const auto c = std::find_if(url_text.begin(), url_text.end(), IsControl); c != url_text.end()) {
    return Invalid(fmt::format("control character U+{:04X}", static_cast<unsigned char>(*c)), raw);
  }
  if (url_text.size() < 8) return Invalid("fewer than 8 characters", raw);
  Url url;
  size_t host_start;
  if (StartsWithIgnoreCase(url_text, kHttp)) {
    host_start = kHttp.size();
  } else if (StartsWithIgnoreCase(url_text, kHttps)) {
    host_start = kHttps.size();
    url.secure = true;
    url.port = 443;
  } else {
    return Invalid("scheme not http:// or https://", raw);
  }
  const size_t path_start = std::min(url_text.find_first_of("/?#", host_start), url_text.size());
  url.path = path_start < url_text.size() ? std::string(url_text.substr(path_start)) : "/";
  RETURN_IF_ERROR(ParseHostPort(url_text.substr(host_start, path_start - host_start), raw, &url));
  return url;
}

Result<Url> ResolveLink(const Url& base, std::string_view link) {
  const std::string_view ref = Trim(link);
  if (ref.empty()) return Status::InvalidArgument("empty link on '" + base.ToString() + "'");
  if (HasScheme(ref)) return ParseUrl(link);  // absolute: ParseUrl trims the same way
  const std::string base_text = base.ToString();
  const auto resolved = Resolve(base_text, ref);
  if (!resolved) {
    return Status::InvalidArgument("cannot resolve link '" + std::string(link) + "' against '" + base_text + "'");
  }
  return ParseUrl(*resolved);
}

std::string_view DomainOfUri(std::string_view uri) { return uri.substr(0, uri.find('>')); }

std::string HostName(std::string_view reversed) {
  return IsIpv4(reversed) ? std::string(reversed) : ReverseHost(reversed);
}

}  // namespace webindex::model

namespace webindex::model {

Result<Url> UrlFromUri(std::string_view uri) {
  const auto parts = Split(uri, '>');
  if (parts.size() < 4 || parts[2].empty() || (parts[2][0] != 's' && parts[2][0] != 'o')) {
    return Status::InvalidArgument("not a webindex URI: '" + std::string(uri) + "'");
  }
  Url url;
  url.secure = parts[2][0] == 's';
  url.port = url.secure ? 443 : 80;
  if (parts[2].size() > 1) {
    auto port = ParsePort(parts[2].substr(1));
    if (!port) return Status::InvalidArgument("bad port in URI '" + std::string(uri) + "'");
    url.port = *port;
  }
  const std::string reversed = std::string(parts[0]) + std::string(parts[1]);
  url.ip_host = IsIpv4(reversed);
  url.host = url.ip_host ? reversed : ReverseHost(reversed);
  url.domain = url.ip_host ? std::string(parts[0]) : ReverseHost(parts[0]);
  // The path is everything after the third '>' (paths never hold '>', but stay exact anyway).
  size_t pos = 0;
  for (int i = 0; i < 3; ++i) pos = uri.find('>', pos) + 1;
  url.path = std::string(uri.substr(pos));
  return url;
}

}  // namespace webindex::model
