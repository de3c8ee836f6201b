// model_start.cpp — see model_start.hpp.
#include "member/model_start.hpp"

#include "capsule/script_model.hpp"
#include "http/http_model.hpp"
#include "member/harness_model.hpp"
#include "messages/failure.hpp"
#include "messages/model_endpoint.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace mur {

namespace {

// The capsule's folder as an absolute path (the program runs in another directory).
std::string capsule_folder(const Manifest& m) {
  std::error_code ec;
  auto p = std::filesystem::absolute(m.folder.empty() ? std::string(".") : m.folder, ec);
  return ec ? m.folder : p.lexically_normal().string();
}

// command[0]: a path with '/' is taken in the capsule folder (unless absolute); a bare name is
// the folder's file of that name if there is one, else looked up on PATH.
std::string harness_program(const Manifest& m, const EnvRead& env) {
  const std::string& c = m.inference.command.at(0);
  const std::string folder = capsule_folder(m);
  auto executable = [](const std::string& p) { return ::access(p.c_str(), X_OK) == 0; };
  if (!c.empty() && c[0] == '/') return c;
  if (c.find('/') != std::string::npos || executable(folder + "/" + c)) return folder + "/" + c;
  const std::string path = env("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  std::size_t at = 0;
  while (at <= path.size()) {
    const std::size_t end = path.find(':', at);
    const std::string dir = path.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (!dir.empty() && executable(dir + "/" + c)) return dir + "/" + c;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  throw Failure("E-HAR-001", "inference.command: '" + c + "' is neither a file in the capsule folder nor a program on PATH",
                "put the program in the capsule folder (and reinstall it), or install it on PATH");
}

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
                         const EnvRead& env, const std::string& workdir) {
  const Inference& inf = m.inference;
  StartedModel out;
  out.system_prompt = inf.system_prompt_file.empty() ? inf.system_prompt : read_prompt_file(m);
  if (inf.transport == Transport::script) {
    out.port = spawn_script_model(sys, inf);
    return out;
  }
  if (inf.transport == Transport::process) {
    HarnessSetup hs;
    hs.program = harness_program(m, env);
    const std::string folder = capsule_folder(m);
    for (auto it = inf.command.begin() + 1; it != inf.command.end(); ++it) {
      struct stat st {};
      const bool capsule_file = !it->empty() && (*it)[0] != '/' && (*it)[0] != '-' &&
                                ::stat((folder + "/" + *it).c_str(), &st) == 0 && S_ISREG(st.st_mode);
      hs.args.push_back(capsule_file ? folder + "/" + *it : *it);
    }
    for (const auto& [name, value] : inf.env) {
      if (auto ref = env_reference_name(value)) {
        auto v = env(*ref);
        if (!v) std::cerr << "warning W-HAR-001: inference.env." << name << " reads ${" << *ref << "}, which is not set; "
                          << "the agent program gets it empty\n";
        hs.env.emplace_back(name, v ? *v : std::string());
      } else {
        hs.env.emplace_back(name, value);
      }
    }
    hs.workdir = workdir;
    hs.turn_timeout = std::chrono::seconds(inf.turn_timeout_secs);
    out.port = spawn_harness_model(sys, std::move(hs));
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
