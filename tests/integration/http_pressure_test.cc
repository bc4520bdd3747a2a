// The HTTP server at its connection limits: an idle connection (the one idle longest) makes
// room for a new client, a request in progress is never cut, one client cannot lock another
// out, and connections going idle under pressure wait less for their next request.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "http_test_client.h"

namespace webindex::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr char kHealthz[] = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
constexpr char kUnfinished[] = "GET /healthz HTTP/1.1\r\nHost: x\r\n";  // the header's end follows later
constexpr char kOtherClient[] = "127.0.0.2";  // Linux routes all of 127/8 to lo: another client address
constexpr int kMax = 20;
// Well under the 30 s idle timeout these tests serve with: an answer within it did not wait
// for idle connections to time out.
constexpr seconds kPrompt{5};

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

//! Sends one keep-alive request; true if it was answered 200.
bool Served(Conn& c) { return c.Send(kHealthz) && Parse(c.ReadResponse()).status == 200; }

class HttpPressureTest : public HttpFixture {
 protected:
  //! Serves with at most kMax connections, no per-client limit, 30 s idle (also under
  //! pressure) and read timeouts, then applies `edit`.
  void Restart(const std::function<void(http::ServerOptions&)>& edit = {}) {
    server_.reset();
    http::ServerOptions o = Options();
    o.max_connections = kMax;
    o.max_connections_per_client = 0;
    o.read_timeout = seconds(30);
    o.idle_timeout = seconds(30);
    o.idle_timeout_under_pressure = seconds(30);
    if (edit) edit(o);
    server_ = std::make_unique<http::Server>(*store_, o);
    ASSERT_TRUE(server_->Start().ok());
    port_ = server_->port();
  }

  http::ConnectionStats& stats() { return server_->api().connection_stats(); }

  //! Waits (up to 10 s) until `done`; the server admits and sheds on its own threads.
  static bool WaitFor(const std::function<bool()>& done) {
    for (auto deadline = Clock::now() + seconds(10); Clock::now() < deadline;) {
      if (done()) return true;
      std::this_thread::sleep_for(milliseconds(5));
    }
    return done();
  }

  //! Connects and waits until the server counts the connection, so the order of the
  //! connections is the order they were admitted in.
  std::unique_ptr<Conn> Open(const char* from = nullptr) {
    const uint64_t before = Events();
    const int64_t open = stats().open;
    auto c = std::make_unique<Conn>(port_, 10, from);
    EXPECT_TRUE(c->connected());
    EXPECT_TRUE(WaitFor([&] { return stats().open > open || Events() > before; })) << "never admitted";
    return c;
  }

  //! Connections shed or refused so far.
  uint64_t Events() {
    auto& s = stats();
    return s.shed_server + s.shed_client + s.refused_server + s.refused_client;
  }
};

