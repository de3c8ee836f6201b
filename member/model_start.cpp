// model_start.cpp — see model_start.hpp.
#include "member/model_start.hpp"

#include "capsule/script_model.hpp"
#include "http/http_model.hpp"
#include "messages/failure.hpp"
#include "messages/model_endpoint.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

namespace mur {

namespace {

std::string read_prompt_file(const Manifest& m) {
  const std::string path = (m.folder.empty() ? std::string(".") : m.folder) + "/" + m.inference.system_prompt_file;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in)
    throw Failure("E-MAN-002", "inference.system_prompt_file: '" + m.inference.system_prompt_file + "' cannot be read",
                  "create the file in the capsule folder (and reinstall the capsule), or correct the path");
  return text.str();
}

} // namespace

StartedModel start_model(caf::actor_system& sys, const Manifest& m, const std::shared_ptr<CurlPool>& pool,
                         const EnvRead& env) {
  const Inference& inf = m.inference;
  StartedModel out;
  out.system_prompt = inf.system_prompt_file.empty() ? inf.system_prompt : read_prompt_file(m);
  if (inf.transport != Transport::http) {
    out.port = spawn_script_model(sys, inf);
    return out;
  }
  HttpModelSetup h;
  auto endpoint = parse_model_endpoint(inf.endpoint);
  if (auto* problem = std::get_if<EndpointProblem>(&endpoint))
    throw Failure("E-MAN-002", "inference.endpoint: " + problem->problem, problem->fix);
  h.endpoint = std::get<ModelEndpoint>(endpoint);
  h.model = inf.model;
  if (!inf.api_key_env.empty()) {
    auto value = env(inf.api_key_env);
    if (value && !value->empty()) {
      h.key = ApiKey::adopt(std::move(*value));
    } else if (!h.endpoint.loopback) {
      throw Failure("E-MOD-003",
                    "inference.api_key reads ${" + inf.api_key_env + "}, which is not set in this member's environment",
                    "set " + inf.api_key_env + " in the shell that runs mur run (export " + inf.api_key_env +
                      "=…); never write the key into murmur.yaml");
    } else {
      std::cerr << "warning W-MOD-001: inference.api_key reads ${" << inf.api_key_env
                << "}, which is not set; calling the loopback endpoint " << h.endpoint.base() << " without a key\n";
    }
  }
  h.max_tokens = inf.max_tokens;
  h.temperature = inf.temperature;
  h.stream = inf.stream;
  h.request_timeout = std::chrono::seconds(inf.request_timeout_secs);
  h.params = inf.params;
  h.pool = pool;
  out.port = spawn_http_model(sys, std::move(h));
  return out;
}

} // namespace mur
