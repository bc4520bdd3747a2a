// A partitioned query table across real processes (docs/scale-out.md §6): three `webindex run
// --group crawl --table-shard --http` members on `webindex broker`, each keeping the shards its
// group assigns it (well under the whole table), and each answering every question for the whole
// table through the other members: top pages through every cursor, each domain's pages, pages and
// their links, suggestions, totals, exactly as a whole-table replica of the same group (whose table equals the
// batch table) answers them. After a member is SIGKILLed the other two answer exactly again once
// its shards moved; a member SIGSTOPped past its session timeout, woken, never answers from the
// shards it no longer owns, even with the broker paused so that it cannot hear it lost them. The seed is printed (WEBINDEX_SEEDS=N replays it).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "batch_model.h"
#include "cli_cluster.h"
#include "event_generator.h"
#include "http_test_client.h"
#include "model/url.h"
#include "query/table_reader.h"
#include "seeds.h"
#include "state/store.h"
#include "test_paths.h"

namespace webindex::testing {
namespace {

using namespace std::chrono_literals;
constexpr int kPartitions = 4;

//! A port nobody listens on now (bound and released).
uint16_t FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

//! The JSON value of `"next":"..."` in an answer, "" when it has none.
std::string NextCursor(const std::string& body) {
  const std::string key = "\"next\":\"";
  const size_t at = body.find(key);
  if (at == std::string::npos) return "";
  return body.substr(at + key.size(), body.find('"', at + key.size()) - at - key.size());
}

std::string Escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      snprintf(buf, sizeof(buf), "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

class TableShardCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<CliCluster>(WEBINDEX_BINARY, "webindex-shards", kPartitions);
    ASSERT_TRUE(cluster_->ok()) << "the embedded broker did not start; see " << cluster_->log();
    config_ = cluster_->dir() + "/member.toml";
    std::ofstream(config_) << "[group]\nsession_timeout_ms = 6000\n[pagerank]\ninterval_s = 0\n";
  }
  std::string DataDir(const std::string& member) const { return cluster_->dir() + "/" + member; }
  std::unique_ptr<ChildProcess> StartMember(const std::string& member, uint16_t port, const std::string& what) {
    return cluster_->Start({"run", "--brokers", cluster_->brokers(), "--data-dir", DataDir(member), "--group", "crawl",
                            "--config", config_, "--http", "127.0.0.1:" + std::to_string(port), what});
  }
  //! The replica's table; empty while it is being made.
  std::vector<std::string> Dump(const std::string& member) {
    std::string out;
    if (cluster_->Run({"dump", "--data-dir", DataDir(member)}, &out) != 0) return {};
    std::vector<std::string> lines;
    std::stringstream ss(out);
    for (std::string line; std::getline(ss, line);) lines.push_back(line);
    return lines;
  }
  void ExpectTable(const std::string& member, const std::vector<std::string>& want) {
    std::vector<std::string> got;
    for (auto deadline = std::chrono::steady_clock::now() + 120s; std::chrono::steady_clock::now() < deadline;) {
      got = Dump(member);
      if (got == want) return;
      std::this_thread::sleep_for(1s);
    }
    EXPECT_EQ(got, want) << member << "'s table; see " << cluster_->log();
  }

