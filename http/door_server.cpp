// The one translation unit that includes RESTinio (docs/ARCHITECTURE.md §Folders and what each
// may include).
//
// What RESTinio 0.6.16 does not let a door do (docs/spec/choices.md §Hostile input asks it to
// answer whatever a client sends), and what happens instead:
//   - Any error of the HTTP parser (http_parser 2.9) — conflicting, repeated or negative
//     Content-Length, Content-Length together with Transfer-Encoding, a bad chunk size, NUL or
//     another invalid byte in a header, an invalid method or version line — ends in
//     `connection_t::consume_data` → `trigger_error_and_close`: the connection is closed with no
//     answer, and no hook (handler, listener, logger) may write one. So those get a close, not
//     400.
//   - The handler runs only once the whole message (body included) has been read, and
//     RESTinio reserves a body's Content-Length when the headers end; past its own limit there
//     it closes the connection without an answer, and no hook may write one. So the door's
//     socket (http/header_limit_socket.hpp) reads the headers before RESTinio does: a
//     Content-Length more than 64 KiB over the door's limit (1 MiB) is answered 413
//     (`Connection: close`, door_intake's JSON body) from the headers alone, before the token
//     is judged and after every earlier answer on the connection, and the connection ends;
//     RESTinio never sees those headers end, so no byte of the body is read or reserved. A
//     body within the slack is read and then answered 413 by door_intake (the connection
//     stays). A chunked body is cut (closed) where it passes the limit. Likewise a request
//     target or one header over the parser limits set below (2 MiB), or all headers over
//     http_parser's (4 MiB, set process-wide): closed. Up to those limits the door answers
//     414/431 itself.
//   - The parsed HTTP version never reaches the handler: RESTinio keeps http_parser's major and
//     minor to itself and the request header always says 1.1, so `HTTP/9.9` is served as 1.1.
//     door_intake answers 505 for any other major version it is given (unit-tested), ready for
//     a RESTinio that passes it on.
//   - Everything else that is HTTP framing is answered with its status and a JSON body by
//     door_intake: 414, 431, 404, 405 (with Allow), 411, 413, 415.
#include "http/door_server.hpp"

#include "http/a2a_json.hpp"
#include "http/connection_ceiling.hpp"
#include "http/connection_gate.hpp"
#include "http/door_intake.hpp"
#include "http/header_limit_socket.hpp"
#include "http/http_refusal.hpp"
#include "http/jsonrpc_call.hpp"
#include "http/subscriber_queue.hpp"
#include "messages/credentials/door_token.hpp"
#include "messages/credentials/formation_verifier.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/rpc_error_codes.hpp"
#include "messages/wire/door_request.hpp"

#include <caf/all.hpp>
#include <http_parser.h>
#include <restinio/all.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>

namespace mur {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;
// One io thread (run_async below): no strand needed. Responses are completed from CAF threads;
// RESTinio hands every write to the connection's executor (asio dispatch, a post from another
// thread), so that stays safe without a strand.
//

// What the door reads of one body at most: its limit (1 MiB) and 64 KiB of slack. A body
// within the slack is read, and door_intake answers it 413 (the connection stays); a
// Content-Length past it is answered 413 by the door's socket from the headers alone
// (http/header_limit_socket.hpp), before RESTinio sees those headers end.
constexpr std::uint64_t door_read_limit = max_request_body + 64 * 1024;

struct DoorBodyLimit {
  static constexpr std::uint64_t max_content_length = door_read_limit;
  // door_intake's 413 (status, type, body) as the socket writes it, with Connection: close.
  static const std::string& refusal() {
    static const std::string bytes = [] {
      const HttpRefusal r = payload_too_large(max_request_body);
      return "HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\nContent-Length: " + std::to_string(r.body.size()) +
             "\r\nContent-Type: application/json\r\n\r\n" + r.body; // RESTinio's order of fields
    }();
    return bytes;
  }
};

// The door's listener; the tool server and mur view keep the plain socket (their limit is the
// listener's own, and RESTinio builds a socket from the io context alone).
struct door_traits : traits {
  using stream_socket_t = HeaderLimitSocket<DoorBodyLimit>;
};

// The two hooks RESTinio's connection looks up (by argument) for its socket type, as for a
// plain TCP socket: no handshake before the first read, no TLS socket for the state listener.
template <class Limit, class Connection, class StartRead, class Failed>
void prepare_connection_and_start_read(HeaderLimitSocket<Limit>&, Connection&, StartRead start_read, Failed) {
  start_read();
}
template <class Limit>
restinio::impl::tls_socket_t* make_tls_socket_pointer_for_state_listener(HeaderLimitSocket<Limit>&) noexcept {
  return nullptr;
}



struct Shared {
  DoorServerSetup setup;
  std::atomic<std::uint16_t> port{0};
  DoorIntakeSetup intake;  // filled in once bound (the card's url), before the first request
  caf::actor gateway;      // asks the door for every call answered once (door_gateway below)
  std::mutex mu;
  std::condition_variable cv;
  std::set<caf::actor> streams;
  bool stopping = false;
  // The server's io context, owned by the running server alone (a strong reference here would
  // make a cycle through its pending handlers, and the process would never wind down).
  std::weak_ptr<restinio::asio_ns::io_context> io;

