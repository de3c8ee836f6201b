// A door call that reaches no door says why: the CurlPool names a refused connection, the
// reason survives the trip through a caf::error, and address lines carry a member that ended.
#include "http/curl_pool.hpp"
#include "messages/credentials/address_line.hpp"
#include "messages/credentials/formation_channel.hpp"
#include "messages/wire/transport_failure.hpp"

#include <caf/all.hpp>
#include <catch2/catch.hpp>

#include <future>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace mur;

namespace {

// A loopback socket bound to a free port, listening when `listen`: its descriptor and port.
std::pair<int, int> loopback_socket(bool listen) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  if (listen) REQUIRE(::listen(fd, 4) == 0);
  socklen_t len = sizeof a;
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  return {fd, ntohs(a.sin_port)};
}

// A loopback port nothing listens on: bound, read back, then closed.
int closed_port() {
  auto [fd, port] = loopback_socket(false);
  ::close(fd);
  return port;
}

} // namespace

TEST_CASE("the curl pool names a refused connection as such", "[transport]") {
  CurlPool pool;
  std::promise<std::pair<long, std::string>> done;
  HttpCall call;
  call.url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/";
  call.body = "{}";
  call.on_done = [&done](long status, std::string, std::string error) { done.set_value({status, error}); };
  pool.submit(std::move(call));
  auto [status, error] = done.get_future().get();
  CHECK(status == 0);
  CHECK(error == transport_reason::refused);
}

TEST_CASE("a stopping pool lets a farewell run only to the cap, whatever its own timeout says", "[transport]") {
  // A loopback listener that accepts and never answers: the farewell's DELETE waits on it.
  auto [fd, port] = loopback_socket(true);
  std::promise<std::pair<long, std::string>> done;
  {
    CurlPool pool;
    HttpCall call;
    call.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
    call.method = "DELETE";
    call.farewell = true;
    call.timeout = std::chrono::minutes(10); // were it let run out, the test would hit ctest's timeout
    call.on_done = [&done](long status, std::string, std::string error) { done.set_value({status, error}); };
    pool.submit(std::move(call));
  } // the pool stops here: the farewell ends at farewell_cap, not at its own timeout
  auto [status, error] = done.get_future().get();
  ::close(fd);
  CHECK(status == 0);
  CHECK(error == "the client is stopping");
}

TEST_CASE("a transport error carries its kind and reason, CAF's request timeout reads as timed out", "[transport]") {
  caf::actor_system_config cfg;
  add_transport_error_category(cfg);
  caf::actor_system sys{cfg};
  auto f = transport_fault_of(make_transport_error(TransportFailure::refused, "connection refused"), sys);
  CHECK(f.kind == TransportFailure::refused);
  CHECK(f.reason == "connection refused");
  CHECK(sys.render(make_transport_error(TransportFailure::reset, "connection reset")).find("connection reset") !=
        std::string::npos);
  auto t = transport_fault_of(caf::make_error(caf::sec::request_timeout), sys);
  CHECK(t.kind == TransportFailure::timed_out);
  CHECK(t.reason == "timed out");
  auto o = transport_fault_of(caf::make_error(caf::sec::request_receiver_down), sys);
  CHECK(o.kind == TransportFailure::other);
  CHECK(!o.reason.empty());
}

TEST_CASE("an address line names a member that ended, and nothing else without a url", "[transport][credentials]") {
  const std::string line = render_address_line({{"coder", "http://127.0.0.1:4000"}, {"reviewer", ""}});
  CHECK(line == "{\"addresses\":[{\"name\":\"coder\",\"url\":\"http://127.0.0.1:4000\"},"
                "{\"name\":\"reviewer\",\"ended\":true}]}");
  auto back = parse_address_line(line);
  REQUIRE(back.size() == 2);
  CHECK(back[1].name == "reviewer");
  CHECK(back[1].url.empty());
  for (const char* bad : {"{\"addresses\":[{\"name\":\"coder\",\"ended\":false}]}",
                          "{\"addresses\":[{\"name\":\"coder\",\"ended\":1}]}",
                          "{\"addresses\":[{\"name\":\"coder\",\"ended\":true,\"url\":\"http://h:1\"}]}",
                          "{\"addresses\":[{\"name\":\"coder\",\"ended\":true},{\"name\":\"coder\",\"url\":\"http://h:1\"}]}"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_address_line(bad), ChannelLineRefused);
  }
}
