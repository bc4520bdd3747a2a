// A table shard read from another member over HTTP (http/shard_client.h, shard_routes.h): the
// real server serves a pipeline-built table as shard 0 and a table of random binary keys (bytes
// 0x00 and 0xff among them) as shard 1; RemoteShardSource reads them exactly as StoreTableSource
// reads the stores (gets of present and absent keys, scans at random prefixes, cursors and
// limits, totals), and a query service over them answers as one over the store. A shard the
// member does not serve, a closed port, a member that never answers and one that answers
// nonsense are Unavailable, never a short answer. The seed is printed (WEBINDEX_SEEDS=N replays it).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "batch_model.h"
#include "common/base64url.h"
#include "event_generator.h"
#include "http/server.h"
#include "http/shard_client.h"
#include "http_test_client.h"
#include "pipeline_harness.h"
#include "query/query_service.h"
#include "query/sharded_table.h"
#include "pipeline/topics.h"
#include "query/table_source.h"
#include "seeds.h"
#include "table_compare.h"

namespace webindex::testing {
namespace {

constexpr int kPartitions = 2;

//! A bound loopback socket's port; `listening`: it accepts connections (into the backlog).
class LoopbackSocket {
 public:
  explicit LoopbackSocket(bool listening) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    socklen_t len = sizeof(addr);
    EXPECT_EQ(getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port_ = ntohs(addr.sin_port);
    if (listening) EXPECT_EQ(listen(fd_, 16), 0);
  }
  ~LoopbackSocket() { Close(); }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  int fd() const { return fd_; }
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

//! A member that answers the first `kept` requests of each connection with `kept_response`, then
//! the next after `delay` with the raw `response` and closes the connection (an empty response:
//! closes without answering).
class FakeMember {
 public:
  FakeMember(std::string response, std::chrono::milliseconds delay = {}, int kept = 0, std::string kept_response = "")
      : response_(std::move(response)),
        delay_(delay),
        kept_(kept),
        kept_response_(std::move(kept_response)),
        thread_([this] { Serve(); }) {}
  ~FakeMember() {
    stop_ = true;
    thread_.join();
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(socket_.port()); }

