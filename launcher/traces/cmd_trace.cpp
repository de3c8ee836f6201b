#include "launcher/traces/cmd_trace.hpp"
#include "messages/vocabulary/terminal_text.hpp"

#include "launcher/base/formation_dirs.hpp"
#include "launcher/base/launcher_record.hpp"
#include "launcher/traces/session_traces.hpp"
#include "launcher/traces/trace_follow.hpp"
#include "launcher/traces/trace_tree.hpp"
#include "launcher/traces/trace_usage.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/vocabulary/ids.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <iomanip>
#include <map>
#include <iostream>
#include <sstream>
#include <thread>

namespace mur {
namespace {

using json = nlohmann::json;

bool running(const SessionTrace& t) {
  auto r = read_running_record(t.session_id);
  return r && record_is_live(*r);
}

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string seconds(std::int64_t ms) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(2) << ms / 1000.0 << "s";
  return o.str();
}

// A member's later sessions in one formation are its restarts (roster `restart:`): for each such
// session, which restart it is and the session it took over from (sessions come in start order).
struct RestartOf {
  int number = 0;
  std::string after;
};
std::map<std::string, RestartOf> restarts_of(const std::vector<SessionTrace>& sessions) {
  std::map<std::string, RestartOf> out;
  std::map<std::string, std::pair<int, std::string>> seen; // member → sessions so far, the last one
  for (const auto& s : sessions) {
    if (s.member.empty() || !s.spawned_by.empty() || s.formation_id.empty()) continue;
    auto& [count, last] = seen[s.member];
    if (count > 0) out[s.session_id] = RestartOf{count, last};
    ++count;
    last = s.session_id;
  }
  return out;
}

json member_json(const SessionTrace& t) {
  const auto& m = t.model;
  // Token counts no server reported are null (an agent program's turns report none).
  auto reported = [](int reports, std::int64_t n) { return reports > 0 ? json(n) : json(nullptr); };
  json model = m.requests == 0 ? json(nullptr)
                               : json{{"requests", m.requests}, {"duration_ms", m.duration_ms},
                                      {"prompt_tokens", reported(m.token_reports, m.prompt_tokens)},
                                      {"completion_tokens", reported(m.token_reports, m.completion_tokens)},
                                      {"reasoning_tokens", reported(m.reasoning_reports, m.reasoning_tokens)},
                                      {"retries", m.retries}, {"failed", m.failed}};
  return json{{"model", model}, {"usage", usage_shape(priced(t.usage, t.price))},
              {"price", t.price ? price_json(*t.price) : json(nullptr)}, {"member", t.member}, {"session_id", t.session_id}, {"capsule", t.capsule}, {"version", t.version},
              {"callees", t.callees}, {"tasks", t.tasks}, {"formation_ended", t.formation_ended},
              {"spawned_by", t.spawned_by.empty() ? json(nullptr) : json(t.spawned_by)},
              {"delegation", t.delegation.empty() ? json(nullptr) : json(t.delegation)},
              {"spawner_ended", t.spawner_ended},
              {"session_end", t.session_end ? json(*t.session_end) : json(nullptr)},
              {"ending", ending_of(t, running(t))}, {"dir", t.path}, {"unreadable_lines", t.unreadable},
              {"write_failed", t.write_failure.empty() ? json(nullptr) : json(t.write_failure)}};
}

// What every session's tasks spent: each spending once, each at its member's price.
PricedUsage total_usage(const std::vector<SessionTrace>& sessions) {
  PricedUsage total;
  for (const auto& s : sessions) add_priced(total, priced(s.usage, s.price));
  return total;
}

// "100 prompt + 20 completion tokens (5 reasoning)", or "n/a tokens" when no server reported any.
std::string model_tokens(const ModelTotals& m) {
  if (m.token_reports == 0) return "n/a tokens";
  return std::to_string(m.prompt_tokens) + " prompt + " + std::to_string(m.completion_tokens) + " completion tokens" +
         (m.reasoning_reports > 0 ? " (" + std::to_string(m.reasoning_tokens) + " reasoning)" : std::string());
}

std::string unreadable_lines(int n) { return std::to_string(n) + (n == 1 ? " line" : " lines") + " unreadable"; }

std::string named(const SessionTrace& t) {
  return (t.member.empty() ? t.capsule : t.member) + " (" + t.session_id + ")";
}

// What the traces say of themselves: lines skipped (W-TRC-001), writes that failed (W-TRC-002).
std::vector<Failure> trace_warnings(const std::vector<SessionTrace>& sessions) {
  std::vector<Failure> out;
  for (const auto& s : sessions) {
    if (s.unreadable > 0)
      out.emplace_back("W-TRC-001",
                       unreadable_lines(s.unreadable) + " in the trace of " + named(s) +
                         ": skipped (not events as mur writes them)",
                       "nothing to repair: every other line is shown; see what was written in " + s.path + "/trace.jsonl");
    if (!s.write_failure.empty())
      out.emplace_back("W-TRC-002", "the trace of " + named(s) + " is incomplete: " + s.write_failure,
                       "free space on the file system that holds " + s.path + " (df -h); what the lost lines said is gone");
  }
  return out;
}

json call_json(const TracedCall& c) {
  return json{{"call_id", c.call_id}, {"caller", c.caller}, {"callee", c.callee}, {"status", c.status},
              {"duration_ms", c.duration_ms}, {"delivered", c.delivered}};
}

std::vector<SessionEvents> events_of(const std::vector<SessionTrace>& sessions) {
  std::vector<SessionEvents> out;
  for (const auto& s : sessions) out.push_back(SessionEvents{s.member, s.session_id, s.events});
  return out;
}

// How many characters of a text a tree line shows without --full.
constexpr std::size_t short_texts = 80;
// How often --follow reads the trace files again.
constexpr std::chrono::milliseconds follow_every{100};

bool launcher_running(const std::string& frm) {
  auto r = read_launcher_record(frm);
  return r && launcher_is_live(*r);
}

} // namespace