  std::string url() const {
    return setup.public_url.empty() ? "http://" + setup.address + ":" + std::to_string(port.load()) : setup.public_url;
  }
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
  case 405: return restinio::status_method_not_allowed();
  case 411: return restinio::status_length_required();
  case 413: return restinio::status_payload_too_large();
  case 414: return restinio::status_uri_too_long();
  case 415: return restinio::status_unsupported_media_type();
  case 431: return restinio::status_request_header_fields_too_large();
  case 505: return restinio::status_http_version_not_supported();
  default: return restinio::status_service_unavailable();
  }
}

void reply_answer(const restinio::request_handle_t& req, HttpAnswer a) {
  auto resp = req->create_response(status_line(a.status));
  resp.append_header(restinio::http_field::content_type, "application/json");
  if (a.no_cache) resp.append_header(restinio::http_field::cache_control, "no-cache");
  if (!a.challenge.empty()) resp.append_header(restinio::http_field::www_authenticate, a.challenge);
  if (!a.allow.empty()) resp.append_header(restinio::http_field::allow, a.allow);
  resp.set_body(std::move(a.body)).done();
}

void reply_refusal(const restinio::request_handle_t& req, const HttpRefusal& r) {
  HttpAnswer a;
  a.status = r.status;
  a.body = r.body;
  a.challenge = r.challenge;
  reply_answer(req, std::move(a));
}

void reply_rpc(const restinio::request_handle_t& req, const json& body) {
  HttpAnswer a;
  a.body = wire_dump(body);
  reply_answer(req, std::move(a));
}

// One POST / for the door actor: the caller passed and the params are good (door_intake).
struct Exchange {
  std::shared_ptr<Shared> shared;
  restinio::request_handle_t req;
  a2a::RpcCall call;
  DoorRequest door_req; // verdict and peer origin set
};
// Shared by the reply handlers of one call: built once on the RESTinio thread, never copied.
using ExchangePtr = std::shared_ptr<Exchange>;

} // namespace
} // namespace mur

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(mur::ExchangePtr)

