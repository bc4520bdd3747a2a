// The command line's conventions (docs/cli.md): one table of exit codes for every subcommand,
// mistakes refused with the valid choices instead of ignored, every argument checked before the
// disk or the network is touched, a busy data dir named at once, and lost input reported by the
// exit code. The real binary, as a user runs it.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "child_process.h"
#include "cli_cluster.h"
#include "gzip_file.h"
#include "pipeline_harness.h"
#include "state/data_dir.h"
#include "test_paths.h"

namespace webindex {
namespace {

namespace fs = std::filesystem;

class CliConventionsTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::MakeTempDir("cli-conventions"); }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  //! Runs `webindex args...`; its stdout in `out_`, its stderr in `err_`.
  int Run(std::vector<std::string> args) {
    args.insert(args.begin(), WEBINDEX_BINARY);
    const std::string log = dir_ + "/stderr.log";
    fs::remove(log);
    const int rc = testing::RunCommand(args, &out_, log);
    err_ = testing::ReadFileBytes(log);
    return rc;
  }
  bool Says(const std::string& text) const { return err_.find(text) != std::string::npos; }

  std::string dir_, out_, err_;
};

TEST_F(CliConventionsTest, AnUnknownSubcommandIsNamedWithTheValidOnes) {
  EXPECT_EQ(Run({"bogus"}), 2);
  EXPECT_TRUE(Says("unknown subcommand 'bogus'")) << err_;
  for (const char* name : {"load", "run", "replay", "query", "dump", "pagerank"}) {
    EXPECT_TRUE(Says(name)) << name << " missing from: " << err_;
  }
  EXPECT_EQ(Run({"--log-level", "debug"}), 2);
  EXPECT_TRUE(Says("a subcommand is required; the subcommands are: ")) << err_;
}

TEST_F(CliConventionsTest, VersionAndHelpExitZeroAndHelpShowsTheGlobalOptions) {
  EXPECT_EQ(Run({"--version"}), 0);
  EXPECT_TRUE(out_.starts_with("webindex ")) << out_;
  EXPECT_EQ(Run({"load", "--help"}), 0);
  EXPECT_NE(out_.find("--log-level"), std::string::npos) << out_;
  EXPECT_NE(out_.find("Exit codes"), std::string::npos) << out_;
  EXPECT_NE(out_.find("6 no such index"), std::string::npos) << "every exit code of docs/cli.md: " << out_;
  EXPECT_EQ(Run({"--help"}), 0);
  EXPECT_NE(out_.find("6 no such index"), std::string::npos) << out_;
}

TEST_F(CliConventionsTest, ParseErrorsExitTwoNotCli11Codes) {
  EXPECT_EQ(Run({"dump", "--data-dir", dir_, "--no-such-option"}), 2);
  EXPECT_TRUE(Says("--no-such-option")) << err_;
  EXPECT_EQ(Run({"query", "top", "--limit", "many", "--data-dir", dir_}), 2);
  EXPECT_EQ(Run({"query"}), 2);  // a required argument missing
  EXPECT_EQ(Run({"--log-level", "bogus", "dump", "--data-dir", dir_}), 2);
  EXPECT_TRUE(Says("bogus")) << err_;
  EXPECT_TRUE(Says("trace")) << err_;  // the valid choices
}

TEST_F(CliConventionsTest, UnknownConfigKeysAndSectionsAreRefusedWithTheValidOnes) {
  const std::string config = dir_ + "/typo.toml";
  testing::WriteFileBytes(config, "[pipeline]\nmax_batchh = 10\n");
  EXPECT_EQ(Run({"--config", config, "dump", "--data-dir", dir_ + "/data"}), 2);
  EXPECT_TRUE(Says("unknown key 'max_batchh' in [pipeline]; its keys are: max_batch")) << err_;
  testing::WriteFileBytes(config, "[pipline]\nmax_batch = 10\n");
  EXPECT_EQ(Run({"--config", config, "dump", "--data-dir", dir_ + "/data"}), 2);
  EXPECT_TRUE(Says("unknown section [pipline]")) << err_;
  // toml++'s own words ("File could not be opened for reading", "error occurred at") do not reach users.
  EXPECT_EQ(Run({"--config", dir_ + "/none.toml", "dump", "--data-dir", dir_ + "/data"}), 2);
  EXPECT_TRUE(Says("configuration file " + dir_ + "/none.toml does not exist (-c/--config)")) << err_;
  EXPECT_EQ(Run({"--config", dir_, "dump", "--data-dir", dir_ + "/data"}), 2);
  EXPECT_TRUE(Says("configuration file " + dir_ + " is a directory")) << err_;
  testing::WriteFileBytes(config, "[pipeline]\nmax_batch = 10\nmax_batch 20\n");
  EXPECT_EQ(Run({"--config", config, "dump", "--data-dir", dir_ + "/data"}), 2);
  EXPECT_TRUE(Says("configuration file " + config + ":3:")) << err_;
  EXPECT_FALSE(Says("error occurred at")) << err_;
  testing::WriteFileBytes(config, "[log]\nlevel = \"loud\"\n");
  EXPECT_EQ(Run({"--config", config, "dump", "--data-dir", dir_ + "/data"}), 2);
  EXPECT_TRUE(Says("log.level 'loud'")) << err_;
  // Free-form sections take any key: librdkafka's properties, partition counts by topic.
  testing::WriteFileBytes(config, "[kafka.properties]\n\"socket.timeout.ms\" = \"5000\"\n[partitions]\npages = 2\n");
  testing::WriteFileBytes(dir_ + "/empty.txt", "");
  EXPECT_EQ(Run({"--config", config, "pagerank", "--format", "wikipedia", dir_ + "/empty.txt"}), 0) << err_;
  EXPECT_FALSE(fs::exists(dir_ + "/data"));
}

