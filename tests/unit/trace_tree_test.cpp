// The tree of a formation's traces, built from hand-written event lists: a callee's task under
// the call that names it (member_task_id), recursively; siblings in time order whatever the
// order of the sessions or of the events; refused, running and unmatched calls; roots are the
// tasks no call claims; texts shortened on one line, whole with width 0; the JSON shape.
#include "trace_event_lines.hpp"
#include "launcher/traces/trace_follow.hpp"
#include "launcher/traces/trace_tree.hpp"

#include <catch2/catch.hpp>

using json = nlohmann::json;
using mur::test::ev;
using mur::SessionEvents;

namespace {


json start(std::int64_t at) { return ev("session_start", at); }

json task_start(std::int64_t at, const std::string& id, const std::string& origin, const std::string& text) {
  return ev("task_start", at, {{"task_id", id}, {"origin", origin}, {"text", text}});
}

json task_end(std::int64_t at, const std::string& id, const std::string& answer) {
  return ev("task_end", at, {{"task_id", id}, {"exit_status", "ok"}, {"state", "completed"}, {"answer", answer}});
}

json call(std::int64_t end, const std::string& task, const std::string& id, const std::string& callee,
          const std::string& callee_task, std::int64_t ms) {
  return ev("member_call", end,
            {{"task_id", task}, {"call_id", id}, {"member", callee}, {"member_task_id", callee_task},
             {"status", "completed"}, {"duration_ms", ms}, {"output", "out of " + callee}, {"delivered", true}});
}

// lead → coder → reviewer, twice (two user tasks), sessions given callee first.
std::vector<SessionEvents> chain() {
  SessionEvents lead{"lead", "ses_l", {start(1000), task_start(1100, "t_l1", "user", "first"),
                                       call(1400, "t_l1", "mcl_1", "coder", "t_c1", 280), task_end(1450, "t_l1", "A1"),
                                       task_start(2000, "t_l2", "user", "second"),
                                       call(2400, "t_l2", "mcl_3", "coder", "t_c2", 350), task_end(2500, "t_l2", "A2")}};
  SessionEvents coder{"coder", "ses_c", {start(900), task_start(1130, "t_c1", "peer", "do first"),
                                         call(1350, "t_c1", "mcl_2", "reviewer", "t_r1", 150), task_end(1390, "t_c1", "C1"),
                                         task_start(2060, "t_c2", "peer", "do second"),
                                         call(2300, "t_c2", "mcl_4", "reviewer", "t_r2", 100), task_end(2390, "t_c2", "C2")}};
  SessionEvents reviewer{"reviewer", "ses_r", {start(950), task_start(1210, "t_r1", "peer", "review first"),
                                               task_end(1340, "t_r1", "R1"), task_start(2210, "t_r2", "peer", "review second"),
                                               task_end(2290, "t_r2", "R2")}};
  return {reviewer, coder, lead};
}

// The calls of the tree's one root task, REQUIREd to be `n`.
const std::vector<mur::CallNode>& root_calls(const mur::TraceTree& tree, std::size_t n) {
  REQUIRE(tree.roots.size() == 1);
  REQUIRE(tree.roots[0].calls.size() == n);
  return tree.roots[0].calls;
}

} // namespace

