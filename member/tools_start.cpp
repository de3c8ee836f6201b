// tools_start.cpp — see tools_start.hpp.
#include "member/tools_start.hpp"

#include "actors/tool_hub.hpp"
#include "capsule/harness_program.hpp"
#include "member/stdio_tool_server.hpp"
#include "messages/vocabulary/failure.hpp"

#include <caf/all.hpp>

#include <iostream>

namespace mur {

StartedTools start_tools(caf::actor_system& sys, const Manifest& m, const EnvRead& env, const std::string& workdir,
                         const ProgramDir& pd, const trace_port& trace) {
  StartedTools out;
  if (m.tools.empty()) return out;
  const std::string folder = capsule_folder(m);
  const IsolationPlan isolation = program_isolation(m, workdir, pd, env);
  if (m.inference.transport != Transport::process) { // an agent program's start has said it already
    const std::string warning = isolation_warning(isolation, m.name);
    if (!warning.empty()) std::cerr << "warning " << warning << "\n";
  }
  ToolHubSetup hub;
  hub.trace = trace;
  for (std::size_t i = 0; i < m.tools.size(); ++i) {
    const ToolServerSpec& t = m.tools[i];
    const std::string key = "tools[" + std::to_string(i) + "]";
    StdioToolServerSetup s;
    s.start.program = resolve_program(t.command.front(), m.name + ": " + key + ".command[0]", "E-TOOL-001", folder,
                                      env("PATH").value_or("/usr/local/bin:/usr/bin:/bin"));
    s.start.argv = {t.command.front()};
    for (auto& a : capsule_args(t.command, folder)) s.start.argv.push_back(std::move(a));
    s.start.env = program_env(read_declared_env(t.env, env, s.secrets, "W-TOOL-001", key + ".env",
                                                "the tool server " + t.name));
    s.start.cwd = pd.dir.empty() ? workdir : pd.dir;
    s.start.isolation = isolation;
    hub.servers.push_back(ToolServerSetup{t.name, t.allow, std::chrono::seconds(t.timeout_secs),
                                          spawn_stdio_tool_server(sys, std::move(s))});
  }
  const auto start_timeout = hub.start_timeout;
  out.port = spawn_tool_hub(sys, std::move(hub));
  caf::scoped_actor self{sys};
  std::string failure;
  self->request(out.port, start_timeout + std::chrono::seconds(5), tools_atom_v)
    .receive([&](const ToolsListed& listed) { out.tools = listed.tools, failure = listed.failure; },
             [&](const caf::error& e) { failure = "E-TOOL-001: the tool servers did not report: " + sys.render(e); });
  if (!failure.empty()) {
    self->send_exit(out.port, caf::exit_reason::user_shutdown);
    // "E-TOOL-001: message Fix: fix", as the hub words it
    const auto colon = failure.find(": ");
    const auto fix = failure.rfind(" Fix: ");
    const std::string message = failure.substr(colon + 2, fix == std::string::npos ? std::string::npos : fix - colon - 2);
    throw Failure(failure.substr(0, colon), message,
                  fix == std::string::npos ? "run the tool server's command by hand in the capsule folder" : failure.substr(fix + 6));
  }
  return out;
}

} // namespace mur