TEST_F(CliConventionsTest, QueryOptionsOfAnotherQueryAreRefused) {
  EXPECT_EQ(Run({"query", "top", "--domain", "x.com", "--data-dir", dir_ + "/none"}), 2);
  EXPECT_NE(out_.find("--domain does not apply to `query top`; it is for `query pages`"), std::string::npos) << out_;
  EXPECT_EQ(Run({"query", "pages", "--domain", "x.com", "--url", "http://x.com/", "--data-dir", dir_ + "/none"}), 2);
  EXPECT_EQ(Run({"query", "page", "--url", "http://x.com/", "--link-type", "out", "--data-dir", dir_ + "/none"}), 2);
  EXPECT_EQ(Run({"query", "page", "--url", "http://x.com/", "--next", "abc", "--data-dir", dir_ + "/none"}), 2);
  EXPECT_EQ(Run({"query", "top", "--p", "http://a/p", "--data-dir", dir_ + "/none"}), 2);
  EXPECT_NE(out_.find("--p does not apply to `query top`; it is for `query triples`"), std::string::npos) << out_;
  EXPECT_FALSE(fs::exists(dir_ + "/none"));  // refused before the store was opened
}

TEST_F(CliConventionsTest, RunChecksItsArgumentsBeforeTouchingTheDisk) {
  const std::string data = dir_ + "/data";
  EXPECT_EQ(Run({"run", "--data-dir", data, "--exit-when-idle"}), 2);
  EXPECT_TRUE(Says("run needs a Kafka cluster: --brokers")) << err_;
  EXPECT_TRUE(Says("--brokers embedded")) << err_;
  EXPECT_EQ(Run({"run", "--brokers", "127.0.0.1:1", "--data-dir", data, "--http", "abc"}), 2);
  EXPECT_TRUE(Says("--http")) << err_;
  EXPECT_EQ(Run({"replay", "--data-dir", data, "--from", "earliest"}), 2);
  EXPECT_FALSE(fs::exists(data));
}

// A run with the user's kafka properties and a verify of its data dir warn of nothing: the
// properties go to every client (one that concerns consumers only is not a producer's warning),
// the embedded broker makes the control topics as asked, and a checksum verification opens
// table files without the unique IDs RocksDB would check.
TEST_F(CliConventionsTest, AFreshRunAndItsVerifyWarnOfNothing) {
  const std::string data = dir_ + "/data";
  ASSERT_EQ(Run({"-X", "fetch.wait.max.ms=10", "-X", "linger.ms=5", "run", "--brokers", "embedded", "--data-dir",
                 data, "--exit-when-idle"}),
            0)
      << err_;
  EXPECT_FALSE(Says(" warning ")) << err_;
  ASSERT_EQ(Run({"verify", "--data-dir", data}), 0) << err_;
  EXPECT_FALSE(Says(" warning ")) << err_;
}

