// libFuzzer target: any bytes as trace.jsonl text. read_trace_lines (and read_trace_line on
// each line) never throws or crashes; every event it returns keeps the reader's promise (an
// object with a string event_type and an integer timestamp within [0, 2^53)), and the readers'
// field access on it (trace_fields) never throws, nor does reading session_start's `price`
// (price_in), which yields only finite prices ≥ 0.
#include "messages/vocabulary/token_price.hpp"
#include "messages/vocabulary/trace_line.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  mur::TraceLines lines = mur::read_trace_lines(text);
  if (lines.tail > size) std::abort();
  for (const auto& e : lines.events) {
    if (!e.is_object()) std::abort();
    auto type = e.find("event_type");
    auto ts = e.find("timestamp");
    if (type == e.end() || !type->is_string() || ts == e.end() || !ts->is_number_integer()) std::abort();
    const auto t = ts->get<std::int64_t>();
    if (t < 0 || t > mur::trace_int_max) std::abort();
    (void)e.dump(); // what a reader prints again is always valid UTF-8
    if (auto p = e.find("price"); p != e.end())
      if (auto price = mur::price_in(*p); price && !(price->input_per_mtok >= 0 && price->output_per_mtok >= 0))
        std::abort();
  }
  (void)mur::read_trace_line(text);
  return 0;
}
