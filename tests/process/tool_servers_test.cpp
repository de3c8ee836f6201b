// tool_servers_test.cpp — a capsule's own MCP tool servers, run for real: the reference
// filesystem and everything servers (@modelcontextprotocol/server-filesystem and
// server-everything, tests/tools/package.json) driven by script members and an agent program, a
// server that cannot start, what a server is handed (its environment), mur doctor listing them,
// and a server ending with its formation when the launcher is killed.
#include <catch2/catch.hpp>

#include "formation_fixture.hpp"
#include "os/isolation_probe.hpp"
#include "launched_mur.hpp"
#include "run_command.hpp"
#include "tool_capsule.hpp"

#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>
#include <tuple>

using namespace mur::test;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string filesystem_server =
  std::string(MUR_SOURCE_DIR) + "/tests/tools/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js";

// The tools: entry of the reference filesystem server `files`, serving its working directory;
// `more` lines follow its command.
std::string files_server(const std::string& more = "") {
  return "  - name: files\n    command: [" + std::string(MUR_NODE) + ", " + filesystem_server + ", .]\n" + more;
}

// A stdio MCP server in Python with one tool, `env`, whose text is the Python expression `text`
// (`prelude` runs first and may define what it calls); `after_eof` runs once its stdin has ended
// (a server that stays on is one mur must end).
std::string python_server(const std::string& text, const std::string& after_eof = "", const std::string& prelude = "") {
  return "import json, os, signal, sys, time\n" + prelude +
         "for line in sys.stdin:\n"
         "    m = json.loads(line)\n"
         "    if 'id' not in m: continue\n"
         "    if m['method'] == 'initialize': r = {'protocolVersion': '2025-11-25', 'capabilities': {'tools': {}},"
         " 'serverInfo': {'name': 'probe', 'version': '1'}}\n"
         "    elif m['method'] == 'tools/list': r = {'tools': [{'name': 'env', 'inputSchema': {'type': 'object'}}]}\n"
         "    else: r = {'content': [{'type': 'text', 'text': " + text + "}]}\n"
         "    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}), flush=True)\n" + after_eof;
}

// The tools: entry of the reference "everything" server `every` over stdio, offering `allow`.
std::string everything(const std::string& allow) {
  return "  - name: every\n    command: [" + std::string(MUR_NODE) + ", " + everything_server + ", stdio]\n    allow: [" +
         allow + "]\n";
}

} // namespace

TEST_CASE("tools: a member writes a file and reads it back through the reference filesystem server",
          "[process][tools]") {
  ToolCapsule c(tool_manifest(files_server("    allow: [write_file, read_text_file]\n"),
                              "    - use: {tool: files__write_file, arguments: {path: note.txt, content: 'written by a tool'}}\n"
                              "    - use: {tool: files__read_text_file, arguments: {path: note.txt}}\n"
                              "    - reply: 'read back: {{tool_results}}'\n"));
  Ran r = c.run("keep a note");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(answer_of(r).value("answer", "") == "read back: written by a tool");
  std::ifstream note(c.work.path + "/note.txt");
  std::string text((std::istreambuf_iterator<char>(note)), std::istreambuf_iterator<char>());
  CHECK(text == "written by a tool"); // in the member's own directory, where the server runs
  auto ready = c.events("tool_server_ready");
  REQUIRE(ready.size() == 1);
  CHECK(ready[0]["tools"] == json::array({"files__read_text_file", "files__write_file"}));
  auto calls = c.events("tool_call");
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]["tool"] == "files__write_file");
  CHECK(calls[1]["tool"] == "files__read_text_file");
  CHECK(calls[1]["is_error"] == false);
}