 private:
  void Serve() {
    while (!stop_) {
      pollfd p{socket_.fd(), POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      const int c = accept(socket_.fd(), nullptr, nullptr);
      if (c < 0) continue;
      timeval tv{1, 0};
      setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      std::string got;
      char buf[4096];
      for (int request = 0; request <= kept_; ++request) {
        while (got.find("\r\n\r\n") == std::string::npos) {
          const ssize_t n = recv(c, buf, sizeof(buf), 0);
          if (n <= 0) break;
          got.append(buf, static_cast<size_t>(n));
        }
        if (const size_t end = got.find("\r\n\r\n"); end != std::string::npos) got.erase(0, end + 4);
        if (request < kept_) send(c, kept_response_.data(), kept_response_.size(), MSG_NOSIGNAL);
      }
      for (const auto until = Clock::now() + delay_; !stop_ && Clock::now() < until;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      if (!response_.empty()) send(c, response_.data(), response_.size(), MSG_NOSIGNAL);
      close(c);
    }
  }

  LoopbackSocket socket_{true};
  const std::string response_;
  const std::chrono::milliseconds delay_;
  const int kept_;
  const std::string kept_response_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

std::string Ok(const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

//! A random byte string over a small alphabet with the extreme bytes, so that prefixes and
//! cursors often fall on and between stored keys.
std::string RandomBytes(std::mt19937_64& rng, size_t min_size, size_t max_size) {
  static constexpr char kBytes[] = {'\x00', '\x01', 'a', 'b', '|', '\x7f', '\x80', '\xfe', '\xff'};
  std::string s(std::uniform_int_distribution<size_t>(min_size, max_size)(rng), '\0');
  for (char& c : s) c = kBytes[std::uniform_int_distribution<size_t>(0, sizeof(kBytes) - 1)(rng)];
  return s;
}

std::string Text(const Status& st) { return st.ok() ? "ok" : st.ToString(); }

std::string LongKey() { return "b" + std::string(12000, 'k'); }

class RemoteShardTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    seed_ = OneRandomTestSeed("remote shard");
    std::mt19937_64 rng(seed_);
    harness_ = std::make_unique<PipelineHarness>(kPartitions);
    EventGenerator gen(seed_, kPartitions, 200);
    BatchModel model;
    harness_->Feed(gen, model, 1500);
    harness_->RunUntilIdle();
    auto table = harness_->OpenReadOnly();
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    table_ = std::move(table).value();

    // Shard 1: random binary keys and values (some empty), no totals.
    state::StoreOptions options;
    options.sync_commits = false;
    auto binary = state::Store::Open(harness_->data_dir() + "/binary", options);
    ASSERT_TRUE(binary.ok()) << binary.status().ToString();
    binary_ = std::move(binary).value();
    state::WriteBatch batch(*binary_);
    for (int i = 0; i < 600; ++i) batch.Put(state::Family::kTable, RandomBytes(rng, 1, 6), RandomBytes(rng, 0, 12));
    batch.Put(state::Family::kTable, std::string(3, '\xff'), std::string(1, '\0'));
    batch.Put(state::Family::kTable, std::string(3, '\0'), std::string(2, '\xff'));
    // A key longer than a request line may be (a URL of several KiB): 12 KiB, its value 20 KiB.
    batch.Put(state::Family::kTable, LongKey(), std::string(20000, 'v'));
    ASSERT_TRUE(binary_->Write(batch).ok());
  }
  static void TearDownTestSuite() {
    binary_.reset();
    table_.reset();
    harness_.reset();
  }

  void SetUp() override {
    ASSERT_NE(table_, nullptr);
    http::ServerOptions o;
    o.listen = "127.0.0.1:0";
    o.idle_timeout = std::chrono::milliseconds(300);
    server_ = std::make_unique<http::Server>(*table_, o);
    server_->api().SetShardLookup([this](int32_t shard) -> std::shared_ptr<query::TableSource> {
      if (shard == 0) return table_source_;
      if (shard == 1) return binary_source_;
      return nullptr;
    });
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    address_ = "127.0.0.1:" + std::to_string(server_->port());
  }
  void TearDown() override { server_.reset(); }

  //! The table's keys, in order.
  static std::vector<std::string> KeysOf(state::Store& store) {
    std::vector<query::KeyValue> cells;
    EXPECT_TRUE(query::ScanStore(store, nullptr, "", "", size_t{1} << 30, &cells).ok());
    std::vector<std::string> keys;
    for (auto& c : cells) keys.push_back(std::move(c.key));
    return keys;
  }

  //! Gets, scans and totals of `remote` equal `local`'s; `keys` are the table's.
  static void ExpectSameReads(query::TableSource& local, query::TableSource& remote,
                              const std::vector<std::string>& keys, std::mt19937_64& rng) {
    ASSERT_FALSE(keys.empty());
    auto pick = [&] { return keys[std::uniform_int_distribution<size_t>(0, keys.size() - 1)(rng)]; };
    auto coin = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng) == 0; };
    auto truncated = [&](const std::string& s) {
      return s.substr(0, std::uniform_int_distribution<size_t>(0, s.size())(rng));
    };
    // Several operations per read: one kept connection carries them.
    for (int round = 0; round < 40; ++round) {
      auto want = local.Read();
      auto got = remote.Read();
      for (int op = 0; op < 6; ++op) {
        std::vector<std::string> asked;
        for (int n = std::uniform_int_distribution<int>(1, 6)(rng); n > 0; --n) {
          asked.push_back(coin(3) ? RandomBytes(rng, 1, 8) : coin(2) ? pick() + std::string(1, '\0') : pick());
        }
        const std::string owner = coin(2) ? pick() : RandomBytes(rng, 0, 5);
        auto a = want->Get(owner, asked);
        auto b = got->Get(owner, asked);
        ASSERT_TRUE(a.ok()) << a.status().ToString();
        ASSERT_TRUE(b.ok()) << b.status().ToString();
        EXPECT_EQ(*a, *b) << "get of " << asked.size() << " keys, seed " << seed_;

        const std::string prefix = coin(4) ? RandomBytes(rng, 0, 3) : truncated(pick());
        const std::string after = coin(3) ? "" : coin(2) ? pick() : coin(2) ? truncated(pick()) : RandomBytes(rng, 1, 5);
        const size_t limit = coin(10) ? http::kMaxShardScanLimit : std::uniform_int_distribution<size_t>(1, 40)(rng);
        std::vector<query::KeyValue> x, y{{"stale", "cell"}};
        ASSERT_TRUE(want->Scan(prefix, after, limit, &x).ok());
        Status st = got->Scan(prefix, after, limit, &y);
        ASSERT_TRUE(st.ok()) << st.ToString();
        EXPECT_EQ(x, y) << "scan of prefix " << Base64UrlEncode(prefix) << " after " << Base64UrlEncode(after)
                        << " limit " << limit << ", seed " << seed_;
      }
      auto t = want->Totals();
      auto u = got->Totals();
      ASSERT_TRUE(t.ok() && u.ok()) << Text(t.status()) << " / " << Text(u.status());
      EXPECT_EQ(*t, *u);
    }
  }

