#include "launcher/view/view_server.hpp"

#include "http/connection_ceiling.hpp"
#include "http/loopback_listener.hpp"
#include "launcher/view/view_page.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/strict_json.hpp"
#include "os/fd_limit.hpp"

#include <sodium.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

namespace mur {

using json = nlohmann::json;

struct ViewServer::Shared {
  std::uint16_t port = 0;
  std::string key;    // the page's key for POST /answer (hex of 32 random bytes)
  AnswerFn on_answer; // null: no answering
  mutable std::mutex mu; // pages and last; taken before any responder call
  std::vector<std::shared_ptr<PlainResponder>> pages;
  std::string last;       // the last state's event ("" before the first)
  json last_state;        // the last state itself: a page that connects later gets it with its clock now
  bool last_is_final = false;
  TranscriptIndex transcripts; // under mu
  std::mutex delivered_mu; // taken alone (write completions come on the listener's thread)
  std::condition_variable delivered_cv;
  bool delivered = false;
};

namespace {

constexpr std::size_t max_answer_body = 64 * 1024; // a longer POST /answer is 413 (the listener's bound)

// One state as an SSE event.
std::string sse_event(const json& state) {
  return "data: " + state.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
}

// The last state for a page that connects now: its `now_ms` (the page's clock reference for the
// times it counts up, "3.0 s so far") is the time of sending, not of publishing — a state
// published seconds ago would make every running time read that much too low.
std::string restamped(json state) {
  if (state.is_object() && state.contains("now_ms"))
    state["now_ms"] = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch()).count();
  return sse_event(state);
}

using Headers = std::vector<std::pair<std::string, std::string>>;

// Sent with every answer: nothing but this origin may be loaded, framed or posted to.
Headers common_headers() {
  return {{"Content-Security-Policy", "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
          {"X-Content-Type-Options", "nosniff"},
          {"Referrer-Policy", "no-referrer"},
          {"Cache-Control", "no-store"}};
}


// Host is exactly 127.0.0.1:PORT or localhost:PORT; Origin, when sent, is http:// of one of them.
bool trusted(const PlainRequest& r, std::uint16_t port) {
  const std::string p = ":" + std::to_string(port);
  const std::string a = "127.0.0.1" + p, b = "localhost" + p;
  const std::string* host = r.header("host");
  if (host == nullptr || (PlainRequest::ascii_lower(*host) != a && PlainRequest::ascii_lower(*host) != b)) return false;
  const std::string* origin = r.header("origin");
  return origin == nullptr || PlainRequest::ascii_lower(*origin) == "http://" + a || PlainRequest::ascii_lower(*origin) == "http://" + b;
}

void answer(PlainResponder& r, int status, const char* type, std::string body, Headers extra = {}) {
  Headers h = common_headers();
  h.emplace_back("Content-Type", type);
  for (auto& e : extra) h.push_back(std::move(e));
  r.answer(PlainAnswer{status, std::move(h), std::move(body)});
}

void error(PlainResponder& r, int status, const std::string& why) {
  answer(r, status, "application/json", json{{"error", why}}.dump(-1, ' ', false, json::error_handler_t::replace));
}

// A 32-byte random key, in hex (libsodium's CSPRNG).
std::string random_key() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not start");
  unsigned char bytes[32];
  randombytes_buf(bytes, sizeof bytes);
  char hex[2 * sizeof bytes + 1];
  sodium_bin2hex(hex, sizeof hex, bytes, sizeof bytes);
  return hex;
}

bool has_key(const ViewServer::Shared& sh, const PlainRequest& r) {
  const std::string* key = r.header("x-mur-view-key");
  return key != nullptr && key->size() == sh.key.size() && sodium_memcmp(key->data(), sh.key.data(), key->size()) == 0;
}

// The value of `name` in the target's query ("" when absent).
std::string query_value(const std::string& target, const std::string& name) {
  const auto q = target.find('?');
  if (q == std::string::npos) return "";
  std::size_t at = q + 1;
  while (at <= target.size()) {
    const auto end = std::min(target.find('&', at), target.size());
    const std::string pair = target.substr(at, end - at);
    if (pair.rfind(name + "=", 0) == 0) return pair.substr(name.size() + 1);
    at = end + 1;
  }
  return "";
}

// GET /transcript?task=TASK_ID: the page's key, a task id, a task the traces name, its blob.
void send_transcript(const std::shared_ptr<ViewServer::Shared>& sh, const PlainRequest& r, PlainResponder& out) {
  if (!has_key(*sh, r)) return error(out, 403, "this request does not carry the view page's key (open the URL mur printed, with its #key)");
  const std::string task = query_value(r.target, "task");
  if (!ids::is_valid(task, ids::task)) return error(out, 400, "task must be a task id (tsk_ and 32 hex digits)");
  TranscriptEntry entry;
  {
    std::lock_guard<std::mutex> lock(sh->mu);
    auto it = sh->transcripts.find(task);
    if (it == sh->transcripts.end()) return error(out, 404, "no task " + task + " is in these traces");
    entry = it->second;
  }
  if (!entry.ended) return error(out, 404, "task " + task + " is still running: its transcript is written when it ends");
  if (entry.blob_path.empty())
    return error(out, 404, "task " + task + " was recorded without its transcript: add `trace: {capture: content}` to "
                           "its capsule's murmur.yaml and run it again (docs/traces.md, Transcripts)");
  auto bytes = read_transcript_blob(entry.blob_path);
  if (!bytes) return error(out, 404, "the transcript of task " + task + " is named by its trace but its blob is missing "
                                     "or damaged (W-TRC-004 says why when it was not written)");
  answer(out, 200, "application/json", std::move(*bytes));
}

// POST /answer: the page's key, then the body, then the AnswerFn on a thread of its own.
void take_answer(const std::shared_ptr<ViewServer::Shared>& sh, const PlainRequest& r, std::shared_ptr<PlainResponder> out) {
  if (!has_key(*sh, r)) return error(*out, 403, "this request does not carry the view page's key");
  if (!sh->on_answer) return error(*out, 404, "this view takes no answers");
  const auto body = parse_bounded_json(r.body);
  if (!body || !body->is_object()) return error(*out, 400, "the body is not a JSON object");
  const auto field = [&](const char* name) {
    auto it = body->find(name);
    return it != body->end() && it->is_string() ? std::optional<std::string>(it->get<std::string>()) : std::nullopt;
  };
  const auto task_id = field("task_id"), text = field("text"), question = field("question");
  if (!task_id || task_id->empty()) return error(*out, 400, "task_id must be a non-empty string");
  if (!text || text->empty()) return error(*out, 400, "text must be a non-empty string");
  if (body->contains("question") && !question) return error(*out, 400, "question must be a string");
  std::thread([fn = sh->on_answer, id = *task_id, t = *text, q = question.value_or(""), out = std::move(out)] {
    AnswerOutcome o;
    try {
      o = fn(id, t, q);
    } catch (const std::exception& e) {
      o = AnswerOutcome{500, e.what()};
    }
    if (o.status == 200) answer(*out, 200, "application/json", R"({"ok":true})");
    else error(*out, o.status, o.error);
  }).detach();
}

std::function<void(bool)> on_final(const std::shared_ptr<ViewServer::Shared>& sh) {
  return [sh](bool sent) {
    if (!sent) return;
    {
      std::lock_guard<std::mutex> lock(sh->delivered_mu);
      sh->delivered = true;
    }
    sh->delivered_cv.notify_all();
  };
}

void serve(const std::shared_ptr<ViewServer::Shared>& sh, const PlainRequest& r, std::shared_ptr<PlainResponder> out) {
  if (!trusted(r, sh->port)) {
    answer(*out, 403, "text/plain; charset=utf-8", "mur view answers only http://127.0.0.1:" + std::to_string(sh->port) +
                                                      "/ (or localhost): this request names another host or origin\n");
    return;
  }
  const std::string path = r.target.substr(0, r.target.find('?'));
  if (r.method == "POST" && path == "/answer") return take_answer(sh, r, std::move(out));
  if (r.method != "GET") {
    answer(*out, 405, "text/plain; charset=utf-8", "only GET, and POST /answer\n", {{"Allow", "GET, POST"}});
    return;
  }
  if (path == "/" || path == "/index.html") return answer(*out, 200, "text/html; charset=utf-8", view_page::html());
  if (path == "/view.css") return answer(*out, 200, "text/css; charset=utf-8", view_page::css());
  if (path == "/view.js") return answer(*out, 200, "text/javascript; charset=utf-8", view_page::js());
  if (path == "/transcript") return send_transcript(sh, r, *out);
  if (path != "/events") return answer(*out, 404, "text/plain; charset=utf-8", "not found\n");
  Headers h = common_headers();
  h.emplace_back("Content-Type", "text/event-stream");
  std::lock_guard<std::mutex> lock(sh->mu);
  if (!out->stream_open(200, std::move(h))) return;
  if (!sh->last.empty() && !out->stream_write(restamped(sh->last_state), sh->last_is_final ? on_final(sh) : nullptr))
    return;
  sh->pages.push_back(std::move(out));
}

// Writes `chunk` to every page; drops those that have gone.
void to_every_page(ViewServer::Shared& sh, const std::string& chunk, const std::function<void(bool)>& sent) {
  auto& ps = sh.pages;
  ps.erase(std::remove_if(ps.begin(), ps.end(), [&](const auto& p) { return !p->stream_write(chunk, sent); }), ps.end());
}

} // namespace

