// tools_start.cpp — see tools_start.hpp.
#include "member/tools_start.hpp"

#include "actors/tool_hub.hpp"
#include "capsule/harness_program.hpp"
#include "http/mcp_http_transport.hpp"
#include "member/stdio_tool_server.hpp"
#include "messages/vocabulary/failure.hpp"

#include <caf/all.hpp>

#include <iostream>

namespace mur {

StartedTools start_tools(caf::actor_system& sys, const Manifest& m, const EnvRead& env, const std::string& workdir,
                         const ProgramPlace& programs, const trace_port& trace,
                         const std::shared_ptr<CurlPool>& pool) {
  StartedTools out;
  if (m.tools.empty()) return out;
  const std::string folder = capsule_folder(m);
  ToolHubSetup hub;
  hub.trace = trace;
  for (std::size_t i = 0; i < m.tools.size(); ++i) {
    const ToolServerSpec& t = m.tools[i];
    const std::string key = "tools[" + std::to_string(i) + "]";
    const std::string whom = "the tool server " + t.name;
    mcp_transport transport;
    SecretRedaction secrets; // the server's own: what it says is written out against them
    if (!t.url.empty()) {
      if (const auto w = insecure_http_message(t.endpoint, m.name, key + ".url"); !w.empty())
        std::cerr << "warning W-NET-001: " << w << ". Fix: " << insecure_http_fix << "\n";
      McpHttpSetup h;
      h.url = t.url;
      for (const auto& [name, value] : t.headers) {
        std::string filled = fill_env_refs(value, env, h.secrets, "W-TOOL-001", key + ".headers." + name, whom);
        for (char c : filled) // a variable read from a file with CRLF endings, say: never sent (nor quoted)
          if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            throw Failure("E-TOOL-001",
                          m.name + ": " + key + ".headers." + name + " holds a control character once its ${NAME}s are read",
                          "set the variables it reads without a line ending or other control character");
        h.secrets.add(filled); // a header's value is taken for a credential, literal or not
        h.headers.push_back(name + ": " + filled);
      }
      h.call_timeout = std::chrono::seconds(t.timeout_secs);
      h.pool = pool;
      secrets = h.secrets;
      transport = spawn_mcp_http_transport(sys, std::move(h));
    } else {
      StdioToolServerSetup s;
      s.start.program = resolve_program(t.command.front(), m.name + ": " + key + ".command[0]", "E-TOOL-001", folder,
                                        env("PATH").value_or("/usr/local/bin:/usr/bin:/bin"));
      s.start.argv = {t.command.front()};
      for (auto& a : capsule_args(t.command, folder)) s.start.argv.push_back(std::move(a));
      s.start.env = program_env(read_declared_env(t.env, env, s.secrets, "W-TOOL-001", key + ".env", whom), programs.home);
      s.start.cwd = programs.dir.dir.empty() ? workdir : programs.dir.dir;
      s.start.isolation = programs.isolation;
      s.start.isolation.label = "the tool server '" + t.name + "'";
      s.name = t.name;
      s.limits = programs.limits;
      s.bounds = programs.bounds;
      secrets = s.secrets;
      transport = spawn_stdio_tool_server(sys, std::move(s));
    }
    hub.servers.push_back(
      ToolServerSetup{t.name, t.allow, std::chrono::seconds(t.timeout_secs), transport, std::move(secrets)});
  }
  const auto start_timeout = hub.start_timeout;
  out.port = spawn_tool_hub(sys, std::move(hub));
  caf::scoped_actor self{sys};
  ToolsListed listed;
  self->request(out.port, start_timeout + std::chrono::seconds(5), tools_atom_v)
    .receive([&](ToolsListed& l) { listed = std::move(l); },
             [&](const caf::error& e) {
               listed.code = "E-TOOL-001";
               listed.failure = "the tool servers did not report: " + sys.render(e);
               listed.fix = "run each tool server's command by hand in the capsule folder";
             });
  if (!listed.code.empty()) {
    self->send_exit(out.port, caf::exit_reason::user_shutdown);
    throw Failure(listed.code, listed.failure, listed.fix);
  }
  out.tools = std::move(listed.tools);
  return out;
}

} // namespace mur
