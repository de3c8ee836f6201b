// mcp_http_transport.cpp — see mcp_http_transport.hpp.
#include "http/mcp_http_transport.hpp"

#include "http/curl_messages.hpp"
#include "messages/vocabulary/strict_json.hpp"
#include "messages/vocabulary/terminal_text.hpp"
#include "messages/wire/mcp_client_wire.hpp"
#include "messages/wire/mcp_revisions.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <deque>
#include <map>

namespace mur {

namespace {

using json = nlohmann::json;
using http_transport = mcp_transport::extend<caf::reacts_to<HttpEvent>, caf::reacts_to<HttpDone>>;

constexpr std::size_t max_message = 16u * 1024 * 1024; // one answer or one event, as a stdio line
constexpr std::chrono::seconds post_margin{10};        // a POST outlives the hub's own call timeout
constexpr std::chrono::minutes listen_stall{10};       // a listening stream silent this long is opened anew
constexpr std::chrono::seconds listen_kept{10};        // one that lasted this long is opened anew when it ends

struct Post {
  enum class Kind { initialize, request, other, listen } kind = Kind::other;
  json id;                // a request's
  bool answered = false;  // a message with its id came back
  bool had_session = false; // it carried the session the server gave (a 404 then means the session is gone)
  std::uint64_t pool_id = 0;
  std::chrono::steady_clock::time_point since;
};

struct McpHttpState {
  McpHttpSetup setup;
  caf::weak_actor_ptr listener;
  std::int32_t index = -1;
  std::string session_id;
  std::string version;        // as the server's initialize answer gave it
  bool initializing = false;  // initialize is out: lines wait
  bool notifying = false;     // a notification (or a response of ours) is out: later lines wait, so
                              // the server reads them in the hub's order
  bool initialized = false;   // its answer came: requests carry the session and version
  bool listening = false;     // the GET stream is open
  bool listened = false;      // it was opened once (after notifications/initialized)
  bool ended = false;
  std::deque<std::string> held;
  std::map<std::uint64_t, Post> posts;
  std::uint64_t next = 1;
  static inline const char* name = "mur.mcp_http_transport";

  McpHttpState() = default;
  McpHttpState(const McpHttpState&) = delete;
  McpHttpState& operator=(const McpHttpState&) = delete;

  // `modern`: the 2026-07-28 request's version, method and name (its routing headers), none of
  // the legacy session's.
  std::vector<std::string> headers(bool with_body, const std::vector<std::string>& modern = {}) const {
    std::vector<std::string> h;
    if (with_body) h.emplace_back("Content-Type: application/json");
    h.emplace_back(with_body ? "Accept: application/json, text/event-stream" : "Accept: text/event-stream");
    h.insert(h.end(), modern.begin(), modern.end());
    if (initialized && modern.empty()) {
      h.push_back("MCP-Protocol-Version: " + (version.empty() ? std::string(mcp_client::protocol_version) : version));
      if (!session_id.empty()) h.push_back("Mcp-Session-Id: " + session_id);
    }
    h.insert(h.end(), setup.headers.begin(), setup.headers.end());
    return h;
  }

