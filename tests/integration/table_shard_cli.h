// The three-member CLI harness of a partitioned query table (docs/scale-out.md §6): `webindex
// broker`, members started as `webindex run --group crawl --http ... --table-shard` (or a whole-
// table replica), and comparisons of their HTTP answers with the replica's. Shared by the
// TableShardCliTest files; each test owns its cluster.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_cluster.h"
#include "http_test_client.h"
#include "query/table_reader.h"
#include "state/store.h"
#include "test_paths.h"

namespace webindex::testing {

using namespace std::chrono_literals;
constexpr int kPartitions = 4;

//! A port nobody listens on now (bound and released).
inline uint16_t FreePort() {
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

class TableShardCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<CliCluster>(WEBINDEX_BINARY, "webindex-shards", kPartitions);
    ASSERT_TRUE(cluster_->ok()) << "the embedded broker did not start; see " << cluster_->log();
    config_ = cluster_->dir() + "/member.toml";
    std::ofstream(config_) << "[group]\nsession_timeout_ms = 6000\n[pagerank]\ninterval_s = 0\n";
  }
  //! Replaces the members' config (PageRank is off in SetUp's), before they start.
  void WriteConfig(const std::string& toml) { std::ofstream(config_) << toml; }
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
        const auto next = NextCursor(want.body);
        if (!next) break;
        target = first + "&next=" + *next;
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

}  // namespace webindex::testing
