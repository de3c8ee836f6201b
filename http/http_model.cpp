// http_model.cpp — the Chat Completions model port (see http_model.hpp).
#include "http/http_model.hpp"

#include "actors/atoms.hpp"
#include "http/chat_completions.hpp"
#include "http/curl_messages.hpp"
#include "http/curl_pool.hpp"
#include "http/model_failure.hpp"
#include "messages/wire/runtime_tools.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <map>

namespace mur {

std::string failure_text(const ModelFailure& f) {
  std::string out = f.code + ": " + f.message;
  if (!out.empty() && out.back() != '.') out += ".";
  if (!f.fix.empty()) out += " Fix: " + f.fix;
  return out;
}

namespace {

using clock_type = std::chrono::steady_clock;

using http_model_actor = model_port::extend<caf::reacts_to<HttpEvent>, caf::reacts_to<HttpDone>,
                                            caf::reacts_to<model_retry_atom, std::uint64_t>>;

// One model request, across its attempts.
struct Exchange {
  caf::typed_response_promise<ModelTurn> promise;
  caf::actor requester;        // gets ModelText while a stream arrives
  std::string task_id;
  std::string body;            // the request body, the same for every attempt
  std::uint64_t attempt = 0;   // the current attempt's id (0 while waiting to retry)
  std::uint64_t curl_id = 0;   // the pool's id of the current attempt (to cancel it)
  int attempts = 0;
  clock_type::time_point started;   // the first attempt
  clock_type::time_point sent;      // the current attempt
  std::optional<clock_type::time_point> first_event;
  std::unique_ptr<ChatStream> stream; // the current attempt's, when streamed
  std::shared_ptr<std::string> gathered; // text fragments of the current read, not yet passed on
  std::string held;                      // the end of the text so far that may begin a key (held_back)
  std::shared_ptr<std::atomic<std::size_t>> in_flight; // the current attempt's events not yet read here
};

// The text the stream gathered from the bytes just read, to the requester as one fragment,
// under the redaction rule: the end that may begin a key waits for the next read (or the
// stream's end, `last`), so a key split across reads never reaches a subscriber either; the
// stored answer is redacted whole in succeed().
void pass_text_on(Exchange& ex, const SecretRedaction& secrets, bool last = false) {
  if (!ex.gathered) return;
  std::string text = std::move(ex.held);
  text += *ex.gathered;
  ex.gathered->clear();
  ex.held.clear();
  const std::size_t keep = last ? 0 : secrets.held_back(text);
  ex.held = text.substr(text.size() - keep);
  text.resize(text.size() - keep);
  if (!text.empty() && ex.requester) caf::anon_send(ex.requester, ModelText{ex.task_id, secrets.redact(text)});
}

struct HttpModelState {
  HttpModelSetup setup;
  std::string url;
  std::vector<std::string> headers;   // with the key, when set: wiped with the state
  SecretRedaction secrets;            // the key, when set: the one rule for every server text
  std::uint64_t next = 1;
  std::map<std::uint64_t, Exchange> exchanges;  // by exchange id
  std::map<std::uint64_t, std::uint64_t> attempts; // attempt id → exchange id
  static inline const char* name = "mur.http_model";
};

using self_ptr = http_model_actor::stateful_pointer<HttpModelState>;

std::int64_t ms_since(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count();
}

void send_attempt(self_ptr self, std::uint64_t ex_id) {
  auto& st = self->state;
  auto it = st.exchanges.find(ex_id);
  if (it == st.exchanges.end()) return;
  Exchange& ex = it->second;
  const std::uint64_t attempt = st.next++;
  ex.attempt = attempt;
  ++ex.attempts;
  ex.sent = clock_type::now();
  ex.first_event.reset();
  if (st.setup.stream) {
    // Fragments are gathered while one arrival of bytes is read and passed on as one ModelText
    // (pass_text_on below): a fast model's thousands of deltas a second become as many
    // messages as the socket delivers reads, before they fan out to the door's subscribers.
    auto gathered = std::make_shared<std::string>();
    ex.gathered = gathered;
    ex.held.clear();
    ex.stream = std::make_unique<ChatStream>([gathered](const std::string& fragment) { *gathered += fragment; },
                                             st.secrets, st.setup.caps);
  }
  st.attempts.emplace(attempt, ex_id);
  HttpCall call;
  call.url = st.url;
  call.method = "POST";
  call.body = ex.body;
  call.headers = st.headers;
  call.https = st.setup.endpoint.scheme == "https";
  call.max_body = model_reply_max_body;
  call.max_event = st.setup.caps.event;
  if (st.setup.stream) {
    call.timeout = std::chrono::milliseconds(0);
    call.stall_limit = st.setup.request_timeout;
  } else {
    call.timeout = st.setup.request_timeout;
  }
  ex.in_flight = std::make_shared<std::atomic<std::size_t>>(0);
  call.in_flight = ex.in_flight;
  call.window_bytes = model_stream_window;
  report_to(call, http_model_actor{self}, attempt, true);
  ex.curl_id = st.setup.pool->submit(std::move(call));
}

ModelCallStats stats_of(const Exchange& ex, const ChatResult* r, clock_type::time_point now,
                        const SecretRedaction& secrets) {
  ModelCallStats s;
  s.duration_ms = ms_since(ex.started, now);
  if (ex.first_event) s.first_token_ms = ms_since(ex.sent, *ex.first_event);
  s.retries = std::max(0, ex.attempts - 1);
  if (r != nullptr) {
    s.model = secrets.redact(r->model);
    if (r->usage.reported) {
      s.prompt_tokens = r->usage.prompt_tokens;
      s.completion_tokens = r->usage.completion_tokens;
      s.reasoning_tokens = r->usage.reasoning_tokens;
    }
    s.finish_reason = secrets.redact(r->finish_wire);
    s.reasoning_bytes = static_cast<std::int64_t>(r->reasoning_bytes);
    s.cut = r->finish == FinishReason::length;
  }
  return s;
}

void answer(self_ptr self, std::uint64_t ex_id, ModelTurn t) {
  auto it = self->state.exchanges.find(ex_id);
  if (it == self->state.exchanges.end()) return;
  if (t.stats.model.empty()) t.stats.model = self->state.setup.model;
  if (it->second.requester) self->demonitor(it->second.requester.address());
  it->second.promise.deliver(std::move(t));
  self->state.exchanges.erase(it);
}

void fail(self_ptr self, std::uint64_t ex_id, const ModelFailure& f, const ChatResult* partial) {
  auto& st = self->state;
  auto it = st.exchanges.find(ex_id);
  if (it == st.exchanges.end()) return;
  Exchange& ex = it->second;
  const auto now = clock_type::now();
  if (f.retryable && ex.attempts < st.setup.retry.max_attempts) {
    auto delay = st.setup.retry.first_delay * (1 << std::min(ex.attempts - 1, 16));
    if (f.retry_after) delay = *f.retry_after;
    delay = std::min(delay, st.setup.retry.max_delay);
    if (now + delay - ex.started <= st.setup.retry.max_total) {
      ex.attempt = 0;
      ex.stream.reset();
      self->delayed_send(self, delay, model_retry_atom_v, ex_id);
      return;
    }
  }
  ModelTurn t;
  t.fails = true;
  t.failure = st.secrets.redact(failure_text(f));
  t.stats = stats_of(ex, partial, now, st.secrets);
  answer(self, ex_id, std::move(t));
}

void succeed(self_ptr self, std::uint64_t ex_id, const ChatResult& r) {
  auto& st = self->state;
  auto it = st.exchanges.find(ex_id);
  if (it == st.exchanges.end()) return;
  if (auto f = finish_failure(r)) {
    fail(self, ex_id, *f, &r);
    return;
  }
  ModelTurn t;
  t.text = st.secrets.redact(r.text);
  t.tool_calls = r.tool_calls;
  for (auto& c : t.tool_calls) {
    c.id = st.secrets.redact(c.id);
    c.name = st.secrets.redact(c.name);
    c.arguments = st.secrets.redact(c.arguments);
  }
  t.asks_again_after_tools = true;
  t.stats = stats_of(it->second, &r, clock_type::now(), st.secrets);
  answer(self, ex_id, std::move(t));
}

void on_event(self_ptr self, const HttpEvent& ev) {
  auto& st = self->state;
  auto a = st.attempts.find(ev.id);
  if (a == st.attempts.end()) return;
  auto it = st.exchanges.find(a->second);
  if (it == st.exchanges.end()) return;
  if (it->second.in_flight) it->second.in_flight->fetch_sub(ev.data.size()); // read: the window has room again
  if (!it->second.stream || it->second.stream->failed()) return;
  Exchange& ex = it->second;
  if (!ex.first_event) ex.first_event = clock_type::now();
  if (auto f = ex.stream->feed(ev.data)) {
    // A cap passed, an error event, a malformed chunk: the request ends here, not at the body's end.
    const std::uint64_t ex_id = a->second;
    st.attempts.erase(a);
    st.setup.pool->cancel(ex.curl_id);
    ChatResult partial = ex.stream->partial();
    fail(self, ex_id, *f, &partial);
    return;
  }
  pass_text_on(ex, st.secrets);
}

void on_done(self_ptr self, HttpDone d) {
  auto& st = self->state;
  auto a = st.attempts.find(d.id);
  if (a == st.attempts.end()) return;
  const std::uint64_t ex_id = a->second;
  st.attempts.erase(a);
  auto it = st.exchanges.find(ex_id);
  if (it == st.exchanges.end() || it->second.attempt != d.id) return;
  Exchange& ex = it->second;
  const std::string url = st.setup.endpoint.chat_completions_url();
  if (d.status == 0) {
    const bool streamed_bytes = ex.stream && ex.first_event.has_value();
    ChatResult partial = ex.stream ? ex.stream->partial() : ChatResult{};
    fail(self, ex_id,
         classify_transport_failure(d.error, url, d.received && (streamed_bytes || !ex.stream), st.secrets, st.setup.caps),
         &partial);
    return;
  }
  if (d.status < 200 || d.status > 299) {
    fail(self, ex_id,
         classify_http_failure(d.status, d.body, d.retry_after, std::chrono::system_clock::now(), st.setup.model, url,
                               st.setup.key.has_value(), st.secrets, st.setup.key_env),
         nullptr);
    return;
  }
  if (ex.stream && ex.first_event) { // an event stream
    auto result = ex.stream->finish();
    pass_text_on(ex, self->state.secrets, true);
    if (auto* f = std::get_if<ModelFailure>(&result)) {
      ChatResult partial = ex.stream->partial();
      fail(self, ex_id, *f, &partial);
      return;
    }
    succeed(self, ex_id, std::get<ChatResult>(result));
    return;
  }
  // A plain body (asked for, or a server that does not stream).
  auto result = parse_chat_response(d.body, st.secrets);
  if (auto* f = std::get_if<ModelFailure>(&result)) {
    fail(self, ex_id, *f, nullptr);
    return;
  }
  auto& r = std::get<ChatResult>(result);
  if (ex.requester && !r.text.empty()) caf::anon_send(ex.requester, ModelText{ex.task_id, st.secrets.redact(r.text)});
  succeed(self, ex_id, r);
}

http_model_actor::behavior_type http_model(self_ptr self, HttpModelSetup setup) {
  auto& st = self->state;
  st.setup = std::move(setup);
  st.url = st.setup.endpoint.chat_completions_url();
  st.headers = {"Content-Type: application/json"};
  st.headers.push_back(st.setup.stream ? "Accept: text/event-stream" : "Accept: application/json");
  if (st.setup.key) {
    st.headers.push_back("Authorization: Bearer " + st.setup.key->expose());
    st.secrets.add(st.setup.key->expose());
  }
  // A task that ends (canceled, its door gone) while its request runs: the request is dropped.
  self->set_down_handler([=](const caf::down_msg& dm) {
    auto& st = self->state;
    for (auto it = st.exchanges.begin(); it != st.exchanges.end();) {
      if (it->second.requester && it->second.requester.address() == dm.source) {
        if (it->second.attempt != 0) {
          st.attempts.erase(it->second.attempt);
          st.setup.pool->cancel(it->second.curl_id);
        }
        it = st.exchanges.erase(it);
      } else {
        ++it;
      }
    }
  });
  return {
    [=](const ModelTurnRequest& req) -> caf::result<ModelTurn> {
      auto& st = self->state;
      ChatRequest chat;
      chat.model = st.setup.model;
      chat.transcript = req.transcript;
      chat.tools = runtime_tools(req.callees, req.capsules, req.ask_operator);
      for (const auto& t : req.tools) chat.tools.push_back(function_tool_of(t));
      chat.stream = st.setup.stream;
      chat.max_tokens = st.setup.max_tokens;
      chat.temperature = st.setup.temperature;
      chat.params = st.setup.params;
      const std::uint64_t ex_id = st.next++;
      Exchange ex;
      // Read before make_response_promise, which takes the sender over (CAF 0.17).
      ex.requester = caf::actor_cast<caf::actor>(self->current_sender());
      ex.promise = self->make_response_promise<ModelTurn>();
      ex.task_id = req.task_id;
      ex.body = chat_request_body(chat);
      ex.started = clock_type::now();
      auto rp = ex.promise;
      if (ex.requester) self->monitor(ex.requester);
      st.exchanges.emplace(ex_id, std::move(ex));
      send_attempt(self, ex_id);
      return rp;
    },
    [=](const HttpEvent& ev) { on_event(self, ev); },
    [=](HttpDone& d) { on_done(self, std::move(d)); },
    [=](model_retry_atom, std::uint64_t ex_id) { send_attempt(self, ex_id); },
  };
}

} // namespace

model_port spawn_http_model(caf::actor_system& sys, HttpModelSetup setup) {
  return model_port{sys.spawn(http_model, std::move(setup))};
}

} // namespace mur
