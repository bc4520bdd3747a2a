#include "bench_fixtures.h"

#include <stdlib.h>

#include <cstdio>
#include <filesystem>

#include "codec/event.h"
#include "codec/state_codec.h"
#include "common/bytes.h"
#include "graph/index_set.h"
#include "model/url.h"

namespace webindex::benchmarks {

bench::SyntheticCrawl Crawl(uint64_t pages) {
  bench::CrawlShape shape;
  shape.pages = pages;
  return bench::SyntheticCrawl(shape, pages);
}

std::vector<std::string> Events(uint64_t first, uint64_t n) {
  const auto crawl = Crawl(first + n);
  std::vector<std::string> out;
  out.reserve(n);
  for (uint64_t i = first; i < first + n; ++i) out.push_back(crawl.Event(i).value);
  return out;
}

std::vector<model::Page> Pages(uint64_t first, uint64_t n) {
  codec::EventDecoder decoder;
  std::vector<model::Page> out;
  for (const auto& json : Events(first, n)) {
    auto ev = decoder.Decode(json);
    if (!ev.ok()) {
      std::fprintf(stderr, "synthetic event does not decode: %s\n", ev.status().ToString().c_str());
      abort();
    }
    out.push_back(std::move(ev->page));
  }
  return out;
}

std::vector<std::string> UriPool(uint64_t n) {
  const auto crawl = Crawl(n / 4);  // URI space 4 x pages = n
  std::vector<std::string> out;
  out.reserve(n);
  for (uint64_t j = 0; j < n; ++j) {
    auto url = model::ParseUrl(crawl.PageUrl(j));
    if (url.ok()) out.push_back(url->ToUri());
  }
  return out;
}

TempStore::TempStore() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "webindex-microbench-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) abort();
  dir_ = tmpl;
  state::StoreOptions options;
  options.scan_only.push_back(graph::ScanOnlyRows({}));  // as `webindex run` opens its store
  auto store = state::Store::Open(dir_, options);
  if (!store.ok()) {
    std::fprintf(stderr, "cannot open a store in %s: %s\n", dir_.c_str(), store.status().ToString().c_str());
    abort();
  }
  store_ = std::move(store).value();
}

TempStore::~TempStore() {
  store_.reset();
  std::filesystem::remove_all(dir_);
}

Status RunnerEmulator::RunBatch(pipeline::Stage& stage, const std::vector<InRecord>& records) {
  state::WriteBatch wb(store_);
  pipeline::BatchContext ctx(store_, wb, name_, metrics_);
  RETURN_IF_ERROR(stage.Process(records, ctx));
  for (const auto& key : unacked_) wb.Delete(state::Family::kOutbox, key);
  unacked_.clear();
  if (!ctx.emitted().empty()) {  // one row per commit, as StageRunner writes them
    BytesWriter w;
    w.str() = name_ + "/";
    w.PutFixed64BE(next_seq_);
    next_seq_ += ctx.emitted().size();
    wb.Put(state::Family::kOutbox, w.str(), codec::EncodeOutBatch(ctx.emitted()));
    unacked_.push_back(w.Take());
  }
  BytesWriter offset;
  offset.PutFixed64BE(records.empty() ? 0 : static_cast<uint64_t>(records.back().offset + 1));
  wb.Put(state::Family::kOffsets, name_ + "/input/0", offset.str());
  return store_.Write(wb);
}

std::vector<InRecord> Records(const std::string& topic, const std::vector<std::string>& values) {
  std::vector<InRecord> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out[i].topic = topic;
    out[i].offset = static_cast<int64_t>(i);
    out[i].value = values[i];
  }
  return out;
}

}  // namespace webindex::benchmarks
