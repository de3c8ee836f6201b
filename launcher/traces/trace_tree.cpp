#include "launcher/traces/trace_tree.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "launcher/traces/trace_fields.hpp"
#include "launcher/traces/trace_usage.hpp"

namespace mur {
namespace {

// An object field of an event, or null.
nlohmann::json object_at(const nlohmann::json& e, const char* key) {
  auto it = e.find(key);
  return it != e.end() && it->is_object() ? *it : nlohmann::json();
}

using json = nlohmann::json;

using trace_fields::flag;
using trace_fields::num;
using trace_fields::str;

struct Builder {
  std::map<std::string, std::unique_ptr<TaskNode>> tasks; // by task id
  std::vector<std::string> read_order;                    // task ids, as read
  std::map<std::string, CallNode> calls;                  // by call id (or a made-up key)
  std::vector<std::pair<std::string, std::string>> call_owner; // (call key, caller task id), as read

  TaskNode& task(const std::string& id, const SessionEvents& s, std::int64_t at) {
    auto& slot = tasks[id];
    if (!slot) { // a task whose task_start this trace lacks: named by what refers to it
      slot = std::make_unique<TaskNode>();
      slot->task_id = id, slot->member = s.member, slot->session_id = s.session_id;
      slot->status = "running";
      slot->started_at = at;
      read_order.push_back(id);
    }
    return *slot;
  }

  CallNode& call(const std::string& key, const std::string& owner, const SessionEvents& s) {
    auto [it, fresh] = calls.try_emplace(key);
    if (fresh) {
      it->second.caller = s.member;
      it->second.status = "running";
      call_owner.emplace_back(key, owner);
    }
    return it->second;
  }

  // A call's or delegation's start (`started`) or its end. The end is written when its answer is
  // delivered: since_call_ms (when recorded) says how long ago the call was made; else it ended
  // then, duration_ms after it began.
  static void call_event(CallNode& c, const json& e, std::int64_t at, bool started) {
    if (!str(e, "task").empty()) c.text = str(e, "task");
    if (started) {
      if (c.started_at == 0) c.started_at = at;
      return;
    }
    c.status = str(e, "status");
    c.duration_ms = num(e, "duration_ms");
    c.started_at = at - (e.contains("since_call_ms") ? num(e, "since_call_ms") : c.duration_ms);
    c.output = str(e, "output");
    c.delivered = flag(e, "delivered"), c.truncated = flag(e, "truncated");
  }

