// Bounded doors, tried as an attacker would, on loopback against the real binary: more
// connections than the member's descriptor limit and then none (it accepts again), bodies
// announced over the limit (answered 413 from the headers, before the token and after every
// earlier answer on the connection, then closed; no body byte sent or read) and bodies sent slowly,
// pipelined requests ending with one the intake refuses with `Connection: close` (a Debug build
// once aborted on RESTinio's assertion), and twenty subscribers that never read a fast model's
// stream (each dropped with a final event naming why; the member's memory stays under a ceiling
// far above normal, and GetTask is answered throughout). Every wait is bounded; no timing is
// asserted.
#include <catch2/catch.hpp>

#include "launched_mur.hpp"
#include "raw_http.hpp"
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>
#include <thread>

using namespace mur::test;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

// A capsule folder with a public door (no token needed, as the attacker had none).
std::string open_capsule(const TempDir& dir, const std::string& inference) {
  const std::string path = dir.path + "/open";
  std::filesystem::create_directories(path);
  std::ofstream(path + "/murmur.yaml") << "name: t-open\nversion: 1.0.0\n"
                                       << inference
                                       << "lifecycle: {task_acceptance: queue, queue_depth: 8, after_task: sleep}\n";
  return path;
}

const char* script_inference = "inference:\n  transport: script\n  turns:\n    - reply: \"done: {{task}}\"\n";

// The same capsule behind a door that takes only its session's tokens.
std::string authenticated_capsule(const TempDir& dir) {
  const std::string path = dir.path + "/authed";
  std::filesystem::create_directories(path);
  std::ofstream(path + "/murmur.yaml") << "name: t-authed\nversion: 1.0.0\n"
                                       << script_inference
                                       << "lifecycle: {task_acceptance: queue, queue_depth: 8, after_task: sleep}\n"
                                       << "network: {authentication: {scheme: bearer}}\n";
  return path;
}

// What the door answers for a body announced past its read limit (door_intake's 413 body).
const std::string too_large_body = R"({"error":"payload_too_large","message":"a request body may hold at most 1048576 bytes"})";
const std::string big_headers = "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nContent-Length: 8388608\r\n\r\n";

// One whole 413 as the door writes it from the headers: status, Connection: close, the JSON.
bool is_header_413(const std::string& answer) {
  return answer.rfind("HTTP/1.1 413 Payload Too Large\r\n", 0) == 0 && answer.find("\r\nConnection: close\r\n") != std::string::npos &&
         answer.find("\r\nContent-Type: application/json\r\n") != std::string::npos &&
         answer.size() > too_large_body.size() && answer.compare(answer.size() - too_large_body.size(), too_large_body.size(), too_large_body) == 0;
}

struct Member {
  std::unique_ptr<LaunchedMur> run;
  json ready;
  int port = 0;
  std::string session, home;
  // `mur send TEXT` to the member's session: CHECKs that it is served ("done: TEXT").
  void serves(const std::string& text) const {
    Ran sent = run_command({MUR_BINARY, "send", session, text}, {{"MURMUR_HOME", home}});
    INFO(sent.err);
    CHECK(sent.exit_code == 0);
    CHECK(sent.out == "done: " + text + "\n");
  }
  // Ends the member (SIGTERM) and CHECKs that it stopped cleanly.
  void stop() {
    run->signal(SIGTERM);
    CHECK(run->wait() == 0);
  }
};

// `mur run --manifest DIR --json` under `ulimit -n fd_limit` (soft and hard, so the member
// cannot raise it), serving until the test ends it.
Member start_member(const std::string& manifest, const TempDir& home, const TempDir& work, int fd_limit,
                    std::map<std::string, std::string> env = {}) {
  env["MURMUR_HOME"] = home.path;
  Member m;
  m.run = std::make_unique<LaunchedMur>(
    std::vector<std::string>{"/bin/sh", "-c", "ulimit -n " + std::to_string(fd_limit) + " && exec \"$0\" \"$@\"", MUR_BINARY, "run",
                             "--manifest", manifest, "--json", "--workdir", work.path},
    env);
  m.ready = json::parse(m.run->read_line(), nullptr, false);
  REQUIRE(m.ready.is_object());
  const std::string url = m.ready.value("url", "");
  m.port = std::stoi(url.substr(url.rfind(':') + 1));
  m.session = m.ready.value("session_id", "");
  m.home = home.path;
  return m;
}