  inline static uint64_t seed_ = 0;
  inline static std::unique_ptr<PipelineHarness> harness_;
  inline static std::unique_ptr<state::Store> table_, binary_;
  std::shared_ptr<query::TableSource> table_source_ = std::make_shared<query::StoreTableSource>(*table_);
  std::shared_ptr<query::TableSource> binary_source_ = std::make_shared<query::StoreTableSource>(*binary_);
  std::unique_ptr<http::Server> server_;
  std::string address_;
};

TEST_F(RemoteShardTest, ReadsEqualTheServedStoresReads) {
  std::mt19937_64 rng(seed_ + 1);
  http::RemoteShardSource table(address_, 0), binary(address_, 1);
  const auto table_keys = KeysOf(*table_);
  ExpectSameReads(*table_source_, table, table_keys, rng);
  const auto binary_keys = KeysOf(*binary_);
  ExpectSameReads(*binary_source_, binary, binary_keys, rng);

  // The pipeline's table keeps totals, the other none: both come across as they are.
  auto totals = table.Read()->Totals();
  ASSERT_TRUE(totals.ok()) << totals.status().ToString();
  ASSERT_TRUE(totals->has_value());
  EXPECT_GT((*totals)->pages, 0u);
  auto none = binary.Read()->Totals();
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());

  // Every stored cell in one scan, and the extreme keys by get.
  std::vector<query::KeyValue> all;
  ASSERT_TRUE(binary.Read()->Scan("", "", http::kMaxShardScanLimit, &all).ok());
  EXPECT_EQ(all.size(), binary_keys.size());
  auto extremes = binary.Read()->Get("", {std::string(3, '\0'), std::string(3, '\xff')});
  ASSERT_TRUE(extremes.ok()) << extremes.status().ToString();
  EXPECT_EQ(*extremes, (std::vector<std::optional<std::string>>{std::string(2, '\xff'), std::string(1, '\0')}));
}

// The server's request line and headers are bounded (8 KiB, else 431): members send their
// parameters in a POST body, so a key of any length is read from another member.
TEST_F(RemoteShardTest, AKeyLongerThanARequestLineIsReadFromAnotherMember) {
  http::RemoteShardSource binary(address_, 1);
  auto read = binary.Read();
  auto got = read->Get(LongKey(), {LongKey(), LongKey() + "x"});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, (std::vector<std::optional<std::string>>{std::string(20000, 'v'), std::nullopt}));
  std::vector<query::KeyValue> cells;
  ASSERT_TRUE(read->Scan(LongKey().substr(0, 11000), "", 5, &cells).ok());
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0].key, LongKey());
  ASSERT_TRUE(read->Scan("b", LongKey().substr(0, 11000), 5, &cells).ok());
  ASSERT_FALSE(cells.empty());
  EXPECT_EQ(cells[0].key, LongKey());
}

