// loopback_listener_restinio.hpp — LoopbackListener (http/loopback_listener.hpp) on RESTinio: the
// turn's MCP tool server and `mur view`. Included only by http/door_server.cpp, the one
// translation unit that includes RESTinio after that file's own helpers.
#pragma once

#include "http/connection_gate.hpp"
#include "http/loopback_listener.hpp"

namespace mur {
namespace {

class RestinioResponder;

struct ListenerShared {
  LoopbackListener::Handler handler;
  std::size_t max_body = 0;
  std::size_t max_stream_bytes = 0; // a stream's bytes on their way to a slow peer, at most
  // The server's io context, owned by the running server alone (a strong reference here would
  // make a cycle through its pending handlers, and the process would never wind down).
  std::weak_ptr<restinio::asio_ns::io_context> io;
  std::atomic<std::uint16_t> port{0};
  std::mutex mu;         // guards every responder's state and the open streams
  bool stopping = false; // then no answer is written any more
  std::vector<std::weak_ptr<RestinioResponder>> streams; // opened, maybe closed since
};

restinio::http_status_line_t plain_status_line(int status) {
  const char* reason = "Service Unavailable";
  switch (status) {
  case 200: reason = "OK"; break;
  case 202: reason = "Accepted"; break;
  case 400: reason = "Bad Request"; break;
  case 401: reason = "Unauthorized"; break;
  case 403: reason = "Forbidden"; break;
  case 404: reason = "Not Found"; break;
  case 405: reason = "Method Not Allowed"; break;
  case 406: reason = "Not Acceptable"; break;
  case 413: reason = "Payload Too Large"; break;
  case 415: reason = "Unsupported Media Type"; break;
  case 421: reason = "Misdirected Request"; break;
  default: break;
  }
  return restinio::http_status_line_t{restinio::http_status_code_t{static_cast<std::uint16_t>(status)}, reason};
}

// A stream's writes are made under the shared lock (the builder is not thread-safe); a write's
// completion comes on the io thread and takes no lock (it only marks the peer gone), so a write
// completed at once cannot deadlock.
class RestinioResponder final : public PlainResponder, public std::enable_shared_from_this<RestinioResponder> {
public:
  RestinioResponder(std::shared_ptr<ListenerShared> sh, restinio::request_handle_t req)
    : sh_(std::move(sh)), req_(std::move(req)) {}
  void answer(PlainAnswer a) override {
    {
      std::lock_guard<std::mutex> lock(sh_->mu);
      if (done_ || sh_->stopping) return;
      done_ = true;
    }
    auto resp = req_->create_response(plain_status_line(a.status));
    for (auto& [name, value] : a.headers) resp.append_header(name, value);
    resp.set_body(std::move(a.body)).done();
  }
  bool stream_open(int status, std::vector<std::pair<std::string, std::string>> headers) override {
    std::lock_guard<std::mutex> lock(sh_->mu);
    if (done_ || sh_->stopping) return false;
    done_ = true;
    stream_.emplace(req_->create_response<restinio::chunked_output_t>(plain_status_line(status)));
    for (auto& [name, value] : headers) stream_->append_header(name, value);
    open_ = true;
    flush_locked({}); // the headers go now: the client learns the stream is open
    auto& ss = sh_->streams;
    ss.erase(std::remove_if(ss.begin(), ss.end(), [](const auto& w) { return w.expired(); }), ss.end());
    ss.push_back(weak_from_this());
    return true;
  }
  bool stream_write(std::string chunk, std::function<void(bool)> sent) override {
    std::lock_guard<std::mutex> lock(sh_->mu);
    if (!open_ || sh_->stopping || gone_->load()) return false;
    if (behind_->load() + chunk.size() > sh_->max_stream_bytes) { // the peer fell behind: let it go
      close_locked();
      return false;
    }
    behind_->fetch_add(chunk.size());
    const std::size_t n = chunk.size();
    stream_->append_chunk(std::move(chunk));
    flush_locked(std::move(sent), n);
    return true;
  }
  void stream_close() override {
    std::lock_guard<std::mutex> lock(sh_->mu);
    close_locked();
  }
  void close_locked() {
    if (!open_) return;
    open_ = false;
    stream_->done();
  }

private:
  void flush_locked(std::function<void(bool)> sent, std::size_t bytes = 0) {
    stream_->flush([gone = gone_, behind = behind_, bytes, sent = std::move(sent)](const restinio::asio_ns::error_code& ec) {
      behind->fetch_sub(bytes);
      if (ec) gone->store(true);
      if (sent) sent(!ec);
    });
  }
  std::shared_ptr<ListenerShared> sh_;
  restinio::request_handle_t req_;
  bool done_ = false, open_ = false;
  std::optional<restinio::response_builder_t<restinio::chunked_output_t>> stream_;
  std::shared_ptr<std::atomic<bool>> gone_ = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<std::size_t>> behind_ = std::make_shared<std::atomic<std::size_t>>(0); // written, not yet sent
};

} // namespace

struct LoopbackListener::Impl {
  std::shared_ptr<ListenerShared> shared;
  restinio::running_server_handle_t<traits> server;
  bool stopped = false;
};

LoopbackListener::LoopbackListener(Handler handler, std::size_t max_body, std::uint16_t port, ListenerBounds bounds)
  : impl_(std::make_unique<Impl>()) {
  auto sh = std::make_shared<ListenerShared>();
  sh->handler = std::move(handler);
  sh->max_body = max_body;
  sh->max_stream_bytes = bounds.max_stream_bytes;
  impl_->shared = sh;
  // The handler runs after RESTinio's own handler returned (posted), so an answer it gives at
  // once is never written from inside RESTinio's pipelining (see the door's on_request).
  auto on_request = [sh](const restinio::request_handle_t& req) {
    auto io = sh->io.lock();
    if (!io) return restinio::request_rejected(); // stopping
    restinio::asio_ns::post(*io, [sh, req]() {
      auto responder = std::make_shared<RestinioResponder>(sh, req);
      if (req->body().size() > sh->max_body) {
        responder->answer(PlainAnswer{413, {{"Content-Type", "application/json"}}, "{\"error\":\"the body is too large\"}"});
        return;
      }
      PlainRequest r;
      r.method = req->header().method().c_str();
      r.target = std::string(req->header().request_target());
      req->header().for_each_field([&](const restinio::http_header_field_t& f) { r.headers.emplace_back(f.name(), f.value()); });
      r.body = req->body();
      sh->handler(std::move(r), std::move(responder));
    });
    return restinio::request_accepted();
  };
  try {
    auto io = std::make_shared<restinio::asio_ns::io_context>();
    sh->io = io;
    auto settings = gated_settings<traits>(bounds.max_connections);
    impl_->server = restinio::run_async(
      restinio::io_context_holder_t{std::move(io)},
      std::move(settings
        .address("127.0.0.1")
        .port(port)
        .acceptor_post_bind_hook([sh](restinio::asio_ns::ip::tcp::acceptor& a) { sh->port = a.local_endpoint().port(); })
        .handle_request_timeout(std::chrono::minutes(30))
        .read_next_http_message_timelimit(std::chrono::seconds(60))
        .incoming_http_msg_limits(restinio::incoming_http_msg_limits_t{}.max_body_size(max_body + 64 * 1024))
        .request_handler(on_request)),
      1);
  } catch (const std::exception& e) {
    if (port != 0)
      throw Failure("E-RUN-051", "cannot serve the port 127.0.0.1:" + std::to_string(port) + ": " + e.what(),
                    "choose another port, or end what holds it (ss -ltnp shows it)");
    throw Failure("E-RUN-047", std::string("could not listen on 127.0.0.1: ") + e.what(),
                  "check that loopback networking works on this machine");
  }
}

LoopbackListener::~LoopbackListener() { stop(); }

std::uint16_t LoopbackListener::port() const { return impl_->shared->port.load(); }
std::string LoopbackListener::url() const { return "http://127.0.0.1:" + std::to_string(port()); }

void LoopbackListener::stop() {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  {
    std::lock_guard<std::mutex> lock(impl_->shared->mu);
    for (const auto& w : impl_->shared->streams)
      if (auto r = w.lock()) r->close_locked(); // the last chunk; the server's stop closes the connection
    impl_->shared->streams.clear();
    impl_->shared->stopping = true;
  }
  impl_->server->stop();
  impl_->server->wait();
}

} // namespace mur