  //! Every answer `port` gives for the questions `questions` names equals the replica's; the
  //! walks follow the replica's cursors with both. Returns the number that differed.
  size_t Differences(uint16_t replica, uint16_t port, const std::vector<std::string>& questions, bool report) {
    size_t differed = 0;
    for (const std::string& first : questions) {
      std::string target = first;
      for (int page = 0; page < 2000; ++page) {
        const Reply want = Get(replica, target), got = Get(port, target);
        if (want.status != got.status || want.body != got.body) {
          ++differed;
          if (report) {
            ADD_FAILURE() << target << " on port " << port << ": " << got.status << " " << got.body.substr(0, 400)
                          << "\nthe replica: " << want.status << " " << want.body.substr(0, 400) << "\nsee "
                          << cluster_->log();
          }
          break;
        }
        const std::string next = NextCursor(want.body);
        if (next.empty()) break;
        target = first + "&next=" + next;
      }
    }
    return differed;
  }
  //! Waits up to two minutes for every answer of `ports` to equal the replica's, then checks once
  //! more, reporting what differs. While shards move (a member joins, leaves or wakes) answers
  //! that need them are 503 for a while: the wait covers every question, not the first ones.
  void ExpectAnswers(uint16_t replica, const std::vector<uint16_t>& ports, const std::vector<std::string>& questions) {
    for (auto deadline = std::chrono::steady_clock::now() + 120s; std::chrono::steady_clock::now() < deadline;) {
      size_t differed = 0;
      for (uint16_t port : ports) differed += Differences(replica, port, {"/api/totals?", "/api/top?limit=50"}, false);
      for (uint16_t port : ports) differed += differed == 0 ? Differences(replica, port, questions, false) : 0;
      if (differed == 0) break;
      std::this_thread::sleep_for(1s);
    }
    for (uint16_t port : ports) Differences(replica, port, questions, true);
  }

  //! Table cells in `member`'s shard stores, each shard's count.
  std::map<int, size_t> ShardCells(const std::string& member) {
    std::map<int, size_t> cells;
    const std::string dir = DataDir(member) + "/gen-1-shards";
    if (!std::filesystem::exists(dir)) return cells;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("shard-", 0) != 0) continue;
      state::StoreOptions options;
      options.read_only = true;
      auto store = state::Store::Open(e.path().string(), options);
      if (!store.ok()) continue;
      size_t n = 0;
      EXPECT_TRUE(query::ScanRows(**store, "", [&](const sink::Cell&) { return ++n, true; }).ok());
      cells[std::stoi(name.substr(6))] = n;
    }
    return cells;
  }

  std::unique_ptr<CliCluster> cluster_;
  std::string config_;
};

