// The standard OTEL_* variables (messages/vocabulary/otel_settings.hpp).
#include "messages/vocabulary/otel_settings.hpp"

#include <catch2/catch.hpp>

#include <map>

namespace {

mur::OtelSettings settings(std::map<std::string, std::string> vars) {
  return mur::read_otel_settings([vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
}

} // namespace

TEST_CASE("no endpoint, or the SDK disabled, means no exporter", "[otel][settings]") {
  CHECK_FALSE(settings({}).enabled);
  CHECK_FALSE(settings({{"OTEL_SERVICE_NAME", "x"}}).enabled);
  CHECK_FALSE(settings({{"OTEL_EXPORTER_OTLP_ENDPOINT", "  "}}).enabled);
  CHECK_FALSE(settings({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"}, {"OTEL_SDK_DISABLED", "TRUE"}}).enabled);
  CHECK_FALSE(settings({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"}, {"OTEL_TRACES_EXPORTER", "none"}}).enabled);
  CHECK(settings({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"}, {"OTEL_SDK_DISABLED", "false"}}).enabled);
}

TEST_CASE("the endpoint gets /v1/traces, the traces endpoint is used as it is", "[otel][settings]") {
  auto s = settings({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"}});
  CHECK(s.enabled);
  CHECK(s.url == "http://localhost:4318/v1/traces");
  CHECK(s.service_name == "mur");
  CHECK(s.timeout == std::chrono::milliseconds(10000));
  CHECK(s.warnings.empty());
  CHECK(settings({{"OTEL_EXPORTER_OTLP_ENDPOINT", "https://c.example:4318/otlp/"}}).url ==
        "https://c.example:4318/otlp/v1/traces");
  CHECK(settings({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:1"}, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://b:2/t"}}).url ==
        "http://b:2/t");
  auto bad = settings({{"OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"}});
  CHECK_FALSE(bad.enabled);
  REQUIRE(bad.warnings.size() == 1);
  CHECK(bad.warnings[0].rfind("W-OTL-002: OTEL_EXPORTER_OTLP_ENDPOINT is not an http", 0) == 0);
  CHECK(bad.warnings[0].find("Fix: ") != std::string::npos);
}

TEST_CASE("headers are percent-decoded name=value pairs, and a bad one is named without its value", "[otel][settings]") {
  auto s = settings({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"},
                     {"OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=s3cr%2Ft%3D1 , tenant = blue,broken-s3cret,,a=%zz"}});
  REQUIRE(s.headers.size() == 2);
  CHECK(s.headers[0] == std::pair<std::string, std::string>{"x-api-key", "s3cr/t=1"});
  CHECK(s.headers[1] == std::pair<std::string, std::string>{"tenant", "blue"});
  REQUIRE(s.warnings.size() == 2);
  CHECK(s.warnings[0].rfind("W-OTL-002: entry 3 of OTEL_EXPORTER_OTLP_HEADERS", 0) == 0);
  CHECK(s.warnings[1].rfind("W-OTL-002: entry 5 of OTEL_EXPORTER_OTLP_HEADERS", 0) == 0);
  for (const auto& w : s.warnings) {
    CHECK(w.find("s3cr") == std::string::npos);
    CHECK(w.find("%zz") == std::string::npos);
  }
}

TEST_CASE("a protocol other than http/protobuf and values that are not numbers are warned about", "[otel][settings]") {
  auto s = settings({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"},
                     {"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"},
                     {"OTEL_EXPORTER_OTLP_TIMEOUT", "2s"},
                     {"OTEL_BSP_MAX_QUEUE_SIZE", "16"},
                     {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "64"},
                     {"OTEL_BSP_SCHEDULE_DELAY", "250"},
                     {"OTEL_SERVICE_NAME", "shop"}});
  CHECK(s.enabled);
  REQUIRE(s.warnings.size() == 2);
  CHECK(s.warnings[0].rfind("W-OTL-001: OTEL_EXPORTER_OTLP_PROTOCOL is 'grpc'", 0) == 0);
  CHECK(s.warnings[0].find("http/protobuf") != std::string::npos);
  CHECK(s.warnings[1].rfind("W-OTL-002: OTEL_EXPORTER_OTLP_TIMEOUT", 0) == 0);
  CHECK(s.timeout == std::chrono::milliseconds(10000));
  CHECK(s.max_queue == 16);
  CHECK(s.max_batch == 16); // never more than the queue holds
  CHECK(s.schedule_delay == std::chrono::milliseconds(250));
  CHECK(s.service_name == "shop");
  CHECK(settings({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://l:1"}, {"OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"}})
          .warnings.empty());
}
