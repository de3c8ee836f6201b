// Delegations in the traces (docs/delegation.md): a member's `delegation_start` / `delegation`
// events become calls of kind "delegation" to `capsule:<name>`, beside its member calls, with
// the child's task (its session found under `<parent session>/children/<dlg>/.murmur/`) nested
// under the delegation that names it, grandchildren likewise; a refused delegation shows; the
// child's ending reads `spawner_ended`; the watch lines name the delegation.
#include "trace_event_lines.hpp"
#include "launcher/traces/session_traces.hpp"
#include "launcher/traces/trace_follow.hpp"
#include "launcher/traces/trace_tree.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using json = nlohmann::json;
using mur::test::ev;
using mur::SessionEvents;
namespace fs = std::filesystem;

namespace {


json task_start(std::int64_t at, const std::string& id, const std::string& text) {
  return ev("task_start", at, {{"task_id", id}, {"origin", "user"}, {"text", text}});
}

json task_end(std::int64_t at, const std::string& id, const std::string& answer) {
  return ev("task_end", at, {{"task_id", id}, {"exit_status", "ok"}, {"state", "completed"}, {"answer", answer}});
}

json delegation_start(std::int64_t at, const std::string& task, const std::string& dlg, const std::string& capsule,
                      const std::string& child_session, const std::string& child_task) {
  return ev("delegation_start", at, {{"task_id", task}, {"call_id", dlg}, {"capsule", capsule},
                                     {"child_session", child_session}, {"child_task_id", child_task}});
}

json delegation(std::int64_t end, const std::string& task, const std::string& dlg, const std::string& capsule,
                const std::string& child_task, std::int64_t ms, const std::string& status = "completed") {
  return ev("delegation", end, {{"task_id", task}, {"call_id", dlg}, {"capsule", capsule}, {"child_task_id", child_task},
                                {"status", status}, {"task", "sub of " + task}, {"duration_ms", ms},
                                {"output", "out of " + capsule}, {"truncated", false}, {"delivered", true}});
}

json member_call(std::int64_t end, const std::string& task, const std::string& id, const std::string& callee, std::int64_t ms) {
  return ev("member_call", end, {{"task_id", task}, {"call_id", id}, {"member", callee}, {"status", "completed"},
                                 {"duration_ms", ms}, {"output", "out of " + callee}, {"delivered", true}});
}

// lead delegates to helper (which delegates to deep) and calls coder, in one task.
std::vector<SessionEvents> family() {
  SessionEvents lead{"lead", "ses_l", {ev("session_start", 1000), task_start(1100, "t_l", "do it"),
                                       delegation_start(1150, "t_l", "dlg_1", "helper", "ses_h", "t_h"),
                                       member_call(1300, "t_l", "mcl_1", "coder", 120),
                                       delegation(1500, "t_l", "dlg_1", "helper", "t_h", 350),
                                       ev("call_refused", 1510, {{"task_id", "t_l"}, {"capsule", "absent"},
                                                                 {"cause", "not_started"}, {"reason", "absent@1 cannot be started"}}),
                                       task_end(1600, "t_l", "all done")}};
  SessionEvents helper{"capsule:helper", "ses_h", {ev("session_start", 1160), task_start(1200, "t_h", "sub of t_l"),
                                                   delegation_start(1210, "t_h", "dlg_2", "deep", "ses_d", "t_d"),
                                                   delegation(1400, "t_h", "dlg_2", "deep", "t_d", 190),
                                                   task_end(1450, "t_h", "helped")}};
  SessionEvents deep{"capsule:deep", "ses_d", {ev("session_start", 1215), task_start(1220, "t_d", "sub of t_h"),
                                               task_end(1390, "t_d", "deep answer")}};
  return {deep, helper, lead};
}

void write_trace(const fs::path& dir, const std::vector<json>& lines) {
  fs::create_directories(dir);
  std::ofstream out(dir / "trace.jsonl");
  for (const auto& l : lines) out << l.dump() << "\n";
}

} // namespace

