// NotJson: a line that is not JSON is described in its writer's terms, with the column where it
// goes wrong, never in simdjson's words.
#include "codec/json_error.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace webindex::codec {
namespace {

TEST(JsonErrorTest, SaysWhatIsWrongAndWhere) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "not JSON at column 1: 'not' is no JSON value: a string needs double quotes, and the only bare "
                   "words are true, false and null"},
      {R"({"url":"http://a.com/", "x": nope})", "not JSON at column 30: 'nope' is no JSON value"},
      {R"({"url":"http://a.com/", "x": tru})", "not JSON at column 30: 'tru' is no JSON value"},
      {R"({"url":"http://a.com/", "x": 12a})", "not JSON at column 30: '12a' is not a number"},
      {R"({"url":"http://a.com/" "x": 1})", "not JSON at column 24: a ',', ':', '}' or ']' missing before this"},
      {R"({"url":"http://a.com/", "x": [1, 2,, 3]})", "not JSON at column 36: ',' out of place"},
      {R"({"url":"http://a.com/", "x": "abc)", "not JSON at column 30: the string that starts here has no closing"},
      {"{\"url\":\"http://a.com/\t\"}", "not JSON at column 22: a control character inside a string: write it "
                                        "escaped, as \\u0009"},
      {R"({"url":"http://a.com/"} x)", "not JSON at column 25: text after the JSON value"},
      {R"({"url":"http://a.com/")", "not JSON: the text ends before its object or array is closed"},
      {"{\"url\":\"http://a.com/\xff\"}", "not JSON at column 22: bytes that are not UTF-8"},
      {R"({"revision":18446744073709551616})", "not JSON at column 13: the number 18446744073709551616 is too large"},
      {"  ", "not JSON: nothing but white space"},
  };
  for (const auto& [json, message] : cases) {
    const Status st = NotJson(json);
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument) << json;
    EXPECT_TRUE(st.message().starts_with(message)) << json << "\n  got: " << st.message();
    EXPECT_EQ(st.message().find("Problem while"), std::string::npos) << st.message();
    EXPECT_EQ(st.message().find("improper structure"), std::string::npos) << st.message();
  }
  EXPECT_TRUE(NotJson(R"({"url":"http://a.com/"})").ok());
}

}  // namespace
}  // namespace webindex::codec
