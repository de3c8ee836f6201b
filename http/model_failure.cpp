#include "http/model_failure.hpp"

#include "http/curl_pool.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

namespace mur {
namespace {

constexpr std::size_t max_quote = 300;

bool contains(const std::string& haystack, const char* needle) {
  std::string h = haystack, n = needle;
  auto low = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  return low(h).find(low(n)) != std::string::npos;
}

// Days since 1970-01-01 of a proleptic Gregorian date.
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

// The server's own words for a failure: error.message of {error: {...}}, or error as a string,
// or message, else the body itself.
std::string server_words(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_discarded() && j.is_object()) {
    if (j.contains("error")) {
      const auto& e = j["error"];
      if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
      if (e.is_string()) return e.get<std::string>();
    }
    if (j.contains("message") && j["message"].is_string()) return j["message"].get<std::string>();
    if (j.contains("detail") && j["detail"].is_string()) return j["detail"].get<std::string>();
  }
  return body;
}

std::string said(const std::string& body, const SecretRedaction& secrets) {
  const std::string words = quote_server_text(server_words(body), secrets);
  return words.empty() ? std::string() : ": the server said \"" + words + "\"";
}

} // namespace

std::string quote_server_text(const std::string& text, const SecretRedaction& secrets) {
  // Redacted as sent, and again once control characters are gone (dropping them must not join
  // the pieces of a key), and before anything is cut: no part of a key survives a cut.
  const std::string s = secrets.redact(text);
  std::string clean;
  for (char c : s) {
    if (c == '\n' || c == '\t') clean.push_back(' ');
    else if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) clean.push_back(c);
  }
  std::string out = secrets.redact(clean);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max_quote) {
    std::size_t cut = max_quote;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut; // keep UTF-8 whole
    out = out.substr(0, cut) + "…";
  }
  return out;
}

std::optional<std::chrono::milliseconds> parse_retry_after(const std::string& raw,
                                                           std::chrono::system_clock::time_point now) {
  std::string v = raw;
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.erase(0, 1);
  if (v.empty()) return std::nullopt;
  if (std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); })) {
    if (v.size() > 9) return std::chrono::milliseconds(std::chrono::hours(24 * 365)); // absurdly long
    return std::chrono::milliseconds(std::stoll(v) * 1000);
  }
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
  char wday[4] = {}, mon[4] = {}, zone[4] = {};
  int day = 0, year = 0, hh = 0, mm = 0, ss = 0, used = 0;
  if (std::sscanf(v.c_str(), "%3[A-Za-z], %2d %3[A-Za-z] %4d %2d:%2d:%2d %3[A-Z]%n", wday, &day, mon, &year, &hh,
                  &mm, &ss, zone, &used) != 8 ||
      static_cast<std::size_t>(used) != v.size() || std::strcmp(zone, "GMT") != 0)
    return std::nullopt;
  static const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  int m = 0;
  while (m < 12 && std::strcmp(months[m], mon) != 0) ++m;
  if (m == 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60) return std::nullopt;
  const long long secs = days_from_civil(year, static_cast<unsigned>(m + 1), static_cast<unsigned>(day)) * 86400 +
                         hh * 3600 + mm * 60 + ss;
  const auto at = std::chrono::system_clock::time_point(std::chrono::seconds(secs));
  if (at <= now) return std::chrono::milliseconds(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(at - now);
}