TEST_CASE("trace tree: a chain nests call → callee's task → call → callee's task, tasks in time order", "[trace]") {
  const mur::TraceTree tree = mur::build_trace_tree(chain());
  CHECK(tree.started_at == 900);
  REQUIRE(tree.roots.size() == 2);
  CHECK(tree.roots[0].task_id == "t_l1");
  CHECK(tree.roots[1].task_id == "t_l2");
  const mur::TaskNode& first = tree.roots[0];
  CHECK(first.member == "lead");
  CHECK(first.duration_ms == 350);
  CHECK(first.answer == "A1");
  REQUIRE(first.calls.size() == 1);
  const mur::CallNode& to_coder = first.calls[0];
  CHECK(to_coder.caller == "lead");
  CHECK(to_coder.callee == "coder");
  CHECK(to_coder.started_at == 1400 - 280);
  REQUIRE(to_coder.task);
  CHECK(to_coder.task->task_id == "t_c1");
  CHECK(to_coder.task->text == "do first");
  REQUIRE(to_coder.task->calls.size() == 1);
  const mur::CallNode& to_reviewer = to_coder.task->calls[0];
  CHECK(to_reviewer.caller == "coder");
  REQUIRE(to_reviewer.task);
  CHECK(to_reviewer.task->task_id == "t_r1");
  CHECK(to_reviewer.task->member == "reviewer");
  CHECK(to_reviewer.task->calls.empty());
  REQUIRE(tree.roots[1].calls.size() == 1);
  REQUIRE(tree.roots[1].calls[0].task);
  CHECK(tree.roots[1].calls[0].task->task_id == "t_c2");
  REQUIRE(tree.roots[1].calls[0].task->calls.size() == 1);
  CHECK(tree.roots[1].calls[0].task->calls[0].task->task_id == "t_r2");

  const std::string text = mur::render_trace_tree(tree, 80);
  INFO(text);
  const auto l1 = text.find("t_l1"), c1 = text.find("mcl_1"), tc1 = text.find("t_c1"), c2 = text.find("mcl_2"),
             tr1 = text.find("t_r1"), l2 = text.find("t_l2");
  CHECK(l1 < c1);
  CHECK(c1 < tc1);
  CHECK(tc1 < c2);
  CHECK(c2 < tr1);
  CHECK(tr1 < l2);
  CHECK(text.find("\n        +0.31s  reviewer  t_r1  ok  0.13s  \"review first\" \xE2\x86\x92 \"R1\"\n") != std::string::npos);
  CHECK(text.find("  +0.22s  mcl_1  lead \xE2\x86\x92 coder  completed  0.28s\n") != std::string::npos);
}

TEST_CASE("trace tree: calls of one task in start order, a refused call, a running call and task", "[trace]") {
  SessionEvents lead{"lead", "ses_l", {start(0), task_start(10, "t", "user", "go"),
                                       // b ended first but started later than a
                                       call(300, "t", "mcl_b", "b", "t_b", 100), call(400, "t", "mcl_a", "a", "t_a", 350),
                                       ev("call_refused", 420, {{"task_id", "t"}, {"member", "c"}, {"reason", "no edge to c"}}),
                                       ev("member_call_start", 450, {{"task_id", "t"}, {"call_id", "mcl_d"}, {"member", "d"},
                                                                     {"member_task_id", "t_d"}})}};
  SessionEvents d{"d", "ses_d", {start(5), task_start(460, "t_d", "peer", "work")}};
  const auto tree = mur::build_trace_tree({lead, d});
  const auto& calls = root_calls(tree, 4);
  CHECK(calls[0].call_id == "mcl_a");
  CHECK(calls[1].call_id == "mcl_b");
  CHECK(calls[2].status == "refused");
  CHECK(calls[2].reason == "no edge to c");
  CHECK_FALSE(calls[0].task); // a's trace is not among the sessions: no task, the call's own texts
  CHECK(calls[3].status == "running");
  CHECK(calls[3].duration_ms == -1);
  REQUIRE(calls[3].task);
  CHECK(calls[3].task->status == "running");
  CHECK(tree.roots[0].status == "running");
  const std::string text = mur::render_trace_tree(tree, 80);
  INFO(text);
  CHECK(text.find("lead \xE2\x86\x92 c  refused  \"no edge to c\"") != std::string::npos);
  CHECK(text.find("mcl_a  lead \xE2\x86\x92 a  completed  0.35s  \"\" \xE2\x86\x92 \"out of a\"") != std::string::npos);
}

TEST_CASE("trace tree: a task no call claims is a root, and a call never adopts another member's task", "[trace]") {
  SessionEvents lead{"lead", "ses_l", {start(0), task_start(10, "t", "user", "go"),
                                       call(100, "t", "mcl_1", "coder", "t_x", 50), task_end(120, "t", "done")}};
  // t_x is the reviewer's task, sent by `mur send` to the reviewer: not the coder's answer to mcl_1
  SessionEvents reviewer{"reviewer", "ses_r", {start(1), task_start(60, "t_x", "user", "direct"), task_end(70, "t_x", "r")}};
  const auto tree = mur::build_trace_tree({lead, reviewer});
  REQUIRE(tree.roots.size() == 2);
  CHECK(tree.roots[0].task_id == "t");
  CHECK(tree.roots[1].task_id == "t_x");
  REQUIRE(tree.roots[0].calls.size() == 1);
  CHECK_FALSE(tree.roots[0].calls[0].task);
}