std::size_t open_fds(pid_t pid) {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    (void)e;
    ++n;
  }
  return n;
}

std::string send_message(const std::string& text, int id = 1) {
  return json{{"jsonrpc", "2.0"},
              {"id", id},
              {"method", "SendMessage"},
              {"params", {{"message", {{"role", "ROLE_USER"}, {"messageId", "m" + std::to_string(id)}, {"parts", json::array({{{"text", text}}})}}}}}}
    .dump();
}

std::string post(const std::string& body, const std::string& extra_headers = {}, const std::string& target = "/") {
  return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n" + extra_headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// A body this many bytes past the door's limit (1 MiB).
std::size_t max_body_plus(std::size_t over) { return 1024 * 1024 + over; }

void raise_own_fd_limit() {
  struct rlimit rl {};
  ::getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &rl);
}

// Holds `count` connections to `port` open at once (each sends nothing), then closes them all.
// Returns how many the listener closed at once (past its ceiling).
// `expected`: how many the test expects closed (count − ceiling); waiting stops there.
std::size_t flood(int port, std::size_t count, std::size_t expected, pid_t pid, std::size_t* fds_seen) {
  std::vector<RawConn> held;
  held.reserve(count);
  for (std::size_t i = 0; i < count; ++i) held.emplace_back(port);
  // Every connection past the ceiling is closed by the listener; those within it stay open.
  std::size_t closed = count_closed(held, expected, 30s);
  if (fds_seen) *fds_seen = open_fds(pid);
  closed = count_closed(held, count, 0ms); // none more closed meanwhile
  held.clear();
  return closed;
}

} // namespace

TEST_CASE("door bounds: more connections than the descriptor limit, then none: the door accepts again", "[process][bounds]") {
  raise_own_fd_limit();
  TempDir home, work, caps;
  Member m = start_member(open_capsule(caps, script_inference), home, work, 1024);
  std::size_t fds = 0;
  const std::size_t closed = flood(m.port, 1100, 1100 - 256, m.run->pid(), &fds);
  // The default ceiling is 256 (well below (1024 − 128) / 2): the rest were closed at once.
  CHECK(closed == 1100 - 256);
  CHECK(fds < 1024 - 64); // never near the limit, so accept(2) never failed
  // Accepting resumed by itself: a task is served, and a second flood is treated the same way.
  m.serves("after the flood");
  CHECK(flood(m.port, 600, 600 - 256, m.run->pid(), nullptr) == 600 - 256);
  m.serves("after the second flood");
  m.stop();
}

TEST_CASE("door bounds: MURMUR_MAX_CONNECTIONS sets the ceiling, a bad value is E-RUN-054", "[process][bounds]") {
  raise_own_fd_limit();
  TempDir home, work, caps;
  const std::string manifest = open_capsule(caps, script_inference);
  Member m = start_member(manifest, home, work, 1024, {{"MURMUR_MAX_CONNECTIONS", "10"}});
  CHECK(flood(m.port, 30, 20, m.run->pid(), nullptr) == 20);
  m.stop();

  for (const std::string bad : {"0", "many", "1000000", "-5"}) {
    Ran r = run_command({"/bin/sh", "-c", "ulimit -n 1024 && exec \"$0\" \"$@\"", MUR_BINARY, "run", "--manifest", manifest, "--task", "x",
                         "--workdir", work.path},
                        {{"MURMUR_HOME", home.path}, {"MURMUR_MAX_CONNECTIONS", bad}});
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("error[E-RUN-054]") != std::string::npos);
    CHECK(r.err.find("Fix: ") != std::string::npos);
  }
}