// The sink's positions, asked of the shard named (one member may serve several), are the
// served store's: what a PageRank of the partitioned table records it reflects.
TEST_F(RemoteShardTest, PositionsEqualTheServedStoresPositions) {
  const std::string key1 = "sink/" + pipeline::TopicNames{}.exports + "/1";
  // A source read for shard 0 asks shard 1's position of shard 1 (here the binary store: none).
  auto of_table = query::StorePosition(*table_, nullptr, key1);
  ASSERT_TRUE(of_table.ok() && *of_table > 0);
  auto asked = http::RemoteShardSource(address_, 0).Read()->Position(1, key1);
  ASSERT_TRUE(asked.ok()) << asked.status().ToString();
  EXPECT_EQ(*asked, -1) << "the position came from shard 0, not shard 1";

  server_->api().SetShardLookup([this](int32_t shard) { return shard < kPartitions ? table_source_ : nullptr; });
  http::RemoteShardSource table(address_, 0);
  auto read = table.Read();
  const std::string exports = pipeline::TopicNames{}.exports;
  for (int32_t p = 0; p < kPartitions; ++p) {
    const std::string key = "sink/" + exports + "/" + std::to_string(p);
    auto want = query::StorePosition(*table_, nullptr, key);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    EXPECT_GT(*want, 0) << key;
    auto got = read->Position(p, key);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, *want) << key;
  }
  auto none = read->Position(0, "sink/no-such-topic/0");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(*none, -1);
  EXPECT_EQ(http::RemoteShardSource(address_, kPartitions).Read()->Position(kPartitions, "k").status().code(),
            Status::Code::kUnavailable);
}

TEST_F(RemoteShardTest, AQueryServiceOverTheRemoteShardAnswersAsTheStore) {
  std::mt19937_64 rng(seed_ + 2);
  // One member serves every shard of the table: one source for all partitions, read once.
  auto remote = std::make_shared<http::RemoteShardSource>(address_, 0);
  query::QueryService whole(*table_);
  query::QueryService sharded(std::make_shared<query::ShardedTableSource>(
      std::vector<std::shared_ptr<query::TableSource>>(kPartitions, remote)));
  EXPECT_EQ(ExpectSameAnswers(*table_, whole, sharded, rng), 0u) << "seed " << seed_;
}

TEST_F(RemoteShardTest, AShardTheMemberDoesNotServeIsUnavailable) {
  http::RemoteShardSource unserved(address_, 2);
  auto read = unserved.Read();
  std::vector<query::KeyValue> cells{{"stale", "cell"}};
  const Status scan = read->Scan("", "", 10, &cells);
  EXPECT_EQ(scan.code(), Status::Code::kUnavailable) << Text(scan);
  EXPECT_TRUE(cells.empty());
  EXPECT_NE(scan.message().find("table shard 2 at " + address_), std::string::npos) << scan.message();
  EXPECT_NE(scan.message().find("does not serve table shard(s) 2"), std::string::npos) << scan.message();
  EXPECT_EQ(read->Get("o", {"k"}).status().code(), Status::Code::kUnavailable);
  EXPECT_EQ(read->Totals().status().code(), Status::Code::kUnavailable);

  // Given the shard from now on, the member serves it.
  server_->api().SetShardLookup([this](int32_t) { return table_source_; });
  EXPECT_TRUE(unserved.Read()->Totals().ok());
  // Without a lookup the shard routes are unknown routes.
  server_->api().SetShardLookup({});
  EXPECT_EQ(Get(server_->port(), "/internal/shards/0/totals").status, 404);
  EXPECT_EQ(unserved.Read()->Totals().status().code(), Status::Code::kUnavailable);
}

TEST_F(RemoteShardTest, AClosedPortIsUnavailableAtOnce) {
  LoopbackSocket closed(false);
  const uint16_t port = closed.port();
  closed.Close();
  http::RemoteShardSource shard("127.0.0.1:" + std::to_string(port), 0, std::chrono::milliseconds(5000));
  const auto start = Clock::now();
  auto got = shard.Read()->Get("o", {"k"});
  EXPECT_EQ(got.status().code(), Status::Code::kUnavailable) << Text(got.status());
  EXPECT_NE(got.status().message().find("table shard 0 at 127.0.0.1:" + std::to_string(port)), std::string::npos)
      << got.status().message();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 1.0);
  EXPECT_EQ(http::RemoteShardSource("127.0.0.1", 0).Read()->Totals().status().code(), Status::Code::kUnavailable);
}

