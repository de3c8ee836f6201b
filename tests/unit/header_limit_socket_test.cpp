// The door's socket (http/header_limit_socket.hpp) driven with asio alone, the way RESTinio's
// connection drives it: reads into a 4 KiB buffer, answers written with asio::async_write, a
// loopback client on the other end. What a read hands on, that the 413 comes after every earlier
// answer and before EOF, and that everything else passes as it came. Every wait is bounded.
#include <catch2/catch.hpp>

#include "http/header_limit_socket.hpp"

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <sys/time.h>

namespace {

struct TestLimit {
  static constexpr std::uint64_t max_content_length = 100;
  static const std::string& refusal() {
    static const std::string bytes = "HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";
    return bytes;
  }
};

using Socket = mur::HeaderLimitSocket<TestLimit>;

struct Read {
  asio::error_code ec;
  std::string bytes;
};

// A server-side socket accepted from a loopback client.
struct Rig {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor{io, asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), 0)};
  Socket server{io};
  asio::ip::tcp::socket client{io};
  std::array<char, 4096> buf{};
  std::optional<Read> got; // the last read that completed
  bool reading = false;

  Rig() {
    client.connect(acceptor.local_endpoint());
    acceptor.accept(server.lowest_layer());
    timeval tv{5, 0}; // the client's reads are bounded
    ::setsockopt(client.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  void send(const std::string& bytes) { asio::write(client, asio::buffer(bytes)); }
  // Starts one read as RESTinio does (its completion is kept in `got`).
  void start_read() {
    got.reset();
    reading = true;
    server.async_read_some(asio::buffer(buf), [this](const asio::error_code& ec, std::size_t n) {
      reading = false;
      got = Read{ec, std::string(buf.data(), n)};
    });
  }
  // Runs the io context until `done` holds or 5 s passed; whether it held.
  template <class Done>
  bool run_until(Done done, std::chrono::milliseconds bound = std::chrono::seconds(5)) {
    const auto end = std::chrono::steady_clock::now() + bound;
    io.restart();
    while (!done() && std::chrono::steady_clock::now() < end) io.run_one_for(std::chrono::milliseconds(10));
    return done();
  }
  Read read() {
    start_read();
    REQUIRE(run_until([this] { return !reading; }));
    return *got;
  }
  void answer(const std::string& bytes) {
    bool done = false;
    asio::async_write(server, asio::buffer(bytes), [&](const asio::error_code& ec, std::size_t) {
      CHECK_FALSE(ec);
      done = true;
    });
    REQUIRE(run_until([&] { return done; }));
  }
  // What the client receives until the server's side ends (or the 5 s bound).
  std::string client_reads_to_eof() {
    std::string all;
    char b[4096];
    for (;;) {
      const ssize_t n = ::recv(client.native_handle(), b, sizeof b, 0);
      if (n <= 0) break;
      all.append(b, static_cast<std::size_t>(n));
    }
    return all;
  }
  // The next read hands on nothing and ends at EOF; the client gets `before`, then the 413, then EOF.
  void refuses_after(const std::string& before) {
    const Read last = read();
    CHECK(last.ec == asio::error::eof);
    CHECK(last.bytes.empty());
    CHECK(client_reads_to_eof() == before + TestLimit::refusal());
  }
};

const std::string get_a = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
const std::string answer_a = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
std::string post_of(std::size_t length) {
  return "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(length) + "\r\n\r\n";
}

} // namespace

TEST_CASE("header limit socket: a Content-Length past the limit hands on nothing, the 413, then EOF", "[unit][bounds]") {
  Rig r;
  r.send(post_of(101));
  r.refuses_after("");
}

TEST_CASE("header limit socket: a body at the limit and a chunked body pass as they came", "[unit][bounds]") {
  Rig r;
  const std::string at_limit = post_of(100) + std::string(100, 'x');
  const std::string chunked = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFF\r\n";
  r.send(at_limit + get_a);
  CHECK(r.read().bytes == at_limit + get_a);
  r.answer(answer_a + answer_a);
  r.send(chunked);
  CHECK(r.read().bytes == chunked); // RESTinio bounds a chunked body itself
}

TEST_CASE("header limit socket: pipelined, the earlier answer goes first, then the 413", "[unit][bounds]") {
  Rig r;
  r.send(get_a + post_of(8 * 1024 * 1024) + std::string(1000, 'x'));
  const Read first = r.read();
  CHECK_FALSE(first.ec);
  CHECK(first.bytes == get_a); // nothing of the refused request
  r.answer(answer_a);
  r.refuses_after(answer_a);
}

TEST_CASE("header limit socket: a read made while an earlier answer is unwritten waits for its last byte", "[unit][bounds]") {
  Rig r;
  r.send(get_a + get_a + post_of(101));
  CHECK(r.read().bytes == get_a + get_a);
  r.start_read(); // as RESTinio reads with more than one request in flight
  CHECK_FALSE(r.run_until([&] { return !r.reading; }, std::chrono::milliseconds(100)));
  r.answer(answer_a + answer_a.substr(0, 10));
  CHECK_FALSE(r.run_until([&] { return !r.reading; }, std::chrono::milliseconds(100)));
  r.answer(answer_a.substr(10));
  REQUIRE(r.run_until([&] { return !r.reading; }));
  CHECK(r.got->ec == asio::error::eof);
  CHECK(r.client_reads_to_eof() == answer_a + answer_a + TestLimit::refusal());
}

TEST_CASE("header limit socket: headers split across reads: the first part was handed on, the 413 follows", "[unit][bounds]") {
  Rig r;
  const std::string whole = post_of(5000);
  r.send(whole.substr(0, 30));
  CHECK(r.read().bytes == whole.substr(0, 30));
  r.send(whole.substr(30));
  r.refuses_after("");
}

TEST_CASE("header limit socket: an answer without a length never ends: no 413, the held read ends aborted at close", "[unit][bounds]") {
  Rig r;
  r.send(get_a + post_of(101));
  CHECK(r.read().bytes == get_a);
  const std::string open_ended = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\n";
  r.answer(open_ended);
  r.start_read();
  CHECK_FALSE(r.run_until([&] { return !r.reading; }, std::chrono::milliseconds(100)));
  r.server.close();
  REQUIRE(r.run_until([&] { return !r.reading; }));
  CHECK(r.got->ec == asio::error::operation_aborted);
  CHECK(r.client_reads_to_eof() == open_ended);
}

TEST_CASE("header limit socket: after a parser error the bytes pass as they are, the limit no longer applies", "[unit][bounds]") {
  Rig r;
  const std::string bad = "G@T / HTTP/1.1\r\n\r\n" + post_of(101);
  r.send(bad);
  CHECK(r.read().bytes == bad);
  r.send(post_of(5000));
  CHECK(r.read().bytes == post_of(5000));
}

TEST_CASE("header limit socket: a moved-from socket accepts the next connection", "[unit][bounds]") {
  Rig r;
  Socket moved(std::move(r.server));
  CHECK(moved.is_open());
  CHECK_FALSE(r.server.is_open());
  asio::ip::tcp::socket second(r.io);
  second.connect(r.acceptor.local_endpoint());
  r.acceptor.accept(r.server.lowest_layer());
  CHECK(r.server.is_open());
}
