#include "app/progress_line.h"

#include <algorithm>

#include <fmt/format.h>

namespace webindex::app {
namespace {

//! Counters that say something went wrong or moved between members: shown when they change.
constexpr std::string_view kWorthALook[] = {"invalid",      "corrupt",          "lost",
                                            "undeliverable", "fenced",           "duplicates",
                                            "other_generation", "invalid_triple_records", "tasks_taken_over",
                                            "tasks_given_up"};

//! 1234567 -> "1,234,567".
std::string Grouped(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

uint64_t ValueOf(const std::vector<std::pair<std::string_view, uint64_t>>& counters, std::string_view name) {
  for (const auto& [n, v] : counters) {
    if (n == name) return v;
  }
  return 0;
}

}  // namespace

std::optional<std::string> ProgressLine::Next(const pipeline::Metrics& metrics, std::optional<int64_t> lag,
                                              Clock::time_point now) {
  auto counters = metrics.Counters();
  if (!last_.empty() && counters == last_ && lag == last_lag_) return std::nullopt;
  const double seconds = std::chrono::duration<double>(now - last_at_).count();
  auto per_second = [&](uint64_t moved) {
    return seconds > 0 ? Grouped(static_cast<uint64_t>(static_cast<double>(moved) / seconds + 0.5)) : std::string("0");
  };
  auto rate = [&](std::string_view name) { return per_second(ValueOf(counters, name) - ValueOf(last_, name)); };
  std::string line = fmt::format("{} events/s ({} in all), {} exports applied/s", rate("events"),
                                 Grouped(ValueOf(counters, "events")), rate("exports_applied"));
  if (ValueOf(counters, "triple_records") > 0) {
    line += fmt::format(", {} statements/s", per_second(ValueOf(counters, "statements_added") +
                                                        ValueOf(counters, "statements_removed") -
                                                        ValueOf(last_, "statements_added") -
                                                        ValueOf(last_, "statements_removed")));
  }
  line += lag ? fmt::format(", lag {} records", Grouped(static_cast<uint64_t>(std::max<int64_t>(*lag, 0))))
              : std::string(", lag unknown");
  if (const uint64_t dead = ValueOf(counters, "dead_lettered"); dead > 0) {
    line += fmt::format("; {} dead letters", Grouped(dead));
  }
  std::string moved;
  for (std::string_view name : kWorthALook) {
    const uint64_t value = ValueOf(counters, name);
    if (value != ValueOf(last_, name) && value > 0) moved += fmt::format(" {}={}", name, value);
  }
  if (!moved.empty()) line += ";" + moved;
  last_ = std::move(counters);
  last_lag_ = lag;
  last_at_ = now;
  return line;
}

std::string ProgressLine::Totals(const pipeline::Metrics& metrics) {
  std::string out;
  for (const auto& [name, value] : metrics.Counters()) {
    if (value > 0) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
  }
  return out.empty() ? "nothing read" : out;
}

}  // namespace webindex::app
