// program_env.cpp — see program_env.hpp.
#include "member/program_env.hpp"

#include <algorithm>

#include "capsule/murmur_home.hpp"
#include "messages/vocabulary/model_endpoint.hpp"
#include "os/process_spawn.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace mur {

EnvList read_declared_env(const EnvList& declared, const EnvRead& env, SecretRedaction& secrets,
                          const std::string& warning, const std::string& key_path, const std::string& whom) {
  EnvList out;
  for (const auto& [name, value] : declared) {
    auto ref = env_reference_name(value);
    if (!ref) {
      out.emplace_back(name, value);
      continue;
    }
    auto v = env(*ref);
    if (!v)
      std::cerr << "warning " << warning << ": " << key_path << "." << name << " reads ${" << *ref
                << "}, which is not set; " << whom << " gets it empty\n";
    if (v) secrets.add(*v); // a value from the environment may be a credential: never quoted
    out.emplace_back(name, v ? *v : std::string());
  }
  return out;
}

std::string fill_env_refs(const std::string& text, const EnvRead& env, SecretRedaction& secrets,
                          const std::string& warning, const std::string& key_path, const std::string& whom) {
  const auto refs = env_references(text);
  if (!refs) return text; // the manifest refused such a text; kept as written
  std::string out;
  std::size_t from = 0;
  for (const auto& ref : *refs) {
    out += text.substr(from, ref.at - from);
    auto v = env(ref.name);
    if (!v)
      std::cerr << "warning " << warning << ": " << key_path << " reads ${" << ref.name << "}, which is not set; "
                << whom << " gets it empty\n";
    if (v) {
      secrets.add(*v);
      out += *v;
    }
    from = ref.at + ref.length;
  }
  return out + text.substr(from);
}

std::vector<std::string> program_env(const EnvList& declared, const std::string& home) {
  std::vector<std::string> env;
  for (const char* name : {"PATH", "HOME", "LANG", "LC_ALL", "TZ", "USER", "TMPDIR"})
    if (const char* v = std::getenv(name)) env.push_back(std::string(name) + "=" + v);
  if (std::getenv("PATH") == nullptr) env.push_back("PATH=/usr/local/bin:/usr/bin:/bin");
  if (!home.empty()) {
    set_env_entry(env, "HOME", home);
    set_env_entry(env, "TMPDIR", home + "/tmp");
  }
  for (const auto& [name, value] : declared) set_env_entry(env, name, value);
  return env;
}

std::vector<std::string> capsule_args(const std::vector<std::string>& command, const std::string& folder) {
  std::vector<std::string> args;
  for (auto it = command.begin() + (command.empty() ? 0 : 1); it != command.end(); ++it) {
    struct stat st {};
    const bool capsule_file = !it->empty() && (*it)[0] != '/' && (*it)[0] != '-' &&
                              ::stat((folder + "/" + *it).c_str(), &st) == 0 && S_ISREG(st.st_mode);
    args.push_back(capsule_file ? folder + "/" + *it : *it);
  }
  return args;
}

std::string capsule_folder(const Manifest& m) {
  std::error_code ec;
  auto p = std::filesystem::absolute(m.folder.empty() ? std::string(".") : m.folder, ec);
  return ec ? m.folder : p.lexically_normal().string();
}

bool capsule_has_programs(const Manifest& m) {
  return m.inference.transport == Transport::process ||
         std::any_of(m.tools.begin(), m.tools.end(), [](const ToolServerSpec& t) { return !t.command.empty(); });
}

std::vector<std::string> hidden_roots_for(const std::string& workdir, const EnvRead& env) {
  std::vector<std::string> hidden{murmur_home()};
  if (auto project = env("MURMUR_PROJECT_DIR"); project && !project->empty()) {
    const std::string own = std::filesystem::weakly_canonical(workdir).string();
    const std::string proj = std::filesystem::weakly_canonical(*project).string();
    if (own != proj && own.rfind(proj + "/", 0) != 0) hidden.push_back(proj + "/.murmur");
  }
  return hidden;
}

std::vector<std::string> member_tmpdir(const EnvRead& env) {
  auto tmp = env("TMPDIR");
  if (tmp && !tmp->empty() && tmp->front() == '/') return {*tmp};
  return {};
}

IsolationPlan program_isolation(const Manifest& m, const std::string& workdir, const ProgramDir& pd,
                                const EnvRead& env) {
  std::vector<std::string> hidden = hidden_roots_for(workdir, env);
  for (const auto& h : pd.hidden) hidden.push_back(h);
  std::vector<std::string> writable = member_tmpdir(env); // and the user's HOME, when the capsule asks for it
  if (m.real_home)
    if (auto home = env("HOME"); home && !home->empty()) writable.push_back(*home);
  IsolationPlan plan = isolation_for(pd.dir, capsule_folder(m), hidden, writable);
  plan.network = true; // its own network, left only through the egress proxy (os/egress_gate.hpp)
  plan.allow = m.network_allow;
  return plan;
}

std::string clean_tail(const std::string& text) {
  std::string out;
  for (unsigned char c : text) out += (c == '\n' || c == '\t' || c >= 0x20) ? static_cast<char>(c) : '?';
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (out.size() > 800) out = "…" + out.substr(out.size() - 800);
  return out;
}

} // namespace mur