  void read(const SessionEvents& s) {
    int refusals = 0, tool_calls = 0;
    const std::optional<TokenPrice> price = price_of_session(s.events);
    for (const auto& e : s.events) {
      if (!e.is_object()) continue;
      const std::string type = str(e, "event_type");
      const std::int64_t at = num(e, "timestamp");
      const std::string task_id = str(e, "task_id");
      if (type == "task_start" && !task_id.empty()) {
        TaskNode& t = task(task_id, s, at);
        t.price = price;
        t.started_at = at;
        t.origin = str(e, "origin"), t.submitter = str(e, "submitter"), t.text = str(e, "text");
        t.budget = object_at(e, "budget");
      } else if (type == "task_end" && !task_id.empty()) {
        TaskNode& t = task(task_id, s, at);
        t.price = price;
        t.status = str(e, "exit_status");
        if (t.status.empty()) t.status = "ended";
        t.state = str(e, "state"), t.answer = str(e, "answer"), t.reason = str(e, "reason");
        t.turns = static_cast<int>(num(e, "turns"));
        if (auto it = e.find("no_answer_below"); it != e.end() && it->is_array())
          for (const auto& n : *it)
            if (n.is_object()) t.no_answer_below.push_back(str(n, "member") + " " + str(n, "status"));
        t.duration_ms = std::max<std::int64_t>(0, at - t.started_at);
        t.usage = object_at(e, "usage");
        t.own_usage = object_at(e, "own_usage");
        if (e.contains("budget")) t.budget = object_at(e, "budget");
      } else if ((type == "member_call_start" || type == "member_call") && !str(e, "call_id").empty()) {
        CallNode& c = call(str(e, "call_id"), task_id, s);
        c.call_id = str(e, "call_id");
        c.callee = str(e, "member");
        if (!str(e, "member_task_id").empty()) c.member_task_id = str(e, "member_task_id");
        call_event(c, e, at, type == "member_call_start");
      } else if ((type == "delegation_start" || type == "delegation") && !str(e, "call_id").empty()) {
        CallNode& c = call(str(e, "call_id"), task_id, s);
        c.kind = "delegation";
        c.tool = "delegate";
        c.call_id = str(e, "call_id");
        c.callee = "capsule:" + str(e, "capsule");
        if (!str(e, "child_task_id").empty()) c.member_task_id = str(e, "child_task_id");
        if (!str(e, "child_session").empty()) c.child_session = str(e, "child_session");
        call_event(c, e, at, type == "delegation_start");
      } else if (type == "call_refused") {
        const std::string key = "refused/" + s.session_id + "/" + std::to_string(refusals++);
        CallNode& c = call(key, task_id, s);
        c.callee = str(e, "member");
        if (!str(e, "capsule").empty()) c.kind = "delegation", c.tool = "delegate", c.callee = "capsule:" + str(e, "capsule");
        c.status = "refused";
        c.started_at = at;
        c.duration_ms = 0;
        c.reason = str(e, "reason");
        c.text = str(e, "task");
      } else if (type == "tool_call" && !str(e, "server").empty()) { // one of the capsule's own tools
        CallNode& c = call("tool/" + s.session_id + "/" + std::to_string(tool_calls++), task_id, s);
        c.kind = "tool";
        c.tool = str(e, "tool");
        c.callee = str(e, "server");
        c.status = flag(e, "is_error") ? "error" : "ok";
        c.duration_ms = num(e, "duration_ms");
        c.started_at = at - c.duration_ms;
        c.arguments_bytes = num(e, "arguments_bytes");
      } else if (type == "inference" && !task_id.empty()) {
        task(task_id, s, at).model_requests.push_back(model_request_of(e, at));
      } else if (type == "end_without_answer_refused") { // shown like a refused call, under its task
        const std::string key = "refused/" + s.session_id + "/" + std::to_string(refusals++);
        CallNode& c = call(key, task_id, s);
        c.tool = "end-without-answer";
        c.status = "refused";
        c.started_at = at;
        c.duration_ms = 0;
        c.reason = str(e, "refusal");
        c.text = str(e, "reason");
      }
    }
  }

