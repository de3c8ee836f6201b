#include "actors/task_texts.hpp"

#include "messages/vocabulary/comma_list.hpp"
#include "messages/wire/child_spawn.hpp"

#include <nlohmann/json.hpp>

namespace mur::task_texts {

namespace {

std::string result_json(const CallStart& start, const std::string& member, const std::string& output) {
  nlohmann::json j{{"call_id", start.call_id}};
  if (is_capsule_target(member)) j["capsule"] = capsule_of(member);
  else j["member"] = member;
  j["status"] = to_string(start.status);
  if (!start.member_task_id.empty()) j["task_id"] = start.member_task_id;
  if (!output.empty()) j["output"] = output;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

std::string call_started(const CallStart& start, const std::string& member) {
  return result_json(start, member, "") + "\n" + member +
         " is now working on this call. Its answer is not in this result and no tool fetches it: "
         "the runtime adds it to the conversation after you end your turn. Unless you have other "
         "work to give a different member, end your turn now by replying without a tool call. "
         "Calling " + member + " again before its answer arrives is refused.";
}

std::string call_busy(const CallStart& start, const std::string& member) {
  std::string out = result_json(start, member, member + " is busy and has not taken the task yet.") + "\n" +
                    "The runtime keeps offering " + member + " the task until the call deadline";
  if (!start.message.empty()) out += " (" + start.message + ")";
  out += ". After you end your turn, its answer, or word that it stayed busy, is added to the "
         "conversation.";
  return out;
}

std::string call_ended_at_once(const CallStart& start, const std::string& member, bool sent_by_member) {
  std::string out = result_json(start, member, start.message) + "\n" + "Call " + start.call_id + " to " +
                    member + " ended " + to_string(start.status) + " with no answer from " + member +
                    ". Do not present an answer of your own as " + member + "'s.";
  if (sent_by_member)
    out += " If there is no answer to give without " + member +
           ", call end-without-answer with the reason; your caller is told plainly.";
  return out;
}

std::string tool_error(const std::string& text) { return "tool error: " + text; }

std::string not_callable(const std::string& member, const std::vector<std::string>& callees) {
  if (callees.empty())
    return tool_error("this member has no call-member tool: the roster lets it call no member. "
                      "Nothing was sent.");
  return tool_error("\"" + member + "\" is not a member you may call; you may call: " + comma_list(callees) +
                    ". Nothing was sent.");
}

std::string not_spawnable(const std::string& capsule, const std::vector<std::string>& capsules) {
  if (capsules.empty())
    return tool_error("this member has no delegate tool: its capsule's capabilities.spawn.allow lists no "
                      "capsule. Nothing was started.");
  return tool_error("\"" + capsule + "\" is not a capsule you may delegate to; you may delegate to: " +
                    comma_list(capsules) +
                    ". Nothing was started.");
}

std::string too_many_children(std::size_t at_once) {
  return tool_error("this task already has " + std::to_string(at_once) +
                    " delegations out, the most that run at once; nothing was started. End your turn: "
                    "their answers are added after it, and you may delegate again then.");
}

std::string still_pending(const std::string& member, const std::string& call_id) {
  return tool_error("call " + call_id + " to " + member + " has not had its answer delivered yet, so "
                    "this call was refused and nothing was sent. End your turn now; the answer is "
                    "added after it.");
}

std::string call_while_ending(const std::string& member) {
  return tool_error("this task is ending without an answer, so nothing was sent to " + member + ".");
}

std::string call_cycle(const std::string& path) {
  return tool_error("the call would loop (" + path + "): that member is already waiting on this task further up, "
                    "so nothing was sent. Answer from what you have; the roster's allow_cycles: true permits such calls.");
}

std::string call_too_deep(int depth, int max_depth) {
  return tool_error("the call would start a task at depth " + std::to_string(depth) + ", past the formation's max_depth (" +
                    std::to_string(max_depth) + "), so nothing was sent. Answer from what you have.");
}

std::string empty_after_refused_ending(const std::string& refusal) {
  return "completed with an empty answer; end-without-answer was refused: " + refusal;
}

std::string ewa_no_callees() {
  return tool_error("end-without-answer is only for a member that may call other members or delegate; "
                    "this one may do neither.");
}

std::string ewa_not_member_sent() {
  return tool_error("this task was not sent by a formation member, so end-without-answer does not "
                    "apply. Reply in text instead, and say which part has no answer.");
}

std::string ewa_call_out(const std::string& member, const std::string& call_id) {
  return tool_error("call " + call_id + " to " + member + " is still out; its answer arrives after "
                    "this turn. Call end-without-answer only when nothing is left to wait for.");
}

std::string ewa_blank_reason() {
  return tool_error("end-without-answer needs a reason: give it as a sentence.");
}

std::string ewa_already_ending() { return tool_error("this task is already ending without an answer."); }

std::string ewa_accepted() { return "accepted: this task ends without an answer; your caller is told the reason."; }

std::string answered_without(const std::vector<NoAnswer>& report) {
  std::string names;
  for (const auto& n : report) names += (names.empty() ? "" : ", ") + n.member + " (" + n.status + ")";
  return "[runtime: this answer was given without answers from " + names + ".]";
}

std::string canceled(const std::string& by, const std::vector<NoAnswer>& below, const std::vector<std::string>& unconfirmed) {
  std::string out = "the task was canceled";
  if (by == "operator") out += " by the operator";
  else if (by.rfind("caller:", 0) == 0) out += " by its caller " + by.substr(7);
  else if (by == "session_ending") out += ": the session is ending";
  std::string names;
  for (const auto& n : below)
    if (n.status == "canceled") names += (names.empty() ? "" : ", ") + n.member;
  if (!names.empty()) out += "; canceled below it: " + names;
  std::string silent;
  for (const auto& u : unconfirmed) silent += (silent.empty() ? "" : "; ") + u;
  if (!silent.empty()) out += "; did not confirm the cancel: " + silent;
  return out;
}

std::string answer_text(const CallEnded& ended) {
  if (ended.status == CallStatus::completed) return ended.output;
  std::string out = ended.member + " gave no answer (" + to_string(ended.status) + ")";
  if (!ended.output.empty()) out += ": " + ended.output;
  return out;
}

} // namespace mur::task_texts