TEST_CASE("tools: a server outside its allowed directory answers isError, and the member goes on",
          "[process][tools]") {
  ToolCapsule c(tool_manifest(files_server(), "    - use: {tool: files__read_text_file, arguments: {path: /etc/hostname}}\n"
                                              "    - reply: 'got: {{tool_results}}'\n"));
  Ran r = c.run("peek");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(answer_of(r).value("answer", "").find("Access denied") != std::string::npos);
  auto calls = c.events("tool_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["is_error"] == true);
}

TEST_CASE("tools: a server that cannot start fails the member's start with E-TOOL-001 and a Fix",
          "[process][tools]") {
  ToolCapsule c(tool_manifest("  - {name: broken, command: [/bin/sh, -c, 'echo cannot open the database >&2; exit 3']}\n",
                              "    - use: {tool: broken__anything}\n"));
  Ran r = c.run("go");
  INFO(r.out << r.err);
  CHECK(r.exit_code != 0);
  const json error = answer_of(r).value("error", json::object()); // --json: the failure is one line on stdout
  CHECK(error.value("code", "") == "E-TOOL-001");
  CHECK(error.value("message", "").rfind("the tool server 'broken' did not start: exited with code 3", 0) == 0);
  CHECK(error.value("message", "").find("cannot open the database") != std::string::npos);
  CHECK(!error.value("fix", "").empty());
}

TEST_CASE("tools: a 2025 server that exits at a first message other than initialize is started again and greeted the old way",
          "[process][tools]") {
  ToolCapsule c(tool_manifest("  - name: probe\n    command: [python3, strict.py]\n",
                              "    - use: {tool: probe__env}\n    - reply: '{{tool_results}}'\n"));
  // It reads its first line itself: anything but initialize (the server/discover probe) ends it.
  std::ofstream(c.folder.path + "/strict.py") << python_server(
    "'strict and served'", "",
    "first = json.loads(sys.stdin.readline())\n"
    "if first.get('method') != 'initialize': sys.exit(3)\n"
    "print(json.dumps({'jsonrpc': '2.0', 'id': first['id'], 'result': {'protocolVersion': '2025-11-25', "
    "'capabilities': {'tools': {}}, 'serverInfo': {'name': 'strict', 'version': '1'}}}), flush=True)\n");
  Ran r = c.run("go");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(answer_of(r).value("answer", "") == "strict and served");
  auto reopened = c.events("tool_server_reopened");
  REQUIRE(reopened.size() == 1);
  CHECK(reopened[0]["why"].get<std::string>().rfind("ended at server/discover: exited with code 3", 0) == 0);
  CHECK(c.events("tool_server_ready").at(0)["protocol"] == "2025-11-25");
}

TEST_CASE("tools: a server is handed its declared variables and nothing of the runtime's",
          "[process][tools][isolation]") {
  ToolCapsule c(tool_manifest("  - name: probe\n    command: [python3, probe.py]\n    env: {TOKEN: '${PROBE_TOKEN}'}\n",
                              "    - use: {tool: probe__env}\n    - reply: '{{tool_results}}'\n"));
  std::ofstream(c.folder.path + "/probe.py")
    << python_server("' '.join(sorted(os.environ)) + ' | TOKEN=' + os.environ.get('TOKEN', '')[::-1] + ' | ' + "
                     "' '.join(sys.argv) + ' | ' + os.environ.get('TOKEN', '')");
  c.env["PROBE_TOKEN"] = "probe-secret-4417";
  c.env["MURMUR_FORMATION_PEERS"] = "lead=http://127.0.0.1:1"; // as if a launcher had set it
  Ran r = c.run("look around");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string seen = answer_of(r).value("answer", "");
  CHECK(seen.find("| TOKEN=7144-terces-eborp |") != std::string::npos); // it got it (shown reversed)
  CHECK(seen.find("probe-secret-4417") == std::string::npos);           // as itself, it is written out
  CHECK(seen.find("| [redacted]") != std::string::npos);
  CHECK(seen.find("MURMUR_") == std::string::npos);
  CHECK(seen.find("PROBE_TOKEN") == std::string::npos); // only what the manifest names
  CHECK(seen.find("probe.py") != std::string::npos);
}

TEST_CASE("tools: a tools/call names the call's execute_tool span in _meta.traceparent and no OTEL_ variable reaches the server",
          "[process][tools][otel]") {
  ToolCapsule c(tool_manifest("  - name: probe\n    command: [python3, probe.py]\n",
                              "    - use: {tool: probe__env}\n    - reply: '{{tool_results}}'\n"));
  std::ofstream(c.folder.path + "/probe.py")
    << python_server("'traceparent ' + ('w3c' if re.fullmatch(r'00-[0-9a-f]{32}-[0-9a-f]{16}-01', "
                     "m['params'].get('_meta', {}).get('traceparent', '')) else 'missing') + ' | otel vars: ' + "
                     "(','.join(k for k in os.environ if k.startswith('OTEL_')) or 'none')",
                     "", "import re\n");
  c.env["OTEL_EXPORTER_OTLP_HEADERS"] = "x-api-key=otel-key-for-tools-77a1"; // the member has it; the export is off
  c.env["OTEL_SDK_DISABLED"] = "true";
  Ran r = c.run("look around");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string seen = answer_of(r).value("answer", "");
  CHECK(seen.find("traceparent w3c | otel vars: none") != std::string::npos);
}

TEST_CASE("tools: an agent program finds the capsule's tools on its turn's server and calls them there",
          "[process][tools][harness]") {
  ToolCapsule c("name: scribe\nversion: 1.0.0\ntools:\n" + files_server("    allow: [write_file, read_text_file]\n") +
                "inference:\n  transport: process\n  command: [python3, agent.py]\n");
  // The program speaks MCP to its turn's server with the standard library only: it lists the
  // tools, writes a note through the member's filesystem server and reads it back.
  std::ofstream(c.folder.path + "/agent.py")
    << "import json, sys, urllib.request\n"
       "turn = json.loads(sys.stdin.readline())\n"
       "def rpc(i, method, params):\n"
       "    body = json.dumps({'jsonrpc': '2.0', 'id': i, 'method': method, 'params': params}).encode()\n"
       "    req = urllib.request.Request(turn['tools']['url'], body, {'Content-Type': 'application/json',\n"
       "        'Authorization': 'Bearer ' + turn['tools']['token']})\n"
       "    return json.loads(urllib.request.urlopen(req).read())\n"
       "names = [t['name'] for t in rpc(1, 'tools/list', {})['result']['tools']]\n"
       "rpc(2, 'tools/call', {'name': 'files__write_file', 'arguments': {'path': 'note.txt', 'content': turn['task']}})\n"
       "got = rpc(3, 'tools/call', {'name': 'files__read_text_file', 'arguments': {'path': 'note.txt'}})['result']\n"
       "print(' '.join(names) + ' | ' + got['content'][0]['text'] + ' | error: ' + str(got['isError']))\n";
  Ran r = c.run("a note from a program");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(answer_of(r).value("answer", "") ==
        "files__read_text_file files__write_file | a note from a program | error: False\n");
  auto calls = c.events("tool_call");
  std::vector<std::string> served; // the member made the calls: its trace has them with their server
  for (const auto& e : calls)
    if (e.value("server", "") == "files") served.push_back(e.value("tool", ""));
  CHECK(served == std::vector<std::string>{"files__write_file", "files__read_text_file"});
}

TEST_CASE("tools: mur doctor starts a capsule's servers once and lists their tools, or gives E-TOOL-001",
          "[process][tools][doctor]") {
  ToolCapsule c(tool_manifest(files_server("    allow: [write_file, read_text_file]\n"), "    - reply: hi\n"));
  TempDir tmp; // the servers' scratch directory is made here, and removed
  c.env["TMPDIR"] = tmp.path;
  Ran ok = run_command({MUR_BINARY, "doctor", c.folder.path}, c.env);
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("  tools: files__read_text_file, files__write_file\n") != std::string::npos);
  CHECK(ok.out.find("All checks passed.") != std::string::npos);
  CHECK(fs::is_empty(tmp.path));
  CHECK(!fs::exists(c.folder.path + "/.murmur")); // nothing written where the capsule lives
  Ran j = run_command({MUR_BINARY, "doctor", c.folder.path, "--json"}, c.env);
  CHECK(json::parse(j.out)["tools"]["scribe"] == json::array({"files__read_text_file", "files__write_file"}));

  ToolCapsule missing(tool_manifest(files_server("    allow: [write_file, delete_everything]\n"), "    - reply: hi\n"));
  Ran bad = run_command({MUR_BINARY, "doctor", missing.folder.path}, missing.env);
  INFO(bad.out << bad.err);
  CHECK(bad.exit_code == 1);
  CHECK(bad.out.find("E-TOOL-001: the tool server 'files' did not start: lists no tool 'delete_everything'") !=
        std::string::npos);
  CHECK(bad.out.find("Fix: ") != std::string::npos);
}

