// libFuzzer target: any bytes as trace.jsonl text. read_trace_lines (and read_trace_line on
// each line) never throws or crashes; every event it returns keeps the reader's promise (an
// object with a string event_type and an integer timestamp within [0, 2^53)), and the readers'
// field access on it (trace_fields) never throws, nor does reading session_start's `price`
// (price_in), which yields only finite prices ≥ 0; nor do the readers of a task's model requests
// and of the view's transcript index, whose every blob path is a 64-hex name under the
// session's own blobs/ folder.
#include "launcher/traces/trace_model_requests.hpp"
#include "launcher/view/transcript_index.hpp"
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
    (void)mur::model_requests_json({mur::model_request_of(e, t)}, 0).dump();
  }
  const std::string dir = "/session";
  for (const auto& [task, entry] : mur::transcript_index({mur::SessionEvents{"m", "ses", lines.events}}, {dir}))
    if (!entry.blob_path.empty() &&
        (entry.blob_path.size() != dir.size() + 7 + 64 || entry.blob_path.rfind(dir + "/blobs/", 0) != 0))
      std::abort();
  (void)mur::read_trace_line(text);
  return 0;
}