namespace mur {
namespace {

struct Stream {
  restinio::response_builder_t<restinio::chunked_output_t> resp;
  SubscriberQueue queue;
  TaskView view;          // the task as last seen (its ids name a text chunk's task)
  bool open = true;
  bool appended = false;  // a first text chunk was written (the next ones append)
  bool ending = false;    // the terminal events are queued: close once they are written
};

void answer_door_reply(const Exchange& x, const DoorReply& r) {
  if (r.refused()) {
    reply_refusal(x.req, http_refusal(r, x.shared->setup.card.capsule_name));
    return;
  }
  if (x.call.door_method == DoorMethod::get_extended_agent_card && r.ok()) {
    reply_rpc(x.req, a2a::result_response(x.call.id, a2a::agent_card(x.shared->card(), true)));
    return;
  }
  reply_rpc(x.req, a2a::door_reply_response(x.call, r));
}

void door_unreachable(const Exchange& x) {
  reply_rpc(x.req, a2a::error_response(a2a::RpcProblem{x.call.id, rpc::internal_error, "Internal error: the session is ending", "", json::object()}));
}

// What a subscriber that fell behind is told before its stream closes.
json fell_behind(const json& id, const Stream& s) {
  return a2a::error_response({id, rpc::internal_error,
                              "Internal error: this subscriber fell behind the task's stream (more than " +
                                std::to_string(s.queue.limits().max_pending_bytes / 1024) +
                                " KiB waiting to be read) and was dropped; subscribe again with SubscribeToTask, or read the task with GetTask",
                              "SUBSCRIBER_BEHIND", json{{"taskId", s.view.id}}});
}

// The streaming half: the first event is the Task; then every change; closed at a terminal
// state. Writes go through the subscriber's bounded queue (http/subscriber_queue.hpp): at most
// a window of bytes is on its way to the socket, text arriving meanwhile is coalesced, and a
// subscriber whose queue overflows is told so and closed.
void stream(caf::event_based_actor* self, const Exchange& x, const TaskView& first) {
  auto sh = x.shared;
  auto s = std::make_shared<Stream>(Stream{x.req->create_response<restinio::chunked_output_t>(), SubscriberQueue{sh->setup.stream_limits}, first});
  s->resp.append_header(restinio::http_field::content_type, "text/event-stream");
  s->resp.append_header(restinio::http_field::cache_control, "no-cache");
  const json id = x.call.id;
  auto me = caf::actor_cast<caf::actor>(self);
  auto write = [s, me](std::string chunk) {
    if (!s->open) return;
    const std::uint64_t n = chunk.size();
    s->queue.sent(n);
    s->resp.append_chunk(std::move(chunk));
    s->resp.flush([me, n](const restinio::asio_ns::error_code& ec) {
      if (ec) caf::anon_send(me, gone_atom_v);
      else caf::anon_send(me, caf::flush_atom_v, n); // a flush of n bytes reached the socket
    });
  };
  auto sse = [id](const json& result) { return "data: " + wire_dump(a2a::result_response(id, result)) + "\n\n"; };
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
  auto drop = [s, id, write, finish]() {
    write("data: " + wire_dump(fell_behind(id, *s)) + "\n\n");
    finish();
  };
  // Hands the socket what the window allows; closes once the terminal events are out.
  auto pump = [s, sse, write, finish]() {
    while (auto item = s->queue.take()) {
      if (item->text) {
        write(sse(a2a::artifact_chunk_event(s->view, item->bytes, s->appended)));
        s->appended = true;
      } else {
        write(std::move(item->bytes));
      }
    }
    if (s->ending && s->queue.empty()) finish();
  };
  {
    std::lock_guard<std::mutex> lock(sh->mu);
    sh->streams.insert(me);
  }
  write(sse(a2a::task_event(first)));
  if (is_terminal(first.state)) {
    finish();
    return;
  }
  self->monitor(sh->setup.door);
  self->set_down_handler([finish](const caf::down_msg&) { finish(); });
  const auto beat = sh->setup.heartbeat;
  self->delayed_send(self, beat, caf::tick_atom_v);
  self->become(
    [s, sse, pump, drop](const TaskEvent& ev) {
      if (s->ending) return;
      if (!ev.text_fragment.empty()) {
        if (!s->queue.push_text(ev.text_fragment)) return drop();
        return pump();
      }
      s->view = ev.task;
      bool fits = true;
      if (ev.task.state == TaskState::completed) fits = s->queue.push_event(sse(a2a::artifact_update_event(ev.task)));
      fits = fits && s->queue.push_event(sse(a2a::status_update_event(ev.task)));
      if (!fits) return drop();
      s->ending = is_terminal(ev.task.state);
      pump();
    },
    [s, pump](caf::flush_atom, std::uint64_t n) {
      s->queue.confirmed(n);
      pump();
    },
    [self, s, write, beat](caf::tick_atom) {
      if (s->queue.in_flight() == 0) write(": ping\n\n"); // a busy stream needs no heartbeat
      self->delayed_send(self, beat, caf::tick_atom_v);
    },
    [finish](gone_atom) { finish(); },
    [finish](caf::close_atom) { finish(); });
}

void call_door(caf::event_based_actor* self, const ExchangePtr& xp) {
  auto on_reply = [self, xp](const DoorReply& r) {
    const Exchange& x = *xp;
    if (x.call.door_method == DoorMethod::subscribe_to_task && r.ok() && is_terminal(r.task.state)) {
      reply_rpc(x.req, a2a::error_response({x.call.id, rpc::unsupported_operation,
                                            "Unsupported operation: task " + r.task.id + " has ended " +
                                              state_word(r.task.state) + "; read it with GetTask",
                                            "UNSUPPORTED_OPERATION",
                                            json{{"taskId", r.task.id}, {"state", to_string(r.task.state)}}}));
      return;
    }
    if (streams(x.call.door_method) && r.ok()) stream(self, x, r.task);
    else answer_door_reply(x, r);
  };
  auto on_error = [xp](const caf::error&) { door_unreachable(*xp); };
  // A blocking SendMessage (returnImmediately false) is answered when its task ends; every
  // other call the door answers as it reads it. No timer either way: a timed request costs two
  // trips to CAF's clock thread, and a door that has gone answers the request with an error
  // (door_unreachable). The request moves into the message: the handlers read only the call
  // and the connection.
  self->request(xp->shared->setup.door, caf::infinite, std::move(xp->door_req)).then(on_reply, on_error);
}

// SendMessage naming a task: the answer to the question of a task that waits for input goes on
// to the door; otherwise a known task is -32004 and an unknown one -32001 (asked of the door
// under the same credential).
void continue_task(caf::event_based_actor* self, const ExchangePtr& xp) {
  DoorRequest get;
  get.verdict = xp->door_req.verdict;
  get.peer_origin = xp->door_req.peer_origin;
  get.method = DoorMethod::get_task;
  get.task_id = xp->door_req.task_id;
  self->request(xp->shared->setup.door, caf::infinite, get)
    .then(
      [self, xp](const DoorReply& r) {
        const Exchange& x = *xp;
        // The answer to a question goes to the door, which judges it (a credential that may send
        // but not read the task answers too).
        if ((r.ok() && r.task.state == TaskState::input_required) || r.refusal == DoorRefusal::insufficient_scope)
          return call_door(self, xp);
        if (r.refused() && r.refusal != DoorRefusal::insufficient_scope) {
          reply_refusal(x.req, http_refusal(r, x.shared->setup.card.capsule_name));
          return;
        }
        const std::string& tid = x.door_req.task_id;
        if (r.rpc_code == rpc::task_not_found || r.rpc_code == rpc::invalid_params) {
          reply_rpc(x.req, a2a::error_response({x.call.id, rpc::task_not_found, "Task not found: not a task this capsule holds",
                                                "TASK_NOT_FOUND", json{{"taskId", tid}}}));
          return;
        }
        json md{{"taskId", tid}};
        if (r.ok()) md["state"] = to_string(r.task.state);
        reply_rpc(x.req, a2a::error_response({x.call.id, rpc::unsupported_operation,
                                              "Unsupported operation: task " + tid + " is not waiting for input",
                                              "UNSUPPORTED_OPERATION", md}));
      },
      [xp](const caf::error&) { door_unreachable(*xp); });
}

bool continues_task(const DoorRequest& r) { return starts_task(r.method) && !r.task_id.empty(); }

// A stream: one actor per request, the door's subscriber until the stream closes.
void exchange(caf::event_based_actor* self, ExchangePtr x) {
  if (continues_task(x->door_req)) continue_task(self, x);
  else call_door(self, x);
}

// Every call answered once (all but streams) is asked of the door from this one long-lived
// actor, and answered on its connection from the reply handler: a request costs no actor of its
// own (spawning and ending one per request cost a busy door about a tenth of its throughput).
caf::behavior door_gateway(caf::event_based_actor* self) {
  return {
    [self](const ExchangePtr& x) {
      if (continues_task(x->door_req)) continue_task(self, x);
      else call_door(self, x);
    },
  };
}

bool answered_as_stream(const Exchange& x) { return streams(x.call.door_method) && !continues_task(x.door_req); }

// Every request, on the RESTinio thread: door_intake answers all it can; a door call goes on to
// the gateway actor, a stream to an actor of its own.
restinio::request_handling_status_t on_request(const std::shared_ptr<Shared>& sh, const restinio::request_handle_t& req) {
  HttpRequestFacts facts;
  facts.method = req->header().method().c_str();
  facts.target = std::string(req->header().request_target());
  facts.http_major = req->header().http_major();
  facts.http_minor = req->header().http_minor();
  req->header().for_each_field([&](const restinio::http_header_field_t& f) {
    facts.headers.emplace_back(f.name(), f.value());
  });
  facts.body = req->body();
  auto decided = door_intake(facts, sh->intake);
  if (auto* a = std::get_if<HttpAnswer>(&decided)) {
    // Answered after this handler returns, never inside it: RESTinio 0.6.16 calls the handler
    // for a pipelined request from within its own write completion, and an answer given there
    // with `Connection: close` trips its assertion `!m_response_coordinator.closed()` (a Debug
    // build aborts; tests/process/door_bounds_test.cpp sends exactly that sequence).
    if (auto io = sh->io.lock())
      restinio::asio_ns::post(*io, [req, answer = std::move(*a)]() mutable { reply_answer(req, std::move(answer)); });
    return restinio::request_accepted();
  }
  auto& call = std::get<DoorCall>(decided);
  auto x = std::make_shared<Exchange>(Exchange{sh, req, std::move(call.call), std::move(call.request)});
  if (answered_as_stream(*x)) sh->setup.system->spawn(exchange, std::move(x));
  else caf::anon_send(sh->gateway, std::move(x));
  return restinio::request_accepted();
}

} // namespace

struct DoorServer::Impl {
  std::shared_ptr<Shared> shared;
  restinio::running_server_handle_t<door_traits> server;
  bool stopped = false;
};

DoorServer::DoorServer(DoorServerSetup setup) : impl_(std::make_unique<Impl>()) {
  auto sh = std::make_shared<Shared>();
  sh->setup = std::move(setup);
  impl_->shared = sh;
  sh->intake.door_tokens = sh->setup.door_tokens.get();
  sh->intake.formation = sh->setup.formation.get();
  sh->gateway = sh->setup.system->spawn(door_gateway);
  // A Content-Length past door_read_limit is answered 413 by the door's socket before RESTinio
  // sees those headers end; a chunked body is cut by RESTinio where it passes the same limit.
  // http_parser counts the request line and every header against one process-wide limit
  // (80 KiB by default, then a silent close): raised so the door itself answers 414/431.
  http_parser_set_max_header_size(4u * 1024 * 1024);
  try {
    auto io = std::make_shared<restinio::asio_ns::io_context>();
    sh->io = io;
    auto settings = gated_settings<door_traits>(sh->setup.max_connections);
    impl_->server = restinio::run_async(
      restinio::io_context_holder_t{std::move(io)},
      std::move(settings
        .address(sh->setup.address)
        .port(sh->setup.port)
        .acceptor_post_bind_hook([sh](restinio::asio_ns::ip::tcp::acceptor& a) {
          sh->port = a.local_endpoint().port();
          sh->intake.card = sh->card(); // before the first connection is accepted
        })
        // Long enough for a blocking SendMessage to wait out a task's call deadline (600 s);
        // streams write a heartbeat every few seconds, idle connections end sooner (below).
        .handle_request_timeout(std::chrono::minutes(30))
        .read_next_http_message_timelimit(sh->setup.idle_timeout)
        .incoming_http_msg_limits(restinio::incoming_http_msg_limits_t{}
                                    .max_url_size(2 * max_request_body)
                                    .max_field_name_size(2 * max_request_body)
                                    .max_field_value_size(2 * max_request_body)
                                    .max_field_count(1000)
                                    .max_body_size(door_read_limit))
        .request_handler([sh](const restinio::request_handle_t& req) { return on_request(sh, req); })),
      1);
  } catch (const std::exception& e) {
    caf::anon_send_exit(sh->gateway, caf::exit_reason::user_shutdown);
    if (sh->setup.port != 0)
      throw Failure("E-RUN-051", "the door cannot serve the pinned port " + sh->setup.address + ":" + std::to_string(sh->setup.port) + ": " + e.what(),
                    "choose another --port, or end what holds it (ss -ltnp shows it)");
    throw Failure("E-RUN-047", "the door could not listen on " + sh->setup.address + ": " + e.what(),
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
  caf::anon_send_exit(sh.gateway, caf::exit_reason::user_shutdown); // no request reaches it any more
  sh.gateway = nullptr;
}

} // namespace mur

// The loopback listener (http/loopback_listener.hpp) is served by RESTinio too, in this one
// translation unit.
#include "http/loopback_listener_restinio.hpp"
