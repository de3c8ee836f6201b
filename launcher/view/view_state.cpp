#include "launcher/view/view_state.hpp"

#include "launcher/traces/session_traces.hpp"
#include "launcher/traces/trace_fields.hpp"
#include "launcher/traces/trace_growth.hpp"
#include "launcher/traces/trace_usage.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/trace_line.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

namespace fs = std::filesystem;

namespace mur {
namespace {

using json = nlohmann::json;
using trace_fields::num;
using trace_fields::str;



// A member as its session_start names it, and how its session ended so far.
struct Member {
  std::string name, session_id, capsule, version, ending;
  std::vector<std::string> callees;
  int unreadable = 0; // lines of its trace that could not be read (skipped)
  bool started = false;
  PricedUsage usage;  // what its ended tasks spent themselves (meaningful once started)
  json tasks = json::array();
};

void collect(const TaskNode& t, std::int64_t t0, std::int64_t now, std::map<std::string, Member*>& by_member,
             json& in_flight) {
  if (auto it = by_member.find(t.member); it != by_member.end())
    it->second->tasks.push_back(json{{"task_id", t.task_id}, {"status", t.status}, {"origin", t.origin},
                                     {"start_ms", t.started_at - t0}, {"started_at", t.started_at},
                                     {"duration_ms", trace_fields::known(t.duration_ms)},
                                     {"elapsed_ms", t.duration_ms >= 0 ? json(t.duration_ms) : now < 0 ? json(nullptr) : json(now - t.started_at)},
                                     {"text", t.text}, {"answer", t.answer.empty() ? t.reason : t.answer}});
  for (const auto& c : t.calls) {
    // A call whose callee's task has ended waits only for its round's other answers: `answered`.
    const bool answered = c.task && c.task->status != "running";
    if (c.status == "running" && now >= 0) // the text sent is in the callee's task until the call ends
      in_flight.push_back(json{{"call_id", c.call_id}, {"caller", c.caller}, {"callee", c.callee},
                               {"status", answered ? "answered" : c.status},
                               {"start_ms", c.started_at - t0}, {"started_at", c.started_at},
                               {"elapsed_ms", std::max<std::int64_t>(0, now - c.started_at)},
                               {"text", c.text.empty() && c.task ? c.task->text : c.text},
                               {"member_task_id", c.member_task_id}});
    if (c.task) collect(*c.task, t0, now, by_member, in_flight);
  }
}

// task id → the question it asks and has not had answered (answered, timed out or ended: none).
std::map<std::string, std::string> waiting_questions(const std::vector<SessionEvents>& sessions) {
  std::map<std::string, std::string> asked;
  for (const auto& s : sessions)
    for (const auto& e : s.events) {
      const std::string type = str(e, "event_type"), task = str(e, "task_id");
      if (type == "input_required") asked[task] = str(e, "question");
      else if (type == "input_answered" || type == "input_timeout" || type == "task_end") asked.erase(task);
    }
  return asked;
}

} // namespace

ViewSource ViewSource::formation(std::string formation_id, std::string project_dir, std::vector<std::string> members) {
  ViewSource v;
  v.formation_id_ = std::move(formation_id);
  v.project_dir_ = std::move(project_dir);
  v.planned_ = std::move(members);
  v.sessions_scan_.emplace(v.formation_id_, v.project_dir_);
  return v;
}

ViewSource ViewSource::session(std::string session_id, std::string session_dir) {
  ViewSource v;
  v.session_id_ = std::move(session_id);
  v.session_dir_ = std::move(session_dir);
  return v;
}

bool ViewSource::poll() {
  // New sessions: the formation's (named by their first line), or the one session's file.
  auto add = [this](const std::string& path, const std::string& member, const std::string& session_id) {
    files_[path] = File{sessions_.size(), 0};
    sessions_.push_back(SessionEvents{member, session_id, {}});
    dirs_.push_back(fs::path(path).parent_path().string());
    unreadable_.push_back(0);
  };
  // Delegated children live under their parent's session directory, at any depth
  // (children/<dlg_…>/.murmur/<ses_…>/): each is shown as `capsule:<name>`.
  std::function<void(const std::string&)> add_children = [&](const std::string& session_dir) {
    for (const auto& dir : child_session_dirs(session_dir)) {
      const std::string path = dir + "/trace.jsonl";
      if (!files_.count(path)) {
        auto j = first_trace_event(path);
        if (!j) continue; // not flushed yet: next poll
        add(path, "capsule:" + str(*j, "capsule_name"), fs::path(dir).filename().string());
      }
      add_children(dir);
    }
  };
  if (!session_dir_.empty()) {
    const std::string path = session_dir_ + "/trace.jsonl";
    if (!files_.count(path)) { // named as in its formation, else by its capsule (once its first line is written)
      if (auto j = first_trace_event(path))
        add(path, str(*j, "formation_member").empty() ? str(*j, "capsule_name") : str(*j, "formation_member"), session_id_);
    }
    add_children(session_dir_);
  } else {
    sessions_scan_->scan([&](const std::string& dir, const nlohmann::json* first) {
      if (first != nullptr) add(dir + "/trace.jsonl", str(*first, "formation_member"), fs::path(dir).filename().string());
      add_children(dir);
    });
  }
  // What each file gained, whole lines only.
  bool read = false;
  for (auto& [path, f] : files_)
    for (auto& j : read_new_events(path, f.offset, &unreadable_[f.session])) {
      sessions_[f.session].events.push_back(std::move(j));
      read = true;
    }
  return read;
}

TranscriptIndex ViewSource::transcripts() const { return transcript_index(sessions_, dirs_); }

json ViewSource::state(bool running, std::int64_t now_ms) const {
  const TraceTree tree = build_trace_tree(sessions_);
  std::vector<Member> members;
  const auto blank = [](const std::string& name, const char* ending) {
    Member m;
    m.name = name;
    m.ending = ending;
    return m;
  };
  for (const auto& name : planned_) members.push_back(blank(name, "not started"));
  for (const auto& s : sessions_) {
    auto it = std::find_if(members.begin(), members.end(),
                           [&](const Member& m) { return !m.started && m.name == s.member; });
    if (it == members.end()) it = members.insert(members.end(), blank(s.member, ""));
    Member& m = *it;
    m.started = true;
    m.session_id = s.session_id;
    m.ending = "running";
    m.unreadable = unreadable_[static_cast<std::size_t>(&s - sessions_.data())];
    m.usage = session_usage(s.events);
    for (const auto& e : s.events) {
      const std::string type = str(e, "event_type");
      if (type == "session_start") {
        m.capsule = str(e, "capsule_name"), m.version = str(e, "capsule_version");
        m.callees = trace_fields::strs(e, "formation_callees");
      } else if (type == "formation_ended") {
        m.ending = "formation ended";
      } else if (type == "session_end") {
        m.ending = "ended " + str(e, "exit_status");
      }
    }
    if (!running && m.ending == "running") m.ending = "gone";
  }
  std::map<std::string, Member*> by_member;
  for (auto& m : members) by_member[m.name] = &m;
  json in_flight = json::array();
  // Once it has ended, nothing is in flight (a call the end cut short stays `running` in the tree).
  for (const auto& t : tree.roots) collect(t, tree.started_at, running ? now_ms : -1, by_member, in_flight);
  if (running) { // the question a task a person sent still waits on (it shows what was asked below it)
    const auto asked = waiting_questions(sessions_);
    for (auto& m : members)
      for (auto& t : m.tasks)
        if (auto q = asked.find(t.value("task_id", "")); q != asked.end() && t.value("origin", "") == "user")
          t["question"] = q->second;
  }
  json ms = json::array();
  PricedUsage total; // the formation's: each member's own spending once
  for (const auto& m : members) {
    if (m.started) add_priced(total, m.usage);
    ms.push_back(json{{"name", m.name}, {"session_id", m.session_id}, {"capsule", m.capsule}, {"version", m.version},
                      {"callees", m.callees}, {"state", m.ending}, {"tasks", m.tasks},
                      {"unreadable_lines", m.unreadable},
                      {"usage", m.started ? usage_shape(m.usage) : json(nullptr)}}); // not started: nothing known
  }
  json out{{"running", running},       {"now_ms", now_ms},         {"started_ms", tree.started_at},
           {"members", ms},            {"in_flight", in_flight},   {"tasks", trace_tree_json(tree)},
           {"usage", usage_shape(total)}};
  if (!formation_id_.empty()) out["formation_id"] = formation_id_;
  else out["session_id"] = session_id_;
  return out;
}

} // namespace mur