// load, run and replay take their cluster alike: kafka.bootstrap_servers of --config, unless
// --brokers says otherwise; with neither, each says what to give (exit 2).
TEST_F(CliConventionsTest, EverySubcommandThatTalksToKafkaTakesTheBrokersOfTheConfigFile) {
  testing::CliCluster cluster(WEBINDEX_BINARY, "cli-config-brokers", 1);
  ASSERT_TRUE(cluster.ok()) << testing::ReadFileBytes(cluster.log());
  const std::string config = dir_ + "/cluster.toml", unreachable = dir_ + "/unreachable.toml";
  testing::WriteFileBytes(config, "[kafka]\nbootstrap_servers = \"" + cluster.brokers() + "\"\n");
  testing::WriteFileBytes(unreachable, "[kafka]\nbootstrap_servers = \"127.0.0.1:1\"\n");
  const std::string events = dir_ + "/events.jsonl", data = dir_ + "/data";
  testing::WriteFileBytes(events, "{\"url\":\"http://a.com/1\",\"outboundLinks\":[{\"url\":\"http://b.com/\"}]}\n");

  EXPECT_EQ(Run({"--config", config, "load", events}), 0) << err_;
  EXPECT_EQ(Run({"run", "--config", config, "--data-dir", data, "--exit-when-idle"}), 0) << err_;
  EXPECT_EQ(Run({"replay", "--data-dir", data, "--from", "earliest", "--switch-lag", "0", "-c", config}), 0) << err_;
  EXPECT_EQ(Run({"dump", "--data-dir", data}), 0) << err_;
  EXPECT_NE(out_.find("p:com.b>>o>/|page|incount|1"), std::string::npos) << out_;
  // The flag wins over the file.
  EXPECT_EQ(Run({"--config", unreachable, "load", "--brokers", cluster.brokers(), events}), 0) << err_;

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"load", events}, {"replay", "--data-dir", data}}) {
    EXPECT_EQ(Run(args), 2) << args[0];
    EXPECT_TRUE(Says(args[0] + " needs a Kafka cluster: --brokers HOST:PORT[,HOST:PORT...] (or "
                               "kafka.bootstrap_servers in a --config file)"))
        << err_;
    std::vector<std::string> embedded = args;
    embedded.insert(embedded.begin() + 1, {"--brokers", "embedded"});
    EXPECT_EQ(Run(embedded), 2) << args[0];
    EXPECT_TRUE(Says("give the --brokers that `webindex run` reads")) << err_;
  }
}

// README's steps pasted as one block: a command right after `webindex broker --address-file F &`
// finds the broker with `--brokers @F`, which waits for the address the broker writes once it
// listens; a clean stop removes the file, so that the next paste does not find a stale address.
TEST_F(CliConventionsTest, BrokersFromTheAddressFileOfABrokerStillStarting) {
  const std::string address = dir_ + "/broker.addr", data = dir_ + "/data", events = dir_ + "/events.jsonl";
  testing::WriteFileBytes(events, "{\"url\":\"http://a.com/1\",\"outboundLinks\":[{\"url\":\"http://b.com/\"}]}\n");
  auto broker = std::make_unique<testing::ChildProcess>(
      std::vector<std::string>{WEBINDEX_BINARY, "broker", "--partitions", "1", "--address-file", address},
      dir_ + "/broker.log");
  EXPECT_EQ(Run({"load", "--brokers", "@" + address, events}), 0) << err_;
  EXPECT_EQ(Run({"run", "--brokers", "@" + address, "--data-dir", data, "--exit-when-idle"}), 0) << err_;
  EXPECT_EQ(Run({"dump", "--data-dir", data}), 0) << err_;
  EXPECT_NE(out_.find("p:com.b>>o>/|page|incount|1"), std::string::npos) << out_;
  broker->Signal(SIGTERM);
  EXPECT_EQ(broker->Wait(), 0) << testing::ReadFileBytes(dir_ + "/broker.log");
  EXPECT_FALSE(fs::exists(address));

  // `--brokers "$(cat F)"` before F is written gives an empty value: said so, not taken as none.
  EXPECT_EQ(Run({"load", "--brokers", "", events}), 2);
  EXPECT_TRUE(Says("--brokers is empty: give HOST:PORT[,HOST:PORT...], or @FILE")) << err_;
  EXPECT_EQ(Run({"run", "--brokers", "", "--data-dir", data}), 2);
  EXPECT_TRUE(Says("--brokers is empty")) << err_;
}