TEST_CASE("a delegation is a call to capsule:NAME with the child's task nested, grandchildren too", "[trace][delegation]") {
  const mur::TraceTree tree = mur::build_trace_tree(family());
  REQUIRE(tree.roots.size() == 1);
  const auto& lead = tree.roots[0];
  CHECK(lead.task_id == "t_l");
  REQUIRE(lead.calls.size() == 3);
  // In time order: the delegation (started 1150), the member call (1180), the refusal (1510).
  CHECK(lead.calls[0].kind == "delegation");
  CHECK(lead.calls[0].call_id == "dlg_1");
  CHECK(lead.calls[0].callee == "capsule:helper");
  CHECK(lead.calls[0].status == "completed");
  CHECK(lead.calls[0].duration_ms == 350);
  CHECK(lead.calls[0].child_session == "ses_h");
  CHECK(lead.calls[1].kind == "call");
  CHECK(lead.calls[1].callee == "coder");
  CHECK(lead.calls[2].kind == "delegation");
  CHECK(lead.calls[2].status == "refused");
  CHECK(lead.calls[2].callee == "capsule:absent");
  REQUIRE(lead.calls[0].task);
  const auto& helper = *lead.calls[0].task;
  CHECK(helper.task_id == "t_h");
  CHECK(helper.member == "capsule:helper");
  REQUIRE(helper.calls.size() == 1);
  REQUIRE(helper.calls[0].task);
  CHECK(helper.calls[0].task->task_id == "t_d");
  CHECK(helper.calls[0].task->answer == "deep answer");

  const std::string text = mur::render_trace_tree(tree, 0);
  CHECK(text.find("dlg_1  lead \xE2\x86\x92 capsule:helper  completed  0.35s") != std::string::npos);
  CHECK(text.find("      +0.22s  capsule:deep  t_d  ok") != std::string::npos); // depth 3: task, call, task, call, task
  const json j = mur::trace_tree_json(tree);
  CHECK(j[0]["calls"][0]["kind"] == "delegation");
  CHECK(j[0]["calls"][0]["tool"] == "delegate");
  CHECK(j[0]["calls"][2]["tool"] == "delegate"); // the refused one
  CHECK(j[0]["calls"][0]["child_session"] == "ses_h");
  CHECK(j[0]["calls"][0]["task"]["calls"][0]["task"]["task_id"] == "t_d");
  CHECK(j[0]["calls"][1]["kind"] == "call");
  CHECK(j[0]["calls"][1]["tool"] == "call-member");
  CHECK(j[0]["calls"][1]["child_session"].is_null());
}

TEST_CASE("a delegation whose child's trace is missing shows what the parent's holds", "[trace][delegation]") {
  auto sessions = family();
  sessions.erase(sessions.begin(), sessions.begin() + 2); // only the lead's
  const mur::TraceTree tree = mur::build_trace_tree(sessions);
  REQUIRE(tree.roots.size() == 1);
  CHECK(!tree.roots[0].calls[0].task);
  const std::string text = mur::render_trace_tree(tree, 0);
  CHECK(text.find("\"sub of t_l\" \xE2\x86\x92 \"out of helper\"") != std::string::npos);
}

TEST_CASE("children's sessions are found under their parent's session directory, at any depth", "[trace][delegation]") {
  char tmpl[] = "/tmp/mur-dlg-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  const fs::path root(tmpl);
  const std::string p = "ses_00000000000000000000000000000001", c = "ses_00000000000000000000000000000002",
                    g = "ses_00000000000000000000000000000003";
  const fs::path parent = root / ".murmur" / p;
  const fs::path child = parent / "children" / "dlg_1" / ".murmur" / c;
  const fs::path grandchild = child / "children" / "dlg_2" / ".murmur" / g;
  write_trace(parent, {ev("session_start", 1, {{"session_id", p}, {"capsule_name", "lead"}})});
  write_trace(child, {ev("session_start", 2, {{"session_id", c}, {"capsule_name", "helper"}, {"spawned_by", p},
                                             {"delegation", "dlg_1"}}),
                      ev("spawner_ended", 3, {{"spawned_by", p}}), ev("session_end", 4, {{"exit_status", "spawner_ended"}})});
  write_trace(grandchild, {ev("session_start", 3, {{"session_id", g}, {"capsule_name", "deep"}, {"spawned_by", c},
                                                  {"delegation", "dlg_2"}})});
  auto kids = mur::child_sessions(parent.string());
  REQUIRE(kids.size() == 2);
  CHECK(kids[0].session_id == c);
  CHECK(kids[0].member == "capsule:helper");
  CHECK(kids[0].spawned_by == p);
  CHECK(kids[0].delegation == "dlg_1");
  CHECK(mur::ending_of(kids[0], false) == "spawner_ended, session_end spawner_ended");
  CHECK(kids[1].session_id == g);
  CHECK(kids[1].spawned_by == c);
  // By id, from the directory that holds the parent.
  const fs::path was = fs::current_path();
  fs::current_path(root);
  auto found = mur::find_session(g);
  fs::current_path(was);
  REQUIRE(found);
  CHECK(found->member == "capsule:deep");
  fs::remove_all(root);
}

TEST_CASE("watch lines name delegations", "[trace][delegation]") {
  std::map<std::string, std::string> origins;
  auto line = [&](const json& e) { return mur::watch_line(e, "lead", origins); };
  CHECK(line(delegation_start(1000, "t", "dlg_1", "helper", "ses_h", "t_h")).find("lead \xE2\x86\x92 capsule:helper  delegate  started") !=
        std::string::npos);
  const std::string done = line(delegation(2000, "t", "dlg_1", "helper", "t_h", 1500));
  CHECK(done.find("lead \xE2\x86\x92 capsule:helper  answer  completed  1.50s  \"out of helper\"") != std::string::npos);
  CHECK(line(ev("call_refused", 3000, {{"task_id", "t"}, {"capsule", "absent"}, {"reason", "not installed"}}))
          .find("capsule:absent  delegate  refused  \"not installed\"") != std::string::npos);
}