ModelFailure classify_http_failure(long status, const std::string& body, const std::string& retry_after,
                                   std::chrono::system_clock::time_point now, const std::string& model,
                                   const std::string& url, bool has_key, const SecretRedaction& secrets,
                                   const std::string& key_env) {
  ModelFailure f;
  if (status == 401 || status == 403) {
    f.code = "E-MOD-010";
    if (!has_key && !key_env.empty()) {
      f.message = "the model server at " + url + " refused the call without an API key (HTTP " + std::to_string(status) +
                  "): inference.api_key reads ${" + key_env + "}, which was not set when the member started";
      f.fix = "export " + key_env + "=<your key> in the shell that runs mur, then run again (the api_key line is "
              "already in murmur.yaml; never write the key itself there)";
      return f;
    }
    f.message = "the model server at " + url + " refused the API key (HTTP " + std::to_string(status) + ")";
    f.fix = !has_key ? "this endpoint needs a key: add api_key: ${ENV_NAME} to the capsule's inference and set that variable"
                        : "check the variable that inference.api_key names: it holds a key this server does not accept";
    return f;
  }
  if (status == 404) {
    f.code = "E-MOD-011";
    f.message = "the model server at " + url + " answered 404 for model '" + model + "'" + said(body, secrets);
    f.fix = "check inference.model against the models the server lists (GET {endpoint}/models) and that "
            "inference.endpoint is the base URL before /chat/completions (often ending in /v1)";
    return f;
  }
  // vLLM's own words name its flags; other servers' complaints about tool_choice are E-MOD-013.
  if (status == 400 && (contains(body, "enable-auto-tool-choice") || contains(body, "tool-call-parser"))) {
    f.code = "E-MOD-012";
    f.message = "the model server at " + url + " refused tool_choice \"auto\"" + said(body, secrets);
    f.fix = "start vLLM with --enable-auto-tool-choice --tool-call-parser <parser for your model> "
            "(e.g. hermes, llama3_json, mistral)";
    return f;
  }
  if (status == 429) {
    f.code = "E-MOD-020";
    f.message = "the model server at " + url + " is rate limiting (HTTP 429)" + said(body, secrets);
    f.fix = "wait, lower the formation's load, or raise the account's rate limit";
    f.retryable = true;
    f.retry_after = parse_retry_after(retry_after, now);
    return f;
  }
  if (status >= 500 && status <= 599) {
    f.code = "E-MOD-021";
    f.message = "the model server at " + url + " failed (HTTP " + std::to_string(status) + ")" + said(body, secrets);
    f.fix = "check the model server's own log; mur retried as far as its bounds allow";
    f.retryable = true;
    f.retry_after = parse_retry_after(retry_after, now);
    return f;
  }
  f.code = "E-MOD-013";
  f.message = "the model server at " + url + " refused the request (HTTP " + std::to_string(status) + ")" +
              said(body, secrets);
  f.fix = "check inference.params and inference.max_tokens against what this server accepts";
  return f;
}

ModelFailure classify_transport_failure(const std::string& raw_reason, const std::string& url, bool received_bytes,
                                        const SecretRedaction& secrets, const StreamCaps& caps) {
  if (raw_reason == transport_reason::event_too_large) return stream_cap_failure(StreamCap::event, caps.event);
  const std::string reason = quote_server_text(raw_reason, secrets);
  ModelFailure f;
  if (contains(reason, "timeout") || contains(reason, "timed out") || contains(reason, "too slow") ||
      contains(reason, "stalled")) {
    f.code = "E-MOD-002";
    f.message = "the model server at " + url + " did not answer in time (" + reason + ")";
    f.fix = "raise inference.request_timeout_secs, or check that the server is not stuck";
    return f;
  }
  if (received_bytes) {
    f.code = "E-MOD-031";
    f.message = "the model server at " + url + " closed the stream before it was complete (" + reason + ")";
    f.fix = "check the model server's own log (it may have crashed or run out of memory)";
    return f;
  }
  f.code = "E-MOD-001";
  if (contains(reason, "resolve"))
    f.message = "the host of " + url + " could not be resolved (" + reason + ")";
  else if (contains(reason, "ssl") || contains(reason, "tls") || contains(reason, "certificate"))
    f.message = "no TLS connection could be made to " + url + " (" + reason + ")";
  else
    f.message = "the model server at " + url + " could not be reached (" + reason + ")";
  f.fix = "start the model server, or correct inference.endpoint";
  return f;
}

namespace {

std::string size_words(std::size_t bytes) {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " bytes";
}

} // namespace

ModelFailure stream_cap_failure(StreamCap which, std::size_t limit) {
  const std::string cap = size_words(limit);
  const std::string ended = ", so mur ended the request";
  switch (which) {
  case StreamCap::text:
    return {"E-MOD-033", "the model server's streamed answer passed " + cap + " of text" + ended,
            "set inference.max_tokens so the model stops in time, or check that the server is not looping", false, {}};
  case StreamCap::reasoning:
    return {"E-MOD-034", "the model server's streamed reasoning passed " + cap + ended,
            "set inference.max_tokens (or the server's reasoning budget) so the model stops in time", false, {}};
  case StreamCap::tool_arguments:
    return {"E-MOD-035", "the model server's streamed tool-call arguments passed " + cap + " in one answer" + ended,
            "check that the server is not looping; a task handed to a member must fit the door's 1 MiB limit anyway",
            false, {}};
  case StreamCap::event:
    break;
  }
  return {"E-MOD-036", "one event of the model server's stream passed " + cap + ended,
          "check that inference.endpoint is an OpenAI-compatible server, or set inference.stream: false", false, {}};
}

ModelFailure malformed_response(const std::string& what) {
  return {"E-MOD-030", "the model server's response is not a chat completion: " + what,
          "check that inference.endpoint points at an OpenAI-compatible server (its base URL, e.g. …/v1)", false, {}};
}

ModelFailure malformed_stream(const std::string& what) {
  return {"E-MOD-031", "the model server's event stream is malformed: " + what,
          "check that inference.endpoint points at an OpenAI-compatible server, or set inference.stream: false",
          false, {}};
}

} // namespace mur
