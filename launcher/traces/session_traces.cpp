#include "launcher/traces/session_traces.hpp"

#include "capsule/session_store.hpp"
#include "launcher/base/formation_dirs.hpp"
#include "launcher/traces/trace_fields.hpp"
#include "launcher/traces/trace_usage.hpp"
#include "member/trace_write_failure.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/trace_line.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <type_traits>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;

namespace mur {

std::optional<SessionTrace> read_session_trace(const std::string& dir) {
  if (!trusted_session_place(dir)) return std::nullopt; // a link that leads out of the store
  std::ifstream in(dir + "/trace.jsonl", std::ios::binary);
  if (!in) return std::nullopt;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TraceLines lines = read_trace_lines(text);
  SessionTrace t;
  t.path = dir;
  t.unreadable = lines.unreadable;
  // A last line without its newline: a write cut short (or one being made at this instant).
  if (lines.tail > 0 && !blank_trace_line(std::string_view(text).substr(text.size() - lines.tail))) ++t.unreadable;
  t.write_failure = trace_write_failure(dir);
  bool started = false;
  using trace_fields::flag;
  using trace_fields::num;
  using trace_fields::str;
  for (auto& j : lines.events) {
    const std::string type = str(j, "event_type");
    t.last_ms = num(j, "timestamp");
    if (type == "session_start" && !started) {
      started = true;
      t.session_id = str(j, "session_id");
      t.formation_id = str(j, "formation_id");
      t.member = str(j, "formation_member");
      t.capsule = str(j, "capsule_name");
      t.version = str(j, "capsule_version");
      t.started_ms = num(j, "timestamp");
      t.spawned_by = str(j, "spawned_by");
      t.delegation = str(j, "delegation");
      if (!t.spawned_by.empty() && t.member.empty()) t.member = "capsule:" + t.capsule; // not a member: a child
      t.callees = trace_fields::strs(j, "formation_callees");
      if (auto p = j.find("price"); p != j.end()) t.price = price_in(*p);
    } else if (type == "formation_ended") {
      t.formation_ended = true;
    } else if (type == "spawner_ended") {
      t.spawner_ended = true;
    } else if (type == "session_end") {
      t.session_end = str(j, "exit_status");
    } else if (type == "task_start") {
      ++t.tasks;
    } else if (type == "task_end") {
      add_usage(t.usage, own_usage_of_task_end(j));
    } else if (type == "inference" && j.contains("model")) {
      // Each field is below 2^53 (read_trace_line); the sums saturate rather than overflow.
      auto add = [](auto& sum, std::int64_t n) {
        using T = std::decay_t<decltype(sum)>;
        sum = sum > std::numeric_limits<T>::max() - n ? std::numeric_limits<T>::max() : static_cast<T>(sum + n);
      };
      add(t.model.requests, 1);
      add(t.model.duration_ms, num(j, "duration_ms"));
      add(t.model.prompt_tokens, num(j, "prompt_tokens"));
      add(t.model.completion_tokens, num(j, "completion_tokens"));
      if (j.contains("prompt_tokens") && j.contains("completion_tokens")) add(t.model.token_reports, 1);
      if (j.contains("reasoning_tokens")) add(t.model.reasoning_reports, 1), add(t.model.reasoning_tokens, num(j, "reasoning_tokens"));
      add(t.model.retries, std::min<std::int64_t>(num(j, "retries"), std::numeric_limits<int>::max()));
      if (str(j, "decision") == "error") ++t.model.failed;
    } else if (type == "delegation") {
      t.delegations.push_back(TracedCall{str(j, "call_id"), t.member, "capsule:" + str(j, "capsule"), str(j, "status"),
                                         num(j, "duration_ms"), flag(j, "delivered")});
    } else if (type == "member_call") {
      t.calls.push_back(TracedCall{str(j, "call_id"), t.member, str(j, "member"), str(j, "status"),
                                   num(j, "duration_ms"), flag(j, "delivered")});
    }
    t.events.push_back(std::move(j));
  }
  if (!started) return std::nullopt;
  return t;
}

namespace {

std::string cwd() {
  char buf[4096];
  return ::getcwd(buf, sizeof buf) ? std::string(buf) : std::string(".");
}

} // namespace

std::vector<std::string> formation_roots(const std::string& frm, const std::string& project_dir) {
  std::vector<std::string> roots{cwd() + "/.murmur"};
  const std::string dir = formation_dir(frm);
  if (!project_dir.empty()) {
    roots.push_back(project_dir + "/.murmur");
  } else {
    std::ifstream marker(dir + "/formation.json");
    auto j = nlohmann::json::parse(marker, nullptr, false);
    if (j.is_object() && j.contains("project_dir") && j["project_dir"].is_string())
      roots.push_back(j["project_dir"].get<std::string>() + "/.murmur");
  }
  std::error_code ec;
  for (const auto& m : fs::directory_iterator(dir, ec))
    if (m.is_directory()) roots.push_back(m.path().string() + "/.murmur");
  return roots;
}

std::vector<SessionTrace> sessions_under(const std::string& root) {
  std::vector<SessionTrace> out;
  std::error_code ec;
  for (const auto& s : fs::directory_iterator(root, ec)) {
    if (!ids::is_valid(s.path().filename().string(), ids::session)) continue;
    if (auto t = read_session_trace(s.path().string())) out.push_back(std::move(*t));
  }
  std::sort(out.begin(), out.end(), [](const SessionTrace& a, const SessionTrace& b) {
    return a.started_ms != b.started_ms ? a.started_ms > b.started_ms : a.session_id > b.session_id;
  });
  return out;
}

std::vector<std::string> child_session_dirs(const std::string& session_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  std::vector<fs::path> dlgs;
  for (const auto& d : fs::directory_iterator(session_dir + "/children", ec))
    if (d.is_directory() && !d.is_symlink()) dlgs.push_back(d.path());
  std::sort(dlgs.begin(), dlgs.end());
  for (const auto& d : dlgs) {
    std::vector<std::string> in_dlg;
    std::error_code ec2;
    for (const auto& s : fs::directory_iterator(d / ".murmur", ec2))
      if (ids::is_valid(s.path().filename().string(), ids::session)) in_dlg.push_back(s.path().string());
    std::sort(in_dlg.begin(), in_dlg.end());
    for (auto& s : in_dlg) out.push_back(std::move(s));
  }
  return out;
}

std::vector<SessionTrace> child_sessions(const std::string& session_dir) {
  std::vector<SessionTrace> out;
  for (const auto& dir : child_session_dirs(session_dir)) {
    auto t = read_session_trace(dir);
    if (!t) continue;
    auto below = child_sessions(t->path);
    out.push_back(std::move(*t));
    for (auto& b : below) out.push_back(std::move(b));
  }
  return out;
}

std::vector<SessionTrace> formation_sessions(const std::string& frm) {
  std::vector<SessionTrace> out;
  std::set<std::string> seen;
  for (const auto& root : formation_roots(frm)) {
    std::error_code ec;
    for (const auto& s : fs::directory_iterator(root, ec)) {
      const std::string name = s.path().filename().string();
      if (!ids::is_valid(name, ids::session) || seen.count(name)) continue;
      auto t = read_session_trace(s.path().string());
      if (!t || t->formation_id != frm) continue;
      seen.insert(name);
      out.push_back(std::move(*t));
    }
  }
  std::sort(out.begin(), out.end(), [](const SessionTrace& a, const SessionTrace& b) { return a.session_id < b.session_id; });
  const std::size_t members = out.size();
  for (std::size_t i = 0; i < members; ++i)
    for (auto& c : child_sessions(out[i].path)) out.push_back(std::move(c));
  return out;
}

std::optional<SessionTrace> find_session(const std::string& ses, const std::string& workdir_hint) {
  if (!ids::is_valid(ses, ids::session)) return std::nullopt;
  std::vector<std::string> roots{cwd() + "/.murmur"};
  if (!workdir_hint.empty()) roots.push_back(workdir_hint + "/.murmur");
  std::error_code ec;
  for (const auto& f : fs::directory_iterator(formations_root(), ec))
    for (const auto& m : fs::directory_iterator(f.path(), ec))
      if (m.is_directory()) roots.push_back(m.path().string() + "/.murmur");
  for (const auto& root : roots)
    if (auto t = read_session_trace(root + "/" + ses)) return t;
  // A delegated child's: under some session's children/<dlg>/.murmur/, at any depth.
  std::function<std::optional<SessionTrace>(const fs::path&, int)> below = [&](const fs::path& dir, int depth)
    -> std::optional<SessionTrace> {
    if (depth > 8) return std::nullopt;
    std::error_code e;
    for (const auto& d : fs::directory_iterator(dir / "children", e)) {
      if (!d.is_directory() || d.is_symlink()) continue;
      const fs::path root = d.path() / ".murmur";
      if (auto t = read_session_trace((root / ses).string())) return t;
      std::error_code e2;
      for (const auto& s : fs::directory_iterator(root, e2))
        if (ids::is_valid(s.path().filename().string(), ids::session))
          if (auto t = below(s.path(), depth + 1)) return t;
    }
    return std::nullopt;
  };
  for (const auto& root : roots) {
    std::error_code e;
    for (const auto& s : fs::directory_iterator(root, e))
      if (ids::is_valid(s.path().filename().string(), ids::session))
        if (auto t = below(s.path(), 0)) return t;
  }
  return std::nullopt;
}

std::string ending_of(const SessionTrace& t, bool running) {
  if (running) return "still running";
  if (t.formation_ended) return "formation_ended" + (t.session_end ? ", session_end " + *t.session_end : std::string());
  if (t.spawner_ended) return "spawner_ended" + (t.session_end ? ", session_end " + *t.session_end : std::string());
  if (t.session_end) return "session_end " + *t.session_end;
  return "no session_end";
}

} // namespace mur
