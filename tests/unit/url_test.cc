#include "model/url.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace webindex::model {
namespace {

Url MustParse(std::string_view raw) {
  auto r = ParseUrl(raw);
  EXPECT_TRUE(r.ok()) << raw << ": " << r.status().message();
  return r.ok() ? r.value() : Url{};
}

std::string ResolveToString(std::string_view base, std::string_view link) {
  auto r = ResolveLink(MustParse(base), link);
  return r.ok() ? r->ToString() : "ERROR: " + r.status().message();
}

TEST(UrlTest, ValidUrlsRoundTrip) {
  for (const char* raw : {"http://ab.com/", "https://ab.com/1/2/3", "https://ab.com:8080?1/2/3", "http://ab.com#1/2/3",
                          "https://ab.com/", "https://h.d.ab.com/1/2/3"}) {
    EXPECT_EQ(MustParse(raw).ToString(), raw);
  }
}

TEST(UrlTest, InvalidUrls) {
  const std::vector<std::string> invalid = {"ab.com",
                                            "ab.com/1/2/3",
                                            "htttp://ab.com/",
                                            "httpss://ab.com/",
                                            "http:/ab.com/",
                                            "http::/ab.com/",
                                            "http:///ab.com/",
                                            "hhttp://ab.com/",
                                            "http://a.com:/test/",
                                            "http://a.com:",
                                            "http://1.2.3:80/test?a=b&c=d",
                                            "http://1.2.3/",
                                            "http://com/",
                                            "http://a.b.c.com/bad>et",
                                            "http://test",
                                            "http://co.uk",
                                            "http:://example.com/",
                                            "example.com",
                                            "127.0.0.1",
                                            "http://ab@example.com",
                                            "ftp://example.com",
                                            "http://256.1.1.1/",
                                            "http://01.2.3.4/",
                                            "http://blogspot.com/",
                                            "http://a.test/",
                                            "http://example.com./",
                                            "http://-a.example.com/",
                                            "http://a-.example.com/",
                                            "http://a..example.com/",
                                            "http://[::1]/",
                                            "http://a.com:65536/",
                                            "http://a.com:123456/",
                                            "http://a.com:+80/",
                                            "http://:80/",
                                            "http:///",
                                            "https://",
                                            ""};
  for (const auto& raw : invalid) {
    auto r = ParseUrl(raw);
    EXPECT_FALSE(r.ok()) << "'" << raw << "' parsed as " << r->ToString();
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << raw;
    }
  }
}

TEST(UrlTest, ErrorMessageNamesReasonAndUrl) {
  auto r = ParseUrl("http://co.uk");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "invalid host 'co.uk' in URL 'http://co.uk'");
  r = ParseUrl("http://a.com:x/");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("port"), std::string::npos);
  EXPECT_NE(r.status().message().find("'http://a.com:x/'"), std::string::npos);
}

TEST(UrlTest, GreaterThanRejectedBeforeTrim) {
  EXPECT_FALSE(ParseUrl("http://a.com/ >").ok());
  EXPECT_FALSE(ParseUrl(">http://a.com/").ok());
}

// Spaces, tabs, CRs and LFs around a URL are trimmed; any other control character, and any
// control character inside, makes it invalid (named, and written as \xNN in the reason).
TEST(UrlTest, ControlCharactersAreRejected) {
  for (int c = 0; c < 0x20; ++c) {
    const std::string ch(1, static_cast<char>(c));
    EXPECT_FALSE(ParseUrl("http://a.com/a" + ch + "b").ok()) << c;
    if (c != '\t' && c != '\n' && c != '\r') {
      EXPECT_FALSE(ParseUrl(ch + "http://a.com/").ok()) << c;
      EXPECT_FALSE(ParseUrl("http://a.com/" + ch).ok()) << c;
    }
  }
  EXPECT_FALSE(ParseUrl("http://a.com/\x7f").ok());
  auto r = ParseUrl(std::string("http://a.com/a\0b\n", 17));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "control character U+0000 in URL 'http://a.com/a\\x00b\\x0a'");
  EXPECT_EQ(ParseUrl("\x01 http://a.com/").status().message(), "control character U+0001 in URL '\\x01 http://a.com/'");
  EXPECT_EQ(MustParse(" \t\r\nhttp://a.com/x \t\r\n").ToString(), "http://a.com/x");
  const Url base = MustParse("http://a.com/x/y.html");
  for (const char* link : {"/a\x01", "\x7f/a", "http://b.com/\x1f", "a\tb", "\x0b/a"}) {
    EXPECT_FALSE(ResolveLink(base, link).ok()) << link;
  }
}