TEST_CASE("door bounds: a body announced over the limit is refused from the headers, slow bodies keep memory bounded", "[process][bounds]") {
  raise_own_fd_limit();
  TempDir home, work, caps;
  Member m = start_member(open_capsule(caps, script_inference), home, work, 4096);
  const std::size_t rss_before = rss_kib(m.run->pid());
  // 120 connections announce 8 MiB each and send nothing more: each is answered 413 from its
  // headers and closed, nothing of the body reserved.
  std::vector<RawConn> big;
  for (int i = 0; i < 120; ++i) {
    big.emplace_back(m.port);
    big.back().send(big_headers);
  }
  int refused = 0;
  for (auto& c : big) {
    const std::string answer = c.read_to_close(10s);
    CHECK(c.closed());
    if (is_header_413(answer)) ++refused;
  }
  CHECK(refused == 120);
  const std::size_t rss_big = rss_kib(m.run->pid());
  INFO("RSS before " << rss_before << " KiB, after 120 bodies of 8 MiB announced " << rss_big << " KiB");
  CHECK(rss_big < rss_before + 64 * 1024); // 960 MiB had it been reserved
  big.clear();
  // 120 connections each send most of a body within the limit, slowly, and stop.
  std::vector<RawConn> slow;
  const std::string part(256 * 1024, 'x');
  for (int i = 0; i < 120; ++i) {
    slow.emplace_back(m.port);
    slow.back().send("POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n");
  }
  for (int round = 0; round < 3; ++round)
    for (auto& c : slow) c.send(part);
  const std::size_t rss_held = rss_kib(m.run->pid());
  INFO("RSS before " << rss_before << " KiB, with 120 slow bodies held " << rss_held << " KiB");
  CHECK(rss_held < rss_before + 300 * 1024); // once 1 GB; now at most the door's limit per connection
  // A slow body is cut at the read deadline (15 s), before any token is needed.
  CHECK(slow.front().closed_within(60s));
  slow.clear();
  m.serves("still here");
  m.stop();
}

TEST_CASE("door bounds: a Content-Length past the limit is answered 413 from the headers, before the token, after every earlier answer", "[process][bounds]") {
  TempDir home, work, caps;
  Member m = start_member(authenticated_capsule(caps), home, work, 1024);
  {
    // No token, no body byte sent: the 413 and its JSON arrive, then the door closes.
    RawConn c(m.port);
    c.send(big_headers);
    const std::string answer = c.read_to_close(10s);
    CHECK(c.closed());
    INFO("answered: " << answer);
    CHECK(is_header_413(answer));
    CHECK(count_of(answer, "HTTP/1.1 ") == 1);
    CHECK(answer.find("WWW-Authenticate") == std::string::npos); // the token was never judged
  }
  {
    // A small request and, in the same write, one over the limit: its answer (401, no token)
    // first, then the 413, then the close.
    RawConn c(m.port);
    c.send(post(send_message("one", 1)) + big_headers);
    const std::string all = c.read_to_close(10s);
    CHECK(c.closed());
    INFO("answered: " << all);
    REQUIRE(all.rfind("HTTP/1.1 401 ", 0) == 0);
    const auto second = all.find("HTTP/1.1 413 ");
    REQUIRE(second != std::string::npos);
    CHECK(count_of(all, "HTTP/1.1 ") == 2);
    CHECK(is_header_413(all.substr(second)));
  }
  {
    // Within the 64 KiB of slack the body is read and the intake answers 413; the connection
    // stays and answers the next request (as before the door answered from the headers).
    RawConn c(m.port);
    c.send(post(std::string(max_body_plus(1000), ' ')) + post(send_message("two", 2)));
    const std::string all = c.read_until("HTTP/1.1 401 ", 30s);
    INFO("answered: " << all.substr(0, 400));
    CHECK(all.rfind("HTTP/1.1 413 ", 0) == 0);
    CHECK(all.find("Connection: close") == std::string::npos);
    CHECK(all.find(too_large_body) != std::string::npos);
    CHECK(all.find("HTTP/1.1 401 ") != std::string::npos);
    CHECK_FALSE(c.closed());
  }
  // The door serves its own caller as before.
  m.serves("after the refusals");
  m.stop();
}

TEST_CASE("door bounds: pipelined SendMessage then a request refused with Connection: close is answered, not aborted", "[process][bounds]") {
  TempDir home, work, caps;
  Member m = start_member(open_capsule(caps, script_inference), home, work, 1024);
  RawConn c(m.port);
  // Two tasks and then, in the same write, a request the intake refuses (404) that asks to close.
  c.send(post(send_message("one", 1)) + post(send_message("two", 2)) + post("{}", "Connection: close\r\n", "/nowhere"));
  const std::string all = c.read_to_close(60s);
  CHECK(count_of(all, "HTTP/1.1 ") >= 1);
  CHECK(all.find("HTTP/1.1 404") != std::string::npos);
  // The member lives on (a Debug build aborted here) and serves the next task.
  m.serves("after the pipeline");
  m.stop();
}

