// otel_export.hpp — a member process's OpenTelemetry export: the standard OTEL_* variables read
// once, the trace sink teed into the span builder and the OTLP exporter, and the bounded final
// flush when the session ends.
//
// Invariant: without an endpoint nothing is made (no thread, no builder: zero cost). The spans
// come from the very lines written to trace.jsonl, after they are written; the exporter never
// blocks the recorder (http/otlp_exporter.hpp). The final flush takes at most
// `final_flush_bound`; spans not exported by then (dropped or failed) are said once on stderr as
// W-OTL-003 and recorded in the trace as an `otel_export` event. Settings warnings
// (W-OTL-001/002) are printed only by a process that says them for its command: a lone
// `mur run --capsule` (a formation's launcher prints its own, once).
// Rule: docs/observability.md.
#pragma once

#include "actors/ports.hpp"
#include "actors/trace_recorder.hpp"

#include <caf/fwd.hpp>

#include <chrono>
#include <memory>

namespace mur {

inline constexpr std::chrono::milliseconds final_flush_bound{5000};

class OtlpExporter;
class SpanBuilder;

class MemberOtelExport {
public:
  // nullptr when the variables name no endpoint (or disable the export).
  static std::shared_ptr<MemberOtelExport> start(bool print_warnings);
  // The file sink, with each line also handed to the span builder and its spans to the exporter.
  TraceSink wrap(TraceSink file_sink);
  // After the last trace line was written: the final flush, W-OTL-003 when spans were lost, and
  // the counts as an `otel_export` trace event (flushed to disk before it returns).
  void finish(caf::scoped_actor& self, const trace_port& trace);

  struct State;
private:
  std::shared_ptr<State> st_;
};

// Prints each settings warning of the process environment once (the formation launcher's).
void print_otel_warnings();

} // namespace mur