TEST(UrlTest, Cleaning) {
  EXPECT_EQ(MustParse("Http://example.com  ").ToString(), "http://example.com/");
  EXPECT_EQ(MustParse(" HTTPS://example.com/ ").ToString(), "https://example.com/");
  EXPECT_EQ(MustParse("http://A.B.Com:281/a/b").ToString(), "http://a.b.com:281/a/b");
  EXPECT_EQ(MustParse("http://a.B.Com?A/b/C").ToString(), "http://a.b.com?A/b/C");
  EXPECT_EQ(MustParse("http://www.ab.com:80/").ToString(), "http://www.ab.com/");
  EXPECT_EQ(MustParse("\t\nhttp://ab.com/x\r\n").ToString(), "http://ab.com/x");
}

TEST(UrlTest, NoOtherNormalization) {
  EXPECT_EQ(MustParse("http://www.ab.com/a%20b/../c#Frag").ToString(), "http://www.ab.com/a%20b/../c#Frag");
}

TEST(UrlTest, UriForm) {
  EXPECT_EQ(MustParse("http://a.com/").ToUri(), "com.a>>o>/");
  EXPECT_EQ(MustParse("https://www.d.com.au:9443/a/bc").ToUri(), "au.com.d>.www>s9443>/a/bc");
  EXPECT_EQ(MustParse("https://a.b.com:80").ToUri(), "com.b>.a>s80>/");
  EXPECT_EQ(MustParse("http://1.2.3.4/a/b/c").ToUri(), "1.2.3.4>>o>/a/b/c");
  EXPECT_EQ(MustParse("https://a.b.C.com:8329").ToUri(), "com.c>.b.a>s8329>/");
  EXPECT_EQ(MustParse("http://a.com:443/").ToUri(), "com.a>>o443>/");
  EXPECT_EQ(MustParse("https://a.com:443/").ToUri(), "com.a>>s>/");
}

TEST(UrlTest, ToStringPorts) {
  EXPECT_EQ(MustParse("https://a.b.com:80").ToString(), "https://a.b.com:80/");
  EXPECT_EQ(MustParse("https://a.b.com:443/x").ToString(), "https://a.b.com/x");
  EXPECT_EQ(MustParse("http://a.b.com:443/x").ToString(), "http://a.b.com:443/x");
}

TEST(UrlTest, Ports) {
  EXPECT_EQ(MustParse("http://a.com/").port, 80);
  EXPECT_EQ(MustParse("https://a.com/").port, 443);
  EXPECT_EQ(MustParse("https://a.com:8080/").port, 8080);
  EXPECT_EQ(MustParse("http://a.com:65535/").port, 65535);
  EXPECT_EQ(MustParse("http://a.com:0/").port, 0);
  EXPECT_TRUE(MustParse("https://a.com/").secure);
  EXPECT_FALSE(MustParse("http://a.com/").secure);
}

TEST(UrlTest, Domains) {
  Url u = MustParse("http://a.b.c.com/");
  EXPECT_EQ(u.domain, "c.com");
  EXPECT_EQ(u.ReverseDomain(), "com.c");
  u = MustParse("http://a.b.c.co.uk/");
  EXPECT_EQ(u.domain, "c.co.uk");
  EXPECT_EQ(u.ReverseDomain(), "uk.co.c");
  EXPECT_EQ(MustParse("http://www.d.com.au/").domain, "d.com.au");
  u = MustParse("http://me.blogspot.com/");
  EXPECT_EQ(u.domain, "me.blogspot.com");
  EXPECT_TRUE(u.ToUri().starts_with("com.blogspot.me>>")) << u.ToUri();
  EXPECT_EQ(MustParse("http://x.me.blogspot.com/").domain, "me.blogspot.com");
  EXPECT_FALSE(ParseUrl("http://blogspot.com/").ok());
  EXPECT_EQ(MustParse("http://under_score.example.com/").domain, "example.com");
}

TEST(UrlTest, IpHosts) {
  Url u = MustParse("http://1.2.3.4:89/1/2");
  EXPECT_EQ(u.host, "1.2.3.4");
  EXPECT_EQ(u.domain, "1.2.3.4");
  EXPECT_EQ(u.port, 89);
  EXPECT_TRUE(u.ip_host);
  EXPECT_EQ(u.ReverseDomain(), "1.2.3.4");
  EXPECT_EQ(u.ToUri(), "1.2.3.4>>o89>/1/2");
  EXPECT_TRUE(ParseUrl("http://255.255.255.255/").ok());
  EXPECT_TRUE(ParseUrl("http://0.0.0.0/").ok());
  EXPECT_FALSE(MustParse("http://a.com/").ip_host);
}

TEST(UrlTest, HostAndPathFields) {
  Url u = MustParse("https://A.B.Com:281/a/B?c#D");
  EXPECT_EQ(u.host, "a.b.com");
  EXPECT_EQ(u.path, "/a/B?c#D");
  EXPECT_EQ(MustParse("http://a.com").path, "/");
  EXPECT_EQ(MustParse("http://a.com#x/y").path, "#x/y");
}