TEST_F(RemoteShardTest, AMemberThatNeverAnswersIsUnavailableAfterTheTimeout) {
  FakeMember silent("", std::chrono::milliseconds(10000));
  http::RemoteShardSource shard(silent.address(), 0, std::chrono::milliseconds(300));
  auto read = shard.Read();
  for (int op = 0; op < 3; ++op) {
    const auto start = Clock::now();
    std::vector<query::KeyValue> cells;
    const Status st = op == 0   ? read->Get("o", {"k"}).status()
                      : op == 1 ? read->Scan("", "", 10, &cells)
                                : read->Totals().status();
    const double waited = std::chrono::duration<double>(Clock::now() - start).count();
    EXPECT_EQ(st.code(), Status::Code::kUnavailable) << Text(st);
    EXPECT_GE(waited, 0.25) << op;
    EXPECT_LT(waited, 2.0) << op << ": " << Text(st);
  }
}

// The timeout bounds every request from its start, the later ones on a kept connection too.
TEST_F(RemoteShardTest, AKeptConnectionThatFallsSilentIsUnavailableAfterTheTimeout) {
  FakeMember member("", std::chrono::milliseconds(10000), 1, Ok(R"({"totals":null})"));
  http::RemoteShardSource shard(member.address(), 0, std::chrono::milliseconds(300));
  auto read = shard.Read();
  auto first = read->Totals();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the first request's deadline passes
  const auto start = Clock::now();
  const Status second = read->Totals().status();
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(second.code(), Status::Code::kUnavailable) << Text(second);
  EXPECT_GE(waited, 0.25);
  EXPECT_LT(waited, 2.0) << Text(second);
}

// Answers that are not the answer asked for: never taken as a (short) one.
TEST_F(RemoteShardTest, AnAnswerThatDoesNotAnswerIsUnavailable) {
  const std::vector<std::pair<std::string, std::string>> answers = {
      {"not JSON", Ok("hello")},
      {"one value for two keys", Ok(R"({"values":["YQ"]})")},
      {"not base64url", Ok(R"({"values":["a+b/","YQ"],"cells":[["a+b/","YQ"]],"totals":{"pages":1}})")},
      {"an error", "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 17\r\n\r\n{\"error\":\"disk\"}\n"},
      {"a cut body", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"values\":["},
  };
  for (const auto& [what, answer] : answers) {
    FakeMember member(answer);
    http::RemoteShardSource shard(member.address(), 3);
    auto read = shard.Read();
    std::vector<query::KeyValue> cells;
    EXPECT_EQ(read->Get("o", {"a", "b"}).status().code(), Status::Code::kUnavailable) << what;
    EXPECT_EQ(read->Scan("", "", 10, &cells).code(), Status::Code::kUnavailable) << what;
    EXPECT_EQ(read->Totals().status().code(), Status::Code::kUnavailable) << what;
  }
  // Cells outside the range asked for, or out of order.
  FakeMember wrong(Ok(R"({"cells":[["Yg","eA"],["YQ","eQ"]]})"));
  std::vector<query::KeyValue> cells;
  EXPECT_EQ(http::RemoteShardSource(wrong.address(), 0).Read()->Scan("", "", 10, &cells).code(),
            Status::Code::kUnavailable);
  EXPECT_EQ(http::RemoteShardSource(wrong.address(), 0).Read()->Scan("b", "", 10, &cells).code(),
            Status::Code::kUnavailable);
}

// The member closes a kept connection after its idle timeout: the next request reconnects.
TEST_F(RemoteShardTest, AKeptConnectionTheMemberClosedIsReplaced) {
  http::RemoteShardSource shard(address_, 0);
  auto read = shard.Read();
  ASSERT_TRUE(read->Totals().ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(800));  // past the server's 300 ms idle timeout
  auto totals = read->Totals();
  EXPECT_TRUE(totals.ok()) << totals.status().ToString();
}

