#include "http/curl_pool.hpp"

#include "http/sse_events.hpp"

#include <curl/curl.h>
#include <sodium.h>

#include <atomic>
#include <condition_variable>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace mur {
namespace {

std::once_flag curl_global;

// Names a failed transfer in transport_reason's words where libcurl says which it was.
std::string failure_reason(CURL* e, CURLcode code, bool stream) {
  long os_errno = 0;
  curl_easy_getinfo(e, CURLINFO_OS_ERRNO, &os_errno);
  switch (code) {
  case CURLE_COULDNT_CONNECT:
    return os_errno == ECONNREFUSED || os_errno == 0 ? transport_reason::refused
                                                     : std::string("could not connect (") + std::strerror(int(os_errno)) + ")";
  case CURLE_OPERATION_TIMEDOUT: {
    curl_off_t connected = 0; // microseconds to connect; 0 while not connected
    curl_easy_getinfo(e, CURLINFO_CONNECT_TIME_T, &connected);
    if (connected == 0) return transport_reason::connect_timed_out;
    return stream ? transport_reason::stalled : transport_reason::timed_out;
  }
  case CURLE_GOT_NOTHING: return transport_reason::no_reply;
  case CURLE_PARTIAL_FILE: return transport_reason::cut;
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR:
    return os_errno == ECONNRESET || os_errno == EPIPE || os_errno == 0 ? transport_reason::reset
                                                                        : std::string("connection failed (") + std::strerror(int(os_errno)) + ")";
  default: return curl_easy_strerror(code);
  }
}

struct Transfer {
  std::uint64_t id = 0;
  HttpCall call;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::string body;      // a plain reply
  SseEvents events;      // an event stream, cut into events
  int mode = 0;          // 0 undecided, 1 body, 2 event stream
  bool too_large = false;
  bool event_too_large = false;
  bool paused = false;   // paused by the delivery window
  HttpReplyMeta meta;

  bool window_full() const {
    return call.in_flight && call.window_bytes != 0 && call.in_flight->load() >= call.window_bytes;
  }

  ~Transfer() {
    if (headers) curl_slist_free_all(headers);
    for (auto& h : call.headers)
      if (!h.empty()) sodium_memzero(h.data(), h.size());
  }
};

std::size_t on_write(char* ptr, std::size_t size, std::size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::size_t len = size * n;
  if (t.mode == 0) {
    char* ct = nullptr;
    curl_easy_getinfo(t.easy, CURLINFO_CONTENT_TYPE, &ct);
    t.mode = ct && std::string(ct).rfind("text/event-stream", 0) == 0 ? 2 : 1;
  }
  t.meta.received = true;
  if (t.mode == 1) {
    if (t.call.max_body != 0 && t.body.size() + len > t.call.max_body) {
      t.too_large = true;
      return 0; // ends the transfer with a write error
    }
    t.body.append(ptr, len);
    return len;
  }
  if (t.window_full()) { // the reader is behind: curl keeps these bytes and hands them again on resume
    t.paused = true;
    return CURL_WRITEFUNC_PAUSE;
  }
  auto deliver = [&t](const std::string& data) {
    if (t.call.in_flight) *t.call.in_flight += data.size();
    if (t.call.on_event_meta) t.call.on_event_meta(data, t.meta);
    else if (t.call.on_event) t.call.on_event(data);
  };
  if (!t.events.feed(ptr, len, deliver)) {
    t.event_too_large = true;
    return 0; // ends the transfer with a write error: nothing more is read
  }
  return len;
}

// The value of header line [ptr, ptr+len) when it is `name` (lower case, with its colon), trimmed.
std::optional<std::string> header_value(const char* ptr, std::size_t len, const std::string& name) {
  if (len <= name.size()) return std::nullopt;
  for (std::size_t i = 0; i < name.size(); ++i)
    if (static_cast<char>(std::tolower(static_cast<unsigned char>(ptr[i]))) != name[i]) return std::nullopt;
  std::string v(ptr + name.size(), len - name.size());
  const auto b = v.find_first_not_of(" \t");
  const auto e = v.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : v.substr(b, e - b + 1);
}

// Keeps Retry-After and Mcp-Session-Id (any case) of the last response's headers; notes that
// bytes arrived.
std::size_t on_header(char* ptr, std::size_t size, std::size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::size_t len = size * n;
  t.meta.received = true;
  if (auto v = header_value(ptr, len, "retry-after:")) t.meta.retry_after = std::move(*v);
  else if (auto id = header_value(ptr, len, "mcp-session-id:")) t.meta.session_id = std::move(*id);
  return len;
}

} // namespace

struct CurlPool::Impl {
  std::mutex mu;
  std::deque<std::unique_ptr<Transfer>> incoming;
  std::vector<std::uint64_t> cancels;
  bool stopping = false;
  std::atomic<std::uint64_t> next{1};
  CURLM* multi = nullptr;
  std::map<CURL*, std::unique_ptr<Transfer>> live;
  std::thread thread;