TEST_F(HttpPressureTest, IdleConnectionIdleLongestMakesRoomForANewClient) {
  Restart();
  std::vector<std::unique_ptr<Conn>> idle;
  for (int i = 0; i < kMax; ++i) idle.push_back(Open());
  ASSERT_EQ(stats().open, kMax);
  ASSERT_TRUE(Served(*idle[0]));  // the oldest connection is now the one idle the shortest time

  const auto start = Clock::now();
  Conn fresh(port_);
  ASSERT_TRUE(fresh.Send(kHealthz));
  EXPECT_EQ(Parse(fresh.ReadResponse()).status, 200) << "a new client was locked out";
  EXPECT_LT(SecondsSince(start), kPrompt.count()) << "served only after idle connections timed out";
  EXPECT_TRUE(idle[1]->ClosedWithin(kPrompt)) << "the connection idle longest was not the one closed";
  for (int i = 0; i < kMax; ++i) {
    if (i != 1) EXPECT_TRUE(Served(*idle[i])) << "connection " << i << " was closed too";
  }
  EXPECT_TRUE(Served(fresh));

  EXPECT_EQ(stats().shed_server, 1u);
  EXPECT_EQ(stats().refused_server, 0u);
  const std::string metrics = server_->api().Metrics();
  EXPECT_NE(metrics.find("webindex_http_connections_shed_total{limit=\"server\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("webindex_http_connections_open 20\n"), std::string::npos) << metrics;
}

TEST_F(HttpPressureTest, RequestInProgressIsNeverClosedForANewConnection) {
  Restart();
  std::vector<std::unique_ptr<Conn>> conns;
  for (int i = 0; i < kMax; ++i) conns.push_back(Open());
  ASSERT_TRUE(conns[0]->Send(kUnfinished));  // the oldest, idle longest: now mid-request
  ASSERT_TRUE(WaitFor([&] { return stats().idle == kMax - 1; }));

  Conn fresh(port_);
  ASSERT_TRUE(fresh.Send(kHealthz));
  EXPECT_EQ(Parse(fresh.ReadResponse()).status, 200);
  EXPECT_TRUE(conns[1]->ClosedWithin(kPrompt)) << "the oldest idle connection was not the one closed";
  ASSERT_TRUE(conns[0]->Send("\r\n"));
  EXPECT_EQ(Parse(conns[0]->ReadResponse()).status, 200) << "the request in progress was cut";
}

TEST_F(HttpPressureTest, NewConnectionIsRefusedWith503WhenNoneIsIdle) {
  Restart();
  std::vector<std::unique_ptr<Conn>> busy;
  for (int i = 0; i < kMax; ++i) {
    busy.push_back(Open());
    ASSERT_TRUE(busy.back()->Send(kUnfinished));
  }
  ASSERT_TRUE(WaitFor([&] { return stats().idle == 0; }));

  const auto start = Clock::now();
  Conn refused(port_);
  const Reply r = Parse(refused.ReadToEnd());
  EXPECT_EQ(r.status, 503) << r.head;
  EXPECT_NE(r.head.find("Retry-After: 1"), std::string::npos) << r.head;
  EXPECT_LT(SecondsSince(start), kPrompt.count()) << "the refusal waited";
  EXPECT_EQ(stats().refused_server, 1u);
  EXPECT_EQ(stats().shed_server, 0u);
  for (int i = 0; i < kMax; ++i) {
    ASSERT_TRUE(busy[i]->Send("\r\n"));
    EXPECT_EQ(Parse(busy[i]->ReadResponse()).status, 200) << "request " << i << " was cut";
  }
}

TEST_F(HttpPressureTest, OneClientsFloodClosesOnlyItsOwnConnections) {
  constexpr int kPerClient = 5;
  constexpr int kFlood = 30;  // more than the whole server takes
  Restart([](http::ServerOptions& o) { o.max_connections_per_client = kPerClient; });
  auto other = Open(kOtherClient);  // idle longest of all
  std::vector<std::unique_ptr<Conn>> flood;
  for (int i = 0; i < kFlood; ++i) flood.push_back(Open());
  EXPECT_EQ(stats().open, 1 + kPerClient);
  EXPECT_EQ(stats().shed_client, uint64_t{kFlood - kPerClient});
  EXPECT_EQ(stats().shed_server, 0u);
  EXPECT_TRUE(flood[0]->ClosedWithin(kPrompt));
  EXPECT_TRUE(flood[kFlood - kPerClient - 1]->ClosedWithin(kPrompt));
  EXPECT_TRUE(Served(*other)) << "the other client's idle connection was closed";
  for (int i = kFlood - kPerClient; i < kFlood; ++i) EXPECT_TRUE(Served(*flood[i])) << i;

  // The flooding client's connections all busy: its next one is refused, the other's served.
  for (int i = kFlood - kPerClient; i < kFlood; ++i) ASSERT_TRUE(flood[i]->Send(kUnfinished));
  ASSERT_TRUE(WaitFor([&] { return stats().idle == 1; }));  // `other`
  Conn refused(port_);
  EXPECT_EQ(Parse(refused.ReadToEnd()).status, 429);
  Conn fresh(port_, 10, kOtherClient);
  ASSERT_TRUE(fresh.Send(kHealthz));
  EXPECT_EQ(Parse(fresh.ReadResponse()).status, 200) << "one client locked another out";
  EXPECT_TRUE(Served(*other));
  EXPECT_EQ(stats().refused_client, 1u);
  for (int i = kFlood - kPerClient; i < kFlood; ++i) {
    ASSERT_TRUE(flood[i]->Send("\r\n"));
    EXPECT_EQ(Parse(flood[i]->ReadResponse()).status, 200) << i;
  }
}

TEST_F(HttpPressureTest, IdleTimeoutShrinksUnderPressure) {
  Restart([](http::ServerOptions& o) {
    o.pressure_fraction = 0.5;  // above 10 of 20 connections
    o.idle_timeout_under_pressure = seconds(1);
  });
  std::vector<std::unique_ptr<Conn>> calm, pressed;
  for (int i = 0; i < kMax / 2; ++i) calm.push_back(Open());
  for (int i = 0; i < 5; ++i) pressed.push_back(Open());

  for (auto& c : pressed) EXPECT_TRUE(c->ClosedWithin(kPrompt)) << "idle under pressure, yet waited 30 s";
  ASSERT_TRUE(WaitFor([&] { return stats().open == kMax / 2; }));
  for (auto& c : calm) EXPECT_TRUE(Served(*c)) << "went idle without pressure, yet closed early";
  // Pressure is over: idle again, they wait the full idle timeout.
  EXPECT_FALSE(calm[0]->ClosedWithin(seconds(2)));
  EXPECT_EQ(stats().shed_server + stats().refused_server, 0u);
}

}  // namespace
}  // namespace webindex::testing