TEST_CASE("trace tree JSON: tasks with calls, each call's callee task nested, offsets from the start", "[trace]") {
  const json j = mur::trace_tree_json(mur::build_trace_tree(chain()));
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 2);
  CHECK(j[0]["task_id"] == "t_l1");
  CHECK(j[0]["start_ms"] == 200);
  CHECK(j[0]["duration_ms"] == 350);
  CHECK(j[0]["text"] == "first");
  CHECK(j[0]["answer"] == "A1");
  CHECK(j[0]["calls"][0]["callee"] == "coder");
  CHECK(j[0]["calls"][0]["output"] == "out of coder");
  CHECK(j[0]["calls"][0]["task"]["task_id"] == "t_c1");
  CHECK(j[0]["calls"][0]["task"]["calls"][0]["task"]["member"] == "reviewer");
  CHECK(j[0]["calls"][0]["task"]["calls"][0]["task"]["calls"].empty());
}

TEST_CASE("shortened texts: one line, cut with an ellipsis on a character boundary, whole with width 0", "[trace]") {
  CHECK(mur::shortened("a\nb\tc  ", 80) == "a b c");
  CHECK(mur::shortened("abcdef", 6) == "abcdef");
  CHECK(mur::shortened("abcdefg", 6) == "abcde\xE2\x80\xA6");
  CHECK(mur::shortened("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 3) == "\xC3\xA9\xC3\xA9\xE2\x80\xA6");
  const std::string long_text(500, 'x');
  CHECK(mur::shortened(long_text, 0) == long_text);
}

TEST_CASE("watch lines: a user's task and its answer, calls and answers, a peer's task not repeated", "[trace]") {
  std::map<std::string, std::string> origins;
  json s = task_start(1795998665649, "t", "user", "add a flag");
  CHECK(mur::watch_line(s, "lead", origins) == "00:31:05.649  user \xE2\x86\x92 lead  task  started  \"add a flag\"");
  json by_operator = task_start(1795998665650, "t2", "user", "more");
  by_operator["submitter"] = "operator";
  CHECK(mur::watch_line(by_operator, "lead", origins) == "00:31:05.650  operator \xE2\x86\x92 lead  task  started  \"more\"");
  CHECK(mur::watch_line(task_end(1795998665651, "t2", "m"), "lead", origins) ==
        "00:31:05.651  operator \xE2\x86\x92 lead  answer  ok  \"m\"");
  CHECK(mur::watch_line(task_start(1795998665650, "p", "peer", "x"), "coder", origins).empty());
  CHECK(mur::watch_line(task_end(1795998665660, "p", "y"), "coder", origins).empty());
  CHECK(mur::watch_line(call(1795998665700, "t", "mcl_1", "coder", "p", 40), "lead", origins) ==
        "00:31:05.700  lead \xE2\x86\x92 coder  answer  completed  0.04s  \"out of coder\"");
  CHECK(mur::watch_line(task_end(1795998665800, "t", "done"), "lead", origins) ==
        "00:31:05.800  user \xE2\x86\x92 lead  answer  ok  \"done\"");
  CHECK(mur::watch_line(ev("inference", 1), "lead", origins).empty());
  // A capsule tool's call, live; a runtime tool's tool_call (no server) is not a line of its own.
  CHECK(mur::watch_line(ev("tool_call", 1795998665900, {{"task_id", "t"}, {"tool", "files__write_file"}, {"server", "files"},
                                                       {"duration_ms", 12}, {"is_error", false}}),
                        "coder", origins) == "00:31:05.900  coder \xE2\x86\x92 files  tool  files__write_file  ok  0.01s");
  CHECK(mur::watch_line(ev("tool_call", 1795998665901, {{"task_id", "t"}, {"tool", "call-member"}}), "coder", origins).empty());
}

TEST_CASE("trace tree: a task that ended without an answer shows its reason and who gave none", "[trace]") {
  json end = ev("task_end", 90, {{"task_id", "t"}, {"exit_status", "no_answer"}, {"state", "failed"},
                                 {"reason", "the coder could not"},
                                 {"no_answer_below", json::array({{{"member", "coder"}, {"status", "no_answer"}}})}});
  SessionEvents lead{"lead", "ses_l", {start(0), task_start(10, "t", "user", "go"), end}};
  const auto tree = mur::build_trace_tree({lead});
  REQUIRE(tree.roots.size() == 1);
  CHECK(tree.roots[0].status == "no_answer");
  const std::string text = mur::render_trace_tree(tree, 80);
  INFO(text);
  CHECK(text.find("no_answer  0.08s  \"go\" \xE2\x86\x92 \"the coder could not\"  (no answer from coder no_answer)") !=
        std::string::npos);
  CHECK(mur::trace_tree_json(tree)[0]["no_answer_below"] == json::array({"coder no_answer"}));
}

TEST_CASE("calls whose answers are delivered together start when they were made (since_call_ms)", "[trace][tree]") {
  // coder answered at 1130 but its member_call is written at 1300, when the slower delegation's
  // answer arrived too and both were delivered in one continuation.
  json quick = call(1300, "t1", "mcl_a", "coder", "t_c", 30);
  quick["since_call_ms"] = 200;
  json slow = ev("delegation", 1300, {{"task_id", "t1"}, {"call_id", "dlg_b"}, {"capsule", "helper"}, {"status", "completed"},
                                      {"duration_ms", 190}, {"since_call_ms", 195}, {"delivered", true}});
  SessionEvents lead{"lead", "ses_l", {start(1000), task_start(1090, "t1", "user", "go"), slow, quick, task_end(1310, "t1", "ok")}};
  const auto tree = mur::build_trace_tree({lead});
  REQUIRE(tree.roots.size() == 1);
  const auto& calls = tree.roots[0].calls;
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].call_id == "mcl_a"); // made at 1100, before the delegation (1105)
  CHECK(calls[0].started_at == 1100);
  CHECK(calls[0].duration_ms == 30);
  CHECK(calls[1].call_id == "dlg_b");
  CHECK(calls[1].started_at == 1105);
  CHECK(calls[1].callee == "capsule:helper");
}

