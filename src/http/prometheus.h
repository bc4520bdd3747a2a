// Prometheus text exposition format 0.0.4: families with HELP/TYPE lines and labelled samples,
// plus the pipeline's counters. A PrometheusWriter builds one scrape; one thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipeline/metrics.h"

namespace webindex::http {

using Labels = std::vector<std::pair<std::string, std::string>>;

inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

class PrometheusWriter {
 public:
  //! Starts a family: `type` is counter, gauge or histogram. Call once per name.
  void Family(std::string_view name, std::string_view type, std::string_view help);
  void Sample(std::string_view name, const Labels& labels, uint64_t value);
  void Sample(std::string_view name, const Labels& labels, int64_t value);
  void Sample(std::string_view name, const Labels& labels, double value);
  //! A family with a single unlabelled sample.
  void Counter(std::string_view name, std::string_view help, uint64_t value);
  std::string Take() { return std::move(out_); }

 private:
  void Head(std::string_view name, const Labels& labels);
  std::string out_;
};

//! Every counter of pipeline::Metrics as webindex_<name>_total.
void WritePipelineMetrics(const pipeline::Metrics& metrics, PrometheusWriter& w);

}  // namespace webindex::http
