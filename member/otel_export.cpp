#include "member/otel_export.hpp"

#include "actors/atoms.hpp"
#include "http/otlp_exporter.hpp"
#include "messages/vocabulary/otel_settings.hpp"
#include "messages/vocabulary/span_builder.hpp"
#include "messages/vocabulary/terminal_text.hpp"
#include "messages/wire/trace_event.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <mutex>

namespace mur {

struct MemberOtelExport::State {
  OtelSettings settings;
  std::mutex mu; // the builder: written on the recorder's thread, its resource read on the exporter's
  SpanBuilder builder;
  std::unique_ptr<OtlpExporter> exporter;
};

namespace {

void print_warnings(const OtelSettings& s) {
  for (const auto& w : s.warnings) std::cerr << terminal_safe_for(2, "warning " + w) << "\n";
}

} // namespace

std::shared_ptr<MemberOtelExport> MemberOtelExport::start(bool print_warnings_here) {
  OtelSettings settings = read_otel_settings_from_environment();
  if (print_warnings_here) print_warnings(settings);
  if (!settings.enabled) return nullptr;
  auto out = std::make_shared<MemberOtelExport>();
  out->st_ = std::make_shared<State>();
  out->st_->settings = std::move(settings);
  std::weak_ptr<State> weak = out->st_;
  const std::string service = out->st_->settings.service_name;
  out->st_->exporter = std::make_unique<OtlpExporter>(out->st_->settings, [weak, service] {
    auto st = weak.lock();
    if (!st) return std::vector<OtelAttribute>{otel_attr("service.name", service)};
    std::lock_guard<std::mutex> lock(st->mu);
    return st->builder.resource(service);
  });
  return out;
}

TraceSink MemberOtelExport::wrap(TraceSink file_sink) {
  auto st = st_;
  auto write = file_sink.write;
  TraceSink out = std::move(file_sink); // its flush and its blob writer stay as they are
  out.write = [st, write](const std::string& line) {
    if (write) write(line);
    std::vector<OtelSpan> spans;
    {
      std::lock_guard<std::mutex> lock(st->mu);
      spans = st->builder.take(line);
    }
    st->exporter->offer(std::move(spans));
  };
  return out;
}

void MemberOtelExport::finish(caf::scoped_actor& self, const trace_port& trace) {
  const OtlpCounts c = st_->exporter->finish(std::min(final_flush_bound, st_->settings.timeout));
  const std::uint64_t lost = c.dropped + c.failed;
  std::string why; // each cause that lost spans, the others left out
  if (c.dropped > 0)
    why = std::to_string(c.dropped) + " dropped: the queue was full or the final flush ran out of time";
  if (c.failed > 0)
    why += (why.empty() ? "" : "; ") + std::to_string(c.failed) + " failed" +
           (c.last_failure.empty() ? std::string() : ": " + c.last_failure);
  if (lost > 0)
    std::cerr << terminal_safe_for(
                   2, "warning W-OTL-003: " + std::to_string(lost) + " of " + std::to_string(lost + c.exported) +
                        " span(s) were not exported (" + why +
                        "). Fix: check that the collector at OTEL_EXPORTER_OTLP_ENDPOINT is up and answers within "
                        "OTEL_EXPORTER_OTLP_TIMEOUT; raise OTEL_BSP_MAX_QUEUE_SIZE for bursts")
              << "\n";
  nlohmann::json f{{"spans_exported", c.exported}, {"spans_dropped", c.dropped}, {"spans_failed", c.failed}};
  self->send(trace, TraceEvent{"otel_export", f.dump()});
  self->request(trace, std::chrono::seconds(5), trace_atom_v)
    .receive([](const std::vector<std::string>&) {}, [](const caf::error&) {});
}

void print_otel_warnings() { print_warnings(read_otel_settings_from_environment()); }

} // namespace mur
