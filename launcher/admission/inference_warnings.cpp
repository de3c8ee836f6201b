#include "launcher/admission/inference_warnings.hpp"

#include <cstdlib>

#include "messages/vocabulary/model_endpoint.hpp"

namespace mur {

EnvLookup process_env_lookup() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

std::vector<Warning> inference_warnings(const Manifest& m, const std::string& who, const EnvLookup& env) {
  std::vector<Warning> out;
  const Inference& inf = m.inference;
  if (inf.transport == Transport::http && !inf.api_key_env.empty()) {
    const auto value = env(inf.api_key_env);
    if (!value || value->empty())
      out.push_back({"W-MOD-001",
                     who + ": inference.api_key reads ${" + inf.api_key_env +
                       "}, which is not set in this environment (members inherit it from mur run)" +
                       (!inf.model_endpoint.loopback ? "; the member will refuse to start (E-MOD-003)"
                                             : "; the loopback endpoint is called without a key"),
                     "set " + inf.api_key_env + " in the shell that runs mur run, e.g. export " +
                       inf.api_key_env + "=… (never write the key into murmur.yaml)"});
  }
  // Plain HTTP off this machine, which the capsule allowed: said at doctor as at launch.
  auto insecure = [&](const ModelEndpoint& e, const std::string& what) {
    const std::string text = insecure_http_message(e, who, what);
    if (!text.empty()) out.push_back({"W-NET-001", text, insecure_http_fix});
  };
  if (inf.transport == Transport::http) insecure(inf.model_endpoint, "inference.endpoint");
  for (std::size_t i = 0; i < m.tools.size(); ++i)
    if (!m.tools[i].url.empty()) insecure(m.tools[i].endpoint, "tools[" + std::to_string(i) + "].url");
  // A tool server's ${NAME}s, read when the session starts: unset, it gets them empty.
  for (std::size_t i = 0; i < m.tools.size(); ++i) {
    const ToolServerSpec& t = m.tools[i];
    const std::string key = "tools[" + std::to_string(i) + "]";
    auto warn = [&](const std::string& where, const std::string& name) {
      const auto value = env(name);
      if (value) return;
      out.push_back({"W-TOOL-001",
                     who + ": " + key + "." + where + " reads ${" + name +
                       "}, which is not set in this environment (members inherit it from mur run); the tool server '" +
                       t.name + "' gets it empty",
                     "set " + name + " in the shell that runs mur run, e.g. export " + name + "=…"});
    };
    for (const auto& [name, value] : t.env)
      if (auto ref = env_reference_name(value)) warn("env." + name, *ref);
    for (const auto& [name, value] : t.headers)
      if (auto refs = env_references(value))
        for (const auto& ref : *refs) warn("headers." + name, ref.name);
  }
  return out;
}

} // namespace mur
