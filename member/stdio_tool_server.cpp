// stdio_tool_server.cpp — see stdio_tool_server.hpp.
#include "member/stdio_tool_server.hpp"
#include "member/member_limits.hpp"

#include "member/program_env.hpp"

#include <caf/all.hpp>

#include <atomic>
#include <memory>

namespace mur {

namespace {

struct StdioToolServerState {
  StdioToolServerSetup setup;
  std::unique_ptr<StdioProcess> process; // destroyed (killed, joined) with the actor
  std::shared_ptr<std::atomic<bool>> ended; // its process's end was told (set on its thread)
  static inline const char* name = "mur.stdio_tool_server";
};

using transport_ptr = mcp_transport::stateful_pointer<StdioToolServerState>;

mcp_transport::behavior_type stdio_tool_server(transport_ptr self, StdioToolServerSetup setup) {
  self->state.setup = std::move(setup);
  return {
    [=](const McpOpen& open) {
      auto& st = self->state;
      // Opened again once its process ended (the hub's fallback for a server that would not
      // take server/discover before its handshake): a new process; never two at once.
      if (st.process && !(st.ended && st.ended->load())) return;
      st.process.reset(); // ended: its thread is joined
      st.ended = std::make_shared<std::atomic<bool>>(false);
      // Held weakly: the hub holds this transport, and its end ends this one (actors/tool_hub.cpp).
      auto listener = caf::actor_cast<caf::weak_actor_ptr>(self->current_sender());
      auto tell = [listener](auto msg) {
        if (auto strong = listener.lock()) caf::anon_send(caf::actor_cast<caf::actor>(strong), std::move(msg));
      };
      const std::int32_t index = open.server;
      auto secrets = std::make_shared<SecretRedaction>(st.setup.secrets);
      const LimitCounts at_start = limit_counts(st.setup.limits);
      st.process = std::make_unique<StdioProcess>(
        st.setup.start,
        [tell, index](std::string line) { tell(McpLine{index, std::move(line)}); },
        [tell, index, secrets, ended = st.ended, at_start, setup = st.setup](StdioEnd end) {
          end.err_tail = clean_tail(secrets->redact(end.err_tail));
          end.start_error = secrets->redact(end.start_error);
          ended->store(true);
          std::string why = describe(end);
          const auto limit = limit_reached("the tool server '" + setup.name + "'",
                                           counted_since(at_start, limit_counts(setup.limits)), setup.bounds,
                                           end.signal, end.exit_status);
          if (!limit.code_and_what.empty()) why += " (" + limit.code_and_what + ")";
          tell(McpServerEnded{index, why});
        });
    },
    [=](const McpLine& l) {
      if (self->state.process) self->state.process->send(l.line);
    },
  };
}

} // namespace

mcp_transport spawn_stdio_tool_server(caf::actor_system& sys, StdioToolServerSetup setup) {
  return sys.spawn(stdio_tool_server, std::move(setup));
}

} // namespace mur