int cmd_trace_follow(const std::string& frm) {
  if (!ids::is_valid(frm, ids::formation))
    throw Failure("E-TRC-003", "--follow watches a formation: '" + frm + "' is no formation id (frm_…)",
                  "pass the frm_… id that mur run --roster or mur ps printed; show a session with mur trace show ses_…");
  auto rec = read_launcher_record(frm);
  std::error_code ec;
  if (!(rec && launcher_is_live(*rec)) && !std::filesystem::exists(formation_dir(frm), ec) && formation_sessions(frm).empty())
    throw Failure("E-TRC-002", "no formation " + frm + " is running or has a trace",
                  "list the formations with mur trace list; run it from the project directory");
  TraceFollower follower(frm, rec ? rec->project_dir : std::string());
  std::cout << "following formation " << frm << " (the members' trace files, read every " << follow_every.count()
            << " ms)\n" << std::flush;
  for (;;) {
    const bool running = launcher_running(frm); // before reading: what the files hold then is complete if it ended
    for (const auto& line : follower.poll(!running)) std::cout << terminal_safe(line) << "\n";
    std::cout << std::flush;
    if (!running) break;
    std::this_thread::sleep_for(follow_every);
  }
  std::cout << "formation " << frm << " ended\n";
  return exit_ok;
}

