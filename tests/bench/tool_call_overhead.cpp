// tool_call_overhead — the time mur adds per call of a capsule's own tool: N tools/call of the
// reference everything server's `echo` (stdio), once straight over its pipes (a blocking client
// of this bench's own: write a line, read a line) and once through the member's own path (the
// tool hub, actors/tool_hub.hpp, over the stdio transport, member/stdio_tool_server.hpp, asked
// with a ToolRequest as a task asks it). Prints count, median, p90 and max of each, and the
// difference of the medians and of the p90s: what the hub, the transport and their messages add.
// Both runs use one server process each, warmed up first. Numbers, not pass/fail.
//
// Usage: bench_tool_call_overhead <path to server-everything's dist/index.js> [calls=1000]
// (tests/bench/run_tool_call_overhead.sh passes the pinned one from tests/tools).
#include "actors/tool_hub.hpp"
#include "member/program_env.hpp"
#include "member/stdio_tool_server.hpp"
#include "messages/wire/register_messages.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

using namespace mur;
using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

namespace {

std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t at = 0, colon; at <= dirs.size(); at = colon + 1) {
    colon = dirs.find(':', at);
    if (colon == std::string::npos) colon = dirs.size();
    const std::string candidate = dirs.substr(at, colon - at) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  throw std::runtime_error(name + " is not on PATH");
}

// A blocking stdio MCP client: the floor any client pays (the pipes and the server itself).
struct DirectClient {
  pid_t pid = -1;
  int to = -1, from = -1;
  std::string buffered;
  int next_id = 1;

  DirectClient(const std::string& node, const std::string& server) {
    int in[2], out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    std::vector<std::string> args{node, server, "stdio"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid, node.c_str(), &fa, nullptr, argv.data(), environ) != 0) throw std::runtime_error("spawn");
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    to = in[1];
    from = out[0];
    rpc("initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()},
                       {"clientInfo", {{"name", "bench"}, {"version", "1"}}}});
    write_line(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump());
  }
  ~DirectClient() {
    ::close(to);
    ::close(from);
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  void write_line(const std::string& line) {
    const std::string l = line + "\n";
    if (::write(to, l.data(), l.size()) != static_cast<ssize_t>(l.size())) throw std::runtime_error("write");
  }
  std::string read_line() {
    for (;;) {
      const auto nl = buffered.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffered.substr(0, nl);
        buffered.erase(0, nl + 1);
        return line;
      }
      char chunk[65536];
      const ssize_t n = ::read(from, chunk, sizeof chunk);
      if (n <= 0) throw std::runtime_error("the server ended");
      buffered.append(chunk, static_cast<std::size_t>(n));
    }
  }
  json rpc(const std::string& method, const json& params) {
    const int id = next_id++;
    write_line(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump());
    for (;;) { // notifications (logging) are passed over
      json m = json::parse(read_line());
      if (m.contains("id") && m["id"] == id) return m;
    }
  }
};

struct Stats {
  std::vector<double> ms;
  double at(double q) const {
    auto v = ms;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
  }
  void print(const char* what) const {
    std::printf("%-34s calls %zu  median %.3f ms  p90 %.3f ms  max %.3f ms\n", what, ms.size(), at(0.5), at(0.9),
                *std::max_element(ms.begin(), ms.end()));
  }
};

template <class Call>
Stats time_calls(int calls, int warmup, Call&& call) {
  for (int i = 0; i < warmup; ++i) call(i);
  Stats s;
  for (int i = 0; i < calls; ++i) {
    const auto t0 = clock_type::now();
    call(i);
    s.ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
  }
  return s;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <server-everything dist/index.js> [calls=1000]\n", argv[0]);
    return 2;
  }
  char resolved[PATH_MAX];
  if (!::realpath(argv[1], resolved)) {
    std::fprintf(stderr, "no such file: %s\n", argv[1]);
    return 2;
  }
  const std::string server = resolved; // the hub's run has a directory of its own
  const int calls = argc > 2 ? std::atoi(argv[2]) : 1000;
  const int warmup = std::max(20, calls / 20);
  const std::string node = on_path("node");
  auto args = [](int i) { return json{{"message", "call " + std::to_string(i)}}; };

  Stats direct;
  {
    DirectClient c(node, server);
    direct = time_calls(calls, warmup, [&](int i) {
      json r = c.rpc("tools/call", {{"name", "echo"}, {"arguments", args(i)}});
      if (!r.contains("result")) throw std::runtime_error("echo failed: " + r.dump());
    });
  }

  Stats through;
  {
    caf::actor_system_config cfg;
    register_message_types(cfg);
    caf::actor_system sys{cfg};
    StdioToolServerSetup s;
    s.start.program = node;
    s.start.argv = {node, server, "stdio"};
    s.start.env = program_env({}, "");
    s.start.cwd = "/";
    ToolHubSetup hub;
    hub.servers.push_back(ToolServerSetup{"every", std::vector<std::string>{"echo"}, std::chrono::seconds(60),
                                          spawn_stdio_tool_server(sys, std::move(s))});
    tool_port tools = spawn_tool_hub(sys, std::move(hub));
    caf::scoped_actor self{sys};
    self->request(tools, std::chrono::seconds(60), tools_atom_v)
      .receive([](const ToolsListed& l) {
                 if (!l.code.empty()) throw std::runtime_error(l.code + ": " + l.failure);
               },
               [&](const caf::error& e) { throw std::runtime_error(sys.render(e)); });
    through = time_calls(calls, warmup, [&](int i) {
      ToolRequest req;
      req.call.name = "every__echo";
      req.call.arguments = args(i).dump();
      self->request(tools, std::chrono::seconds(60), req)
        .receive([](const ToolReply& r) {
                   if (r.is_error) throw std::runtime_error("echo failed: " + r.text);
                 },
                 [&](const caf::error& e) { throw std::runtime_error(sys.render(e)); });
    });
    self->send_exit(tools, caf::exit_reason::user_shutdown);
  }

  std::printf("tools/call of server-everything's echo over stdio, %d calls each after %d warm-up calls\n", calls,
              warmup);
  direct.print("straight over the pipes");
  through.print("through the tool hub (mur)");
  std::printf("bench: mur adds per tool call: median %.3f ms, p90 %.3f ms\n", through.at(0.5) - direct.at(0.5),
              through.at(0.9) - direct.at(0.9));
  return 0;
}
