#include "http/door_network.hpp"

#include "http/a2a_json.hpp"
#include "http/curl_messages.hpp"
#include "http/curl_pool.hpp"
#include "http/jsonrpc_call.hpp"
#include "messages/vocabulary/rpc_error_codes.hpp"
#include "messages/vocabulary/strict_json.hpp"
#include "messages/wire/agent_card.hpp"
#include "messages/wire/door_call.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/transport_failure.hpp"

#include <caf/all.hpp>

#include <map>

namespace mur {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

struct Pending {
  DoorMethod method = DoorMethod::unknown;
  DoorCallTo to;           // kept to read an ended task with GetTask
  Bearer bearer;
  caf::response_promise promise;
  bool answered = false;
  stream_listener subscriber; // SubscribeToTask: who gets the later TaskEvents
  TaskView task;           // a stream's task so far
};

struct NetworkState {
  std::shared_ptr<CurlPool> pool;
  std::string authority; // PEM: what an https door's certificate must be issued by ("" ⇒ no https door)
  std::uint64_t next_local = 1;
  std::map<std::uint64_t, Pending> pending; // by local id
  static inline const char* name = "mur.door_network";
};

// The door-call port plus what the curl threads hand back.
using door_network_actor = network_port::extend<caf::reacts_to<HttpEvent>, caf::reacts_to<HttpDone>>;
using network_actor = door_network_actor::stateful_base<NetworkState>;

// The failure a call that reached no HTTP answer is answered with: its reason, and its kind
// (a refused connection, a timeout, a broken one) so the egress names it.
caf::error transport_error(const std::string& reason) {
  namespace w = transport_reason;
  TransportFailure kind = TransportFailure::other;
  if (reason == w::refused) kind = TransportFailure::refused;
  else if (reason == w::timed_out || reason == w::connect_timed_out || reason == w::stalled) kind = TransportFailure::timed_out;
  else if (reason == w::reset || reason == w::cut) kind = TransportFailure::reset;
  else if (reason == w::no_reply) kind = TransportFailure::no_reply;
  return make_transport_error(kind, reason);
}

HttpCall make_call(network_actor* self, std::uint64_t local, const DoorCallTo& to, const Bearer& bearer,
                   const DoorRequest& req) {
  HttpCall call;
  door_network_actor me{self};
  if (to.url.rfind("https://", 0) == 0 && !self->state.authority.empty()) { // a door on another host
    call.https = true;
    call.authority = self->state.authority;
  }
  if (req.method == DoorMethod::agent_card) {
    call.method = "GET";
    call.url = to.url + "/.well-known/agent-card.json";
    call.timeout = 5s;
  } else {
    call.url = to.url + "/";
    call.body = a2a::request_json(json("mur-" + std::to_string(local)), req).dump();
    call.headers = {"Content-Type: application/json", "A2A-Version: 1.0"};
    if (bearer.token) {
      call.headers.push_back("Authorization: Bearer " + bearer.token->expose());
      call.headers.push_back("x-murmur-task-origin: peer");
    } else if (bearer.door_token) {
      call.headers.push_back("Authorization: Bearer " + bearer.door_token->expose());
    }
    const bool stream = streams(req.method);
    call.timeout = stream ? 0ms : 30s;
    if (stream) {
      call.headers.push_back("Accept: text/event-stream");
    }
    report_to(call, me, local, stream);
    return call;
  }
  report_to(call, me, local, false);
  return call;
}

void on_event(network_actor* self, const HttpEvent& ev) {
  auto it = self->state.pending.find(ev.id);
  if (it == self->state.pending.end()) return;
  Pending& p = it->second;
  json doc = parse_bounded_json(ev.data).value_or(json(json::value_t::discarded));
  DoorReply reply;
  if (!doc.is_object() || (!doc.contains("result") && !doc.contains("error"))) return; // not an event of ours
  if (doc.contains("error")) {
    reply = a2a::door_reply_from(200, ev.data);
    if (!p.answered) {
      p.answered = true;
      p.promise.deliver(reply);
    }
    return;
  }
  bool changed = false;
  try {
    changed = a2a::apply_stream_event(p.task, doc["result"]);
  } catch (const std::exception&) {
    return;
  }
  if (!p.answered) {
    p.answered = true;
    reply.task = p.task;
    p.promise.deliver(reply);
    return;
  }
  if (changed && p.subscriber) self->send(p.subscriber, TaskEvent{p.task, {}});
}

void on_done(network_actor* self, const HttpDone& d) {
  auto it = self->state.pending.find(d.id);
  if (it == self->state.pending.end()) return;
  Pending p = std::move(it->second);
  self->state.pending.erase(it);
  if (p.answered) { // a stream that ended after its first event
    if (p.subscriber && !is_terminal(p.task.state)) self->send(p.subscriber, TaskStreamLost{p.task.id});
    return;
  }
  if (d.status == 0) {
    p.promise.deliver(transport_error(d.error));
    return;
  }
  if (p.method == DoorMethod::agent_card) {
    json card = parse_bounded_json(d.body).value_or(json(json::value_t::discarded));
    if (d.status != 200 || !card.is_object()) {
      p.promise.deliver(transport_error("answered no agent card (HTTP " + std::to_string(d.status) + ")"));
      return;
    }
    DoorReply r;
    r.session_id = a2a::card_session_id(card);
    p.promise.deliver(r);
    return;
  }
  if (d.status != 200 && d.status != 401 && d.status != 403) {
    p.promise.deliver(transport_error("answered HTTP " + std::to_string(d.status)));
    return;
  }
  DoorReply r = a2a::door_reply_from(d.status, d.body);
  if (p.method == DoorMethod::subscribe_to_task && r.rpc_code == rpc::unsupported_operation) {
    // The task has ended: its current state is what GetTask answers.
    DoorRequest get;
    get.method = DoorMethod::get_task;
    get.task_id = p.task.id;
    const std::uint64_t local = self->state.next_local++;
    auto to = p.to;
    auto bearer = p.bearer;
    p.method = DoorMethod::get_task;
    p.subscriber = nullptr;
    self->state.pending.emplace(local, std::move(p));
    self->state.pool->submit(make_call(self, local, to, bearer, get));
    return;
  }
  p.promise.deliver(r);
}

door_network_actor::behavior_type door_network(network_actor* self, std::shared_ptr<CurlPool> pool, std::string authority) {
  self->state.pool = std::move(pool);
  self->state.authority = std::move(authority);
  return {
    [=](const DoorCallTo& to, const Bearer& bearer, const DoorRequest& req) -> caf::result<DoorReply> {
      auto& st = self->state;
      const std::uint64_t local = st.next_local++;
      Pending p;
      p.method = req.method;
      p.to = to;
      p.bearer = bearer;
      p.task.id = req.task_id;
      if (streams(req.method))
        p.subscriber = caf::actor_cast<stream_listener>(self->current_sender());
      p.promise = self->make_response_promise();
      st.pending.emplace(local, std::move(p));
      st.pool->submit(make_call(self, local, to, bearer, req));
      return caf::delegated<DoorReply>{};
    },
    [=](const HttpEvent& ev) { on_event(self, ev); },
    [=](const HttpDone& d) { on_done(self, d); },
  };
}

} // namespace

network_port spawn_door_network(caf::actor_system& sys, std::shared_ptr<CurlPool> pool, std::string authority) {
  return network_port{sys.spawn(door_network, std::move(pool), std::move(authority))};
}

} // namespace mur