TEST_CASE("tools: mur doctor shows no escape sequence a tool server sends, in a tool name or in its error",
          "[process][tools][doctor][isolation]") {
  ToolCapsule c(tool_manifest("  - name: odd\n    command: [python3, odd.py]\n", "    - reply: hi\n"));
  // A server whose one tool is named with an OSC title sequence and a CSI colour: it is left out.
  std::ofstream(c.folder.path + "/odd.py")
    << "import json, sys\n"
       "for line in sys.stdin:\n"
       "    m = json.loads(line)\n"
       "    if 'id' not in m: continue\n"
       "    if m['method'] == 'initialize': r = {'protocolVersion': '2025-11-25', 'capabilities': {'tools': {}},"
       " 'serverInfo': {'name': 'odd', 'version': '1'}}\n"
       "    else: r = {'tools': [{'name': 'x\\x1b]0;owned\\x07\\x1b[31mred', 'inputSchema': {'type': 'object'}}]}\n"
       "    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': r}), flush=True)\n";
  Ran r = run_command({MUR_BINARY, "doctor", c.folder.path}, c.env);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("  tools: none listed\n") != std::string::npos);
  for (const std::string* text : {&r.out, &r.err}) {
    CHECK(text->find('\x1b') == std::string::npos);
    CHECK(text->find('\x07') == std::string::npos);
  }

  // A server that fails with escape sequences on its stderr: E-TOOL-001 quotes them escaped.
  std::ofstream(c.folder.path + "/odd.py") << "import sys\nsys.stderr.write('\\x1b[2J\\x1b]0;owned\\x07boom')\nsys.exit(1)\n";
  Ran bad = run_command({MUR_BINARY, "doctor", c.folder.path}, c.env);
  INFO(bad.out << bad.err);
  CHECK(bad.exit_code == 1);
  CHECK(bad.out.find("E-TOOL-001") != std::string::npos);
  CHECK(bad.out.find("boom") != std::string::npos);
  for (const std::string* text : {&bad.out, &bad.err}) {
    CHECK(text->find('\x1b') == std::string::npos);
    CHECK(text->find('\x07') == std::string::npos);
  }
}