int cmd_trace_show(const std::string& target, bool as_json, bool full) {
  std::vector<SessionTrace> sessions;
  if (ids::is_valid(target, ids::formation)) {
    sessions = formation_sessions(target);
    if (sessions.empty())
      throw Failure("E-TRC-002", "no session of formation " + target + " was found",
                    "run it from the project directory, or check $MURMUR_HOME/formations/" + target);
  } else if (ids::is_valid(target, ids::session)) {
    std::string hint;
    if (auto r = read_running_record(target)) hint = r->workdir;
    auto t = find_session(target, hint);
    if (!t) throw Failure("E-TRC-002", "no trace of session " + target + " was found", "run it from the session's workdir");
    sessions.push_back(*t);
    for (auto& c : child_sessions(t->path)) sessions.push_back(std::move(c)); // its delegations' children
  } else {
    throw Failure("E-TRC-001", "'" + target + "' is neither a formation id (frm_…) nor a session id (ses_…)",
                  "copy the id from mur ps or from the launch's output");
  }

  std::vector<TracedCall> calls, delegations;
  for (const auto& s : sessions) {
    calls.insert(calls.end(), s.calls.begin(), s.calls.end());
    delegations.insert(delegations.end(), s.delegations.begin(), s.delegations.end());
  }
  if (as_json) {
    json members = json::array(), cs = json::array(), ds = json::array();
    const auto restarts = restarts_of(sessions);
    for (const auto& s : sessions) {
      members.push_back(member_json(s));
      const auto r = restarts.find(s.session_id);
      members.back()["restart"] = r == restarts.end() ? 0 : r->second.number;
      members.back()["restart_after"] = r == restarts.end() ? json(nullptr) : json(r->second.after);
    }
    for (const auto& c : calls) cs.push_back(call_json(c));
    for (const auto& d : delegations) ds.push_back(call_json(d));
    const TraceTree tree = build_trace_tree(events_of(sessions));
    int unreadable = 0;
    for (const auto& s : sessions) unreadable += s.unreadable;
    json warnings = json::array();
    for (const auto& w : trace_warnings(sessions))
      warnings.push_back(json{{"code", w.code()}, {"message", w.message()}, {"fix", w.fix()}});
    json out{{"members", members}, {"usage", usage_shape(total_usage(sessions))}, {"calls", cs}, {"delegations", ds},
             {"started_ms", tree.started_at},
             {"tasks", trace_tree_json(tree)}, {"unreadable_lines", unreadable}, {"warnings", warnings}};
    if (!sessions.front().formation_id.empty()) out["formation_id"] = sessions.front().formation_id;
    else out["session_id"] = sessions.front().session_id;
    std::cout << out.dump() << "\n";
    return exit_ok;
  }
  // Every text of the traces (members' names, tasks, answers, reasons) as a terminal may show it.
  std::ostringstream o;
  if (!sessions.front().formation_id.empty()) o << "formation " << sessions.front().formation_id << "\n";
  o << "members:\n";
  const auto restarts = restarts_of(sessions);
  for (const auto& s : sessions) {
    const auto r = restarts.find(s.session_id);
    o << "  " << std::left << std::setw(10) << (s.member.empty() ? "-" : s.member) << " " << s.session_id << "  "
              << s.capsule << "@" << s.version << "  " << s.tasks << " task(s)  " << ending_of(s, running(s))
              << (s.callees.empty() ? std::string() : "  may call " + joined(s.callees, ", "))
              << (r == restarts.end() ? std::string()
                                      : "  restart " + std::to_string(r->second.number) + ", after " + r->second.after)
              << "\n";
  }
  for (const auto& s : sessions) {
    const auto& m = s.model;
    if (m.requests == 0) continue;
    o << "  " << std::left << std::setw(10) << (s.member.empty() ? "-" : s.member) << " model: " << m.requests
              << " request(s), " << seconds(m.duration_ms) << ", " << model_tokens(m)
              << (m.retries ? ", " + std::to_string(m.retries) + " retried" : std::string())
              << (m.failed ? ", " + std::to_string(m.failed) + " failed" : std::string()) << "\n";
  }
  if (!total_usage(sessions).usage.is_zero()) {
    o << "usage (what each member's tasks spent themselves):\n";
    for (const auto& s : sessions)
      if (!s.usage.is_zero())
        o << "  " << std::left << std::setw(10) << (s.member.empty() ? "-" : s.member) << " "
          << usage_words(priced(s.usage, s.price)) << "\n";
    o << "  " << std::left << std::setw(10) << (sessions.front().formation_id.empty() ? "in all" : "formation") << " "
      << usage_words(total_usage(sessions)) << "\n";
  }
  for (const auto& w : trace_warnings(sessions))
    o << "warning[" << w.code() << "]: " << w.message() << " — Fix: " << w.fix() << "\n";
  const TraceTree tree = build_trace_tree(events_of(sessions));
  o << "tasks (offsets from the first session's start):" << (tree.roots.empty() ? " none" : "") << "\n";
  o << render_trace_tree(tree, full ? 0 : short_texts);
  std::cout << terminal_safe(o.str());
  return exit_ok;
}

} // namespace mur