  // Moves task `id` out of the map with every task its calls reached, nested.
  std::unique_ptr<TaskNode> take(const std::string& id) {
    auto it = tasks.find(id);
    if (it == tasks.end()) return nullptr;
    std::unique_ptr<TaskNode> t = std::move(it->second);
    tasks.erase(it);
    for (auto& c : t->calls)
      if (!c.member_task_id.empty()) c.task = take(c.member_task_id);
    return t;
  }
};

template <class T>
void by_start(std::vector<T>& v) {
  std::stable_sort(v.begin(), v.end(), [](const T& a, const T& b) { return a.started_at < b.started_at; });
}

} // namespace

TraceTree build_trace_tree(const std::vector<SessionEvents>& sessions) {
  TraceTree tree;
  Builder b;
  for (const auto& s : sessions) {
    b.read(s);
    for (const auto& e : s.events)
      if (e.is_object() && str(e, "event_type") == "session_start") {
        const std::int64_t at = num(e, "timestamp");
        if (tree.started_at == 0 || at < tree.started_at) tree.started_at = at;
      }
  }
  // Each call to its caller's task (a call of no known task still shows, under a stand-in).
  for (const auto& [key, owner] : b.call_owner) {
    CallNode& c = b.calls[key];
    SessionEvents who{c.caller, "", {}};
    TaskNode& t = b.task(owner.empty() ? "(no task)" : owner, who, c.started_at);
    t.calls.push_back(std::move(c));
  }
  // Which tasks a call claims: the callee's task, when its member is the callee.
  std::set<std::string> claimed;
  for (const auto& [id, t] : b.tasks)
    for (const auto& c : t->calls) {
      auto callee = b.tasks.find(c.member_task_id);
      if (c.member_task_id.empty() || callee == b.tasks.end() || callee->first == id) continue;
      if (!callee->second->member.empty() && !c.callee.empty() && callee->second->member != c.callee) continue;
      claimed.insert(c.member_task_id);
    }
  for (auto& [id, t] : b.tasks) {
    // A recorder stamps an event when it writes it, so a busy member may stamp its task_start a
    // little late: a call is never shown as starting before the task that made it.
    for (auto& c : t->calls)
      if (t->started_at > 0 && c.started_at < t->started_at) c.started_at = t->started_at;
    by_start(t->calls);
    // Likewise the task a call made in another member: stamped by another recorder, it may read a
    // millisecond before its caller's task_start; it is never shown as starting before it.
    for (const auto& c : t->calls) {
      if (!claimed.count(c.member_task_id)) continue;
      auto callee = b.tasks.find(c.member_task_id);
      if (callee != b.tasks.end() && t->started_at > 0 && callee->second->started_at < t->started_at)
        callee->second->started_at = t->started_at;
    }
    // A call naming a task that is not the callee's must not adopt it.
    for (auto& c : t->calls)
      if (!claimed.count(c.member_task_id)) c.member_task_id.clear();
  }
  std::vector<std::string> order;
  for (const auto& id : b.read_order)
    if (!claimed.count(id)) order.push_back(id);
  for (const auto& id : b.read_order)
    if (claimed.count(id)) order.push_back(id); // only reached if no root reaches it (a cycle)
  for (const auto& id : order)
    if (auto t = b.take(id)) tree.roots.push_back(std::move(*t));
  by_start(tree.roots);
  return tree;
}

PricedUsage task_usage(const TaskNode& t) {
  PricedUsage out = priced(usage_in(t.own_usage.is_object() ? t.own_usage : t.usage), t.price);
  for (const auto& c : t.calls)
    if (c.task) add_priced(out, PricedUsage{{}, task_usage(*c.task).cost}); // its callees' usage is in t.usage already
  out.usage = usage_in(t.usage);
  return out;
}

std::string shortened(const std::string& text, std::size_t width) {
  std::string one;
  one.reserve(text.size());
  for (char ch : text) one += (ch == '\n' || ch == '\r' || ch == '\t') ? ' ' : ch;
  while (!one.empty() && one.back() == ' ') one.pop_back();
  if (width == 0) return one;
  std::size_t chars = 0, i = 0;
  for (; i < one.size(); ++i) {
    if ((static_cast<unsigned char>(one[i]) & 0xC0) == 0x80) continue; // a continuation byte
    if (chars == width - 1) break;
    ++chars;
  }
  if (i >= one.size()) return one;
  // Does the rest fit in the one place "…" would take?
  std::size_t rest = 0;
  for (std::size_t k = i; k < one.size(); ++k) rest += (static_cast<unsigned char>(one[k]) & 0xC0) != 0x80;
  if (rest <= 1) return one;
  return one.substr(0, i) + "\xE2\x80\xA6";
}

namespace {

std::string secs(std::int64_t ms) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(2) << ms / 1000.0 << "s";
  return o.str();
}

std::string quoted(const std::string& text, std::size_t width) { return "\"" + shortened(text, width) + "\""; }

void render_task(std::ostringstream& out, const TaskNode& t, std::int64_t t0, int depth, std::size_t width);

void render_call(std::ostringstream& out, const CallNode& c, std::int64_t t0, int depth, std::size_t width) {
  out << std::string(depth * 2, ' ') << "+" << secs(c.started_at - t0) << "  " << (c.call_id.empty() ? "-" : c.call_id)
      << "  " << (c.caller.empty() ? "-" : c.caller);
  if (c.kind == "tool") {
    out << "  " << c.tool << "  " << c.status << "  " << secs(c.duration_ms) << "  (" << c.arguments_bytes
        << " B of arguments)\n";
    return;
  }
  if (c.tool == "end-without-answer") {
    out << "  end-without-answer  " << c.status << "  " << quoted(c.reason, width) << "  (reason given: "
        << quoted(c.text, width) << ")\n";
    return;
  }
  out << " \xE2\x86\x92 " << c.callee << "  " << c.status;
  if (c.duration_ms >= 0 && c.status != "refused") out << "  " << secs(c.duration_ms);
  if (!c.reason.empty()) out << "  " << quoted(c.reason, width);
  if (!c.task) { // nobody's trace holds the callee's side: show what the caller's holds
    if (!c.text.empty() || !c.output.empty())
      out << "  " << quoted(c.text, width) << " \xE2\x86\x92 " << quoted(c.output, width);
  }
  if (c.status == "completed" && !c.delivered) out << "  (not delivered)";
  out << "\n";
  if (c.task) render_task(out, *c.task, t0, depth + 1, width);
}

void render_task(std::ostringstream& out, const TaskNode& t, std::int64_t t0, int depth, std::size_t width) {
  out << std::string(depth * 2, ' ') << "+" << secs(t.started_at - t0) << "  " << (t.member.empty() ? "-" : t.member)
      << "  " << t.task_id << "  " << t.status;
  if (t.duration_ms >= 0) out << "  " << secs(t.duration_ms);
  const std::string& said = t.answer.empty() ? t.reason : t.answer;
  if (!t.text.empty() || !said.empty()) { // traces of an older mur hold no texts
    out << "  " << quoted(t.text, width) << " \xE2\x86\x92 ";
    if (t.duration_ms < 0) out << "\xE2\x80\xA6";
    else out << quoted(said, width);
  }
  for (std::size_t i = 0; i < t.no_answer_below.size(); ++i)
    out << (i == 0 ? "  (no answer from " : ", ") << t.no_answer_below[i] << (i + 1 == t.no_answer_below.size() ? ")" : "");
  if (t.usage.is_object()) out << "  usage: " << usage_words(task_usage(t));
  out << "\n";
  for (const auto& c : t.calls) render_call(out, c, t0, depth + 1, width);
}

json task_json(const TaskNode& t, std::int64_t t0);

json call_json(const CallNode& c, std::int64_t t0) {
  return json{{"kind", c.kind}, {"call_id", c.call_id}, {"caller", c.caller}, {"callee", c.callee}, {"status", c.status},
              {"child_session", c.child_session.empty() ? json(nullptr) : json(c.child_session)},
              {"start_ms", c.started_at - t0}, {"started_at", c.started_at},
              {"duration_ms", trace_fields::known(c.duration_ms)},
              {"delivered", c.delivered}, {"truncated", c.truncated}, {"text", c.text}, {"output", c.output},
              {"reason", c.reason}, {"tool", c.tool}, {"member_task_id", c.member_task_id},
              {"arguments_bytes", trace_fields::known(c.arguments_bytes)},
              {"task", c.task ? task_json(*c.task, t0) : json(nullptr)}};
}

json task_json(const TaskNode& t, std::int64_t t0) {
  json calls = json::array();
  for (const auto& c : t.calls) calls.push_back(call_json(c, t0));
  return json{{"task_id", t.task_id}, {"member", t.member}, {"session_id", t.session_id}, {"origin", t.origin},
              {"submitter", t.submitter}, {"status", t.status}, {"state", t.state},
              {"start_ms", t.started_at - t0}, {"started_at", t.started_at},
              {"duration_ms", trace_fields::known(t.duration_ms)}, {"turns", t.turns},
              {"text", t.text}, {"answer", t.answer}, {"reason", t.reason},
              {"no_answer_below", t.no_answer_below},
              {"usage", t.usage.is_object() ? usage_shape(task_usage(t)) : json(nullptr)},
              {"own_usage", t.own_usage.is_object() ? usage_shape(priced(usage_in(t.own_usage), t.price)) : json(nullptr)},
              {"budget", t.budget}, {"calls", calls},
              {"model_requests", model_requests_json(t.model_requests, t0)}};
}

} // namespace

std::string render_trace_tree(const TraceTree& tree, std::size_t width) {
  std::ostringstream out;
  for (const auto& t : tree.roots) render_task(out, t, tree.started_at, 0, width);
  return out.str();
}

json trace_tree_json(const TraceTree& tree) {
  json out = json::array();
  for (const auto& t : tree.roots) out.push_back(task_json(t, tree.started_at));
  return out;
}

} // namespace mur