TEST_F(RemoteShardTest, TheRoutesRefuseBadRequests) {
  const uint16_t port = server_->port();
  const std::string a = Base64UrlEncode("a");
  const std::vector<std::pair<std::string, int>> cases = {
      {"/internal/shards/0/get?owner=" + a + "&key=" + a, 200},
      {"/internal/shards/0/get?key=" + a, 400},                            // no owner
      {"/internal/shards/0/get?owner=" + a, 400},                          // no key
      {"/internal/shards/0/get?owner=" + a + "&key=a%2Bb", 400},           // not base64url
      {"/internal/shards/0/get?owner=" + a + "&owner=" + a + "&key=" + a, 400},
      {"/internal/shards/0/scan?limit=1", 200},
      {"/internal/shards/0/scan?limit=0", 400},
      {"/internal/shards/0/scan?limit=10002", 400},
      {"/internal/shards/0/scan?limit=x", 400},
      {"/internal/shards/0/scan", 400},
      {"/internal/shards/0/scan?limit=1&next=" + a, 400},                  // unknown parameter
      {"/internal/shards/0/totals?x=1", 400},
      {"/internal/shards/0/position?key=" + a, 200},
      {"/internal/shards/0/position", 400},
      {"/internal/shards/0,1/position?key=" + a, 400},                 // one shard's                                // no key
      {"/internal/shards/0/position?key=" + a + "&limit=1", 400},          // unknown parameter
      {"/internal/shards/0/position?key=a%2Bb", 400},                      // not base64url
      {"/internal/shards/x/totals", 400},
      {"/internal/shards/-1/totals", 400},
      {"/internal/shards/0/drop", 404},
      {"/internal/shards/0", 404},
      {"/internal/shards", 404},
      {"/internal/shards/7/totals", 503},
      {"/internal/shards/0,1/scan?limit=1", 200},                          // several shards: one answer
      {"/internal/shards/0,1/totals", 200},
      {"/internal/shards/0,1/get?owner=" + a + "&key=" + a, 400},         // a get reads one shard
      {"/internal/shards/1,0/totals", 400},                                // not ascending
      {"/internal/shards/0,0/totals", 400},
      {"/internal/shards/0,/totals", 400},
      {"/internal/shards/0,7/scan?limit=1", 503},                          // one not served: all refused
      {"/internal/shards/0,1/domains?limit=5", 200},                       // the index of domain names
      {"/internal/shards/0/domains?prefix=" + a + "&limit=5", 200},
      {"/internal/shards/0/domains?limit=5&after=" + a, 400},              // no cursor: the first N only
  };
  for (const auto& [target, status] : cases) EXPECT_EQ(Get(port, target).status, status) << target;
  std::string many = "/internal/shards/0/get?owner=" + a;
  for (size_t i = 0; i < http::kMaxShardGetKeys; ++i) many += "&key=" + a;
  EXPECT_EQ(Get(port, many).status, 200);
  EXPECT_EQ(Get(port, many + "&key=" + a).status, 400);
  EXPECT_EQ(Raw(port, "HEAD /internal/shards/0/totals HTTP/1.1\r\nHost: x\r\n\r\n").status, 405);
  // A POST takes the parameters as a form body, and only so.
  const auto post = [&](const std::string& target, const std::string& type, const std::string& body) {
    return Raw(port, "POST " + target + " HTTP/1.1\r\nHost: x\r\nContent-Type: " + type +
                         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body)
        .status;
  };
  const std::string form = "application/x-www-form-urlencoded";
  EXPECT_EQ(post("/internal/shards/0,1/scan", form, "limit=3"), 200);
  EXPECT_EQ(post("/internal/shards/0/totals", form, ""), 200);
  EXPECT_EQ(post("/internal/shards/0/get", form, "owner=" + a + "&key=" + a), 200);
  EXPECT_EQ(post("/internal/shards/0/scan", form, "limit=0"), 400);
  EXPECT_EQ(post("/internal/shards/0/scan?limit=3", form, ""), 400);  // parameters in the body only
  EXPECT_EQ(post("/internal/shards/0/scan", "text/plain", "limit=3"), 415);
  // Counted under one route.
  const std::string metrics = Get(port, "/metrics").body;
  EXPECT_NE(metrics.find(R"(webindex_http_responses_total{route="/internal/shards",code="503"} 2)"),
            std::string::npos);
  EXPECT_NE(metrics.find(R"(webindex_http_request_duration_seconds_count{route="/internal/shards"})"),
            std::string::npos);
}

}  // namespace
}  // namespace webindex::testing
