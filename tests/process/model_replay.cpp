#include "model_replay.hpp"

#include "run_command.hpp"

#include <catch2/catch.hpp>
#include <curl/curl.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#ifndef MUR_NODE // CMake found no node: the model tests fail, saying so (the rest still build)
#define MUR_NODE ""
#endif

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace mur::test {

namespace {

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// One blocking HTTP call to the replay server's control routes; throws unless 200.
std::string http(const std::string& method, const std::string& url) {
  CURL* c = curl_easy_init();
  if (!c) throw std::runtime_error("curl_easy_init failed");
  std::string body;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  if (method == "POST") curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
  const CURLcode rc = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(c);
  if (rc != CURLE_OK || status != 200)
    throw std::runtime_error(method + " " + url + " failed: " + curl_easy_strerror(rc) + " (HTTP " +
                             std::to_string(status) + ")");
  return body;
}

} // namespace

ReplayServer::ReplayServer() {
  if (std::string(MUR_NODE).empty())
    throw std::runtime_error("node was not found when CMake configured this build: install nodejs >= 20 "
                             "(scripts/setup.sh does) and configure again");
  node_ = std::make_unique<LaunchedMur>(
    std::vector<std::string>{MUR_NODE, std::string(MUR_SOURCE_DIR) + "/tests/models/replay_server.mjs", "--port", "0"},
    std::map<std::string, std::string>{});
  endpoint_ = node_->read_line(std::chrono::seconds(30));
  if (endpoint_.rfind("http://127.0.0.1:", 0) != 0 || endpoint_.size() < 4 ||
      endpoint_.compare(endpoint_.size() - 3, 3, "/v1") != 0)
    throw std::runtime_error("the replay server printed no endpoint: \"" + endpoint_ + "\"; " + node_->err());
  base_ = endpoint_.substr(0, endpoint_.size() - 3);
}

ReplayServer::~ReplayServer() {
  node_->signal(SIGTERM);
  node_->wait(std::chrono::seconds(30));
}

json ReplayServer::requests() const { return json::parse(http("GET", base_ + "/__replay/requests")); }

std::vector<json> ReplayServer::requests_of(const std::string& entry) const {
  std::vector<json> out;
  for (const auto& r : requests())
    if (r.value("entry", "") == entry) out.push_back(r);
  return out;
}

void ReplayServer::release(const std::string& gate) const { http("POST", base_ + "/__replay/release?gate=" + gate); }

json ReplayServer::await_request(const std::function<bool(const json&)>& pred) const {
  const auto until = std::chrono::steady_clock::now() + generous;
  while (std::chrono::steady_clock::now() < until) {
    for (const auto& r : requests())
      if (pred(r)) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return nullptr;
}

namespace {

std::string text_of(const json& m) {
  if (!m.is_object() || !m.contains("content")) return "";
  const json& c = m["content"];
  if (c.is_string()) return c.get<std::string>();
  std::string out;
  if (c.is_array())
    for (const auto& p : c)
      if (p.is_object() && p.contains("text") && p["text"].is_string()) out += p["text"].get<std::string>();
  return out;
}

const json& messages_of(const json& request) {
  static const json none = json::array();
  if (!request.is_object() || !request.contains("body") || !request["body"].is_object()) return none;
  const json& b = request["body"];
  return b.contains("messages") && b["messages"].is_array() ? b["messages"] : none;
}

} // namespace

std::string task_of(const json& request) {
  for (const auto& m : messages_of(request))
    if (m.value("role", "") == "user") return text_of(m);
  return "";
}

json last_message(const json& request) {
  const json& ms = messages_of(request);
  return ms.empty() ? json(nullptr) : ms.back();
}

std::vector<std::string> texts_of(const json& request, const std::string& role) {
  std::vector<std::string> out;
  for (const auto& m : messages_of(request))
    if (m.value("role", "") == role) out.push_back(text_of(m));
  return out;
}

bool contains_ci(const std::string& text, const std::string& needle) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  return lower(text).find(lower(needle)) != std::string::npos;
}

ModelFormation::ModelFormation(const std::string& example) : f(example) {}

void ModelFormation::capsule(const std::string& name, const std::string& model, const std::string& inference_extra,
                             const std::string& lifecycle) {
  const std::string dir = capsules.path + "/t-" + name;
  fs::create_directories(dir);
  std::ofstream(dir + "/murmur.yaml") << "name: t-" << name << "\nversion: 1.0.0\n"
                                      << "inference:\n  transport: http\n  endpoint: " << replay.endpoint()
                                      << "\n  model: " << model << "\n"
                                      << inference_extra << "lifecycle: " << lifecycle << "\n"
                                      << "exports: {peer_tasks: {accept: true}}\n"
                                      << "capabilities: {network: {allow: [localhost]}}\n"
                                      << "network: {authentication: {scheme: bearer}}\n";
  f.install(dir);
}

void ModelFormation::roster(const std::vector<std::string>& members,
                            const std::vector<std::pair<std::string, std::string>>& edges) {
  std::ofstream out(f.project.path + "/roster.yaml");
  out << "roster_version: 1\nmembers:\n";
  for (std::size_t i = 0; i < members.size(); ++i)
    out << "  - {name: " << members[i] << ", capsule: t-" << members[i] << ", version: 1.0.0"
        << (i == 0 ? ", entry: true" : "") << "}\n";
  out << "reachability:\n";
  for (const auto& [from, to] : edges) out << "  - {from: " << from << ", to: [" << to << "]}\n";
}

std::vector<std::string> ModelFormation::run_args(const std::vector<std::string>& extra) const {
  std::vector<std::string> argv{MUR_BINARY, "run", "--roster", f.project.path};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

Ran ModelFormation::run_task(const std::string& task, const std::map<std::string, std::string>* env) const {
  return run_command(run_args({"--task", task, "--deadline", "120s"}), env != nullptr ? *env : f.env);
}

void ModelFormation::lead_and_coder(const std::string& lead_model, const std::string& lead_extra,
                                    const std::string& coder_model, const std::string& coder_extra,
                                    const std::string& coder_lifecycle) {
  capsule("lead", lead_model, lead_extra);
  capsule("coder", coder_model, coder_extra, coder_lifecycle);
  roster({"lead", "coder"}, {{"lead", "coder"}});
}

Ran ModelFormation::run_task_with_key(const std::string& task, const std::string& key) const {
  auto env = f.env;
  env["REPLAY_MODEL_KEY"] = key;
  return run_task(task, &env);
}

Ran failed_keeping_key(ModelFormation& m, const std::string& lead_model, const std::string& key,
                       const std::string& code, bool code_on_stdout) {
  m.lead_and_coder(lead_model, "  api_key: ${REPLAY_MODEL_KEY}\n");
  Ran r = m.run_task_with_key("add a flag", key);
  INFO(r.err);
  CHECK(r.exit_code != 0);
  CHECK((code_on_stdout ? r.out + r.err : r.err).find(code) != std::string::npos);
  CHECK(r.out.find(key) == std::string::npos);
  CHECK(r.err.find(key) == std::string::npos);
  CHECK(m.f.files_containing(key).empty()); // traces, running records, sessions, formation dirs
  return r;
}

json send_json(const FormationFixture& f, const std::string& target, const std::string& text) {
  Ran r = run_command({MUR_BINARY, "send", target, text, "--json"}, f.env);
  INFO(r.err);
  json j = json::parse(r.out, nullptr, false);
  REQUIRE(j.is_object());
  return j;
}

ServingPair::ServingPair(const std::string& lead_model, const std::string& lead_extra, const std::string& coder_model,
                         const std::string& coder_lifecycle, const std::map<std::string, std::string>& extra_env) {
  m.lead_and_coder(lead_model, lead_extra, coder_model, "", coder_lifecycle);
  for (const auto& [k, v] : extra_env) m.f.env[k] = v;
  run = std::make_unique<LaunchedMur>(m.run_args({"--json", "--deadline", "170s"}), m.f.env);
  s = std::make_unique<Serving>(serve(*run));
}

ServingPair::~ServingPair() {
  if (run) {
    run->signal(SIGTERM);
    run->wait();
  }
}

std::string ServingPair::coder_session() const {
  for (const auto& p : s->formation["peers"])
    if (p["name"] == "coder") return p["session_id"];
  return "";
}

} // namespace mur::test