TEST_CASE("kill -9 of the launcher while a member's tool server runs: the server is gone too", "[process][tools]") {
  FormationFixture f;
  TempDir capsule;
  // The server is handed MUR_TEST_TOOL_MARK from the variable the launcher (and so every
  // member) has under another name: only the server's environment holds the mark itself.
  const std::string value = std::to_string(::getpid()) + "-" +
                            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  f.env["MUR_TEST_TOOL_SOURCE"] = value;
  // A server that outlives its stdin and ignores SIGTERM: only a kill by mur ends it.
  std::ofstream(capsule.path + "/stubborn.py")
    << python_server("'here'", "signal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)\n");
  std::ofstream(capsule.path + "/murmur.yaml")
    << "name: t-tooled\nversion: 1.0.0\ntools:\n"
    << "  - name: stubborn\n    command: [python3, stubborn.py]\n    env: {MUR_TEST_TOOL_MARK: '${MUR_TEST_TOOL_SOURCE}'}\n"
    << "inference:\n  turns:\n    - reply: ok\nlifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}\n";
  f.install(capsule.path);
  std::ofstream(f.project.path + "/roster.yaml", std::ios::trunc)
    << "roster_version: 1\nmembers:\n  - {name: keeper, capsule: t-tooled, version: 1.0.0, entry: true}\n";
  LaunchedMur run({MUR_BINARY, "run", "--roster", f.project.path, "--json"}, f.env); // serves until ended
  // The server itself: `python3` may be a shim (pyenv) whose short-lived shells carry the mark
  // on their way to it, so only a python process counts, once it is the one left.
  std::vector<pid_t> servers;
  for (const auto until = std::chrono::steady_clock::now() + generous;;) {
    servers.clear();
    for (pid_t p : processes_with_env("MUR_TEST_TOOL_MARK=" + value))
      if (read_bytes("/proc/" + std::to_string(p) + "/comm").rfind("python", 0) == 0) servers.push_back(p);
    if (servers.size() == 1 || std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50)); // a process appearing is no event to wait on
  }
  REQUIRE(servers.size() == 1);
  run.signal(SIGKILL);
  run.wait();
  CHECK(gone_within(servers[0], generous)); // the member saw its lifeline close and ended its server
}

