// `webindex pagerank` (--format wikipedia, the default): the real binary on revision files, its
// output exactly as docs/pagerank.md ("Batch") spells it, and its errors (file and line, non-zero exit).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "child_process.h"
#include "gzip_file.h"
#include "pipeline_harness.h"
#include "test_paths.h"
#include "wikipedia_gen.h"

namespace webindex {
namespace {

using testing::WikiRevision;

class PageRankCliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("pagerank-cli"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::vector<WikiRevision>& revs, bool gzip = false) {
    std::string text;
    for (const auto& r : revs) text += testing::FormatWikiRecord(r);
    const std::string path = dir_ + "/" + name;
    testing::WriteFileBytes(path, gzip ? testing::GzipMember(text) : text);
    return path;
  }
  int Run(std::vector<std::string> args, std::string* out) {
    args.insert(args.begin(), {WEBINDEX_BINARY, "pagerank"});
    return testing::RunCommand(args, out, log());
  }
  std::string log() const { return dir_ + "/stderr.log"; }
  std::string Stderr() const { return testing::ReadFileBytes(log()); }
  std::string dir_;
};

const std::vector<WikiRevision> kExample = {{"A", 1, "2008-01-01T00:00:00Z", {"B", "C"}},
                                            {"B", 1, "2008-01-01T00:00:00Z", {"C"}},
                                            {"C", 1, "2008-01-01T00:00:00Z", {"A"}},
                                            {"D", 1, "2008-01-01T00:00:00Z", {"A"}}};

TEST_F(PageRankCliTest, PrintsTheWorkedExampleOverSeveralFilesPlainAndGzip) {
  const std::string first = Write("a.txt", {kExample[0], kExample[1]});
  const std::string second = Write("b.gz", {kExample[2], kExample[3]}, true);
  std::string out;
  ASSERT_EQ(Run({"--format", "wikipedia", "--iterations", "1", first, second}, &out), 0) << Stderr();
  EXPECT_EQ(out, "A 1.85\nC 1.425\nB 0.575\nD 0.15\n");
  ASSERT_EQ(Run({"--format", "wikipedia", "--iterations", "1", "--limit", "2", first, second}, &out), 0);
  EXPECT_EQ(out, "A 1.85\nC 1.425\n");
  EXPECT_NE(Stderr().find("4 revisions read"), std::string::npos) << Stderr();
}

TEST_F(PageRankCliTest, UntilLeavesOutLaterRevisionsInclusively) {
  std::vector<WikiRevision> revs = kExample;
  revs.push_back({"A", 2, "2008-02-01T00:00:00Z", {"D"}});
  const std::string path = Write("h.txt", revs);
  std::string out;
  ASSERT_EQ(Run({"--format", "wikipedia", "--iterations", "1", "--until", "2008-01-31T23:59:59Z", path}, &out), 0);
  EXPECT_EQ(out, "A 1.85\nC 1.425\nB 0.575\nD 0.15\n");
  // The same instant in another zone: A's second revision (A -> D) counts.
  ASSERT_EQ(Run({"--format", "wikipedia", "--iterations", "1", "--until", "2008-02-01T01:00:00+01:00", path}, &out),
            0);
  EXPECT_EQ(out, "A 1.85\nC 1\nD 1\nB 0.15\n");
}

// tests/data/wikipedia-sample.txt, which README's example runs: superseded revisions (A's first,
// D's) and one after --until (D's second); up to then it is docs/pagerank.md's worked example.
TEST_F(PageRankCliTest, TheSampleHistoryGivesTheWorkedExampleUntilItsLastRevision) {
  const std::string sample = std::string(WEBINDEX_TEST_DATA) + "/wikipedia-sample.txt";
  std::string out;
  ASSERT_EQ(Run({"--iterations", "1", "--until", "2024-02-15T00:00:00Z", sample}, &out), 0) << Stderr();
  EXPECT_EQ(out, "A 1.85\nC 1.425\nB 0.575\nD 0.15\n");
  EXPECT_NE(Stderr().find("6 revisions read, 1 after --until left out, 1 superseded by a later revision"),
            std::string::npos)
      << Stderr();
  ASSERT_EQ(Run({"--iterations", "1", sample}, &out), 0) << Stderr();
  EXPECT_EQ(out, "B 1.425\nC 1.425\nA 1\nD 0.15\n");  // D's last revision links to B
}

TEST_F(PageRankCliTest, AMalformedRecordStopsWithFileLineAndReason) {
  std::string text;
  for (const auto& r : kExample) text += testing::FormatWikiRecord(r);
  text.replace(text.find("REVISION 2 1 C"), 14, "REVISION 2 x C");
  const std::string path = dir_ + "/bad.txt";
  testing::WriteFileBytes(path, text);
  std::string out;
  EXPECT_EQ(Run({"--format", "wikipedia", path}, &out), 1);
  EXPECT_TRUE(out.empty()) << out;
  EXPECT_NE(Stderr().find(path + ":29: malformed revision record: rev_id 'x'"), std::string::npos) << Stderr();
}

// Wikipedia revisions are the only format of files, so it needs no --format.
TEST_F(PageRankCliTest, RevisionFilesNeedNoFormatOption) {
  const std::string path = Write("example.txt", kExample);
  std::string out;
  ASSERT_EQ(Run({"--iterations", "1", path}, &out), 0) << Stderr();
  EXPECT_EQ(out, "A 1.85\nC 1.425\nB 0.575\nD 0.15\n");
}

TEST_F(PageRankCliTest, UsageErrorsAreNamed) {
  std::string out;
  EXPECT_EQ(Run({"--format", "wikipedia", dir_ + "/missing.txt"}, &out), 1);  // not a usage error
  EXPECT_NE(Stderr().find("missing.txt"), std::string::npos) << Stderr();
  const std::string path = Write("ok.txt", kExample);
  EXPECT_EQ(Run({"--format", "wikipedia", "--until", "yesterday", path}, &out), 2);
  EXPECT_NE(Stderr().find("--until 'yesterday' is not an RFC 3339 time"), std::string::npos) << Stderr();
  EXPECT_EQ(Run({}, &out), 2);
  EXPECT_NE(Stderr().find("give the Wikipedia revision files to read, or --data-dir DIR"), std::string::npos)
      << Stderr();
  EXPECT_EQ(Run({"--data-dir", dir_, path}, &out), 2);
  EXPECT_NE(Stderr().find("give either --data-dir or revision files, not both"), std::string::npos) << Stderr();
}

}  // namespace
}  // namespace webindex