ViewServer::ViewServer(std::uint16_t port, AnswerFn on_answer) : shared_(std::make_shared<Shared>()) {
  auto sh = shared_;
  sh->key = random_key();
  sh->on_answer = std::move(on_answer);
  listener_ = std::make_unique<LoopbackListener>(
    [sh](PlainRequest r, std::shared_ptr<PlainResponder> out) { serve(sh, r, std::move(out)); }, max_answer_body, port,
    ListenerBounds{bounded_ceiling(view_server_connections, raise_open_file_limit()), 8 * 1024 * 1024});
  sh->port = listener_->port(); // before any request can be judged: the handler reads it
}

ViewServer::~ViewServer() { stop(); }

std::string ViewServer::url() const { return "http://127.0.0.1:" + std::to_string(shared_->port) + "/"; }

std::string ViewServer::page_url() const { return shared_->on_answer ? url() + "#key=" + shared_->key : url(); }

void ViewServer::publish(const json& state) {
  const bool final = state.is_object() && state.value("running", true) == false;
  std::string event = sse_event(state);
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->last = std::move(event);
  shared_->last_state = state;
  shared_->last_is_final = final;
  to_every_page(*shared_, shared_->last, final ? on_final(shared_) : nullptr);
}

void ViewServer::set_transcripts(TranscriptIndex index) {
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->transcripts = std::move(index);
}

void ViewServer::ping() {
  std::lock_guard<std::mutex> lock(shared_->mu);
  to_every_page(*shared_, ": ping\n\n", nullptr);
}

bool ViewServer::wait_delivered(std::chrono::milliseconds bound) {
  std::unique_lock<std::mutex> lock(shared_->delivered_mu);
  if (bound.count() == 0) {
    shared_->delivered_cv.wait(lock, [&] { return shared_->delivered; });
    return true;
  }
  return shared_->delivered_cv.wait_for(lock, bound, [&] { return shared_->delivered; });
}

std::size_t ViewServer::open_pages() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->pages.size();
}

void ViewServer::stop() {
  if (!listener_) return;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    for (const auto& p : shared_->pages) p->stream_close();
    shared_->pages.clear();
  }
  listener_->stop();
  listener_.reset();
}

} // namespace mur
