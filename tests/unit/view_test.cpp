// mur view's parts without a browser: the state made from a session's trace file as it grows
// (a running call in flight, then ended and in the tree; a half-written line waits), the server
// over a real loopback socket (the page with its CSP, the SSE stream's first state and the next
// one published, a foreign Host or Origin refused, the last state's delivery; POST /answer
// refused without the page's key or a text, else handed on), a waiting question on its task,
// and a refused end-without-answer in the tree and the watch lines.
#include "temp_dir.hpp"
#include "trace_event_lines.hpp"
#include "launcher/traces/trace_follow.hpp"
#include "launcher/traces/trace_tree.hpp"
#include "launcher/view/view_server.hpp"
#include "launcher/view/view_state.hpp"
#include "member/trace_blob_file.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

using json = nlohmann::json;
using mur::test::ev;
namespace fs = std::filesystem;

namespace {


// A session's directory whose trace.jsonl grows as the test writes it.
struct SessionDir : mur::test::TempDir {
  SessionDir() : mur::test::TempDir("view-unit") {}
  void append(const std::string& bytes) { std::ofstream(dir / "trace.jsonl", std::ios::app) << bytes; }
  void line(const json& j) { append(j.dump() + "\n"); }
};

// A plain HTTP/1.1 client on one socket: sends a request, reads what comes within a bound.
struct Client {
  int fd = -1;
  explicit Client(std::uint16_t port) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  }
  ~Client() { ::close(fd); }
  void send(const std::string& req) { REQUIRE(::write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())); }
  // Reads until `got` holds `needle` (true) or the bound passes or the peer closes (false).
  bool read_until(const std::string& needle, std::chrono::seconds bound = std::chrono::seconds(20)) {
    const auto until = std::chrono::steady_clock::now() + bound;
    while (got.find(needle) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      char buf[4096];
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) return got.find(needle) != std::string::npos;
      got.append(buf, static_cast<std::size_t>(n));
    }
    return true;
  }
  std::string got;
};

std::string get(std::uint16_t port, const std::string& path, const std::string& host, const std::string& extra = "") {
  Client c(port);
  c.send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + extra + "Connection: close\r\n\r\n");
  c.read_until("\r\n\r\n");
  c.read_until("</html>", std::chrono::seconds(2)); // the body, when it is the page
  return c.got;
}

} // namespace

