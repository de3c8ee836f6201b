#include "messages/vocabulary/otel_settings.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace mur {
namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// %XX decoded; nullopt for a % not followed by two hex digits.
std::optional<std::string> percent_decoded(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(s[i + 2])))
      return std::nullopt;
    out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  return out;
}

bool http_url(const std::string& u) {
  const auto rest = u.rfind("http://", 0) == 0 ? u.substr(7) : u.rfind("https://", 0) == 0 ? u.substr(8) : std::string();
  return !rest.empty() && rest.front() != '/' &&
         std::none_of(u.begin(), u.end(), [](unsigned char c) { return c <= ' ' || c == 0x7f; });
}

// A whole number of at least `least`; nullopt otherwise.
std::optional<long long> whole(const std::string& s, long long least) {
  if (s.empty() || s.size() > 12 || !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::nullopt;
  const long long v = std::stoll(s);
  return v >= least ? std::optional<long long>(v) : std::nullopt;
}

} // namespace

OtelSettings read_otel_settings(const std::function<std::optional<std::string>(const std::string&)>& env) {
  OtelSettings s;
  auto get = [&](const char* name) -> std::string {
    auto v = env(name);
    return v ? trimmed(*v) : std::string();
  };
  if (lower(get("OTEL_SDK_DISABLED")) == "true" || lower(get("OTEL_TRACES_EXPORTER")) == "none") return s;

  std::string url = get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const char* from = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
  if (url.empty()) {
    const std::string base = get("OTEL_EXPORTER_OTLP_ENDPOINT");
    if (base.empty()) return s; // no endpoint: no exporter
    from = "OTEL_EXPORTER_OTLP_ENDPOINT";
    url = base + (base.back() == '/' ? "v1/traces" : "/v1/traces");
  }
  if (!http_url(url)) {
    s.warnings.push_back(std::string("W-OTL-002: ") + from +
                         " is not an http:// or https:// URL; no spans are exported. Fix: set it to the collector's "
                         "OTLP/HTTP address, e.g. http://localhost:4318");
    return s;
  }
  s.url = url;
  s.enabled = true;

  std::string protocol = get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL");
  if (protocol.empty()) protocol = get("OTEL_EXPORTER_OTLP_PROTOCOL");
  if (!protocol.empty() && protocol != "http/protobuf")
    s.warnings.push_back("W-OTL-001: OTEL_EXPORTER_OTLP_PROTOCOL is " +
                         (protocol == "grpc" || protocol == "http/json" ? "'" + protocol + "'" : std::string("not http/protobuf")) +
                         ", but mur exports http/protobuf only; it sends http/protobuf. Fix: unset it or set it to "
                         "http/protobuf, and point the endpoint at the collector's OTLP/HTTP port (4318)");

  std::string headers = get("OTEL_EXPORTER_OTLP_TRACES_HEADERS");
  const char* headers_from = "OTEL_EXPORTER_OTLP_TRACES_HEADERS";
  if (headers.empty()) {
    headers = get("OTEL_EXPORTER_OTLP_HEADERS");
    headers_from = "OTEL_EXPORTER_OTLP_HEADERS";
  }
  std::size_t entry = 0, at = 0;
  while (!headers.empty() && at <= headers.size()) {
    const auto comma = std::min(headers.find(',', at), headers.size());
    const std::string item = trimmed(headers.substr(at, comma - at));
    at = comma + 1;
    ++entry;
    if (item.empty()) continue;
    const auto eq = item.find('=');
    auto key = eq == std::string::npos ? std::nullopt : percent_decoded(trimmed(item.substr(0, eq)));
    auto value = eq == std::string::npos ? std::nullopt : percent_decoded(trimmed(item.substr(eq + 1)));
    const bool clean = key && value && !key->empty() &&
                       std::all_of(key->begin(), key->end(), [](unsigned char c) { return c > ' ' && c < 0x7f && c != ':'; }) &&
                       std::none_of(value->begin(), value->end(), [](unsigned char c) { return c == '\r' || c == '\n' || c == 0; });
    if (!clean) { // never the value: it may be a key
      s.warnings.push_back(std::string("W-OTL-002: entry ") + std::to_string(entry) + " of " + headers_from +
                           " is not name=value (percent-encoded); it is left out. Fix: write the headers as "
                           "name=value pairs separated by commas, e.g. x-api-key=%2F… for a value holding '/'");
      continue;
    }
    s.headers.emplace_back(std::move(*key), std::move(*value));
  }

  if (auto name = get("OTEL_SERVICE_NAME"); !name.empty()) s.service_name = name;

  auto bounded = [&](const char* name, long long least, auto assign, const char* what) {
    const std::string v = get(name);
    if (v.empty()) return;
    if (auto n = whole(v, least)) return assign(*n);
    s.warnings.push_back(std::string("W-OTL-002: ") + name + " is not " + what + "; the default is used. Fix: set it to " +
                         what + " or unset it");
  };
  bounded("OTEL_EXPORTER_OTLP_TIMEOUT", 1, [&](long long n) { s.timeout = std::chrono::milliseconds(n); },
          "a whole number of milliseconds of at least 1");
  bounded("OTEL_BSP_SCHEDULE_DELAY", 1, [&](long long n) { s.schedule_delay = std::chrono::milliseconds(n); },
          "a whole number of milliseconds of at least 1");
  bounded("OTEL_BSP_MAX_QUEUE_SIZE", 1, [&](long long n) { s.max_queue = static_cast<std::size_t>(n); },
          "a whole number of at least 1");
  bounded("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 1, [&](long long n) { s.max_batch = static_cast<std::size_t>(n); },
          "a whole number of at least 1");
  s.max_batch = std::min(s.max_batch, s.max_queue);
  return s;
}

OtelSettings read_otel_settings_from_environment() {
  return read_otel_settings([](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  });
}

} // namespace mur
