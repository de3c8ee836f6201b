#include "launcher/cli/doctor_probes.hpp"

#include "capsule/harness_program.hpp"
#include "http/curl_pool.hpp"
#include "http/model_failure.hpp"
#include "messages/vocabulary/comma_list.hpp"
#include "messages/vocabulary/secret_redaction.hpp"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstdlib>
#include <mutex>

namespace mur {
namespace {

struct Pending {
  std::mutex mu;
  std::condition_variable cv;
  std::size_t open = 0;
};

// What GET /models answered, judged against the model the capsule names.
std::optional<Failure> judge(const Manifest& m, const std::string& who, const HttpOutcome& o, bool sent_key,
                             std::chrono::milliseconds timeout) {
  const auto& inf = m.inference;
  const std::string url = inf.model_endpoint.base() + "/models";
  if (o.status == 0) {
    ModelFailure f = classify_transport_failure(o.error, url, false);
    if (f.code == "E-MOD-002")
      f.fix = "check that the model server at " + inf.model_endpoint.base() + " is up and not stuck (doctor waits " +
              std::to_string(timeout.count() / 1000) + " s), or run mur doctor --no-probe to skip this check";
    return Failure(f.code, who + ": " + f.message, f.fix);
  }
  if (o.status < 200 || o.status > 299) {
    ModelFailure f = classify_http_failure(o.status, "", "", std::chrono::system_clock::now(), inf.model, url, sent_key,
                                           SecretRedaction(), inf.api_key_env);
    if (o.status == 404)
      f.message = "the model server at " + inf.model_endpoint.base() + " answered 404 for GET /models";
    return Failure(f.code, who + ": " + f.message, f.fix);
  }
  const auto body = nlohmann::json::parse(o.body, nullptr, false);
  if (!body.is_object() || !body.contains("data") || !body["data"].is_array())
    return Failure("E-MOD-011", who + ": GET " + url + " did not answer with a model list",
                   "check that inference.endpoint is the base URL before /chat/completions (often ending in /v1)");
  std::vector<std::string> ids;
  for (const auto& e : body["data"])
    if (e.is_object() && e.contains("id") && e["id"].is_string()) {
      if (e["id"] == inf.model) return std::nullopt;
      ids.push_back(e["id"]);
    }
  std::string listed = ids.empty() ? std::string("none") : comma_list(ids.size() > 20 ? std::vector<std::string>(ids.begin(), ids.begin() + 20) : ids);
  if (ids.size() > 20) listed += ", … (" + std::to_string(ids.size()) + " in all)";
  return Failure("E-MOD-011",
                 who + ": the model server at " + inf.model_endpoint.base() + " does not list the model '" + inf.model +
                   "' (GET /models lists " + listed + ")",
                 "set inference.model to a model the server lists, or load that model on the server (e.g. ollama pull " +
                   inf.model + ")");
}

} // namespace

ProbeResult probe_members(const std::vector<ProbeTarget>& targets, std::chrono::milliseconds timeout) {
  std::vector<std::optional<Failure>> failures(targets.size());
  std::vector<std::string> passed(targets.size());
  std::vector<HttpOutcome> outcomes(targets.size());
  std::vector<bool> asked(targets.size(), false), keyed(targets.size(), false);
  auto pending = std::make_shared<Pending>();
  {
    CurlPool pool; // joined before anything below reads what the calls wrote
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const Manifest& m = *targets[i].manifest;
      const auto& inf = m.inference;
      if (inf.transport == Transport::process) {
        const char* path = std::getenv("PATH");
        try {
          passed[i] = targets[i].who + ": " + resolve_harness_program(m, m.folder, path ? path : "");
        } catch (const Failure& f) { // named as every other probe's line: the member, then what failed
          std::string what = f.message();
          if (what.rfind(m.name + ": ", 0) == 0) what = what.substr(m.name.size() + 2); // the capsule, named already
          failures[i] = Failure(f.code(), targets[i].who + ": " + what, f.fix());
        }
      }
      if (inf.transport != Transport::http) continue;
      HttpCall call;
      call.url = inf.model_endpoint.base() + "/models";
      call.method = "GET";
      call.timeout = timeout;
      call.https = inf.model_endpoint.scheme == "https";
      call.max_body = 4u << 20;
      if (!inf.api_key_env.empty())
        if (const char* key = std::getenv(inf.api_key_env.c_str()); key != nullptr && *key != '\0') {
          call.headers.push_back(std::string("Authorization: Bearer ") + key); // wiped by the pool when the call ends
          keyed[i] = true;
        }
      asked[i] = true;
      {
        std::lock_guard<std::mutex> lock(pending->mu);
        ++pending->open;
      }
      call.on_done = [pending, &outcomes, i](long status, std::string body, std::string error) {
        std::lock_guard<std::mutex> lock(pending->mu);
        outcomes[i] = HttpOutcome{status, std::move(body), std::move(error)};
        if (--pending->open == 0) pending->cv.notify_all();
      };
      pool.submit(std::move(call));
    }
    std::unique_lock<std::mutex> lock(pending->mu);
    pending->cv.wait(lock, [&] { return pending->open == 0; });
  }
  ProbeResult r;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const Manifest& m = *targets[i].manifest;
    if (asked[i]) {
      failures[i] = judge(m, targets[i].who, outcomes[i], keyed[i], timeout);
      if (!failures[i]) passed[i] = targets[i].who + ": " + m.inference.model + " at " + m.inference.model_endpoint.base();
    }
    if (failures[i] && !r.failure) r.failure = failures[i];
    if (!passed[i].empty() && !failures[i]) r.lines.push_back(passed[i]);
  }
  return r;
}

} // namespace mur
