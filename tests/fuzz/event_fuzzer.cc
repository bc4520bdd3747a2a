// libFuzzer target: crawl-event decoding (JSON, URLs, links, dates) must never crash, leak or
// hit undefined behaviour, whatever the bytes; a decoded event must encode and decode again.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "codec/event.h"
#include "codec/records.h"
#include "codec/state_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static webindex::codec::EventDecoder decoder(webindex::codec::DecodeLimits{1 << 16, 64});
  static webindex::codec::RecordDecoder records;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto ev = decoder.Decode(input);
  if (ev.ok()) {
    const std::string json = webindex::codec::EncodePageJson(ev->page);
    auto page = records.DecodePageJson(json);
    if (!page.ok() || !(*page == ev->page)) __builtin_trap();  // page JSON must round-trip
    webindex::model::PageState state;
    state.page = ev->page;
    state.date = ev->crawl_time;
    auto back = webindex::codec::DecodePageState(webindex::codec::EncodePageState(state));
    if (!back.ok() || !(back->page == state.page) || back->date != state.date) __builtin_trap();
  }
  (void)webindex::codec::ExtractEventUrl(input);
  (void)records.DecodeExport(input);
  (void)webindex::codec::DecodePageState(input);
  (void)webindex::codec::DecodeOutRecord(input);
  (void)webindex::codec::DecodeOutBatch(input);
  return 0;
}