TEST_CASE("door bounds: twenty subscribers that never read a fast model's stream are dropped, memory stays bounded", "[process][bounds]") {
  raise_own_fd_limit();
  FastModel model(8 * 1024 * 1024); // 8 MiB of answer text, as fast as the member takes it
  TempDir home, work, caps;
  Member m = start_member(open_capsule(caps, "inference:\n  transport: http\n  endpoint: " + model.endpoint() + "\n  model: fast\n"), home,
                          work, 4096);
  const pid_t pid = m.run->pid();
  const std::size_t rss_before = rss_kib(pid);
  std::vector<RawConn> subs;
  subs.emplace_back(m.port, 4096); // a small receive buffer: the kernel holds little for it
  subs.back().send(post(json{{"jsonrpc", "2.0"},
                             {"id", 1},
                             {"method", "SendStreamingMessage"},
                             {"params", {{"message", {{"role", "ROLE_USER"}, {"messageId", "m1"}, {"parts", json::array({{{"text", "go"}}})}}}}}}
                          .dump()));
  const std::string head = subs.back().read_until("\n\n", 30s);
  const auto at = head.find("\"id\":\"tsk_");
  REQUIRE(at != std::string::npos);
  const std::string task = head.substr(at + 6, head.find('"', at + 6) - at - 6);
  for (int i = 2; i <= 20; ++i) {
    subs.emplace_back(m.port, 4096);
    subs.back().send(post(json{{"jsonrpc", "2.0"}, {"id", i}, {"method", "SubscribeToTask"}, {"params", {{"id", task}}}}.dump()));
  }
  // While the stream runs: GetTask is answered, and the member's memory is sampled.
  std::size_t peak = rss_before;
  int answered = 0;
  for (int i = 0; i < 40 && !model.finished(); ++i) {
    RawConn get(m.port);
    get.send(post(json{{"jsonrpc", "2.0"}, {"id", 100 + i}, {"method", "GetTask"}, {"params", {{"id", task}}}}.dump(), "Connection: close\r\n"));
    if (get.read_to_close(30s).find("\"result\"") != std::string::npos) ++answered;
    peak = std::max(peak, rss_kib(pid));
    std::this_thread::sleep_for(100ms);
  }
  peak = std::max(peak, rss_kib(pid));
  CHECK(answered > 0);
  // Every subscriber's stream ends: those that fell behind with the event that says so.
  // A subscriber that fell behind is told so (SUBSCRIBER_BEHIND) unless the socket's write
  // deadline (5 s without progress) closed it first — which of the two comes first depends on
  // how fast this machine moves 8 MiB; either way its stream ends and nothing waits for it.
  int dropped = 0, ended = 0;
  for (auto& s : subs) {
    const std::string rest = s.read_to_close(60s);
    if (s.closed()) ++ended;
    if (rest.find("SUBSCRIBER_BEHIND") != std::string::npos) ++dropped;
  }
  peak = std::max(peak, rss_kib(pid));
  std::printf("bench: door subscribers: 20 subscribers that never read, 8 MiB streamed: member RSS %zu KiB before, %zu KiB at peak"
              " (%d told SUBSCRIBER_BEHIND, %d cut by the write deadline)\n",
              rss_before, peak, dropped, ended - dropped);
  CHECK(ended == 20);
  CHECK(peak < rss_before + 400 * 1024); // once 12.6 GB and growing
  m.stop();
}

TEST_CASE("view bounds: mur view past its connection ceiling closes the rest at once and serves again after", "[process][bounds]") {
  raise_own_fd_limit();
  TempDir home, work, caps;
  Member m = start_member(open_capsule(caps, script_inference), home, work, 1024);
  // mur view reads the trace: its first lines are on disk before the readiness line.
  const int port = free_port();
  LaunchedMur view({"/bin/sh", "-c", "ulimit -n 1024 && exec \"$0\" \"$@\"", MUR_BINARY, "view", m.session, "--port", std::to_string(port)},
                   {{"MURMUR_HOME", home.path}}, work.path);
  const bool listening = wait_listening(port, 30s);
  INFO("mur view said: " << view.err());
  REQUIRE(listening);
  std::vector<RawConn> held;
  for (int i = 0; i < 200; ++i) held.emplace_back(port);
  CHECK(count_closed(held, 200 - 64, 30s) == 200 - 64); // the view keeps 64 at most
  held.clear();
  RawConn page(port);
  page.send("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\nConnection: close\r\n\r\n");
  CHECK(page.read_to_close(30s).rfind("HTTP/1.1 200", 0) == 0);
  view.signal(SIGTERM);
  view.wait();
  m.stop();
}