TEST_CASE("trace tree: the capsule's own tool calls are lines under their task, by size only", "[trace][tools]") {
  SessionEvents coder{"coder", "ses_c",
                      {start(0), task_start(10, "t", "user", "keep a note"),
                       ev("tool_call", 60, {{"task_id", "t"}, {"tool", "files__write_file"}, {"server", "files"},
                                            {"arguments_bytes", 52}, {"duration_ms", 30}, {"is_error", false}}),
                       // a runtime tool an agent program called over its turn's server: not a capsule tool
                       ev("tool_call", 70, {{"task_id", "t"}, {"tool", "call-member"}}),
                       ev("tool_call", 95, {{"task_id", "t"}, {"tool", "files__read_text_file"}, {"server", "files"},
                                            {"arguments_bytes", 19}, {"duration_ms", 5}, {"is_error", true}}),
                       task_end(120, "t", "noted")}};
  const auto tree = mur::build_trace_tree({coder});
  const auto& calls = root_calls(tree, 2);
  CHECK(calls[0].kind == "tool");
  CHECK(calls[0].tool == "files__write_file");
  CHECK(calls[0].callee == "files");
  CHECK(calls[0].started_at == 30); // its event came when it ended, 30 ms after it began
  CHECK(calls[1].status == "error");
  const std::string text = mur::render_trace_tree(tree, 80);
  INFO(text);
  CHECK(text.find("+0.03s  -  coder  files__write_file  ok  0.03s  (52 B of arguments)") != std::string::npos);
  CHECK(text.find("files__read_text_file  error  0.01s  (19 B of arguments)") != std::string::npos);
  const json j = mur::trace_tree_json(tree);
  CHECK(j[0]["calls"][0]["kind"] == "tool");
  CHECK(j[0]["calls"][0]["arguments_bytes"] == 52);
  CHECK(j[0]["calls"][1]["tool"] == "files__read_text_file");
}
