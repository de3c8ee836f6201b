// otel_settings.hpp — the standard OpenTelemetry variables, read once: where a member's spans go
// (OTLP/HTTP protobuf), with which headers, under which service name, and the batch processor's
// bounds.
//
// Invariant: no endpoint, OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none ⇒ disabled (no
// exporter at all). OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as it is;
// OTEL_EXPORTER_OTLP_ENDPOINT gets `/v1/traces` appended. A value that cannot be used is a
// warning (W-OTL-001 for a protocol other than http/protobuf, W-OTL-002 for the rest) with a
// Fix, and its default is kept (an endpoint that is not an http(s) URL disables the export). A
// warning never quotes a header's value (OTEL_EXPORTER_OTLP_HEADERS may hold an API key).
// Rule: docs/observability.md §Pointing mur at a collector.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mur {

struct OtelSettings {
  bool enabled = false;
  std::string url;                                         // …/v1/traces
  std::vector<std::pair<std::string, std::string>> headers; // percent-decoded; secret
  std::string service_name = "mur";
  std::chrono::milliseconds timeout{10000};                // one export request
  std::chrono::milliseconds schedule_delay{1000};          // OTEL_BSP_SCHEDULE_DELAY
  std::size_t max_queue = 2048;                            // OTEL_BSP_MAX_QUEUE_SIZE
  std::size_t max_batch = 512;                             // OTEL_BSP_MAX_EXPORT_BATCH_SIZE
  std::vector<std::string> warnings;                       // "W-OTL-00N: … Fix: …", each once
};

// `env` reads one variable (nullopt: unset; blank counts as unset).
OtelSettings read_otel_settings(const std::function<std::optional<std::string>(const std::string&)>& env);

// The process environment's settings.
OtelSettings read_otel_settings_from_environment();

} // namespace mur
