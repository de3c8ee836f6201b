// model_start.cpp — see model_start.hpp.
#include "member/model_start.hpp"

#include "capsule/harness_program.hpp"
#include "capsule/murmur_home.hpp"
#include "capsule/script_model.hpp"
#include "http/http_model.hpp"
#include "member/harness_model.hpp"
#include "member/program_dir.hpp"
#include "member/program_env.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/model_endpoint.hpp"
#include "os/harness_isolation.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
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
                         const EnvRead& env, const ProgramPlace& programs) {
  const Inference& inf = m.inference;
  StartedModel out;
  out.system_prompt = inf.system_prompt_file.empty() ? inf.system_prompt : read_prompt_file(m);
  if (inf.transport == Transport::script) {
    out.port = spawn_script_model(sys, inf);
    return out;
  }
  if (inf.transport == Transport::process) {
    HarnessSetup hs;
    hs.program = resolve_harness_program(m, capsule_folder(m), env("PATH").value_or("/usr/local/bin:/usr/bin:/bin"));
    const std::string folder = capsule_folder(m);
    hs.args = capsule_args(inf.command, folder);
    hs.env = read_declared_env(inf.env, env, hs.secrets, "W-HAR-001", "inference.env", "the agent program");
    hs.workdir = programs.dir.dir;
    hs.home = programs.home;
    hs.limits = programs.limits;
    hs.bounds = programs.bounds;
    hs.isolation = programs.isolation;
    hs.isolation.label = "the agent program";
    hs.turn_timeout = std::chrono::seconds(inf.turn_timeout_secs);
    hs.system_prompt = out.system_prompt; // the program is handed it in every turn's JSON
    out.port = spawn_harness_model(sys, std::move(hs));
    return out;
  }
  HttpModelSetup h;
  h.endpoint = inf.model_endpoint; // parsed (and refused, E-MAN-002) when the manifest was read
  if (const auto w = insecure_http_message(h.endpoint, m.name, "inference.endpoint"); !w.empty())
    std::cerr << "warning W-NET-001: " << w << ". Fix: " << insecure_http_fix << "\n";
  h.model = inf.model;
  h.key_env = inf.api_key_env;
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
