// tool_hub.cpp — see tool_hub.hpp.
#include "actors/tool_hub.hpp"

#include "messages/vocabulary/comma_list.hpp"
#include "messages/vocabulary/strict_json.hpp"
#include "messages/wire/mcp_client_wire.hpp"
#include "messages/wire/trace_event.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <deque>
#include <map>

namespace mur {

namespace {

using json = nlohmann::json;

enum class ServerPhase { discovering, starting, listing, ready, ended };

constexpr std::int64_t start_deadline = 0;     // the tool_timeout id of the start's whole bound
constexpr std::int64_t discover_deadline = -1; // and of the server/discover probe's
// A relisting's deadline is -(2 + its number), so a late one names a relisting that is over.
constexpr std::int64_t relist_deadline_base = -2;
constexpr int max_pages = 100; // of one listing: a server that pages without end is refused

struct WaitingCall {
  std::string tool; // the server's own name
  json arguments;
  caf::typed_response_promise<ToolReply> promise;
  std::string traceparent; // the calling task's execute_tool span: params._meta.traceparent ("": none)
};

struct Outstanding {
  enum class Kind { discover, initialize, list, call } kind = Kind::call;
  std::string tool;
  caf::typed_response_promise<ToolReply> promise;
};

struct ServerState {
  ToolServerSetup setup;
  ServerPhase phase = ServerPhase::discovering;
  bool modern = false;      // it answered server/discover with 2026-07-28: every request names it
  bool reopened = false;    // it ended at the probe and was started once more, for the handshake
  std::int64_t next_id = 1; // 0 and -1 are the deadlines' ids
  std::map<std::int64_t, Outstanding> outstanding;
  std::deque<WaitingCall> waiting;
  int calls_out = 0;
  std::vector<OwnTool> tools;
  std::vector<std::string> bare_names;
  std::string why_ended;
  // notifications/tools/list_changed: the list is read again into these, then replaces the one
  // offered; a change said while that reading is out is read once more after it.
  bool relisting = false;
  bool relist_again = false;
  std::int64_t relistings = 0; // how many were started (names each one's deadline)
  int pages = 0;               // of the listing under way
  std::vector<OwnTool> next_tools;
  std::vector<std::string> next_bare_names;
};

struct ToolHubState {
  ToolHubSetup setup;
  std::vector<ServerState> servers;
  std::vector<caf::typed_response_promise<ToolsListed>> listeners;
  std::string failure; // why the first server that could not start did not
  static inline const char* name = "mur.tool_hub";
};

using hub_ptr = tool_hub::stateful_pointer<ToolHubState>;

void trace(hub_ptr self, const char* type, const json& fields) {
  if (self->state.setup.trace)
    self->send(self->state.setup.trace, TraceEvent{type, fields.dump(-1, ' ', false, json::error_handler_t::replace)});
}

ToolReply tool_error(const std::string& text) { return ToolReply{"tool error: " + text, true}; }

bool settled(const ServerState& s) { return s.phase == ServerPhase::ready || s.phase == ServerPhase::ended; }

// Every server ready or failed: each waiting tools_atom gets the list (or the first failure).
void answer_listeners(hub_ptr self) {
  auto& st = self->state;
  for (const auto& s : st.servers)
    if (!settled(s)) return;
  ToolsListed listed;
  if (!st.failure.empty()) {
    listed.code = "E-TOOL-001";
    listed.failure = st.failure;
    listed.fix = "run its command by hand in the capsule folder (or check that the server at its url runs and "
                 "takes its headers), correct tools[].command, env, url or headers in murmur.yaml, and reinstall "
                 "the capsule";
  } else {
    for (const auto& s : st.servers) listed.tools.insert(listed.tools.end(), s.tools.begin(), s.tools.end());
  }
  for (auto& l : st.listeners) l.deliver(listed);
  st.listeners.clear();
}

void send_line(hub_ptr self, std::int32_t index, std::string line) {
  self->send(self->state.servers[static_cast<std::size_t>(index)].setup.transport, McpLine{index, std::move(line)});
}

// Sends a request of `kind`; its id is returned.
std::int64_t send_request(hub_ptr self, std::int32_t index, Outstanding o, const std::string& method,
                          const json& params) {
  auto& s = self->state.servers[static_cast<std::size_t>(index)];
  const std::int64_t id = s.next_id++;
  s.outstanding.emplace(id, std::move(o));
  const bool with_meta = s.modern || method == "server/discover";
  send_line(self, index, method == "initialize" ? mcp_client::initialize_request(id)
                                                : mcp_client::request(id, method, with_meta ? mcp_client::modern_params(params) : params));
  return id;
}

// Requests of `kind` still out are forgotten: an answer to one that comes later is passed over.
void forget(ServerState& s, Outstanding::Kind kind) {
  for (auto it = s.outstanding.begin(); it != s.outstanding.end();)
    it = it->second.kind == kind ? s.outstanding.erase(it) : std::next(it);
}

// The legacy era's handshake: the server did not answer server/discover as a 2026-07-28 one.
void initialize(hub_ptr self, std::int32_t index) {
  auto& s = self->state.servers[static_cast<std::size_t>(index)];
  s.phase = ServerPhase::starting;
  forget(s, Outstanding::Kind::discover); // a probe left unanswered
  send_request(self, index, Outstanding{Outstanding::Kind::initialize, "", {}}, "initialize", nullptr);
}

// The server has ended (or never came up): every call out or waiting is answered with why.
void server_ended(hub_ptr self, std::int32_t index, const std::string& why, const char* code) {
  auto& st = self->state;
  auto& s = st.servers[static_cast<std::size_t>(index)];
  if (s.phase == ServerPhase::ended) return;
  const bool was_ready = s.phase == ServerPhase::ready;
  s.phase = ServerPhase::ended;
  s.why_ended = why;
  const std::string text = std::string(code) + ": the tool server '" + s.setup.name + "' " + why;
  for (auto& [id, o] : s.outstanding)
    if (o.kind == Outstanding::Kind::call)
      o.promise.deliver(tool_error(text + "; its tools cannot be used in this session."));
  s.outstanding.clear();
  for (auto& w : s.waiting) w.promise.deliver(tool_error(text + "; its tools cannot be used in this session."));
  s.waiting.clear();
  trace(self, "tool_server_ended", {{"server", s.setup.name}, {"why", why}});
  if (!was_ready && st.failure.empty())
    st.failure = "the tool server '" + s.setup.name + "' did not start: " + why;
  answer_listeners(self);
}

void start_call(hub_ptr self, std::int32_t index, WaitingCall w) {
  auto& s = self->state.servers[static_cast<std::size_t>(index)];
  ++s.calls_out;
  Outstanding o{Outstanding::Kind::call, w.tool, std::move(w.promise)};
  json params{{"name", w.tool}, {"arguments", std::move(w.arguments)}};
  if (!w.traceparent.empty()) params["_meta"] = json{{"traceparent", w.traceparent}};
  const std::int64_t id = send_request(self, index, std::move(o), "tools/call", params);
  self->delayed_send(self, s.setup.call_timeout, tool_timeout_atom_v, index, id);
}

void next_waiting(hub_ptr self, std::int32_t index) {
  auto& s = self->state.servers[static_cast<std::size_t>(index)];
  while (s.phase == ServerPhase::ready && !s.waiting.empty() && s.calls_out < self->state.setup.calls_at_once) {
    WaitingCall w = std::move(s.waiting.front());
    s.waiting.pop_front();
    start_call(self, index, std::move(w));
  }
}

void list_page(hub_ptr self, std::int32_t index, const std::optional<std::string>& cursor) {
  ++self->state.servers[static_cast<std::size_t>(index)].pages;
  json params = json::object();
  if (cursor) params["cursor"] = *cursor;
  send_request(self, index, Outstanding{Outstanding::Kind::list, "", {}}, "tools/list", params);
}

void relisted(hub_ptr self, std::int32_t index, const std::vector<std::string>& left_out);
void relist_failed(hub_ptr self, std::int32_t index, const std::string& why);

void on_listed(hub_ptr self, std::int32_t index, const json& result) {
  auto& s = self->state.servers[static_cast<std::size_t>(index)];
  const auto* allow = s.setup.allow ? &*s.setup.allow : nullptr;
  auto page = mcp_client::read_tool_page(s.setup.name, result, allow);
  auto& tools = s.relisting ? s.next_tools : s.tools;
  auto& bare_names = s.relisting ? s.next_bare_names : s.bare_names;
  tools.insert(tools.end(), page.tools.begin(), page.tools.end());
  bare_names.insert(bare_names.end(), page.bare_names.begin(), page.bare_names.end());
  if (page.next_cursor && s.pages >= max_pages) {
    if (s.relisting) return relist_failed(self, index, "listed more than " + std::to_string(max_pages) + " pages");
    return server_ended(self, index, "listed more than " + std::to_string(max_pages) + " pages of tools", "E-TOOL-001");
  }
  if (page.next_cursor) return list_page(self, index, page.next_cursor);
  if (s.relisting) return relisted(self, index, page.left_out);
  if (allow)
    for (const auto& a : *allow)
      if (std::find(s.bare_names.begin(), s.bare_names.end(), a) == s.bare_names.end())
        return server_ended(self, index,
                            "lists no tool '" + a + "', which tools[].allow names (of those it allows, it "
                            "lists: " + (s.bare_names.empty() ? std::string("none") : comma_list(s.bare_names)) + ")",
                            "E-TOOL-001");
  s.phase = ServerPhase::ready;
  json names = json::array();
  for (const auto& t : s.tools) names.push_back(t.name);
  trace(self, "tool_server_ready", {{"server", s.setup.name},
                                    {"protocol", s.modern ? mcp_client::modern_version : mcp_client::protocol_version},
                                    {"tools", names},
                                    {"left_out", page.left_out}});
  answer_listeners(self);
  next_waiting(self, index);
}

// The server said its tools changed: read them again (once more if it says so while reading).
void relist(hub_ptr self, std::int32_t index) {
  auto& s = self->state.servers[static_cast<std::size_t>(index)];
  if (s.phase != ServerPhase::ready) return; // the first listing reads the list as it is then
  if (s.relisting) {
    s.relist_again = true;
    return;
  }
  s.relisting = true;
  s.pages = 0;
  s.next_tools.clear();
  s.next_bare_names.clear();
  ++s.relistings;
  self->delayed_send(self, self->state.setup.start_timeout, tool_timeout_atom_v, index,
                     relist_deadline_base - s.relistings);
  list_page(self, index, std::nullopt);
}

// The list could not be read again: the one offered stays; a change said meanwhile is read anew.
void relist_failed(hub_ptr self, std::int32_t index, const std::string& why) {
  auto& s = self->state.servers[static_cast<std::size_t>(index)];
  s.relisting = false;
  forget(s, Outstanding::Kind::list); // a page answered late is not read
  trace(self, "tool_server_relisted", {{"server", s.setup.name}, {"failed", why}});
  if (s.relist_again) {
    s.relist_again = false;
    relist(self, index);
  }
}

// The list read again replaces the one offered from the next model turn on; a tool the allow
// list names but the server no longer lists is simply not offered (the server keeps serving).
void relisted(hub_ptr self, std::int32_t index, const std::vector<std::string>& left_out) {
  auto& s = self->state.servers[static_cast<std::size_t>(index)];
  s.relisting = false;
  s.tools = std::move(s.next_tools);
  s.bare_names = std::move(s.next_bare_names);
  s.next_tools.clear();
  s.next_bare_names.clear();
  json names = json::array();
  for (const auto& t : s.tools) names.push_back(t.name);
  trace(self, "tool_server_relisted", {{"server", s.setup.name}, {"tools", names}, {"left_out", left_out}});
  if (s.relist_again) {
    s.relist_again = false;
    relist(self, index);
  }
}

void on_response(hub_ptr self, std::int32_t index, const mcp_client::Message& m) {
  auto& s = self->state.servers[static_cast<std::size_t>(index)];
  auto it = s.outstanding.find(*m.id);
  if (it == s.outstanding.end()) return; // answered already (timed out), or not ours
  Outstanding o = std::move(it->second);
  s.outstanding.erase(it);
  const bool failed = m.kind == mcp_client::Message::Kind::error;
  // What the server says is written out against its own secrets before it goes anywhere.
  const std::string error_text = s.setup.secrets.redact(m.error_text);
  switch (o.kind) {
  case Outstanding::Kind::discover:
    if (s.phase != ServerPhase::discovering) return;
    if (failed || !mcp_client::discover_says_modern(m.result)) return initialize(self, index); // any error: legacy
    s.modern = true; // stateless: no handshake, straight to the list
    s.phase = ServerPhase::listing;
    return list_page(self, index, std::nullopt);
  case Outstanding::Kind::initialize:
    if (failed) return server_ended(self, index, "refused initialize: " + error_text, "E-TOOL-001");
    send_line(self, index, mcp_client::notification("notifications/initialized", nullptr));
    s.phase = ServerPhase::listing;
    return list_page(self, index, std::nullopt);
  case Outstanding::Kind::list:
    if (failed && s.relisting) return relist_failed(self, index, error_text); // the list offered stays
    if (failed) return server_ended(self, index, "refused tools/list: " + error_text, "E-TOOL-001");
    return on_listed(self, index, m.result);
  case Outstanding::Kind::call:
    --s.calls_out;
    if (failed)
      o.promise.deliver(tool_error(s.setup.name + "__" + o.tool + " failed: " + error_text + "."));
    else {
      ToolReply reply = mcp_client::read_call_result(m.result);
      reply.text = s.setup.secrets.redact(reply.text);
      o.promise.deliver(std::move(reply));
    }
    return next_waiting(self, index);
  }
}

void on_line(hub_ptr self, const McpLine& l) {
  auto& st = self->state;
  if (l.server < 0 || static_cast<std::size_t>(l.server) >= st.servers.size()) return;
  if (st.servers[static_cast<std::size_t>(l.server)].phase == ServerPhase::ended) return;
  const auto m = mcp_client::read_line(l.line);
  using Kind = mcp_client::Message::Kind;
  switch (m.kind) {
  case Kind::response:
  case Kind::error:
    if (m.id) on_response(self, l.server, m);
    return;
  case Kind::request: // the client offers no capabilities: ping alone is answered
    if (m.method == "ping") send_line(self, l.server, mcp_client::result(m.raw_id, json::object()));
    else send_line(self, l.server, mcp_client::error(m.raw_id, -32601, "the client does not offer " + m.method));
    return;
  case Kind::notification: // list_changed: read the list again; progress, logging: passed over
    if (m.method == "notifications/tools/list_changed") relist(self, l.server);
    return;
  case Kind::invalid: // a line that is not a message (servers should write none): passed over
    return;
  }
}

void on_timeout(hub_ptr self, std::int32_t index, std::int64_t id) {
  auto& st = self->state;
  if (index < 0 || static_cast<std::size_t>(index) >= st.servers.size()) return;
  auto& s = st.servers[static_cast<std::size_t>(index)];
  if (id <= relist_deadline_base) { // a relisting's: only the one still under way
    if (s.relisting && id == relist_deadline_base - s.relistings)
      relist_failed(self, index, "did not answer tools/list within " +
                                   std::to_string(st.setup.start_timeout.count() / 1000) + " s");
    return;
  }
  if (id == discover_deadline) { // a legacy server may not answer a request before its handshake
    if (s.phase == ServerPhase::discovering) initialize(self, index);
    return;
  }
  if (id == start_deadline) {
    if (!settled(s))
      server_ended(self, index,
                   "did not answer initialize and tools/list within " +
                     std::to_string(st.setup.start_timeout.count() / 1000) + " s",
                   "E-TOOL-001");
    return;
  }
  auto it = s.outstanding.find(id);
  if (it == s.outstanding.end() || it->second.kind != Outstanding::Kind::call) return;
  Outstanding o = std::move(it->second);
  s.outstanding.erase(it);
  --s.calls_out;
  // Under 2026-07-28 the notice names its revision as a request does; over HTTP the transport
  // closes the call's stream instead, which is that revision's cancellation there.
  const json cancelled{{"requestId", id}, {"reason", "timed out"}};
  send_line(self, index, mcp_client::notification("notifications/cancelled",
                                                 s.modern ? mcp_client::modern_params(cancelled) : cancelled));
  o.promise.deliver(tool_error("E-TOOL-003: " + s.setup.name + "__" + o.tool + " did not answer within " +
                               std::to_string(s.setup.call_timeout.count() / 1000) +
                               " s (timeout_secs); the call was cancelled."));
  next_waiting(self, index);
}

caf::result<ToolReply> on_call(hub_ptr self, const ToolRequest& req) {
  auto& st = self->state;
  const std::string& name = req.call.name;
  const auto sep = name.find("__");
  for (std::size_t i = 0; sep != std::string::npos && i < st.servers.size(); ++i) {
    auto& s = st.servers[i];
    if (name.compare(0, sep, s.setup.name) != 0 || sep != s.setup.name.size()) continue;
    const std::string tool = name.substr(sep + 2);
    if (s.phase == ServerPhase::ended)
      return tool_error("E-TOOL-002: the tool server '" + s.setup.name + "' " + s.why_ended +
                        "; its tools cannot be used in this session.");
    if (s.phase == ServerPhase::ready &&
        std::find(s.bare_names.begin(), s.bare_names.end(), tool) == s.bare_names.end())
      break;
    auto args = parse_strict_json(req.call.arguments.empty() ? std::string("{}") : req.call.arguments);
    if (!args || !args->is_object())
      return tool_error("the arguments of " + name + " must be a JSON object. Nothing was sent.");
    WaitingCall w{tool, std::move(*args), self->make_response_promise<ToolReply>(), req.traceparent};
    auto promise = w.promise;
    s.waiting.push_back(std::move(w));
    next_waiting(self, static_cast<std::int32_t>(i));
    return promise;
  }
  return tool_error("there is no tool named \"" + name + "\". Nothing was sent.");
}

tool_hub::behavior_type hub_actor(hub_ptr self, ToolHubSetup setup) {
  auto& st = self->state;
  st.setup = std::move(setup);
  for (auto& s : st.setup.servers) st.servers.push_back(ServerState{s});
  // The servers end with the hub (the member's session), whatever ends it.
  std::vector<mcp_transport> transports;
  for (const auto& s : st.setup.servers) transports.push_back(s.transport);
  self->attach_functor([transports] {
    for (const auto& t : transports) caf::anon_send_exit(t, caf::exit_reason::user_shutdown);
  });
  for (std::size_t i = 0; i < st.servers.size(); ++i) {
    const auto index = static_cast<std::int32_t>(i);
    self->send(st.servers[i].setup.transport, McpOpen{index});
    send_request(self, index, Outstanding{Outstanding::Kind::discover, "", {}}, "server/discover", nullptr);
    self->delayed_send(self, st.setup.discover_timeout, tool_timeout_atom_v, index, discover_deadline);
    self->delayed_send(self, st.setup.start_timeout, tool_timeout_atom_v, index, start_deadline);
  }
  return {
    [=](const ToolRequest& req) { return on_call(self, req); },
    [=](tools_atom) -> caf::result<ToolsListed> {
      auto promise = self->make_response_promise<ToolsListed>();
      self->state.listeners.push_back(promise);
      answer_listeners(self);
      return promise;
    },
    [=](const McpLine& l) { on_line(self, l); },
    [=](const McpServerEnded& e) {
      if (e.server < 0 || static_cast<std::size_t>(e.server) >= self->state.servers.size()) return;
      auto& s = self->state.servers[static_cast<std::size_t>(e.server)];
      if (s.phase == ServerPhase::discovering && !s.reopened) {
        // A 2025 server may end at a first message that is not initialize: start it once more
        // and greet it the old way.
        s.reopened = true;
        trace(self, "tool_server_reopened", {{"server", s.setup.name}, {"why", "ended at server/discover: " + e.why}});
        self->send(s.setup.transport, McpOpen{e.server});
        return initialize(self, e.server);
      }
      server_ended(self, e.server, e.why, "E-TOOL-002");
    },
    [=](tool_timeout_atom, std::int32_t index, std::int64_t id) { on_timeout(self, index, id); },
  };
}

} // namespace

tool_port spawn_tool_hub(caf::actor_system& sys, ToolHubSetup setup) {
  return tool_port{sys.spawn(hub_actor, std::move(setup))};
}

} // namespace mur