TEST_CASE("tools: the reference everything server's text, sums and images reach the member as their results",
          "[process][tools]") {
  // One call a run: a script turn reads the results of the turn before it.
  const auto [tool, arguments, answer] = GENERATE(table<std::string, std::string, std::string>({
    {"every__echo", "{message: hello there}", "Echo: hello there"},
    {"every__get-sum", "{a: 2, b: 3}", "The sum of 2 and 3 is 5."},
    // an image part is told by its type and size, never handed on as data
    {"every__get-tiny-image", "{}", "Here's the image you requested:\n[image image/png, 4035 bytes]\nThe image above is the MCP logo."},
  }));
  ToolCapsule c(tool_manifest(everything("echo, get-sum, get-tiny-image"),
                              "    - use: {tool: " + tool + ", arguments: " + arguments + "}\n    - reply: '{{tool_results}}'\n"));
  Ran r = c.run("go");
  INFO(tool << "\n" << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(answer_of(r).value("answer", "") == answer);
  auto ready = c.events("tool_server_ready");
  REQUIRE(ready.size() == 1);
  CHECK(ready[0]["tools"] == json::array({"every__echo", "every__get-sum", "every__get-tiny-image"}));
}

TEST_CASE("tools: a tool server in a formation is handed no formation variable, and a member's virtual address is no address for it",
          "[process][tools][isolation]") {
  FormationFixture f; // examples/review: its capsules installed
  TempDir capsule;
  std::ofstream(capsule.path + "/reach.py")
    << python_server("reach('http://helper.formation.invalid/') + ' | ' + ' '.join(k for k in os.environ if 'MURMUR' in k)",
                     "",
                     "import urllib.error, urllib.request\n"
                     "def reach(url):\n"
                     "    try:\n"
                     "        return 'reached: ' + urllib.request.urlopen(url, timeout=5).read().decode()\n"
                     "    except urllib.error.HTTPError as e:\n"
                     "        return 'refused: %d %s' % (e.code, json.loads(e.read())['error']['code'])\n"
                     "    except Exception as e:\n"
                     "        return 'unreachable: ' + type(e).__name__\n");
  std::ofstream(capsule.path + "/murmur.yaml")
    << "name: t-reach\nversion: 1.0.0\ntools:\n  - name: net\n    command: [python3, reach.py]\n"
    << "inference:\n  turns:\n    - call: {member: helper, task: 'be there'}\n    - use: {tool: net__env}\n"
    << "    - reply: '{{tool_results}}'\n"
    << "capabilities: {network: {allow: [localhost]}}\nnetwork: {authentication: {scheme: bearer}}\n";
  f.install(capsule.path);
  std::ofstream(f.project.path + "/roster.yaml", std::ios::trunc)
    << "roster_version: 1\nmembers:\n  - {name: lead, capsule: t-reach, version: 1.0.0, entry: true}\n"
    << "  - {name: helper, capsule: review-reviewer, version: 1.0.0}\nreachability:\n  - {from: lead, to: [helper]}\n";
  Ran r = run_command({MUR_BINARY, "run", "--roster", f.project.path, "--task", "go"}, f.env);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // The lead itself reached the helper (its call), while its server is handed no peer list or
  // other formation variable; the virtual name is refused by its member's egress proxy, never
  // resolved, although its network.allow grants localhost (where there is no network namespace
  // to hold it in, it is never resolved all the same: .invalid).
  if (mur::probe_isolation().network) CHECK(r.out.rfind("refused: 403 E-NET-001 | ", 0) == 0);
  else CHECK(r.out.rfind("unreachable: URLError | ", 0) == 0);
  CHECK(r.out.find("MURMUR") == std::string::npos);
}
