// header_limit_socket.hpp — the stream socket of a RESTinio listener that refuses a request
// whose Content-Length passes the listener's limit from its headers alone: it answers 413 itself
// (`Connection: close`) and ends the connection, where RESTinio 0.6.16 could only close it
// without an answer (its parser callback returns an error when the headers end).
//
// Invariant: no body over the limit is read; the 413 follows every earlier answer on the
// connection. RESTinio is handed the bytes as they came, up to the first byte of the request
// over the limit and never past it, so it never sees those headers end and reserves nothing;
// the 413 is written once as many answers are out as whole requests went before it, and then
// the connection ends. Everything else passes as it is.
//
// How: a socket type for the traits' `stream_socket_t`, over an asio::ip::tcp::socket, with the
// members RESTinio's acceptor and connection call (lowest_layer, get_executor, remote_endpoint,
// is_open, cancel, shutdown, close, async_read_some, async_write_some; sendfile goes through
// async_write_some too). One http_parser (HTTP_REQUEST; headers_complete and message_complete
// callbacks only, so nothing is copied) runs over the bytes each read delivered, one message at a
// time as RESTinio's own does; a second (HTTP_RESPONSE) over the bytes each write took, counting
// the final answers that are out (RESTinio writes the body of a HEAD answer too, so the bytes are
// parsed as they are). Past the limit: RESTinio gets only the bytes before that request (if any);
// its next read is held until the answers are out, then the 413 is written through the socket,
// the sending side shut, and the read completes with EOF, so RESTinio closes the connection as
// when a peer hangs up (its connection state listener sees the close; the bytes of the refused
// request that were already read are dropped). An answer that never ends (no length: read until
// close) means no 413 is written: the connection ends as it would without this socket. Either
// parser's error ends the parsing on that connection: bytes pass as they are from then on and
// RESTinio does what it does (its own parser finds the same error and closes).
// A held read waits in an asio timer, so an io context destroyed with it frees the connection.
// Moved only before its first read (RESTinio moves it from the acceptor into the connection); a
// moved-from one is a fresh socket on the same executor, ready for the next accept.
// No RESTinio type appears here (a unit test drives it with asio alone); http/door_server.cpp,
// the one translation unit that includes RESTinio, adds the two hooks RESTinio looks up for a
// socket type. `Limit` gives `max_content_length` (bytes) and `refusal()` (the whole response).
// Rule: a body over the door's limit is refused with 413 before it is read (docs/ARCHITECTURE.md
// "Bounds").
#pragma once

#include <asio/bind_executor.hpp>
#include <asio/buffer.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/write.hpp>
#include <http_parser.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

namespace mur {

template <class Limit>
class HeaderLimitSocket {
public:
  using socket_t = asio::ip::tcp::socket;
  using executor_type = socket_t::executor_type;

  explicit HeaderLimitSocket(asio::io_context& io) : socket_(io) { start_parsers(); }
  HeaderLimitSocket(HeaderLimitSocket&& o) noexcept : socket_(std::move(o.socket_)) { start_parsers(); }
  HeaderLimitSocket& operator=(HeaderLimitSocket&&) = delete;
  HeaderLimitSocket(const HeaderLimitSocket&) = delete;
  HeaderLimitSocket& operator=(const HeaderLimitSocket&) = delete;

  socket_t& lowest_layer() { return socket_; }
  const socket_t& lowest_layer() const { return socket_; }
  executor_type get_executor() { return socket_.get_executor(); }
  auto remote_endpoint() const { return socket_.remote_endpoint(); }
  bool is_open() const { return socket_.is_open(); }

  template <class... Args>
  void cancel(Args&&... args) {
    socket_.cancel(std::forward<Args>(args)...);
    release_held(true);
  }
  template <class... Args>
  void shutdown(Args&&... args) {
    socket_.shutdown(std::forward<Args>(args)...);
  }
  template <class... Args>
  void close(Args&&... args) {
    release_held(true);
    socket_.close(std::forward<Args>(args)...);
  }

  // Reads into the first buffer; hands on the bytes before a request over the limit.
  template <class MutableBuffers, class Handler>
  void async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    if (state_ != Refusal::none) return refuse(std::forward<Handler>(handler));
    if (!parsing_) return socket_.async_read_some(buffers, std::forward<Handler>(handler));
    const asio::mutable_buffer into = *asio::buffer_sequence_begin(buffers);
    auto ex = asio::get_associated_executor(handler, socket_.get_executor());
    socket_.async_read_some(
      into, asio::bind_executor(ex, [this, into, h = std::forward<Handler>(handler)](const asio::error_code& ec, std::size_t n) mutable {
        if (ec) return h(ec, n);
        const std::size_t admitted = admit(static_cast<const char*>(into.data()), n);
        if (state_ == Refusal::none || admitted > 0) return h(ec, admitted);
        refuse(std::move(h)); // the refused request began these bytes (or before them)
      }));
  }

  // Writes as asked; counts the answers whose last byte went out.
  template <class ConstBuffers, class Handler>
  void async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    if (!parsing_) return socket_.async_write_some(buffers, std::forward<Handler>(handler));
    auto ex = asio::get_associated_executor(handler, socket_.get_executor());
    socket_.async_write_some(
      buffers, asio::bind_executor(ex, [this, buffers, h = std::forward<Handler>(handler)](const asio::error_code& ec, std::size_t n) mutable {
        count_answers(buffers, n);
        if (held_ && (!parsing_ || answers_ >= requests_)) wait_->cancel(); // the held read goes on (posted)
        h(ec, n);
      }));
  }