TEST_F(TableShardCliTest, ThreeShardMembersAnswerAsTheWholeTableThroughAKillAndAPause) {
  const uint64_t seed = OneRandomTestSeed("table shard cli");
  std::mt19937_64 rng(seed);
  EventGenerator gen(seed, kPartitions, 300);
  BatchModel model;
  auto feed = [&](size_t n) {
    auto events = gen.Next(n);
    for (auto& ev : events) model.Apply(ev.value);
    ASSERT_TRUE(cluster_->Produce(events));
  };
  const uint16_t replica_port = FreePort();
  auto replica = StartMember("replica", replica_port, "--no-stages");
  std::map<std::string, uint16_t> ports;
  std::map<std::string, std::unique_ptr<ChildProcess>> members;
  for (const std::string name : {"a", "b", "c"}) {
    ports[name] = FreePort();
    members[name] = StartMember(name, ports[name], "--table-shard");
  }
  feed(1500);
  ExpectTable("replica", model.TableLines());

  // The questions: top, each domain's pages, suggestions, a sample of pages with their in- and
  // outlinks.
  std::set<std::string> domains, uris;
  for (const std::string& line : model.TableLines()) {
    const std::string row = line.substr(0, line.find('|'));
    if (row.starts_with("d:") && line.find("|domain|pagecount|") != std::string::npos) domains.insert(row.substr(2));
    if (row.starts_with("p:")) uris.insert(row.substr(2));
  }
  std::vector<std::string> questions = {"/api/totals?", "/api/top?limit=7"};
  for (const std::string& d : domains) questions.push_back("/api/pages?limit=5&domain=" + Escape(model::HostName(d)));
  std::set<std::string> starts;  // suggestions: starts of domain names
  for (const std::string& d : domains) starts.insert(model::HostName(d).substr(0, 3));
  for (const std::string& s : starts) questions.push_back("/api/suggest?limit=8&q=" + Escape(s));
  std::vector<std::string> sample(uris.begin(), uris.end());
  std::shuffle(sample.begin(), sample.end(), rng);
  sample.resize(std::min<size_t>(sample.size(), 40));
  for (const std::string& uri : sample) {
    const std::string url = Escape(query::DisplayUrl(uri));
    questions.push_back("/api/page?url=" + url);
    questions.push_back("/api/links?limit=3&linkType=in&url=" + url);
    questions.push_back("/api/links?limit=3&linkType=out&url=" + url);
  }
  ExpectAnswers(replica_port, {ports["a"], ports["b"], ports["c"]}, questions);

  // Each member holds a part of the table: together all of it, each well under the whole.
  size_t whole = model.TableLines().size(), sum = 0;
  for (const std::string name : {"a", "b", "c"}) {
    size_t held = 0;
    for (const auto& [p, n] : ShardCells(name)) held += n;
    sum += held;
    EXPECT_LT(held, whole * 3 / 4) << name << " holds " << held << " of " << whole << " cells";
  }
  EXPECT_EQ(sum, whole);

  // c is killed: a and b take its shards over, build them from the exports and answer whole again.
  members["c"]->Signal(SIGKILL);
  members["c"]->Wait();
  feed(500);
  ExpectTable("replica", model.TableLines());
  ExpectAnswers(replica_port, {ports["a"], ports["b"]}, questions);

  // b is paused past its session timeout while more events come: a takes every shard. Woken, b
  // never answers from the shards it lost: every answer of its is the replica's or a refusal.
  members["b"]->Signal(SIGSTOP);
  std::this_thread::sleep_for(9s);
  feed(500);
  ExpectTable("replica", model.TableLines());
  ExpectAnswers(replica_port, {ports["a"]}, questions);
  // The broker is paused too, so that b cannot catch its copies up or hear that it lost them:
  // whatever b answers must come from a's shards.
  const std::string want = Get(replica_port, "/api/top?limit=1000").body;
  cluster_->broker().Signal(SIGSTOP);
  members["b"]->Signal(SIGCONT);
  size_t refused = 0, answered = 0;
  for (auto until = std::chrono::steady_clock::now() + 3s; std::chrono::steady_clock::now() < until;) {
    const Reply got = Get(ports["b"], "/api/top?limit=1000");
    if (got.status == 200) {
      ++answered;
      EXPECT_EQ(got.body, want) << "b answered from stale shards after its pause; see " << cluster_->log();
    } else {
      ++refused;
    }
    std::this_thread::sleep_for(50ms);
  }
  cluster_->broker().Signal(SIGCONT);
  std::cout << "woken b: " << answered << " answers, " << refused << " refusals" << std::endl;
  ExpectAnswers(replica_port, {ports["a"], ports["b"]}, questions);

  for (auto& [name, m] : members) {
    if (name == "c") continue;
    m->Signal(SIGTERM);
    EXPECT_EQ(m->Wait(), 0) << name << "; see " << cluster_->log();
  }
  replica->Signal(SIGTERM);
  EXPECT_EQ(replica->Wait(), 0) << "see " << cluster_->log();
}

// --table-shard belongs to a member of a group, and others must be able to reach its API.
TEST_F(TableShardCliTest, ShardMembersAreGroupMembersOthersCanReach) {
  const std::string brokers = cluster_->brokers(), data = DataDir("x");
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "--brokers", brokers, "--data-dir", data};
    args.insert(args.end(), extra.begin(), extra.end());
    return cluster_->Run(args);
  };
  EXPECT_EQ(run({"--table-shard"}), 2);
  EXPECT_EQ(run({"--group", "g", "--http-advertise", "h:1"}), 2);
  EXPECT_EQ(run({"--group", "g", "--table-shard", "--http-advertise", "h:1"}), 2);  // no --http
  EXPECT_EQ(run({"--group", "g", "--table-shard", "--http", "0.0.0.0:0"}), 2);     // nowhere to reach it
  EXPECT_EQ(run({"--group", "g", "--table-shard", "--http", "0.0.0.0:0", "--http-advertise", "h:0"}), 2);
  EXPECT_TRUE(cluster_->WaitForLog("--http 0.0.0.0:0 listens on every interface: give --http-advertise", 1000))
      << cluster_->LogTail();
  EXPECT_FALSE(std::filesystem::exists(data)) << "a usage error touched the disk";
}

}  // namespace
}  // namespace webindex::testing