  void start(std::unique_ptr<Transfer> t) {
    CURL* e = curl_easy_init();
    t->easy = e;
    curl_easy_setopt(e, CURLOPT_URL, t->call.url.c_str());
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, t->call.https ? "http,https" : "http");
    if (!t->call.authority.empty()) { // pinned: this authority alone, none of the system's
      curl_blob ca{const_cast<char*>(t->call.authority.data()), t->call.authority.size(), CURL_BLOB_COPY};
      curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &ca);
      curl_easy_setopt(e, CURLOPT_CAINFO, nullptr);
      curl_easy_setopt(e, CURLOPT_CAPATH, nullptr);
    }
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    if (t->call.method == "POST") {
      curl_easy_setopt(e, CURLOPT_POST, 1L);
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->call.body.c_str());
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, static_cast<long>(t->call.body.size()));
    } else if (t->call.method == "DELETE") {
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
    } else {
      curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    }
    for (const auto& h : t->call.headers) t->headers = curl_slist_append(t->headers, h.c_str());
    t->headers = curl_slist_append(t->headers, "Expect:");
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get());
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(t->call.timeout.count()));
    if (t->call.timeout.count() == 0) {
      curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
      curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, static_cast<long>(std::max<long long>(1, t->call.stall_limit.count() / 1000)));
    }
    curl_multi_add_handle(multi, e);
    live.emplace(e, std::move(t));
  }

  void finish(CURL* e, long status, const std::string& error) {
    auto it = live.find(e);
    if (it == live.end()) return;
    std::unique_ptr<Transfer> t = std::move(it->second);
    live.erase(it);
    curl_multi_remove_handle(multi, e);
    curl_easy_cleanup(e);
    const bool capped = t->too_large || t->event_too_large;
    const std::string why = t->too_large         ? std::string(transport_reason::too_large)
                            : t->event_too_large ? std::string(transport_reason::event_too_large)
                                                 : error;
    if (t->call.on_done_meta) t->call.on_done_meta(capped ? 0 : status, std::move(t->body), why, t->meta);
    else if (t->call.on_done) t->call.on_done(capped ? 0 : status, std::move(t->body), why);
  }

  void run() {
    std::chrono::steady_clock::time_point stop_since{}; // when the pool began to stop
    for (;;) {
      std::deque<std::unique_ptr<Transfer>> fresh;
      std::vector<std::uint64_t> cancel;
      bool stop;
      {
        std::lock_guard<std::mutex> lock(mu);
        fresh.swap(incoming);
        cancel.swap(cancels);
        stop = stopping;
      }
      for (auto& t : fresh) start(std::move(t));
      for (auto id : cancel)
        for (auto& [e, t] : live)
          if (t->id == id) {
            finish(e, 0, "canceled");
            break;
          }
      if (stop) { // every call ends now but a farewell, which runs out its own timeout, never past the cap
        const auto now = std::chrono::steady_clock::now();
        if (stop_since == std::chrono::steady_clock::time_point{}) stop_since = now;
        const bool capped = now - stop_since >= farewell_cap;
        for (auto it = live.begin(); it != live.end();) {
          CURL* e = (it++)->first;
          if (capped || !live.at(e)->call.farewell) finish(e, 0, "the client is stopping");
        }
        if (live.empty()) return;
      }
      bool any_paused = false;
      for (auto& [e, t] : live)
        if (t->paused) {
          if (t->window_full()) {
            any_paused = true;
          } else {
            t->paused = false;
            curl_easy_pause(e, CURLPAUSE_CONT); // may call on_write at once (and pause again)
            any_paused = any_paused || t->paused;
          }
        }
      int running = 0;
      curl_multi_perform(multi, &running);
      int left = 0;
      while (CURLMsg* m = curl_multi_info_read(multi, &left)) {
        if (m->msg != CURLMSG_DONE) continue;
        CURL* e = m->easy_handle;
        if (m->data.result == CURLE_OK) {
          long status = 0;
          curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
          finish(e, status, "");
        } else {
          auto it = live.find(e);
          const bool stream = it != live.end() && it->second->call.timeout.count() == 0;
          finish(e, 0, failure_reason(e, m->data.result, stream));
        }
      }
      // A paused reader is looked at often; a stopping pool as often as its farewells' cap needs.
      curl_multi_poll(multi, nullptr, 0, any_paused ? 5 : stop ? 100 : 1000, nullptr);
    }
  }
};

CurlPool::CurlPool() : impl_(std::make_unique<Impl>()) {
  std::call_once(curl_global, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  impl_->multi = curl_multi_init();
  impl_->thread = std::thread([this] { impl_->run(); });
}

CurlPool::~CurlPool() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stopping = true;
  }
  curl_multi_wakeup(impl_->multi);
  impl_->thread.join();
  for (auto& t : impl_->incoming) // submitted after the loop ended
    if (t->call.on_done_meta) t->call.on_done_meta(0, "", "the client is stopping", {});
    else if (t->call.on_done) t->call.on_done(0, "", "the client is stopping");
  impl_->incoming.clear();
  curl_multi_cleanup(impl_->multi);
}

std::uint64_t CurlPool::submit(HttpCall call) {
  auto t = std::make_unique<Transfer>();
  t->id = impl_->next++;
  t->call = std::move(call);
  t->events = SseEvents(t->call.max_event == 0 ? door_stream_max_event : t->call.max_event);
  const auto id = t->id;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->incoming.push_back(std::move(t));
  }
  curl_multi_wakeup(impl_->multi);
  return id;
}

void CurlPool::cancel(std::uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->cancels.push_back(id);
  }
  curl_multi_wakeup(impl_->multi);
}

HttpOutcome call_and_wait(CurlPool& pool, HttpCall call) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  HttpOutcome out;
  call.on_done = [&](long status, std::string body, std::string error) {
    std::lock_guard<std::mutex> lock(mu);
    out = {status, std::move(body), std::move(error)};
    done = true;
    cv.notify_all();
  };
  pool.submit(std::move(call));
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return out;
}

} // namespace mur
