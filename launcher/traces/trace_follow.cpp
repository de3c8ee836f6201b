#include "launcher/traces/trace_follow.hpp"
#include "launcher/traces/trace_growth.hpp"

#include "launcher/traces/trace_fields.hpp"
#include "launcher/traces/trace_tree.hpp"
#include "messages/vocabulary/iso_time.hpp"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <sstream>

namespace mur {
namespace {

using json = nlohmann::json;
using trace_fields::num;
using trace_fields::str;

std::string secs(std::int64_t ms) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(2) << ms / 1000.0 << "s";
  return o.str();
}

// The first whole line of a file ("" when it has none yet).

constexpr std::size_t watch_width = 60;

} // namespace

std::string watch_line(const json& e, const std::string& member, std::map<std::string, std::string>& origins) {
  const std::string type = str(e, "event_type");
  const std::string who = member.empty() ? "-" : member;
  const std::string arrow = " \xE2\x86\x92 ";
  std::string what;
  if (type == "task_start") {
    const std::string from = str(e, "submitter").empty() ? "user" : str(e, "submitter");
    const bool peer = str(e, "origin") == "peer";
    origins[str(e, "task_id")] = peer ? "" : from;
    if (peer) return "";
    what = from + arrow + who + "  task  started";
    if (!str(e, "text").empty()) what += "  \"" + shortened(str(e, "text"), watch_width) + "\"";
  } else if (type == "task_end") {
    auto it = origins.find(str(e, "task_id"));
    if (it != origins.end() && it->second.empty()) return "";
    what = (it == origins.end() ? std::string("user") : it->second) + arrow + who + "  answer  " + str(e, "exit_status");
    const std::string text = str(e, "answer").empty() ? str(e, "reason") : str(e, "answer");
    if (!text.empty()) what += "  \"" + shortened(text, watch_width) + "\"";
  } else if (type == "member_call_start") {
    what = who + arrow + str(e, "member") + "  call  started";
  } else if (type == "member_call_busy") {
    what = who + arrow + str(e, "member") + "  call  busy";
  } else if (type == "member_call") {
    what = who + arrow + str(e, "member") + "  answer  " + str(e, "status") + "  " + secs(num(e, "duration_ms"));
    if (!str(e, "output").empty()) what += "  \"" + shortened(str(e, "output"), watch_width) + "\"";
  } else if (type == "delegation_start") {
    what = who + arrow + "capsule:" + str(e, "capsule") + "  delegate  started";
  } else if (type == "delegation") {
    what = who + arrow + "capsule:" + str(e, "capsule") + "  answer  " + str(e, "status") + "  " + secs(num(e, "duration_ms"));
    if (!str(e, "output").empty()) what += "  \"" + shortened(str(e, "output"), watch_width) + "\"";
  } else if (type == "call_refused" && !str(e, "capsule").empty()) {
    what = who + arrow + "capsule:" + str(e, "capsule") + "  delegate  refused";
    if (!str(e, "reason").empty()) what += "  \"" + shortened(str(e, "reason"), watch_width) + "\"";
  } else if (type == "call_refused") {
    what = who + arrow + str(e, "member") + "  call  refused";
    if (!str(e, "reason").empty()) what += "  \"" + shortened(str(e, "reason"), watch_width) + "\"";
  } else if (type == "tool_call" && !str(e, "server").empty()) { // one of the capsule's own tools
    what = who + arrow + str(e, "server") + "  tool  " + str(e, "tool") + "  " +
           (trace_fields::flag(e, "is_error") ? "error" : "ok") + "  " + secs(num(e, "duration_ms"));
  } else if (type == "end_without_answer_refused") {
    what = who + "  end-without-answer  refused";
    if (!str(e, "refusal").empty()) what += "  \"" + shortened(str(e, "refusal"), watch_width) + "\"";
  } else {
    return "";
  }
  const std::string iso = iso_utc_ms(num(e, "timestamp")); // YYYY-MM-DDTHH:MM:SS.mmmZ
  return iso.substr(11, 12) + "  " + what;
}

TraceFollower::TraceFollower(std::string formation_id, std::string project_dir)
    : formation_id_(std::move(formation_id)), project_dir_(std::move(project_dir)), sessions_(formation_id_, project_dir_) {}

std::vector<std::string> TraceFollower::poll(bool all) {
  // New sessions of the formation.
  sessions_.scan([this](const std::string& dir, const nlohmann::json* first) {
    if (first != nullptr) files_[dir + "/trace.jsonl"] = File{str(*first, "formation_member"), 0};
  });
  // What each file gained, whole lines only.
  for (auto& [path, f] : files_)
    for (auto& j : read_new_events(path, f.offset)) held_.push_back(Held{num(j, "timestamp"), read_++, f.member, std::move(j)});
  std::stable_sort(held_.begin(), held_.end(),
                   [](const Held& a, const Held& b) { return a.at != b.at ? a.at < b.at : a.order < b.order; });
  const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch()).count();
  std::size_t due = 0;
  while (due < held_.size() && (all || held_[due].at <= now - settle_ms)) ++due;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < due; ++i) {
    std::string line = watch_line(held_[i].event, held_[i].member, origin_);
    if (!line.empty()) out.push_back(std::move(line));
  }
  held_.erase(held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(due));
  return out;
}

} // namespace mur