TEST(UrlTest, DnsLengthLimits) {
  const std::string label63(63, 'a');
  EXPECT_TRUE(ParseUrl("http://" + label63 + ".com/").ok());
  EXPECT_FALSE(ParseUrl("http://" + label63 + "a.com/").ok());
  std::string long_host;
  while (long_host.size() < 250) long_host += "abcdefghi.";
  EXPECT_TRUE(ParseUrl("http://" + long_host + "com/").ok());    // 253 chars
  EXPECT_FALSE(ParseUrl("http://" + long_host + "acom/").ok());  // 254 chars
}

TEST(UrlTest, ResolveRelative) {
  const char* base = "http://a.com/x/y.html";
  EXPECT_EQ(ResolveToString(base, "z.html"), "http://a.com/x/z.html");
  EXPECT_EQ(ResolveToString(base, "/p"), "http://a.com/p");
  EXPECT_EQ(ResolveToString(base, "//b.com/q"), "http://b.com/q");
  EXPECT_EQ(ResolveToString(base, "?q=1"), "http://a.com/x/y.html?q=1");
  EXPECT_EQ(ResolveToString(base, "../up"), "http://a.com/up");
  EXPECT_EQ(ResolveToString(base, "#frag"), "http://a.com/x/y.html#frag");
  EXPECT_EQ(ResolveToString(base, "  z.html\n"), "http://a.com/x/z.html");
  EXPECT_EQ(ResolveToString("https://a.com:8443/x/", "y"), "https://a.com:8443/x/y");
  EXPECT_EQ(ResolveToString("https://ab.com:8080?1/2/3", "z"), "https://ab.com:8080/z");
}

TEST(UrlTest, ResolveAbsolute) {
  const char* base = "http://a.com/x/y.html";
  EXPECT_EQ(ResolveToString(base, "HTTPS://B.com:443/Q"), "https://b.com/Q");
  EXPECT_EQ(ResolveToString(base, " http://c.com "), "http://c.com/");
}

TEST(UrlTest, ResolveInvalid) {
  const Url base = MustParse("http://a.com/x/y.html");
  for (const char* link : {"", "   ", "mailto:x@a.com", "javascript:void(0)", "ftp://a.com/", "http://co.uk/",
                           "//co.uk/", "a b", "/p>q", "//[::1]/", "%zz"}) {
    auto r = ResolveLink(base, link);
    EXPECT_FALSE(r.ok()) << "'" << link << "' resolved to " << r->ToString();
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument) << link;
    }
  }
}

TEST(UrlTest, ResolveAgainstUnparsableBase) {
  // ParseUrl keeps paths uriparser rejects; resolving against them fails cleanly.
  const Url base = MustParse("http://a.com/a b/c");
  EXPECT_FALSE(ResolveLink(base, "d").ok());
  EXPECT_TRUE(ResolveLink(base, "http://b.com/").ok());
}

TEST(UrlTest, DomainOfUri) {
  EXPECT_EQ(DomainOfUri("com.a>>o>/"), "com.a");
  EXPECT_EQ(DomainOfUri("1.2.3.4>>o>/a/b/c"), "1.2.3.4");
  EXPECT_EQ(DomainOfUri("au.com.d>.www>s9443>/a/bc"), "au.com.d");
  EXPECT_EQ(DomainOfUri("nosep"), "nosep");
  EXPECT_EQ(DomainOfUri(""), "");
  EXPECT_EQ(DomainOfUri(MustParse("https://www.d.com.au:9443/a/bc").ToUri()), "au.com.d");
}

}  // namespace
}  // namespace webindex::model

namespace webindex::model {
namespace {

// Registrable domains are memoized per thread and the memo is cleared at 65,536 hosts: results
// must not change across the clear.
TEST(UrlMemoTest, ResultsStayExactPastTheMemoBound) {
  for (int i = 0; i < 70000; ++i) {
    auto url = ParseUrl("http://h" + std::to_string(i) + ".example.com/");
    ASSERT_TRUE(url.ok()) << i;
    ASSERT_EQ(url->domain, "example.com") << i;
  }
  EXPECT_FALSE(ParseUrl("http://co.uk/").ok());
  EXPECT_FALSE(ParseUrl("http://co.uk/").ok());  // a memoized rejection stays a rejection
  EXPECT_EQ(ParseUrl("http://a.b.co.uk/")->domain, "b.co.uk");
  EXPECT_EQ(ParseUrl("http://x.me.blogspot.com/")->domain, "me.blogspot.com");
}

}  // namespace
}  // namespace webindex::model
