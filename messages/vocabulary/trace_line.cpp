// trace_line.cpp — see trace_line.hpp.
#include "messages/vocabulary/trace_line.hpp"

#include "messages/vocabulary/strict_json.hpp"

#include <cstring>

namespace mur {
namespace {

using json = nlohmann::json;

enum class Kind { text, count, flag, id_or_null, texts, pairs };

struct Field {
  const char* name;
  Kind kind;
};

// Every field a reader of traces looks at, with the type docs/traces.md gives it.
constexpr Field known[] = {
  {"event_type", Kind::text}, {"event_id", Kind::text}, {"parent_id", Kind::id_or_null},
  {"session_id", Kind::text}, {"timestamp", Kind::count},
  {"formation_id", Kind::text}, {"formation_member", Kind::text}, {"capsule_name", Kind::text},
  {"capsule_version", Kind::text}, {"formation_callees", Kind::texts}, {"spawned_by", Kind::text},
  {"delegation", Kind::text}, {"task_id", Kind::text}, {"origin", Kind::text}, {"text", Kind::text},
  {"submitter", Kind::text}, {"exit_status", Kind::text}, {"state", Kind::text}, {"turns", Kind::count},
  {"answer", Kind::text}, {"reason", Kind::text}, {"no_answer_below", Kind::pairs}, {"call_id", Kind::text},
  {"member", Kind::text}, {"member_task_id", Kind::text}, {"status", Kind::text},
  {"duration_ms", Kind::count}, {"since_call_ms", Kind::count}, {"output", Kind::text},
  {"truncated", Kind::flag}, {"delivered", Kind::flag}, {"task", Kind::text}, {"capsule", Kind::text},
  {"cause", Kind::text}, {"child_session", Kind::text}, {"child_task_id", Kind::text},
  {"continuation_number", Kind::count}, {"member_calls", Kind::count}, {"delegations", Kind::count},
  {"waited_ms", Kind::count}, {"refusal", Kind::text}, {"model", Kind::text},
  {"prompt_tokens", Kind::count}, {"completion_tokens", Kind::count}, {"reasoning_tokens", Kind::count},
  {"retries", Kind::count},
  {"decision", Kind::text}, {"tool", Kind::text}, {"turn", Kind::count}, {"error", Kind::text},
};

bool count_ok(const json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(trace_int_max);
  if (!v.is_number_integer()) return false;
  const auto n = v.get<std::int64_t>();
  return n >= 0 && n <= trace_int_max;
}

bool has_kind(const json& v, Kind k) {
  switch (k) {
  case Kind::text: return v.is_string();
  case Kind::count: return count_ok(v);
  case Kind::flag: return v.is_boolean();
  case Kind::id_or_null: return v.is_string() || v.is_null();
  case Kind::texts:
    if (!v.is_array()) return false;
    for (const auto& s : v)
      if (!s.is_string()) return false;
    return true;
  case Kind::pairs:
    if (!v.is_array()) return false;
    for (const auto& o : v) {
      if (!o.is_object()) return false;
      for (const auto& [key, s] : o.items())
        if (!s.is_string()) return false;
    }
    return true;
  }
  return false;
}

// The field an event of this type cannot be read without ("" for none).
const char* required_of(const std::string& type) {
  if (type == "member_call" || type == "member_call_start" || type == "member_call_busy" ||
      type == "delegation" || type == "delegation_start")
    return "call_id";
  if (type == "task_start" || type == "task_end" || type == "task_continued") return "task_id";
  return "";
}

} // namespace

bool blank_trace_line(std::string_view line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r') return false;
  return true;
}

std::optional<json> read_trace_line(std::string_view line) {
  try {
    auto parsed = parse_bounded_json(line);
    if (!parsed || !parsed->is_object()) return std::nullopt;
    const json& e = *parsed;
    auto type = e.find("event_type");
    auto ts = e.find("timestamp");
    if (type == e.end() || ts == e.end()) return std::nullopt;
    for (const auto& f : known) {
      auto it = e.find(f.name);
      if (it != e.end() && !has_kind(*it, f.kind)) return std::nullopt;
    }
    const char* required = required_of(type->get<std::string>());
    if (*required && !e.contains(required)) return std::nullopt;
    return parsed;
  } catch (...) { // nothing above throws on a line that parsed; a line is never worth a failure
    return std::nullopt;
  }
}

TraceLines read_trace_lines(std::string_view text) {
  TraceLines out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) break;
    const std::string_view line = text.substr(start, nl - start);
    start = nl + 1;
    if (blank_trace_line(line)) continue;
    if (auto e = read_trace_line(line)) out.events.push_back(std::move(*e));
    else ++out.unreadable;
  }
  out.tail = text.size() - start;
  return out;
}

} // namespace mur
