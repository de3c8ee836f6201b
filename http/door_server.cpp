// The one translation unit that includes RESTinio (toolchain.md §4).
#include "http/door_server.hpp"

#include "http/http_refusal.hpp"
#include "messages/a2a_json.hpp"
#include "messages/door_authorization.hpp"
#include "messages/door_request.hpp"
#include "messages/door_token.hpp"
#include "messages/failure.hpp"
#include "messages/formation_verifier.hpp"
#include "messages/jsonrpc_call.hpp"

#include <caf/all.hpp>
#include <restinio/all.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>

namespace mur {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;
using router_t = restinio::router::express_router_t<>;
struct traits : restinio::default_traits_t {
  using request_handler_t = router_t;
};

constexpr auto door_timeout = 30s;

struct Shared {
  DoorServerSetup setup;
  std::atomic<std::uint16_t> port{0};
  std::mutex mu;
  std::condition_variable cv;
  std::set<caf::actor> streams;
  bool stopping = false;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port.load()); }
  a2a::CardFacts card() const {
    a2a::CardFacts c = setup.card;
    c.url = url();
    return c;
  }
};

restinio::http_status_line_t status_line(int status) {
  switch (status) {
  case 200: return restinio::status_ok();
  case 401: return restinio::status_unauthorized();
  case 403: return restinio::status_forbidden();
  case 404: return restinio::status_not_found();
  case 413: return restinio::status_payload_too_large();
  default: return restinio::status_service_unavailable();
  }
}

void reply_body(const restinio::request_handle_t& req, int status, const std::string& body,
                const std::string& challenge = {}) {
  auto resp = req->create_response(status_line(status));
  resp.append_header(restinio::http_field::content_type, "application/json");
  if (!challenge.empty()) resp.append_header(restinio::http_field::www_authenticate, challenge);
  resp.set_body(body).done();
}

void reply_refusal(const restinio::request_handle_t& req, const HttpRefusal& r) {
  reply_body(req, r.status, r.body, r.challenge);
}

void reply_rpc(const restinio::request_handle_t& req, const json& body) { reply_body(req, 200, body.dump()); }