// A file of another format than --format says is named with the right --format before anything
// is sent (no broker is reached: 127.0.0.1:1), gzip or not.
TEST_F(CliConventionsTest, LoadNamesTheFormatAFileIsIn) {
  const std::string warc = dir_ + "/crawl.warc.wat.gz";
  testing::WriteFileBytes(warc, testing::GzipMember("WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n"));
  EXPECT_EQ(Run({"load", "--brokers", "127.0.0.1:1", warc}), 2);
  EXPECT_TRUE(Says(warc + " holds WARC records (a Common Crawl WAT file), not JSON lines (crawl events): load it with "
                          "--format wat")) << err_;
  const std::string json = dir_ + "/events.txt";
  testing::WriteFileBytes(json, "\n{\"url\":\"http://a.com/\"}\n");
  EXPECT_EQ(Run({"load", "--brokers", "127.0.0.1:1", "--format", "wikipedia", json}), 2);
  EXPECT_TRUE(Says("load it with --format json (the default)")) << err_;
  const std::string wiki = dir_ + "/revisions.txt";
  testing::WriteFileBytes(wiki, "REVISION 1 1 A 2008-01-01T00:00:00Z x 1\n");
  EXPECT_EQ(Run({"load", "--brokers", "127.0.0.1:1", "--format", "wat", json, wiki}), 2);
  EXPECT_TRUE(Says("load it with --format json")) << err_;  // the first file that does not match
}

// An option of one input format given with another is refused before anything is read or sent
// (no broker is reached: 127.0.0.1:1), as an option of another subcommand is.
TEST_F(CliConventionsTest, LoadRefusesOptionsOfAnotherFormat) {
  const std::string json = dir_ + "/events.txt";
  testing::WriteFileBytes(json, "{\"url\":\"http://a.com/\"}\n");
  EXPECT_EQ(Run({"load", "--brokers", "127.0.0.1:1", "--all-links", json}), 2);
  EXPECT_TRUE(Says("--all-links applies to --format wat; events of --format json keep every link they list")) << err_;
  EXPECT_EQ(Run({"load", "--brokers", "127.0.0.1:1", "--format", "nquads", "--all-links", "-"}), 2);
  EXPECT_TRUE(Says("--all-links applies to --format wat")) << err_;
  EXPECT_EQ(Run({"load", "--brokers", "127.0.0.1:1", "--remove", json}), 2);
  EXPECT_TRUE(Says("--remove applies to --format ntriples and nquads")) << err_;
  EXPECT_EQ(Run({"load", "--brokers", "127.0.0.1:1", "--format", "wat", "--remove", json}), 2);
  EXPECT_TRUE(Says("--remove applies to --format ntriples and nquads")) << err_;
}

// A bad input line is named by file, line and column, with what is wrong in the writer's terms
// and the fix where there is one, never in the parsers' words (simdjson's "Problem while parsing
// an atom", serd's "missing ';' or '.'", which speaks of Turtle).
TEST_F(CliConventionsTest, LoadSaysWhatIsWrongWithALineAndWhere) {
  testing::CliCluster cluster(WEBINDEX_BINARY, "cli-bad-lines", 1);
  ASSERT_TRUE(cluster.ok()) << testing::ReadFileBytes(cluster.log());
  const std::string json = dir_ + "/events.jsonl";
  testing::WriteFileBytes(json, "{\"url\":\"http://a.com/1\"}\n{\"url\":\"http://a.com/2\", \"x\": nope}\n");
  EXPECT_EQ(Run({"load", "--brokers", cluster.brokers(), json}), 5) << err_;
  EXPECT_TRUE(Says(json + ":2: not JSON at column 31: 'nope' is no JSON value: a string needs double quotes, and the "
                          "only bare words are true, false and null (line skipped)"))
      << err_;

  const std::string nt = dir_ + "/statements.nt";
  testing::WriteFileBytes(nt,
                          "<http://a/s> <http://a/p> <http://a/o> .\n"
                          "<http://a/s> <http://a/p> <http://a/o> <http://a/g> .\n"
                          "<http://a/s> <http://a/p> <http://a/o>\n");
  EXPECT_EQ(Run({"load", "--brokers", cluster.brokers(), "--format", "ntriples", nt}), 5) << err_;
  EXPECT_TRUE(Says(nt + ":2:40: a fourth term, a graph: this line is N-Quads; load the file with --format nquads"))
      << err_;
  EXPECT_TRUE(Says(nt + ":3:39: the line ends before the statement's final '.'")) << err_;
  for (const char* words : {"Problem while", "missing ';'", "end of file"}) EXPECT_FALSE(Says(words)) << err_;
}

TEST_F(CliConventionsTest, ASecondRunOnABusyDataDirFailsAtOnceNamingTheHolder) {
  const std::string data = dir_ + "/data";
  fs::create_directories(data);
  // This process holds the run lock as a `webindex run` would.
  auto held = state::FileLock::TryAcquire(data + "/run.lock", "run");
  ASSERT_TRUE(held.ok() && *held);
  EXPECT_EQ(Run({"run", "--brokers", "127.0.0.1:1", "--data-dir", data, "--exit-when-idle"}), 1);
  EXPECT_TRUE(Says("another webindex process uses " + data + " (pid " + std::to_string(::getpid()) + " run)")) << err_;
  EXPECT_FALSE(Says("waiting")) << err_;
  EXPECT_EQ(Run({"run", "--brokers", "127.0.0.1:1", "--data-dir", data, "--reset"}), 1);
  EXPECT_TRUE(Says("(pid " + std::to_string(::getpid()) + " run); stop it before --reset")) << err_;
}

