// otlp_exporter.hpp — the real span exporter of one member process: spans in (from the trace
// sink, built by messages/vocabulary/span_builder.hpp), OTLP/HTTP protobuf POSTs out, on a thread
// of its own, so nothing on a task's path ever waits for a collector.
//
// Invariant: `offer` never blocks on the network: it takes the queue's lock, appends what fits
// in `max_queue` and COUNTS what does not (dropped). The thread sends a batch of at most
// `max_batch` spans when that many wait or `schedule_delay` passed, one request at a time, each
// bounded by `timeout`; a batch the collector did not take (a refused connection, a timeout, a
// status other than 2xx) is counted as failed and not sent again. `finish` sends what is left
// within its bound and joins the thread. The headers (an API key, perhaps) are handed to libcurl
// only: never printed, traced or logged.
// Rule: spans are batched off the request path and dropped, counted, rather than block
// (docs/observability.md §Batching and drops).
#pragma once

#include "messages/vocabulary/otel_settings.hpp"
#include "messages/vocabulary/otlp_protobuf.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mur {

struct OtlpCounts {
  std::uint64_t exported = 0; // spans a collector took (2xx)
  std::uint64_t dropped = 0;  // spans that found the queue full
  std::uint64_t failed = 0;   // spans of batches the collector did not take
  std::string last_failure;   // why the last batch failed (a status, a curl error; never a header)
};

class OtlpExporter {
public:
  // `resource` is asked for each batch (what session_start said by then).
  OtlpExporter(OtelSettings settings, std::function<std::vector<OtelAttribute>()> resource);
  ~OtlpExporter(); // finish(0) when not finished
  OtlpExporter(const OtlpExporter&) = delete;
  OtlpExporter& operator=(const OtlpExporter&) = delete;

  void offer(std::vector<OtelSpan> spans);
  // Sends what waits, for at most `bound` in all, then stops the thread. Idempotent.
  OtlpCounts finish(std::chrono::milliseconds bound);
  OtlpCounts counts() const;

private:
  void run();
  bool post(const std::string& body, std::chrono::milliseconds limit, std::string& why);

  OtelSettings settings_;
  std::function<std::vector<OtelAttribute>()> resource_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<OtelSpan> queue_;
  OtlpCounts counts_;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point stop_by_;
  // stop_by_ for a request already in flight when finish() was called (libcurl's progress
  // callback reads it without the lock): the request is abandoned then, so finish keeps its bound.
  std::atomic<std::int64_t> abort_at_ns_{std::numeric_limits<std::int64_t>::max()};
  std::thread thread_;
};

} // namespace mur