  // The actor's end: nothing it opened stays open, and the server may forget the session.
  ~McpHttpState() {
    if (!setup.pool) return;
    for (const auto& [local, p] : posts) setup.pool->cancel(p.pool_id);
    if (session_id.empty()) return;
    HttpCall bye;
    bye.url = setup.url;
    bye.method = "DELETE";
    bye.headers = headers(false);
    bye.https = setup.url.rfind("https://", 0) == 0;
    bye.timeout = std::chrono::seconds(2);
    bye.farewell = true; // the member's end waits for it, no longer than that
    bye.max_body = 64 * 1024;
    bye.on_done = [](long, std::string, std::string) {};
    setup.pool->submit(std::move(bye));
  }
};

using self_ptr = http_transport::stateful_pointer<McpHttpState>;

template <class Message>
void tell(self_ptr self, Message msg) {
  if (auto strong = self->state.listener.lock()) caf::anon_send(caf::actor_cast<caf::actor>(strong), std::move(msg));
}

void end(self_ptr self, const std::string& why) {
  auto& st = self->state;
  if (st.ended) return;
  st.ended = true;
  st.held.clear();
  tell(self, McpServerEnded{st.index, why});
}

// Why a POST brought no answer, in words the hub puts after the server's name. Status 0 is a
// transport failure: only one before any byte of a reply says the server could not be reached.
std::string why_not(self_ptr self, const HttpDone& d, const char* what) {
  auto& st = self->state;
  if (d.status == 0) {
    if (d.error == transport_reason::timed_out) return "did not answer " + std::string(what) + " in time";
    if (d.received) return "broke off its answer to " + std::string(what) + " (" + d.error + ")";
    if (d.error == transport_reason::no_reply || d.error == transport_reason::reset)
      return "closed the connection without answering " + std::string(what) + " (" + d.error + ")";
    return "could not be reached at " + st.setup.url + " (" + d.error + ")";
  }
  if (d.status >= 300) {
    std::string body = terminal_safe(st.setup.secrets.redact(d.body).substr(0, 4096)); // redacted, then cut
    if (body.size() > 200) body = body.substr(0, 200) + "…";
    return "answered " + std::string(what) + " with HTTP " + std::to_string(d.status) + (body.empty() ? "" : ": " + body);
  }
  return "closed its answer to " + std::string(what) + " without a reply";
}

void submit(self_ptr self, Post p, HttpCall call) {
  auto& st = self->state;
  const std::uint64_t local = st.next++;
  call.url = st.setup.url;
  call.https = st.setup.url.rfind("https://", 0) == 0;
  call.max_body = max_message;
  call.max_event = max_message;
  report_to(call, http_transport{self}, local, true);
  p.since = std::chrono::steady_clock::now();
  p.had_session = st.initialized && !st.session_id.empty();
  p.pool_id = st.setup.pool->submit(std::move(call));
  st.posts.emplace(local, std::move(p));
}

void listen(self_ptr self) {
  auto& st = self->state;
  if (st.listening || st.ended) return;
  st.listening = true;
  st.listened = true;
  HttpCall call;
  call.method = "GET";
  call.headers = st.headers(false);
  call.timeout = std::chrono::milliseconds(0);
  call.stall_limit = listen_stall;
  submit(self, Post{Post::Kind::listen, nullptr}, std::move(call));
}

// A request that names its revision in `_meta` (2026-07-28): the headers that repeat it, its
// method and the name it acts on, as that revision's HTTP binding asks. None for a legacy one.
std::vector<std::string> modern_headers(const json& j) {
  const json* params = j.contains("params") && j["params"].is_object() ? &j["params"] : nullptr;
  if (!params || !params->contains("_meta") || !(*params)["_meta"].is_object()) return {};
  const auto& v = (*params)["_meta"].value(mcp_client::meta_version_key, json());
  if (!v.is_string() || !j["method"].is_string()) return {};
  std::vector<std::string> h{"MCP-Protocol-Version: " + v.get<std::string>(), "Mcp-Method: " + j["method"].get<std::string>()};
  if (params->contains("name") && (*params)["name"].is_string()) h.push_back("Mcp-Name: " + (*params)["name"].get<std::string>());
  return h;
}

// A notifications/cancelled for a request still out: its POST is closed, which is the
// cancellation itself under 2026-07-28 (no notice is sent then: there is no session to route it
// to) and harmless beside the notice under 2025-11-25. True when the notice is not to be sent.
bool cancel_post(self_ptr self, const nlohmann::json& j) {
  auto& st = self->state;
  const json* params = j.contains("params") && j["params"].is_object() ? &j["params"] : nullptr;
  if (!params || !params->contains("requestId")) return false;
  for (auto it = st.posts.begin(); it != st.posts.end(); ++it)
    if (it->second.kind == Post::Kind::request && it->second.id == (*params)["requestId"]) {
      st.setup.pool->cancel(it->second.pool_id); // its HttpDone finds no post and is passed over
      st.posts.erase(it);
      break;
    }
  return !modern_headers(j).empty();
}

void post(self_ptr self, const std::string& line) {
  auto& st = self->state;
  const auto j = parse_strict_json(line);
  Post p;
  std::vector<std::string> modern;
  if (j && j->is_object() && j->contains("method") && j->contains("id")) {
    p.kind = (*j)["method"] == "initialize" ? Post::Kind::initialize : Post::Kind::request;
    p.id = (*j)["id"];
    modern = modern_headers(*j);
  } else if (j && j->is_object() && j->value("method", json()) == "notifications/cancelled" && cancel_post(self, *j)) {
    return;
  }
  if (p.kind == Post::Kind::initialize) st.initializing = true;
  if (p.kind == Post::Kind::other) st.notifying = true;
  HttpCall call;
  call.body = line;
  call.headers = st.headers(true, modern);
  call.timeout = st.setup.call_timeout + post_margin;
  submit(self, std::move(p), std::move(call));
}

// The lines held back, in order, until one holds the rest again.
void release(self_ptr self) {
  auto& st = self->state;
  while (!st.held.empty() && !st.initializing && !st.notifying && !st.ended) {
    std::string line = std::move(st.held.front());
    st.held.pop_front();
    post(self, line);
  }
}

// One message of the server's, to the hub; notes what it answers.
void forward(self_ptr self, Post& p, const std::string& text) {
  auto& st = self->state;
  const auto j = parse_strict_json(text);
  if (j && j->is_object() && p.kind != Post::Kind::listen && j->contains("id") && (*j)["id"] == p.id &&
      !j->contains("method")) {
    p.answered = true;
    if (p.kind == Post::Kind::initialize && j->contains("result") && (*j)["result"].is_object()) {
      const auto& v = (*j)["result"].value("protocolVersion", json());
      // Only a revision mur knows goes into a header (never a text the server chose).
      if (v.is_string() && mcp::handshake_era(v.get<std::string>())) st.version = v.get<std::string>();
    }
  }
  tell(self, McpLine{st.index, text});
}

// The initialize answered: its session (a visible ASCII id, as it goes into every later
// request's headers) is kept and the lines held behind it go.
void initialized(self_ptr self, const std::string& session_id) {
  auto& st = self->state;
  st.initializing = false;
  for (char c : session_id)
    if (c < 0x21 || c > 0x7e) return end(self, "gave a session id that is not visible ASCII");
  st.session_id = session_id;
  st.initialized = true;
  release(self);
}

void on_event(self_ptr self, const HttpEvent& ev) {
  auto& st = self->state;
  auto it = st.posts.find(ev.id);
  if (it == st.posts.end() || st.ended) return;
  forward(self, it->second, ev.data);
  const auto kind = it->second.kind;
  if (!it->second.answered || (kind != Post::Kind::request && kind != Post::Kind::initialize)) return;
  // Its answer came on a stream the server may keep open: the POST is done with and closed, so
  // neither the lines after an initialize nor a connection wait for the server to close it.
  const Post p = std::move(it->second);
  st.posts.erase(it);
  st.setup.pool->cancel(p.pool_id);
  if (p.kind == Post::Kind::initialize) initialized(self, ev.session_id);
}

void on_done(self_ptr self, const HttpDone& d) {
  auto& st = self->state;
  auto it = st.posts.find(d.id);
  if (it == st.posts.end()) return;
  Post p = std::move(it->second);
  st.posts.erase(it);
  if (st.ended) return;
  const bool ok = d.status >= 200 && d.status < 300;
  if (ok && !d.body.empty()) forward(self, p, d.body);
  if (!ok && p.kind == Post::Kind::request && !d.body.empty()) { // a JSON-RPC error for it, said with a 4xx
    const auto j = parse_strict_json(d.body);
    if (j && j->is_object() && j->contains("error") && j->contains("id") && (*j)["id"] == p.id) forward(self, p, d.body);
  }
  switch (p.kind) {
  case Post::Kind::listen: {
    st.listening = false;
    const bool lasted = std::chrono::steady_clock::now() - p.since >= listen_kept;
    // One that served a while is opened again (a proxy's idle close included); 405 (the server
    // sends nothing unasked), a refusal or a quick close: no more listening, so no busy loop.
    if ((lasted && (ok || d.status == 0)) || d.error == transport_reason::stalled) listen(self);
    return;
  }
  case Post::Kind::initialize: {
    st.initializing = false;
    if (!p.answered) return end(self, why_not(self, d, "initialize"));
    return initialized(self, d.session_id);
  }
  case Post::Kind::request:
    if (d.status == 404 && p.had_session)
      return end(self, "no longer knows its session (HTTP 404)");
    if (!p.answered)
      tell(self, McpLine{st.index, mcp_client::error(p.id, -32000, "the server " + why_not(self, d, "the request"))});
    return;
  case Post::Kind::other: // a notification or a response of ours: 202 and no body
    st.notifying = false;
    if (d.status == 404 && p.had_session)
      return end(self, "no longer knows its session (HTTP 404)");
    if (ok && st.initialized && !st.listened) listen(self); // the first one after initialize is notifications/initialized
    return release(self);
  }
}

http_transport::behavior_type mcp_http_transport(self_ptr self, McpHttpSetup setup) {
  self->state.setup = std::move(setup);
  return {
    [=](const McpOpen& open) {
      auto& st = self->state;
      if (st.index >= 0) return;
      // Held weakly: the hub holds this transport, and its end ends this one (actors/tool_hub.cpp).
      st.listener = caf::actor_cast<caf::weak_actor_ptr>(self->current_sender());
      st.index = open.server;
    },
    [=](const McpLine& l) {
      auto& st = self->state;
      if (st.index < 0 || st.ended) return;
      if (st.initializing || st.notifying || !st.held.empty()) st.held.push_back(l.line);
      else post(self, l.line);
    },
    [=](const HttpEvent& ev) { on_event(self, ev); },
    [=](const HttpDone& d) { on_done(self, d); },
  };
}

} // namespace

mcp_transport spawn_mcp_http_transport(caf::actor_system& sys, McpHttpSetup setup) {
  return mcp_transport{sys.spawn(mcp_http_transport, std::move(setup))};
}

} // namespace mur