// The demo runs from any directory on the sample built into the binary, and leaves no
// temporary files behind: none when it fails, only its data dir when it succeeds.
TEST_F(CliConventionsTest, DemoRunsAnywhereAndCleansUpAfterAFailure) {
  const std::string tmp = dir_ + "/tmp";
  fs::create_directories(tmp);
  auto entries = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(tmp)) names.push_back(e.path().filename().string());
    return names;
  };
  // TMPDIR is the test's own dir, and the cwd another one than the source tree.
  const std::string sh = "cd " + dir_ + " && TMPDIR=" + tmp + " exec " + WEBINDEX_BINARY;
  const std::string log = dir_ + "/demo.log";
  std::string out;
  EXPECT_EQ(testing::RunCommand({"/bin/sh", "-c", sh + " demo " + dir_ + "/no-such-file.jsonl"}, &out, log), 1);
  EXPECT_NE(testing::ReadFileBytes(log).find("no-such-file.jsonl"), std::string::npos) << testing::ReadFileBytes(log);
  EXPECT_TRUE(entries().empty()) << "a failed demo left " << entries().size() << " entries in " << tmp;
  ASSERT_EQ(testing::RunCommand({"/bin/sh", "-c", sh + " demo --domain stackoverflow.com"}, &out, log), 0)
      << testing::ReadFileBytes(log);
  EXPECT_NE(out.find("Most linked-to pages of domain stackoverflow.com (4 pages known):"), std::string::npos) << out;
  const auto left = entries();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_TRUE(left[0].starts_with("webindex-demo-")) << left[0];
  EXPECT_NE(out.find("webindex dump --data-dir " + tmp + "/" + left[0]), std::string::npos) << out;
}

// Input removed by retention before it was read: the rest is processed, and the exit code says
// the table lacks something (docs/cli.md: 4), in --exit-when-idle mode too.
TEST_F(CliConventionsTest, InputLostToRetentionExitsWithTheDataLossCode) {
  testing::CliCluster cluster(WEBINDEX_BINARY, "cli-data-loss", 1);
  ASSERT_TRUE(cluster.ok()) << testing::ReadFileBytes(cluster.log());
  ASSERT_TRUE(cluster.Produce({{"http://a.com/1", R"({"url":"http://a.com/1","outboundLinks":[{"url":"http://b.com/"}]})", 0}}));
  ASSERT_EQ(cluster.Run({"run", "--brokers", cluster.brokers(), "--data-dir", cluster.data_dir(), "--exit-when-idle"}), 0)
      << testing::ReadFileBytes(cluster.log());
  // The embedded broker keeps about 5 MiB per partition: push the committed position out.
  const std::string padding(500, 'x');
  std::vector<testing::GeneratedEvent> filler(
      20000, {"http://c.com/", R"({"url":"http://c.com/","title":")" + padding + R"("})", 0});
  ASSERT_TRUE(cluster.Produce(filler));
  const size_t from = cluster.LogSize();
  EXPECT_EQ(cluster.Run({"run", "--brokers", cluster.brokers(), "--data-dir", cluster.data_dir(), "--exit-when-idle"}), 4)
      << testing::ReadFileBytes(cluster.log());
  EXPECT_TRUE(cluster.WaitForLog("DATA LOSS", 0, from)) << testing::ReadFileBytes(cluster.log());
  const auto table = cluster.Dump();
  EXPECT_NE(std::find(table.begin(), table.end(), "d:com.c|domain|pagecount|1"), table.end());
  EXPECT_NE(std::find(table.begin(), table.end(), "p:com.b>>o>/|page|incount|1"), table.end());

  // A replay from earliest cannot see http://a.com/1 any more: it would lose it, so it stops
  // before the switch and the table keeps it.
  const size_t replay_from = cluster.LogSize();
  EXPECT_EQ(cluster.Run({"replay", "--brokers", cluster.brokers(), "--data-dir", cluster.data_dir(), "--switch-lag", "0"}),
            1);
  EXPECT_TRUE(cluster.WaitForLog("generation 2 would lack what generation 1 has: 1 page(s) (e.g. ", 0, replay_from))
      << testing::ReadFileBytes(cluster.log());
  EXPECT_TRUE(cluster.Dump() == table);
}

}  // namespace
}  // namespace webindex