bool caseless_eq(const std::string& a, const char* b) {
  std::size_t n = std::strlen(b);
  if (a.size() != n) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

std::string trimmed(const std::string& s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// What one POST / asks for, as far as it could be read before the door judged the credential.
struct Exchange {
  std::shared_ptr<Shared> shared;
  restinio::request_handle_t req;
  DoorRequest base;                    // verdict and peer origin
  a2a::RpcCall call;
  bool not_found = false;              // step 5
  std::optional<json> early;           // a JSON-RPC error due once the credential passed
  std::string scope_before_early;      // the method whose scope is checked before `early`
  std::optional<DoorRequest> door_req; // a door method with good params
};

struct Stream {
  restinio::response_builder_t<restinio::chunked_output_t> resp;
  bool open = true;
};

void answer_door_reply(const Exchange& x, const DoorReply& r) {
  if (r.http_status != 200) {
    reply_refusal(x.req, http_refusal(r, x.shared->setup.card.capsule_name));
    return;
  }
  if (x.call.method == "GetExtendedAgentCard" && r.ok()) {
    reply_rpc(x.req, a2a::result_response(x.call.id, a2a::agent_card(x.shared->card(), true)));
    return;
  }
  reply_rpc(x.req, a2a::door_reply_response(x.call, r));
}

void door_unreachable(const Exchange& x) {
  reply_rpc(x.req, a2a::error_response(a2a::RpcProblem{x.call.id, -32603, "Internal error: the session is ending", "", json::object()}));
}

// The streaming half: the first event is the Task; then every change; closed at a terminal state.
void stream(caf::event_based_actor* self, const Exchange& x, const TaskView& first) {
  auto sh = x.shared;
  auto s = std::make_shared<Stream>(Stream{x.req->create_response<restinio::chunked_output_t>(), true});
  s->resp.append_header(restinio::http_field::content_type, "text/event-stream");
  s->resp.append_header(restinio::http_field::cache_control, "no-cache");
  const json id = x.call.id;
  auto me = caf::actor_cast<caf::actor>(self);
  auto write = [s, me](const std::string& chunk) {
    if (!s->open) return;
    s->resp.append_chunk(chunk);
    s->resp.flush([me](const restinio::asio_ns::error_code& ec) {
      if (ec) caf::anon_send(me, gone_atom_v);
    });
  };
  auto event = [write, id](const json& result) { write("data: " + a2a::result_response(id, result).dump() + "\n\n"); };
  auto finish = [self, s, sh, me]() {
    if (!s->open) return;
    s->open = false;
    s->resp.done();
    {
      std::lock_guard<std::mutex> lock(sh->mu);
      sh->streams.erase(me);
    }
    sh->cv.notify_all();
    self->quit();
  };
  {
    std::lock_guard<std::mutex> lock(sh->mu);
    sh->streams.insert(me);
  }
  event(a2a::task_event(first));
  if (is_terminal(first.state)) {
    finish();
    return;
  }
  self->monitor(sh->setup.door);
  self->set_down_handler([finish](const caf::down_msg&) { finish(); });
  const auto beat = sh->setup.heartbeat;
  self->delayed_send(self, beat, caf::tick_atom_v);
  self->become(
    [event, finish](const TaskEvent& ev) {
      if (ev.task.state == TaskState::completed) event(a2a::artifact_update_event(ev.task));
      event(a2a::status_update_event(ev.task));
      if (is_terminal(ev.task.state)) finish();
    },
    [self, write, beat](caf::tick_atom) {
      write(": ping\n\n");
      self->delayed_send(self, beat, caf::tick_atom_v);
    },
    [finish](gone_atom) { finish(); },
    [finish](caf::close_atom) { finish(); });
}

void call_door(caf::event_based_actor* self, const Exchange& x) {
  const DoorRequest& req = *x.door_req;
  auto on_reply = [self, x](const DoorReply& r) {
    if (x.call.method == "SubscribeToTask" && r.ok() && is_terminal(r.task.state)) {
      reply_rpc(x.req, a2a::error_response({x.call.id, -32004,
                                            "Unsupported operation: task " + r.task.id + " has ended " +
                                              state_word(r.task.state) + "; read it with GetTask",
                                            "UNSUPPORTED_OPERATION",
                                            json{{"taskId", r.task.id}, {"state", to_string(r.task.state)}}}));
      return;
    }
    if (a2a::is_streaming_method(x.call.method) && r.ok()) stream(self, x, r.task);
    else answer_door_reply(x, r);
  };
  auto on_error = [x](const caf::error&) { door_unreachable(x); };
  // A blocking SendMessage (returnImmediately false) is answered when its task ends.
  if (req.method == "SendMessage" && !req.return_immediately)
    self->request(x.shared->setup.door, caf::infinite, req).then(on_reply, on_error);
  else
    self->request(x.shared->setup.door, door_timeout, req).then(on_reply, on_error);
}

// SendMessage naming a task: the door holds no task waiting for input, so a known task is
// -32004 and an unknown one -32001 (asked of the door under the same credential).
void continue_task(caf::event_based_actor* self, const Exchange& x) {
  DoorRequest get = x.base;
  get.method = "GetTask";
  get.task_id = x.door_req->task_id;
  self->request(x.shared->setup.door, door_timeout, get)
    .then(
      [x](const DoorReply& r) {
        if (r.http_status != 200 && r.refusal != "insufficient_scope") {
          reply_refusal(x.req, http_refusal(r, x.shared->setup.card.capsule_name));
          return;
        }
        const std::string& tid = x.door_req->task_id;
        if (r.rpc_code == -32001 || r.rpc_code == -32602) {
          reply_rpc(x.req, a2a::error_response({x.call.id, -32001, "Task not found: not a task this capsule holds",
                                                "TASK_NOT_FOUND", json{{"taskId", tid}}}));
          return;
        }
        json md{{"taskId", tid}};
        if (r.ok()) md["state"] = to_string(r.task.state);
        reply_rpc(x.req, a2a::error_response({x.call.id, -32004,
                                              "Unsupported operation: task " + tid + " is not waiting for input",
                                              "UNSUPPORTED_OPERATION", md}));
      },
      [x](const caf::error&) { door_unreachable(x); });
}

void exchange(caf::event_based_actor* self, Exchange x) {
  if (x.door_req) {
    x.door_req->verdict = x.base.verdict;
    x.door_req->peer_origin = x.base.peer_origin;
    const bool names_task = (x.door_req->method == "SendMessage" || x.door_req->method == "SendStreamingMessage") &&
                            !x.door_req->task_id.empty();
    if (names_task) continue_task(self, x);
    else call_door(self, x);
    return;
  }
  // Anything answered before the door: let the door judge the credential first.
  DoorRequest probe = x.base;
  probe.method.clear();
  self->request(x.shared->setup.door, door_timeout, probe)
    .then(
      [x](const DoorReply& r) {
        const auto& setup = x.shared->setup;
        if (r.http_status != 200) {
          reply_refusal(x.req, http_refusal(r, setup.card.capsule_name));
        } else if (x.not_found) {
          reply_body(x.req, 404, R"({"error":"not_found","message":"this door answers POST / with a JSON-RPC body"})");
        } else if (!x.scope_before_early.empty() && setup.card.authenticated &&
                   !x.base.verdict.reaches(x.scope_before_early)) {
          DoorReply refusal;
          refusal.http_status = 403;
          refusal.refusal = "insufficient_scope";
          refusal.refusal_message =
            "credential '" + x.base.verdict.credential + "' does not reach " + x.scope_before_early;
          refusal.refusal_scope = x.scope_before_early;
          reply_refusal(x.req, http_refusal(refusal, setup.card.capsule_name));
        } else {
          reply_rpc(x.req, *x.early);
        }
      },
      [x](const caf::error&) { door_unreachable(x); });
}

// Reads what it can of one POST / on the RESTinio thread; the rest happens in an exchange actor.
restinio::request_handling_status_t on_post(const std::shared_ptr<Shared>& sh, const restinio::request_handle_t& req) {
  if (req->body().size() > max_request_body) {
    reply_refusal(req, payload_too_large(max_request_body));
    return restinio::request_accepted();
  }
  std::vector<std::string> auth, versions;
  std::string origin, content_type;
  req->header().for_each_field([&](const restinio::http_header_field_t& f) {
    if (caseless_eq(f.name(), "authorization")) auth.push_back(f.value());
    else if (caseless_eq(f.name(), "a2a-version")) versions.push_back(f.value());
    else if (caseless_eq(f.name(), "x-murmur-task-origin")) origin = trimmed(f.value());
    else if (caseless_eq(f.name(), "content-type")) content_type = f.value();
  });
  std::vector<std::string_view> views(auth.begin(), auth.end());
  Exchange x;
  x.shared = sh;
  x.req = req;
  x.base.verdict = verify_authorization(views, *sh->setup.door_tokens, sh->setup.formation.get());
  x.base.peer_origin = origin == "peer";

  std::string ct = content_type.substr(0, content_type.find(';'));
  for (auto& c : ct) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (trimmed(ct) != "application/json" || req->body().empty()) {
    x.not_found = true;
  } else {
    auto env = a2a::parse_envelope(req->body());
    if (auto* p = std::get_if<a2a::RpcProblem>(&env)) {
      x.early = a2a::error_response(*p);
    } else {
      x.call = std::get<a2a::RpcCall>(env);
      auto version = a2a::check_version(versions, x.call.id);
      if (auto* vp = std::get_if<a2a::RpcProblem>(&version)) {
        x.early = a2a::error_response(*vp);
      } else if (a2a::is_push_method(x.call.method)) {
        x.early = a2a::error_response({x.call.id, -32003, "Push notifications are not supported by this door",
                                       "PUSH_NOTIFICATION_NOT_SUPPORTED", json::object()});
      } else if (!a2a::is_door_method(x.call.method)) {
        x.early = a2a::error_response({x.call.id, -32601, "Method not found", "", json::object()});
      } else {
        auto dr = a2a::door_request_from(x.call);
        if (auto* pp = std::get_if<a2a::RpcProblem>(&dr)) {
          x.early = a2a::error_response(*pp);
          x.scope_before_early = x.call.method;
        } else {
          x.door_req = std::get<DoorRequest>(dr);
        }
      }
    }
  }
  sh->setup.system->spawn(exchange, std::move(x));
  return restinio::request_accepted();
}

std::unique_ptr<router_t> make_router(const std::shared_ptr<Shared>& sh) {
  auto r = std::make_unique<router_t>();
  r->http_get("/.well-known/agent-card.json", [sh](auto req, auto) {
    req->create_response()
      .append_header(restinio::http_field::content_type, "application/json")
      .append_header(restinio::http_field::cache_control, "no-cache")
      .set_body(a2a::agent_card(sh->card()).dump())
      .done();
    return restinio::request_accepted();
  });
  r->http_post("/", [sh](auto req, auto) { return on_post(sh, req); });
  r->non_matched_request_handler([](auto req) {
    reply_body(req, 404, R"({"error":"not_found","message":"this door serves POST / and GET /.well-known/agent-card.json"})");
    return restinio::request_accepted();
  });
  return r;
}

} // namespace

struct DoorServer::Impl {
  std::shared_ptr<Shared> shared;
  restinio::running_server_handle_t<traits> server;
  bool stopped = false;
};

DoorServer::DoorServer(DoorServerSetup setup) : impl_(std::make_unique<Impl>()) {
  auto sh = std::make_shared<Shared>();
  sh->setup = std::move(setup);
  impl_->shared = sh;
  const std::uint64_t read_limit = 8 * max_request_body; // beyond this the connection is dropped
  try {
    impl_->server = restinio::run_async(
      restinio::own_io_context(),
      restinio::server_settings_t<traits>{}
        .address("127.0.0.1")
        .port(0)
        .acceptor_post_bind_hook([sh](restinio::asio_ns::ip::tcp::acceptor& a) { sh->port = a.local_endpoint().port(); })
        // Long enough for a blocking SendMessage to wait out a task's call deadline (600 s);
        // streams write a heartbeat every few seconds, idle connections end sooner (below).
        .handle_request_timeout(std::chrono::minutes(30))
        .read_next_http_message_timelimit(sh->setup.idle_timeout)
        .incoming_http_msg_limits(restinio::incoming_http_msg_limits_t{}.max_body_size(read_limit))
        .request_handler(make_router(sh)),
      1);
  } catch (const std::exception& e) {
    throw Failure("E-RUN-047", std::string("the door could not listen on 127.0.0.1: ") + e.what(),
                  "check that loopback networking works on this machine");
  }
}

DoorServer::~DoorServer() { stop(); }

std::uint16_t DoorServer::port() const { return impl_->shared->port.load(); }
std::string DoorServer::url() const { return impl_->shared->url(); }

void DoorServer::stop() {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  auto& sh = *impl_->shared;
  {
    std::unique_lock<std::mutex> lock(sh.mu);
    sh.stopping = true;
    for (const auto& s : sh.streams) caf::anon_send(s, caf::close_atom_v);
    sh.cv.wait_for(lock, 3s, [&] { return sh.streams.empty(); });
  }
  impl_->server->stop();
  impl_->server->wait();
}

} // namespace mur
