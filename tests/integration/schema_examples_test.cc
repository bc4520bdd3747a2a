// What the real pipeline writes matches schemas/*.schema.json: runs webindex on the 5-pages
// fixture plus invalid events and a delete, and a member of a consumer group on generated events,
// dumps every topic they write as JSON lines and checks them with tests/schemas/validate.py
// (needs python3 with jsonschema: python3-jsonschema).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli_cluster.h"
#include "codec/json_writer.h"
#include "codec/records.h"
#include "event_generator.h"
#include "pipeline/fence.h"
#include "pipeline/topics.h"
#include "pipeline_harness.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

namespace fs = std::filesystem;

std::string SourceDir() { return fs::path(WEBINDEX_TEST_DATA).parent_path().parent_path().string(); }
std::string ValidatorScript() { return SourceDir() + "/tests/schemas/validate.py"; }

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

//! Runs validate.py with `args`; its report goes to the test's output. Returns the exit status.
int RunValidator(const std::vector<std::string>& args) {
  std::string cmd = "python3 ";
  cmd += ShellQuote(ValidatorScript());
  for (const auto& a : args) cmd.append(" ").append(ShellQuote(a));  // not " " + ...: GCC 12 -Wrestrict false positive
  std::cout << "$ " << cmd << std::endl;
  const int rc = std::system(cmd.c_str());
  if (rc == -1 || !WIFEXITED(rc)) return -1;
  return WEXITSTATUS(rc);
}

std::string JsonString(std::string_view s) {
  std::string out;
  codec::AppendJsonString(&out, s);
  return out;
}

//! A dead-letter record as the object dead-letter.schema.json describes.
std::string DeadLetterJson(const PipelineHarness::Consumed& r) {
  std::string out = "{\"key\":" + (r.key.empty() ? std::string("null") : JsonString(r.key)) +
                    ",\"value\":" + JsonString(r.value) + ",\"headers\":{";
  bool first = true;
  for (const auto& [k, v] : r.headers) {
    if (!first) out += ",";
    first = false;
    out += JsonString(k) + ":" + JsonString(v);
  }
  return out + "}}";
}

std::string Header(const PipelineHarness::Consumed& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "<no header " + name + ">";
}

//! Reverses EscapeCellText (\xNN).
std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x') {
      out.push_back(static_cast<char>(std::stoi(std::string(s.substr(i + 2, 2)), nullptr, 16)));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

void WriteLines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path, std::ios::binary);
  for (const auto& l : lines) {
    EXPECT_EQ(l.find('\n'), std::string::npos) << "record spans lines: " << l;
    out << l << '\n';
  }
  ASSERT_TRUE(out.good()) << path;
}

class SchemaExamplesTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("webindex-schemas"); }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string File(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

TEST_F(SchemaExamplesTest, ValidatorSelfCheck) {
  ASSERT_TRUE(fs::exists(ValidatorScript())) << ValidatorScript();
  EXPECT_EQ(RunValidator({"--examples-only"}), 0);
}

TEST_F(SchemaExamplesTest, ValidatorRejectsBadRecords) {
  // The check below must be able to fail: a wrong record in a file makes validate.py exit 1.
  WriteLines(File("bad-export.jsonl"), {R"({"type":"uri","key":"com.a>>o>/","seq":1,"linksTo":0,"docs":-1})"});
  EXPECT_EQ(RunValidator({"export", File("bad-export.jsonl")}), 1);
  WriteLines(File("bad-event.jsonl"), {R"({"url":"http://a.com/1"})", R"({"url":"http://a.com/1","deleted":"yes"})"});
  EXPECT_EQ(RunValidator({"crawl-event", File("bad-event.jsonl")}), 1);
  WriteLines(File("empty.jsonl"), {});
  EXPECT_EQ(RunValidator({"--min-records", "1", "export", File("empty.jsonl")}), 1);
}

TEST_F(SchemaExamplesTest, PipelineOutputMatchesSchemas) {
  const std::string fixture = TestData("5-pages.txt");
  const auto pages = ReadLines(fixture);
  ASSERT_EQ(pages.size(), 5u);
  EXPECT_EQ(RunValidator({"--min-records", "5", "crawl-event", fixture}), 0);

  // Valid events beyond the fixture: escaping, relative and unresolvable links, a self link,
  // a page without links, JSON nulls.
  const std::vector<std::string> extra_valid = {
      R"({"url":"http://a.com/1","crawlDate":"2015-07-28T03:06:17Z","title":"quote \" backslash \\ tab \t caf\u00e9 \u2713 <b>","server":null,)"
      R"("outboundLinks":[{"url":"/2","anchorText":"x>y \"z\""},{"url":"mailto:x@a.com"},{"url":"http://a.com/1","anchorText":"self"},)"
      R"({"url":"https://www.d.com.au:9443/a/bc"},{"url":"/2","anchorText":"dup"}]})",
      R"({"url":"http://1.2.3.4/a/b/c","title":null,"outboundLinks":[]})",
  };
  const std::vector<std::string> invalid = {
      "this is not json",
      R"({"crawlDate":"2015-07-28T03:06:17Z","title":"no url"})",
      R"({"url":"http://a.com/3","deleted":"yes"})",
  };
  WriteLines(File("extra-events.jsonl"), extra_valid);
  ASSERT_EQ(RunValidator({"--min-records", "2", "crawl-event", File("extra-events.jsonl")}), 0);
  WriteLines(File("invalid-events.jsonl"), invalid);
  EXPECT_EQ(RunValidator({"crawl-event", File("invalid-events.jsonl")}), 1);  // the schema agrees: invalid

  PipelineHarness h;
  std::vector<std::pair<std::string, std::string>> events;
  for (const auto& p : pages) events.emplace_back("", p);
  for (const auto& e : extra_valid) events.emplace_back("", e);
  for (const auto& e : invalid) events.emplace_back("bad-key", e);
  h.Produce(events, 0);
  h.RunUntilIdle();
  // Then a delete, in a run of its own so that the page export carries page:null.
  const std::string deleted_url = "http://1.2.3.4/a/b/c";
  h.Produce({{deleted_url, R"({"url":")" + deleted_url + R"(","deleted":true})"}}, 0);
  h.RunUntilIdle();

  const std::map<std::string, std::string> topic_schema = {
      {h.config().topics.uri_deltas, "uri-delta"},
      {h.config().topics.domain_deltas, "domain-delta"},
      {h.config().topics.exports, "export"},
      {h.config().topics.dead_letters, "dead-letter"},
  };
  codec::RecordDecoder decoder;
  bool saw_null_page = false, saw_page = false;
  for (const auto& [topic, schema] : topic_schema) {
    const auto records = h.ReadTopic(topic);
    EXPECT_FALSE(records.empty()) << topic;
    std::vector<std::string> lines;
    for (const auto& r : records) {
      if (schema == "dead-letter") {
        lines.push_back(DeadLetterJson(r));
        continue;
      }
      lines.push_back(r.value);
      // The C++ decoders read what the stages wrote, and keys are what the records say.
      if (schema == "uri-delta") {
        auto d = decoder.DecodeUriDelta(r.value);
        ASSERT_TRUE(d.ok()) << d.status().ToString() << ": " << r.value;
        EXPECT_EQ(r.key, d->uri);
      } else if (schema == "domain-delta") {
        auto d = decoder.DecodeDomainDelta(r.value);
        ASSERT_TRUE(d.ok()) << d.status().ToString() << ": " << r.value;
        EXPECT_EQ(r.key, d->domain);
      } else {
        auto e = decoder.DecodeExport(r.value);
        ASSERT_TRUE(e.ok()) << e.status().ToString() << ": " << r.value;
        EXPECT_EQ(r.key, e->key) << r.value;
        if (e->type == codec::ExportRecord::Type::kPage) {
          if (e->page) {
            saw_page = true;
            EXPECT_EQ(e->page->uri, e->key) << r.value;
            // numOutbound is not read back by the decoder: check it here.
            EXPECT_NE(r.value.find("\"numOutbound\":" + std::to_string(e->page->links.size()) + ","),
                      std::string::npos)
                << r.value;
          } else {
            saw_null_page = true;
          }
        }
      }
    }
    const std::string file = File(schema + ".jsonl");
    WriteLines(file, lines);
    EXPECT_EQ(RunValidator({"--min-records", "1", schema, file}), 0) << topic << " (" << records.size()
                                                                       << " records) in " << file;
  }
  EXPECT_TRUE(saw_page);
  EXPECT_TRUE(saw_null_page) << "no page export with page:null after the delete";

  // Exactly the invalid events were dead-lettered, with their bytes and where they came from.
  const std::map<std::string, std::string> expected_reason = {
      {invalid[0], "not JSON"}, {invalid[1], "url is missing"}, {invalid[2], "deleted is not a bool"}};
  auto dead = h.ReadTopic(h.config().topics.dead_letters);
  std::vector<std::string> dead_values;
  for (const auto& r : dead) {
    dead_values.push_back(r.value);
    EXPECT_EQ(r.key, "bad-key");
    EXPECT_EQ(Header(r, "source.topic"), h.config().topics.pages);
    EXPECT_EQ(Header(r, "source.partition"), "0");
    // Everything went to partition 0 in order: the fixture, the extra valid events, the invalid ones.
    const auto pos = std::find(invalid.begin(), invalid.end(), r.value);
    if (pos != invalid.end()) {
      EXPECT_EQ(Header(r, "source.offset"), std::to_string(pages.size() + extra_valid.size() + (pos - invalid.begin())));
    }
    const auto want = expected_reason.find(r.value);
    if (want != expected_reason.end()) {
      EXPECT_NE(Header(r, "reason").find(want->second), std::string::npos)
          << r.value << " -> reason " << Header(r, "reason");
    }
  }
  std::sort(dead_values.begin(), dead_values.end());
  auto expected_dead = invalid;
  std::sort(expected_dead.begin(), expected_dead.end());
  EXPECT_EQ(dead_values, expected_dead);

  // page|cur values of the table are page JSON.
  std::vector<std::string> page_json;
  for (const auto& line : h.Dump()) {
    const auto pos = line.find("|page|cur|");
    if (pos != std::string::npos) page_json.push_back(Unescape(line.substr(pos + 10)));
  }
  // 5 fixture pages + a.com/1; 1.2.3.4 was deleted.
  EXPECT_EQ(page_json.size(), 6u);
  WriteLines(File("page-cur.jsonl"), page_json);
  EXPECT_EQ(RunValidator({"--min-records", "6", "page", File("page-cur.jsonl")}), 0);
}

// A member of a group writes `inst: "group:NAME"` instead of its data dir's id, and fences the
// tasks it claims with markers in the same topics.
TEST_F(SchemaExamplesTest, GroupMemberOutputMatchesSchemas) {
  CliCluster cluster(WEBINDEX_BINARY, "webindex-schemas-group", 2);
  ASSERT_TRUE(cluster.ok()) << "the broker did not start; see " << cluster.log();
  const std::string config = cluster.dir() + "/member.toml";
  std::ofstream(config) << "[pagerank]\ninterval_s = 0\n";
  ASSERT_TRUE(cluster.Produce(EventGenerator(7, 2).Next(30)));
  ASSERT_EQ(cluster.Run({"run", "--brokers", cluster.brokers(), "--data-dir", cluster.data_dir(), "--group", "crawl",
                         "--exit-when-idle", "--config", config}),
            0)
      << "see " << cluster.log();

  const pipeline::TopicNames names;
  const std::map<std::string, std::string> topic_schema = {
      {names.uri_deltas, "uri-delta"}, {names.domain_deltas, "domain-delta"}, {names.exports, "export"}};
  std::vector<std::string> fences;
  for (const auto& [topic, schema] : topic_schema) {
    std::vector<std::string> lines;
    for (const auto& r : ReadTopic({cluster.brokers(), {}}, topic)) {
      const bool fence = std::any_of(r.headers.begin(), r.headers.end(),
                                     [](const auto& h) { return h.first == pipeline::kFenceHeader; });
      if (fence) {
        fences.push_back(r.value);
        continue;
      }
      EXPECT_NE(r.value.find(R"("inst":"group:crawl")"), std::string::npos) << topic << ": " << r.value;
      lines.push_back(r.value);
    }
    const std::string file = File(schema + "-group.jsonl");
    WriteLines(file, lines);
    EXPECT_EQ(RunValidator({"--min-records", "1", schema, file}), 0) << topic << " in " << file;
  }
  WriteLines(File("fence-group.jsonl"), fences);
  EXPECT_EQ(RunValidator({"--min-records", "1", "fence", File("fence-group.jsonl")}), 0);
}

}  // namespace
}  // namespace webindex::testing
