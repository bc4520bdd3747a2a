// Paging cursors: base64url of table keys, rejected when not one of ours.
#include <gtest/gtest.h>

#include "query/cursor.h"

namespace webindex::query {
namespace {

TEST(QueryCursorTest, Base64UrlRoundTripsEveryLengthAndByte) {
  std::string bytes;
  for (int i = 0; i < 300; ++i) {
    const std::string encoded = Base64UrlEncode(bytes);
    EXPECT_EQ(encoded.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
              std::string::npos);
    auto decoded = Base64UrlDecode(encoded);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(*decoded, bytes);
    bytes.push_back(static_cast<char>(i * 37));
  }
}

TEST(QueryCursorTest, Base64UrlKnownVectors) {
  // RFC 4648 §10, without padding, in the URL alphabet.
  EXPECT_EQ(Base64UrlEncode("f"), "Zg");
  EXPECT_EQ(Base64UrlEncode("fo"), "Zm8");
  EXPECT_EQ(Base64UrlEncode("foo"), "Zm9v");
  EXPECT_EQ(Base64UrlEncode("foob"), "Zm9vYg");
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
}

TEST(QueryCursorTest, Base64UrlRejectsBadText) {
  EXPECT_FALSE(Base64UrlDecode("Zm9v=").ok());  // padding
  EXPECT_FALSE(Base64UrlDecode("Zm+v").ok());   // standard alphabet
  EXPECT_FALSE(Base64UrlDecode("Z").ok());      // impossible length
  EXPECT_FALSE(Base64UrlDecode("Zh").ok());     // non-zero leftover bits: "Zg" is the one spelling
  EXPECT_TRUE(Base64UrlDecode("Zg").ok());
}

TEST(QueryCursorTest, CursorNamesACell) {
  const std::string cursor = EncodeCursor("t:fefdfbff:com.b>>o>/", "", "");
  auto cell = DecodeCursor(cursor);
  ASSERT_TRUE(cell.ok());
  EXPECT_EQ(cell->row, "t:fefdfbff:com.b>>o>/");
  EXPECT_EQ(cell->cf, "");
  EXPECT_EQ(cell->cq, "");
  auto with_nul = DecodeCursor(EncodeCursor(std::string("p:a\0b", 5), "inlinks", "x"));
  ASSERT_TRUE(with_nul.ok());
  EXPECT_EQ(with_nul->row, std::string("p:a\0b", 5));
}

TEST(QueryCursorTest, RejectsWhatIsNotACursor) {
  EXPECT_EQ(DecodeCursor("").status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(DecodeCursor("not a cursor!").status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(DecodeCursor(Base64UrlEncode("no cell key")).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(DecodeCursor(std::string(kMaxCursorChars + 4, 'A')).status().code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace webindex::query