TEST_CASE("view state: a running call is in flight, then ended in the tree, and a half-written line waits", "[view]") {
  SessionDir s;
  auto v = mur::ViewSource::session("ses_x", s.dir.string());
  CHECK_FALSE(v.poll()); // no file yet
  s.line(ev("session_start", 1000, {{"capsule_name", "lead-cap"}, {"capsule_version", "1.0.0"}}));
  s.line(ev("task_start", 1100, {{"task_id", "t1"}, {"origin", "user"}, {"text", "do it"}}));
  s.line(ev("member_call_start", 1200, {{"task_id", "t1"}, {"call_id", "mcl_1"}, {"member", "coder"}, {"member_task_id", "t9"}}));
  s.append(ev("member_call", 1700, {{"task_id", "t1"}, {"call_id", "mcl_1"}}).dump().substr(0, 20)); // not whole
  REQUIRE(v.poll());
  json st = v.state(true, 1500);
  CHECK(st["session_id"] == "ses_x");
  CHECK(st["running"] == true);
  REQUIRE(st["members"].size() == 1);
  CHECK(st["members"][0]["capsule"] == "lead-cap");
  CHECK(st["members"][0]["state"] == "running");
  REQUIRE(st["members"][0]["tasks"].size() == 1);
  CHECK(st["members"][0]["tasks"][0]["status"] == "running");
  CHECK(st["members"][0]["tasks"][0]["elapsed_ms"] == 400);
  REQUIRE(st["in_flight"].size() == 1);
  CHECK(st["in_flight"][0]["callee"] == "coder");
  CHECK(st["in_flight"][0]["status"] == "running");
  CHECK(st["in_flight"][0]["elapsed_ms"] == 300);
  CHECK(st["tasks"][0]["calls"][0]["status"] == "running");
  CHECK_FALSE(v.poll()); // nothing whole was added

  // Another session: the call ends, then the task and the session.
  SessionDir s2;
  auto w = mur::ViewSource::session("ses_y", s2.dir.string());
  s2.line(ev("session_start", 1000, {{"capsule_name", "lead-cap"}, {"capsule_version", "1.0.0"}}));
  s2.line(ev("task_start", 1100, {{"task_id", "t1"}, {"origin", "user"}, {"text", "do it"}}));
  s2.line(ev("member_call_start", 1200, {{"task_id", "t1"}, {"call_id", "mcl_1"}, {"member", "coder"}}));
  REQUIRE(w.poll());
  s2.line(ev("member_call", 1700, {{"task_id", "t1"}, {"call_id", "mcl_1"}, {"member", "coder"}, {"status", "completed"},
                                   {"duration_ms", 500}, {"output", "done"}}));
  s2.line(ev("task_end", 1800, {{"task_id", "t1"}, {"exit_status", "ok"}, {"answer", "all done"}}));
  s2.line(ev("session_end", 1900, {{"exit_status", "ok"}}));
  REQUIRE(w.poll());
  st = w.state(false, 5000);
  CHECK(st["running"] == false);
  CHECK(st["in_flight"].empty());
  CHECK(st["members"][0]["state"] == "ended ok");
  CHECK(st["members"][0]["tasks"][0]["duration_ms"] == 700);
  CHECK(st["tasks"][0]["calls"][0]["status"] == "completed");
  CHECK(st["tasks"][0]["calls"][0]["duration_ms"] == 500);
}

