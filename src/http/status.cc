#include "http/status.h"

#include <utility>
#include <vector>

#include <fmt/format.h>

#include "codec/json_writer.h"
#include "query/query_json.h"

namespace webindex::http {
namespace {

constexpr char kNoProcessor[] = "no processor runs in this server: it answers from its data dir only";

// An unknown lag is null, never 0: a group whose members hold no partition (a join under way)
// has records waiting that nobody reports.
void WriteLag(codec::JsonWriter& w, const std::vector<ProcessorStatus::Lag>& lag) {
  int64_t total = 0, unknown = 0;
  for (const auto& l : lag) l.known ? total += l.lag : ++unknown;
  w.BeginObject().Key("total");
  unknown ? w.Null() : w.Int(total);
  w.Key("known").Int(total).Key("unknownPartitions").Int(unknown).Key("partitions").BeginArray();
  for (const auto& l : lag) {
    w.BeginObject().Key("stage").String(l.stage).Key("topic").String(l.topic).Key("partition").Int(l.partition);
    w.Key("from").String(l.member ? "this process" : "group");
    w.Key("position");
    l.known ? w.Int(l.position) : w.Null();
    w.Key("end").Int(l.end).Key("lag");
    l.known ? w.Int(l.lag) : w.Null();
    w.EndObject();
  }
  w.EndArray().EndObject();
}

void WriteRank(codec::JsonWriter& w, const rank::RankResultInfo& r) {
  w.BeginObject().Key("result").Uint(r.id).Key("computedAtMs").Int(r.computed_at_ms);
  w.Key("iterations").Int(r.iterations).Key("nodes").Uint(r.nodes).Key("edges").Uint(r.edges);
  w.Key("seconds").Raw(fmt::format("{:.3f}", r.seconds));
  w.Key("exports").BeginObject().Key("topic").String(r.exports_topic).Key("positions").BeginArray();
  for (int64_t p : r.positions) w.Int(p);
  w.EndArray().EndObject().EndObject();
}

void WriteRankChecks(codec::JsonWriter& w, const ProcessorStatus& p) {
  w.BeginObject().Key("intervalSeconds").Raw(fmt::format("{:g}", p.pagerank_interval.count() / 1000.0));
  w.Key("running").Bool(p.pagerank_running).Key("stored").Uint(p.pagerank_computations);
  w.Key("unchanged").Uint(p.pagerank_unchanged).Key("failed").Uint(p.pagerank_failures).EndObject();
}

void WriteDeadLetters(codec::JsonWriter& w, const ProcessorStatus::DeadLetters& d) {
  w.BeginObject().Key("topic").String(d.topic).Key("count").Uint(d.count).Key("last");
  if (d.last_reason) {
    w.BeginObject().Key("reason").String(*d.last_reason).Key("atMs").Int(d.last_at_ms).EndObject();
  } else {
    w.Null();
  }
  w.Key("stored");
  d.stored ? w.Int(*d.stored) : w.Null();
  w.Key("read").String(DeadLetterCommand(d.brokers, d.topic)).EndObject();
}

//! `s` as one shell word: as it is when it holds nothing the shell treats specially.
std::string ShellWord(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:_-/@=+") ==
                        std::string::npos) {
    return s;
  }
  std::string quoted = "'";
  for (char c : s) {
    if (c == '\'') {
      quoted += "'\\''";  // end the quote, an escaped quote, quote again
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

}  // namespace

std::string DeadLetterCommand(const std::string& brokers, const std::string& topic) {
  return "kcat -b " + ShellWord(brokers) + " -C -t " + ShellWord(topic) + R"( -o beginning -e -f 'key %k: %h\n%s\n\n')";
}

std::string StatusJson(const std::optional<ProcessorStatus>& processor,
                       const Result<std::optional<rank::RankResultInfo>>& rank,
                       const Result<sink::TableTotals>& totals, const Status& health) {
  std::vector<std::pair<std::string, std::string>> unavailable;
  codec::JsonWriter w;
  w.BeginObject();
  w.Key("healthy").Bool(health.ok());
  if (!health.ok()) w.Key("error").String(health.message());
  auto missing = [&](const char* key, std::string reason) {
    w.Key(key).Null();
    unavailable.emplace_back(key, std::move(reason));
  };
  const ProcessorStatus* p = processor ? &*processor : nullptr;
  if (p) {
    w.Key("generation").Uint(p->generation).Key("events").Uint(p->events);
  } else {
    missing("generation", kNoProcessor);
    missing("events", kNoProcessor);
  }
  if (p && p->events_per_second) {
    w.Key("eventsPerSecond").Raw(fmt::format("{:.1f}", *p->events_per_second));
    w.Key("eventsPerSecondOver").Raw(fmt::format("{:.1f}", p->rate_seconds));
  } else {
    missing("eventsPerSecond", p ? "measured once the processor has run for a second" : kNoProcessor);
  }
  if (p && p->lag) {
    w.Key("lag");
    WriteLag(w, *p->lag);
  } else {
    missing("lag", p ? "the brokers did not answer: " + p->lag_error : kNoProcessor);
  }
  if (rank.ok() && *rank) {
    w.Key("pagerank");
    WriteRank(w, **rank);
  } else if (!rank.ok()) {
    missing("pagerank", "cannot read the PageRank result: " + rank.status().message());
  } else if (p && !p->pagerank_enabled) {
    missing("pagerank", "off: pagerank.interval_s is 0");
  } else if (p) {
    missing("pagerank", fmt::format("no result yet: one is computed every pagerank.interval_s ({:g} s) when the "
                                    "table changed",
                                    p->pagerank_interval.count() / 1000.0));
  } else {
    missing("pagerank", "no PageRank result is stored in this data dir");
  }
  if (p && p->pagerank_enabled) {
    w.Key("pagerankChecks");
    WriteRankChecks(w, *p);
  } else {
    missing("pagerankChecks", p ? "off: pagerank.interval_s is 0" : kNoProcessor);
  }
  if (p) {
    w.Key("deadLetters");
    WriteDeadLetters(w, p->dead_letters);
    if (!p->dead_letters.stored) {
      unavailable.emplace_back("deadLetters.stored", "the brokers did not answer: " + p->dead_letters.stored_error);
    }
  } else {
    missing("deadLetters", kNoProcessor);
  }
  if (totals.ok()) {
    w.Key("totals").Raw(query::ToJson(*totals));
  } else {
    missing("totals", totals.status().message());
  }
  w.Key("unavailable").BeginObject();
  for (const auto& [key, reason] : unavailable) w.Key(key).String(reason);
  w.EndObject();
  return w.EndObject().Take();
}

}  // namespace webindex::http
