// Every streamed answer is capped (http/stream_caps.hpp): its text (E-MOD-033), its reasoning
// (E-MOD-034), its tool-call arguments (E-MOD-035) and one SSE event (E-MOD-036); the event cap
// is checked as bytes arrive and ends the transfer (the server sees the connection closed).
#include "http/chat_completions.hpp"
#include "http/curl_pool.hpp"
#include "http/model_failure.hpp"
#include "http/sse_events.hpp"
#include "http/stream_caps.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <future>
#include <thread>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace mur;
using nlohmann::json;

namespace {

std::string chunk(const json& delta) {
  return json{{"object", "chat.completion.chunk"}, {"choices", {{{"index", 0}, {"delta", delta}, {"finish_reason", nullptr}}}}}.dump();
}

StreamCaps small_caps() {
  StreamCaps c;
  c.text = 1000;
  c.reasoning = 500;
  c.tool_arguments = 300;
  c.event = 2000;
  return c;
}

// One connection on a loopback port: answers with an event-stream head, then writes `piece`
// until a write fails (the client closed). Reports how many bytes it wrote.
struct EndlessServer {
  int listen_fd = -1;
  int port = 0;
  std::atomic<bool> client_closed{false};
  std::atomic<long long> written{0};
  std::thread thread;

  explicit EndlessServer(std::string piece) {
    listen_fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(listen_fd >= 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(listen_fd, 1) == 0);
    socklen_t len = sizeof a;
    REQUIRE(::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    port = ntohs(a.sin_port);
    thread = std::thread([this, piece] {
      const int c = ::accept(listen_fd, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      (void)::recv(c, buf, sizeof buf, 0); // the request (small: one read)
      const std::string head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: ";
      (void)::send(c, head.data(), head.size(), MSG_NOSIGNAL);
      for (long long i = 0; i < 1'000'000; ++i) { // at most ~64 GB: the client ends it long before
        const auto n = ::send(c, piece.data(), piece.size(), MSG_NOSIGNAL);
        if (n <= 0) {
          client_closed = true;
          break;
        }
        written += n;
      }
      ::close(c);
    });
  }
  ~EndlessServer() {
    ::shutdown(listen_fd, SHUT_RDWR);
    ::close(listen_fd);
    if (thread.joinable()) thread.join();
  }
};

} // namespace

TEST_CASE("caps: a streamed answer's text past its cap ends with E-MOD-033, no fragment past it", "[models][caps]") {
  std::string seen;
  ChatStream s([&](const std::string& f) { seen += f; }, {}, small_caps());
  for (int i = 0; i < 9; ++i) REQUIRE_FALSE(s.feed(chunk({{"content", std::string(100, 'a')}})));
  REQUIRE_FALSE(s.feed(chunk({{"content", std::string(100, 'b')}}))); // exactly 1000: still within
  auto f = s.feed(chunk({{"content", "c"}}));
  REQUIRE(f);
  CHECK(f->code == "E-MOD-033");
  CHECK(f->message.find("1000 bytes") != std::string::npos);
  CHECK_FALSE(f->fix.empty());
  CHECK(seen.size() == 1000); // the fragment that would pass the cap was not handed on
  CHECK(s.feed(chunk({{"content", "d"}}))->code == "E-MOD-033"); // stays failed
  CHECK(std::get<ModelFailure>(s.finish()).code == "E-MOD-033");
}

TEST_CASE("caps: reasoning past its cap ends with E-MOD-034", "[models][caps]") {
  ChatStream s({}, {}, small_caps());
  REQUIRE_FALSE(s.feed(chunk({{"reasoning_content", std::string(500, 'r')}})));
  auto f = s.feed(chunk({{"reasoning_content", "r"}}));
  REQUIRE(f);
  CHECK(f->code == "E-MOD-034");
}

TEST_CASE("caps: tool-call arguments past their cap, over all calls of one answer, end with E-MOD-035", "[models][caps]") {
  ChatStream s({}, {}, small_caps());
  auto call = [](int index, const std::string& args) {
    return chunk({{"tool_calls", {{{"index", index}, {"id", "c" + std::to_string(index)}, {"function", {{"name", "call-member"}, {"arguments", args}}}}}}});
  };
  REQUIRE_FALSE(s.feed(call(0, std::string(200, 'x'))));
  auto f = s.feed(call(1, std::string(101, 'y'))); // 301 in all
  REQUIRE(f);
  CHECK(f->code == "E-MOD-035");
  CHECK(f->message.find("300 bytes") != std::string::npos);
}

TEST_CASE("caps: the default caps and their codes", "[models][caps]") {
  const StreamCaps caps;
  CHECK(caps.text == 16u * 1024 * 1024);
  CHECK(caps.reasoning == 16u * 1024 * 1024);
  CHECK(caps.tool_arguments == 4u * 1024 * 1024);
  CHECK(caps.event == 8u * 1024 * 1024);
  CHECK(stream_cap_failure(StreamCap::text, caps.text).message.find("16 MiB") != std::string::npos);
  auto ev = classify_transport_failure(transport_reason::event_too_large, "http://127.0.0.1:9/v1/chat/completions", true);
  CHECK(ev.code == "E-MOD-036");
  CHECK(ev.message.find("8 MiB") != std::string::npos);
}

TEST_CASE("caps: one SSE event past its cap, finished or not, stops the cutting", "[models][caps][sse]") {
  std::vector<std::string> got;
  auto on = [&](const std::string& d) { got.push_back(d); };

  SseEvents ok(64);
  const std::string two = "data: " + std::string(50, 'a') + "\n\ndata: b\n\n";
  CHECK(ok.feed(two.data(), two.size(), on));
  CHECK(got.size() == 2);

  SseEvents whole(64); // a complete event over the cap in one piece
  const std::string big = "data: " + std::string(100, 'a') + "\n\n";
  CHECK_FALSE(whole.feed(big.data(), big.size(), on));
  CHECK(got.size() == 2);
  CHECK(whole.overflowed());
  CHECK_FALSE(whole.feed("data: x\n\n", 9, on)); // nothing more is read
  CHECK(got.size() == 2);

  SseEvents endless(1000); // an event that never ends, one byte at a time
  bool going = endless.feed("data: ", 6, on);
  std::size_t fed = 6;
  while (going && fed < 5000) {
    going = endless.feed("x", 1, on);
    ++fed;
  }
  CHECK_FALSE(going);
  CHECK(fed == 1001);
  CHECK(endless.pending().empty()); // nothing of it is held

  SseEvents comments(100); // comment lines without a blank line count too
  std::string c;
  for (int i = 0; i < 20; ++i) c += ": keep-alive\n";
  CHECK_FALSE(comments.feed(c.data(), c.size(), on));
}

TEST_CASE("caps: the curl pool ends a stream whose event passes max_event", "[models][caps][transport]") {
  EndlessServer server(std::string(16 * 1024, 'x'));
  CurlPool pool;
  std::promise<std::pair<long, std::string>> done;
  HttpCall call;
  call.url = "http://127.0.0.1:" + std::to_string(server.port) + "/v1/chat/completions";
  call.body = "{}";
  call.timeout = std::chrono::milliseconds(0);
  call.stall_limit = std::chrono::milliseconds(30000);
  call.max_event = 256 * 1024;
  std::atomic<int> events{0};
  call.on_event = [&](const std::string&) { ++events; };
  call.on_done = [&](long status, std::string, std::string error) { done.set_value({status, error}); };
  pool.submit(std::move(call));
  auto [status, error] = done.get_future().get();
  CHECK(status == 0);
  CHECK(error == transport_reason::event_too_large);
  CHECK(events == 0);
  if (server.thread.joinable()) server.thread.join(); // its writes fail once the transfer is gone
  CHECK(server.client_closed);
  CHECK(server.written < 64LL * 1024 * 1024); // kernel buffers, not an endless read
}