TEST_CASE("view server: the page with its CSP, the SSE stream, a foreign Host or Origin refused", "[view]") {
  mur::ViewServer server;
  const std::string url = server.url();
  const auto port = static_cast<std::uint16_t>(std::stoi(url.substr(std::string("http://127.0.0.1:").size())));
  const std::string host = "127.0.0.1:" + std::to_string(port);

  const std::string page = get(port, "/", host);
  CHECK(page.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(page.find("Content-Security-Policy: default-src 'self'") != std::string::npos);
  CHECK(page.find("<script src=\"/view.js\"") != std::string::npos);
  CHECK(page.find("http://", page.find("\r\n\r\n")) == std::string::npos); // the page names no other site
  CHECK(get(port, "/view.js", "localhost:" + std::to_string(port)).rfind("HTTP/1.1 200", 0) == 0);
  CHECK(get(port, "/", "rebound.example:" + std::to_string(port)).rfind("HTTP/1.1 403", 0) == 0);
  CHECK(get(port, "/", "127.0.0.1:1").rfind("HTTP/1.1 403", 0) == 0);
  CHECK(get(port, "/events", host, "Origin: http://rebound.example\r\n").rfind("HTTP/1.1 403", 0) == 0);
  CHECK(get(port, "/nothing", host).rfind("HTTP/1.1 404", 0) == 0);

  server.publish(json{{"running", true}, {"n", 1}});
  Client sse(port);
  sse.send("GET /events HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
  REQUIRE(sse.read_until("data: {\"n\":1,\"running\":true}\n\n")); // the current state, on connecting
  CHECK(sse.got.find("text/event-stream") != std::string::npos);
  CHECK_FALSE(server.wait_delivered(std::chrono::milliseconds(1))); // no last state yet
  server.publish(json{{"running", false}, {"n", 2}});
  REQUIRE(sse.read_until("data: {\"n\":2,\"running\":false}\n\n"));
  CHECK(server.wait_delivered(std::chrono::seconds(20)));
  server.stop();
  server.stop(); // idempotent
}

TEST_CASE("a refused end-without-answer: under its task in the tree and the JSON, and a watch line", "[view][trace]") {
  mur::SessionEvents coder{"coder", "ses_c",
                           {ev("session_start", 1000), ev("task_start", 1100, {{"task_id", "t1"}, {"text", "drop it"}}),
                            ev("end_without_answer_refused", 1200, {{"task_id", "t1"}, {"reason", "I will not"},
                                                                    {"refusal", "tool error: not sent by a member"}}),
                            ev("task_end", 1300, {{"task_id", "t1"}, {"exit_status", "ok"}, {"answer", "no"}})}};
  const mur::TraceTree tree = mur::build_trace_tree({coder});
  REQUIRE(tree.roots.size() == 1);
  REQUIRE(tree.roots[0].calls.size() == 1);
  const auto& c = tree.roots[0].calls[0];
  CHECK(c.tool == "end-without-answer");
  CHECK(c.status == "refused");
  CHECK(c.reason == "tool error: not sent by a member");
  CHECK(c.text == "I will not");
  const std::string text = mur::render_trace_tree(tree, 0);
  CHECK(text.find("  -  coder  end-without-answer  refused  \"tool error: not sent by a member\"  (reason given: \"I will not\")") !=
        std::string::npos);
  const json j = mur::trace_tree_json(tree);
  CHECK(j[0]["calls"][0]["tool"] == "end-without-answer");
  std::map<std::string, std::string> origins;
  const std::string line = mur::watch_line(coder.events[2], "coder", origins);
  CHECK(line.find("coder  end-without-answer  refused  \"tool error: not sent by a member\"") != std::string::npos);
}

TEST_CASE("view state: a delegated child under its parent's session is a member capsule:NAME, its delegation in flight", "[view][delegation]") {
  SessionDir s;
  auto v = mur::ViewSource::session("ses_p", s.dir.string());
  s.line(ev("session_start", 1000, {{"capsule_name", "planner"}, {"capsule_version", "1.0.0"}}));
  s.line(ev("task_start", 1100, {{"task_id", "t1"}, {"origin", "user"}, {"text", "plan"}}));
  s.line(ev("delegation_start", 1200, {{"task_id", "t1"}, {"call_id", "dlg_1"}, {"capsule", "summarizer"},
                                       {"child_session", "ses_00000000000000000000000000000001"}, {"child_task_id", "t7"}}));
  REQUIRE(v.poll());
  CHECK(v.state(true, 1300)["members"].size() == 1); // the child has written nothing yet
  const fs::path child = s.dir / "children" / "dlg_1" / ".murmur" / "ses_00000000000000000000000000000001";
  fs::create_directories(child);
  std::ofstream(child / "trace.jsonl")
    << ev("session_start", 1150, {{"capsule_name", "summarizer"}, {"capsule_version", "1.0.0"}, {"spawned_by", "ses_p"}}).dump() << "\n"
    << ev("task_start", 1210, {{"task_id", "t7"}, {"origin", "user"}, {"text", "sum"}}).dump() << "\n";
  REQUIRE(v.poll());
  json st = v.state(true, 1500);
  REQUIRE(st["members"].size() == 2);
  CHECK(st["members"][1]["name"] == "capsule:summarizer");
  CHECK(st["members"][1]["tasks"][0]["status"] == "running");
  REQUIRE(st["in_flight"].size() == 1);
  CHECK(st["in_flight"][0]["callee"] == "capsule:summarizer");
  CHECK(st["tasks"][0]["calls"][0]["task"]["task_id"] == "t7"); // the child's task nested under its delegation
  CHECK(st["in_flight"][0]["status"] == "running");
  CHECK(st["members"][0]["name"] == "planner"); // a plain session is named by its capsule
  CHECK(st["in_flight"][0]["caller"] == "planner");
  // The child answered; its delegation waits for the round's other answers: `answered`.
  std::ofstream(child / "trace.jsonl", std::ios::app)
    << ev("task_end", 1400, {{"task_id", "t7"}, {"exit_status", "ok"}, {"state", "completed"}, {"answer", "short"}}).dump() << "\n";
  REQUIRE(v.poll());
  st = v.state(true, 1500);
  REQUIRE(st["in_flight"].size() == 1);
  CHECK(st["in_flight"][0]["status"] == "answered");
}

namespace {

std::string post_answer(std::uint16_t port, const std::string& headers, const std::string& body) {
  Client c(port);
  c.send("POST /answer HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n" + headers +
         "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + body);
  c.read_until("\r\n\r\n");
  c.read_until("}", std::chrono::seconds(5)); // the JSON body
  return c.got;
}

} // namespace

TEST_CASE("view server: POST /answer needs the page's key, its own Host and Origin, and a text, then the AnswerFn decides", "[view]") {
  std::mutex mu; // the AnswerFn runs on a thread of its own
  std::vector<std::string> sent;
  mur::ViewServer server(0, [&](const std::string& task, const std::string& text, const std::string& question) {
    std::lock_guard<std::mutex> lock(mu);
    sent.push_back(task + "|" + text + "|" + question);
    return task == "tsk_gone" ? mur::AnswerOutcome{404, "no running session holds task tsk_gone"} : mur::AnswerOutcome{};
  });
  const std::string url = server.url();
  const auto port = static_cast<std::uint16_t>(std::stoi(url.substr(std::string("http://127.0.0.1:").size())));
  // The key is only in the URL's fragment, which the operator opens; the page itself has none.
  const std::string mark = "#key=";
  const std::string page_url = server.page_url();
  REQUIRE(page_url.find(mark) == url.size());
  const std::string key = page_url.substr(url.size() + mark.size());
  CHECK(key.size() == 64);
  CHECK(get(port, "/", "127.0.0.1:" + std::to_string(port)).find(key) == std::string::npos);
  const std::string with_key = "X-Mur-View-Key: " + key + "\r\n";
  const std::string body = R"({"task_id":"tsk_1","text":"blue","question":"b asks: which colour?"})";

  CHECK(post_answer(port, "", body).rfind("HTTP/1.1 403", 0) == 0);                                  // no key
  CHECK(post_answer(port, "X-Mur-View-Key: " + std::string(64, '0') + "\r\n", body).rfind("HTTP/1.1 403", 0) == 0);
  CHECK(post_answer(port, with_key + "Origin: http://evil.example\r\n", body).rfind("HTTP/1.1 403", 0) == 0);
  CHECK(post_answer(port, with_key, "not json").rfind("HTTP/1.1 400", 0) == 0);
  CHECK(post_answer(port, with_key, R"({"task_id":"tsk_1","text":""})").rfind("HTTP/1.1 400", 0) == 0);
  CHECK(post_answer(port, with_key, R"({"task_id":"tsk_1","text":7})").rfind("HTTP/1.1 400", 0) == 0);
  CHECK(post_answer(port, with_key, R"({"text":"blue"})").rfind("HTTP/1.1 400", 0) == 0);
  CHECK(post_answer(port, with_key, std::string(70 * 1024, ' ')).rfind("HTTP/1.1 413", 0) == 0);
  std::lock_guard<std::mutex> lock(mu);
  CHECK(sent.empty()); // nothing refused reached the AnswerFn

  mu.unlock();
  const std::string ok = post_answer(port, with_key + "Origin: http://127.0.0.1:" + std::to_string(port) + "\r\n", body);
  CHECK(ok.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(ok.find(R"({"ok":true})") != std::string::npos);
  const std::string gone = post_answer(port, with_key, R"({"task_id":"tsk_gone","text":"blue"})");
  CHECK(gone.rfind("HTTP/1.1 404", 0) == 0);
  CHECK(gone.find("no running session holds task tsk_gone") != std::string::npos);
  mu.lock();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0] == "tsk_1|blue|b asks: which colour?");
  CHECK(sent[1] == "tsk_gone|blue|");

  mur::ViewServer mute; // no AnswerFn: the page's key still guards, then nothing takes answers
  CHECK(mute.page_url() == mute.url()); // and no key is handed out
  const auto mute_port = static_cast<std::uint16_t>(std::stoi(mute.url().substr(std::string("http://127.0.0.1:").size())));
  CHECK(post_answer(mute_port, "", body).rfind("HTTP/1.1 403", 0) == 0);
}

TEST_CASE("view state: a task shows the question it waits on until it is answered", "[view]") {
  SessionDir s;
  auto v = mur::ViewSource::session("ses_q", s.dir.string());
  s.line(ev("session_start", 1000, {{"capsule_name", "lead-cap"}, {"capsule_version", "1.0.0"}}));
  s.line(ev("task_start", 1100, {{"task_id", "t1"}, {"origin", "user"}, {"text", "do it"}}));
  s.line(ev("input_required", 1200, {{"task_id", "t1"}, {"question_id", "mcl_1"}, {"question", "b asks: which colour?"}}));
  REQUIRE(v.poll());
  CHECK(v.state(true, 1300)["members"][0]["tasks"][0]["question"] == "b asks: which colour?");
  s.line(ev("input_answered", 1400, {{"task_id", "t1"}, {"question_id", "mcl_1"}, {"answered_by", "operator"}}));
  REQUIRE(v.poll());
  CHECK_FALSE(v.state(true, 1500)["members"][0]["tasks"][0].contains("question"));
  s.line(ev("input_required", 1600, {{"task_id", "t1"}, {"question_id", "ask-2"}, {"question", "lead asks: sure?"}}));
  s.line(ev("task_end", 1700, {{"task_id", "t1"}, {"exit_status", "ok"}, {"answer", "done"}}));
  REQUIRE(v.poll());
  CHECK_FALSE(v.state(true, 1800)["members"][0]["tasks"][0].contains("question"));
}

TEST_CASE("view server: a page that connects after a state was published gets it with the clock of sending",
          "[view]") {
  mur::ViewServer server;
  const std::string url = server.url();
  const auto port = static_cast<std::uint16_t>(std::stoi(url.substr(std::string("http://127.0.0.1:").size())));
  const std::string host = "127.0.0.1:" + std::to_string(port);
  const auto now = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  };
  const std::int64_t before = now();
  server.publish(json{{"running", true}, {"now_ms", 1000}}); // published long ago, as far as a late page is concerned
  Client sse(port);
  sse.send("GET /events HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
  REQUIRE(sse.read_until("}\n\n"));
  const auto at = sse.got.find("data: ");
  REQUIRE(at != std::string::npos);
  const json got = json::parse(sse.got.substr(at + 6, sse.got.find("\n\n", at) - at - 6));
  CHECK(got["now_ms"].get<std::int64_t>() >= before); // its running times count from now, not from 1000
  CHECK(got["running"] == true);
  server.stop();
}

TEST_CASE("view state: each member's usage and the formation's, priced, null for n/a and for a member not started",
          "[view][usage]") {
  SessionDir s;
  auto v = mur::ViewSource::session("ses_u", s.dir.string());
  s.line(ev("session_start", 1000, {{"capsule_name", "lead-cap"}, {"capsule_version", "1.0.0"},
                                    {"price", {{"input_per_mtok", 2.5}, {"output_per_mtok", 10}}}}));
  s.line(ev("task_start", 1100, {{"task_id", "t1"}, {"origin", "user"}, {"text", "do it"}}));
  REQUIRE(v.poll());
  json st = v.state(true, 1200);
  // Started, nothing ended yet: zero, and exact.
  CHECK(st["members"][0]["usage"]["model_requests"] == 0);
  CHECK(st["members"][0]["usage"]["input_tokens"] == 0);
  s.line(ev("task_end", 1800, {{"task_id", "t1"}, {"exit_status", "ok"}, {"answer", "done"},
                               {"usage", {{"tokens", 1200}, {"model_requests", 1}, {"tool_calls", 2}, {"calls", 0},
                                          {"input_tokens", 1000}, {"output_tokens", 200}, {"reasoning_tokens", 50}}}}));
  s.line(ev("task_start", 1900, {{"task_id", "t2"}, {"origin", "user"}, {"text", "again"}}));
  s.line(ev("task_end", 2000, {{"task_id", "t2"}, {"exit_status", "ok"}, {"answer", "done"},
                               {"usage", {{"tokens", 0}, {"model_requests", 1}, {"tool_calls", 0}, {"calls", 0},
                                          {"input_tokens", nullptr}, {"output_tokens", nullptr},
                                          {"reasoning_tokens", nullptr}}}}));
  REQUIRE(v.poll());
  st = v.state(false, 3000);
  const json want{{"tokens", 1200}, {"input_tokens", 1000}, {"output_tokens", 200}, {"reasoning_tokens", 50},
                  {"model_requests", 2}, {"tool_calls", 2}, {"calls", 0}, {"cost", 0.0045}};
  CHECK(st["members"][0]["usage"] == want);
  CHECK(st["usage"] == want);
  CHECK(st["tasks"][0]["usage"]["cost"] == 0.0045);
  CHECK(st["tasks"][1]["usage"]["input_tokens"].is_null()); // this request's server reported nothing
  CHECK(st["tasks"][1]["usage"]["cost"].is_null());

  // A formation whose roster names a member that has not started: its usage is null.
  mur::test::TempDir project("view-usage");
  auto f = mur::ViewSource::formation("frm_00000000000000000000000000000000", project.dir.string(), {"lead", "coder"});
  f.poll();
  st = f.state(true, 1000);
  REQUIRE(st["members"].size() == 2);
  CHECK(st["members"][1]["usage"].is_null());
  CHECK(st["usage"]["model_requests"] == 0);
}

TEST_CASE("view server: GET /transcript needs the page's key and a task id, reads only the blob its trace names", "[view][transcript]") {
  SessionDir s;
  const std::string done = "tsk_" + std::string(31, '0') + "a", meta = "tsk_" + std::string(31, '0') + "b",
                    running = "tsk_" + std::string(31, '0') + "c", unknown = "tsk_" + std::string(31, '0') + "d";
  const std::string blob = R"({"task_id":")" + done + R"(","messages":[{"role":"assistant","content":"<b>x</b>"}]})";
  const std::string sha = mur::write_trace_blob(s.dir.string(), blob);
  REQUIRE(sha.size() == 64);
  s.line(ev("session_start", 1000, {{"capsule_name", "lead-cap"}, {"capsule_version", "1.0.0"}}));
  s.line(ev("task_start", 1100, {{"task_id", done}, {"origin", "user"}, {"text", "do it"}}));
  s.line(ev("task_end", 1200, {{"task_id", done}, {"exit_status", "ok"}, {"transcript_sha256", sha}}));
  s.line(ev("task_start", 1300, {{"task_id", meta}, {"origin", "user"}, {"text", "again"}}));
  s.line(ev("task_end", 1400, {{"task_id", meta}, {"exit_status", "ok"}}));
  s.line(ev("task_start", 1500, {{"task_id", running}, {"origin", "user"}, {"text", "still"}}));
  auto v = mur::ViewSource::session("ses_x", s.dir.string());
  REQUIRE(v.poll());
  mur::ViewServer server(0, [](const std::string&, const std::string&, const std::string&) { return mur::AnswerOutcome{}; });
  server.set_transcripts(v.transcripts());
  const std::string url = server.url();
  const auto port = static_cast<std::uint16_t>(std::stoi(url.substr(std::string("http://127.0.0.1:").size())));
  const std::string host = "127.0.0.1:" + std::to_string(port);
  const std::string key = "X-Mur-View-Key: " + server.page_url().substr(url.size() + 5) + "\r\n";
  const auto status_of = [&](const std::string& path, const std::string& headers, const std::string& h = "") {
    const std::string got = get(port, path, h.empty() ? host : h, headers);
    return got.substr(0, 12);
  };

  CHECK(status_of("/transcript?task=" + done, "") == "HTTP/1.1 403");                                  // no key
  CHECK(status_of("/transcript?task=" + done, "X-Mur-View-Key: " + std::string(64, 'f') + "\r\n") == "HTTP/1.1 403");
  CHECK(status_of("/transcript?task=" + done, key, "rebound.example:" + std::to_string(port)) == "HTTP/1.1 403");
  CHECK(status_of("/transcript?task=../../trace.jsonl", key) == "HTTP/1.1 400");
  CHECK(status_of("/transcript?task=" + done + "/../x", key) == "HTTP/1.1 400");
  CHECK(status_of("/transcript", key) == "HTTP/1.1 400");
  CHECK(status_of("/transcript?task=" + unknown, key) == "HTTP/1.1 404");
  const std::string no_capture = get(port, "/transcript?task=" + meta, host, key);
  CHECK(no_capture.rfind("HTTP/1.1 404", 0) == 0);
  CHECK(no_capture.find("trace: {capture: content}") != std::string::npos);
  const std::string later = get(port, "/transcript?task=" + running, host, key);
  CHECK(later.rfind("HTTP/1.1 404", 0) == 0);
  CHECK(later.find("still running") != std::string::npos);
  const std::string ok = get(port, "/transcript?task=" + done, host, key);
  CHECK(ok.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(ok.find("Content-Type: application/json") != std::string::npos);
  CHECK(ok.substr(ok.find("\r\n\r\n") + 4) == blob);

  // A blob whose bytes are not what its name says is not handed out.
  std::ofstream(s.dir / "blobs" / sha, std::ios::trunc) << "{\"messages\":[]}";
  CHECK(status_of("/transcript?task=" + done, key) == "HTTP/1.1 404");
}

TEST_CASE("view state: the tree's tasks carry their model requests, from inference events", "[view][trace]") {
  SessionDir s;
  s.line(ev("session_start", 1000, {{"capsule_name", "lead-cap"}, {"capsule_version", "1.0.0"}}));
  s.line(ev("task_start", 1100, {{"task_id", "t1"}, {"origin", "user"}, {"text", "do it"}}));
  s.line(ev("inference", 1600, {{"task_id", "t1"}, {"turn", 0}, {"step", 0}, {"decision", "tool_call"}, {"model", "m1"},
                                {"duration_ms", 400}, {"prompt_tokens", 120}, {"completion_tokens", 30}}));
  s.line(ev("inference", 1700, {{"task_id", "t1"}, {"turn", 1}, {"step", 0}, {"decision", "end_turn"}}));
  auto v = mur::ViewSource::session("ses_x", s.dir.string());
  REQUIRE(v.poll());
  const json st = v.state(true, 1800);
  const json& q = st["tasks"][0]["model_requests"];
  REQUIRE(q.size() == 2);
  CHECK(q[0]["started_at"] == 1200); // its event's time less its duration
  CHECK(q[0]["start_ms"] == 200);
  CHECK(q[0]["duration_ms"] == 400);
  CHECK(q[0]["model"] == "m1");
  CHECK(q[0]["input_tokens"] == 120);
  CHECK(q[0]["output_tokens"] == 30);
  CHECK(q[0]["decision"] == "tool_call");
  CHECK(q[1]["started_at"] == 1700); // a script model: no duration, no model, no counts
  CHECK(q[1]["duration_ms"].is_null());
  CHECK(q[1]["model"].is_null());
  CHECK(q[1]["input_tokens"].is_null());
  CHECK(q[1]["turn"] == 1);
}