private:
  enum class Refusal { none, withheld, written };
  struct Seen {
    bool over = false;     // headers complete with a Content-Length past the limit
    bool complete = false; // a whole message
  };

  static constexpr std::uint64_t no_length = std::numeric_limits<std::uint64_t>::max();

  static int on_headers_complete(http_parser* p) {
    if (p->content_length != no_length && p->content_length > Limit::max_content_length) {
      static_cast<Seen*>(p->data)->over = true;
      http_parser_pause(p, 1);
    }
    return 0;
  }
  static int on_message_complete(http_parser* p) {
    static_cast<Seen*>(p->data)->complete = true;
    http_parser_pause(p, 1); // one message at a time: the next starts on a fresh parser
    return 0;
  }
  static const http_parser_settings& request_settings() {
    static const http_parser_settings s = [] {
      http_parser_settings r{};
      r.on_headers_complete = &on_headers_complete;
      r.on_message_complete = &on_message_complete;
      return r;
    }();
    return s;
  }
  static const http_parser_settings& answer_settings() {
    static const http_parser_settings s = [] {
      http_parser_settings r{};
      r.on_message_complete = &on_message_complete;
      return r;
    }();
    return s;
  }

  void start_parsers() {
    http_parser_init(&requests_parser_, HTTP_REQUEST);
    http_parser_init(&answers_parser_, HTTP_RESPONSE);
  }

  // How many of the `n` bytes at `data` RESTinio may have: all of them, or those before the
  // request over the limit (then the socket refuses from here on).
  std::size_t admit(const char* data, std::size_t n) {
    std::size_t at = 0;
    std::size_t begun = 0; // where the message being parsed began (0: here or in an earlier read)
    while (parsing_ && at < n) {
      Seen seen;
      requests_parser_.data = &seen;
      const std::size_t used = http_parser_execute(&requests_parser_, &request_settings(), data + at, n - at);
      if (seen.over) {
        state_ = Refusal::withheld;
        return begun;
      }
      if (seen.complete) {
        ++requests_;
        at += used;
        begun = at;
        http_parser_init(&requests_parser_, HTTP_REQUEST);
        continue;
      }
      if (HTTP_PARSER_ERRNO(&requests_parser_) != HPE_OK || used == 0) parsing_ = false;
      at += used;
    }
    return n;
  }

  template <class ConstBuffers>
  void count_answers(const ConstBuffers& buffers, std::size_t n) {
    for (auto it = asio::buffer_sequence_begin(buffers); parsing_ && n > 0 && it != asio::buffer_sequence_end(buffers); ++it) {
      const asio::const_buffer b = *it;
      const std::size_t len = std::min(b.size(), n);
      n -= len;
      const char* data = static_cast<const char*>(b.data());
      for (std::size_t at = 0; parsing_ && at < len;) {
        Seen seen;
        answers_parser_.data = &seen;
        const std::size_t used = http_parser_execute(&answers_parser_, &answer_settings(), data + at, len - at);
        at += used;
        if (seen.complete) {
          if (answers_parser_.status_code >= 200) ++answers_; // a 1xx is not the answer
          http_parser_init(&answers_parser_, HTTP_RESPONSE);
        } else if (HTTP_PARSER_ERRNO(&answers_parser_) != HPE_OK || used == 0) {
          parsing_ = false;
        }
      }
    }
  }

  // RESTinio's read while a request is withheld: the 413 once the answers before it are out;
  // EOF at once when they cannot be counted (as without this socket: closed, no answer).
  template <class Handler>
  void refuse(Handler&& handler) {
    auto ex = asio::get_associated_executor(handler, socket_.get_executor());
    if (state_ == Refusal::written || !parsing_ || !socket_.is_open()) {
      asio::post(ex, [h = std::forward<Handler>(handler)]() mutable { h(asio::error::eof, 0); });
      return;
    }
    if (answers_ >= requests_) {
      state_ = Refusal::written;
      asio::async_write(socket_, asio::buffer(Limit::refusal()),
                        asio::bind_executor(ex, [this, h = std::forward<Handler>(handler)](const asio::error_code& ec, std::size_t) mutable {
                          asio::error_code ignored;
                          if (!ec) socket_.shutdown(socket_t::shutdown_send, ignored);
                          h(ec ? ec : asio::error_code(asio::error::eof), 0);
                        }));
      return;
    }
    if (!wait_) wait_.emplace(socket_.get_executor());
    wait_->expires_at(asio::steady_timer::time_point::max());
    held_ = true;
    aborted_ = false;
    wait_->async_wait(asio::bind_executor(ex, [this, h = std::forward<Handler>(handler)](const asio::error_code&) mutable {
      held_ = false;
      if (aborted_) return h(asio::error::operation_aborted, 0);
      refuse(std::move(h));
    }));
  }

  // RESTinio cancelled or closed: a held read ends as an aborted one.
  void release_held(bool aborted) {
    if (!held_) return;
    aborted_ = aborted;
    wait_->cancel();
  }

  socket_t socket_;
  http_parser requests_parser_{};
  http_parser answers_parser_{};
  bool parsing_ = true;        // false after either parser's error: bytes pass as they are
  std::uint64_t requests_ = 0; // whole requests handed to RESTinio
  std::uint64_t answers_ = 0;  // final answers whose last byte was written
  Refusal state_ = Refusal::none;
  std::optional<asio::steady_timer> wait_; // holds RESTinio's read until the answers are out
  bool held_ = false, aborted_ = false;
};

} // namespace mur
