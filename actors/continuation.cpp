#include "actors/continuation.hpp"

#include "actors/answer_fence.hpp"
#include "messages/wire/child_spawn.hpp"

namespace mur {

namespace {

bool completed(const CallEnded& o) { return o.status == CallStatus::completed; }

// "tester (timed_out), linter (no_answer)"
std::string list_below(const std::vector<NoAnswer>& below) {
  std::string out;
  for (const auto& b : below) {
    if (!out.empty()) out += ", ";
    out += b.member + " (" + b.status + ")";
  }
  return out;
}

std::string missing_line(const std::vector<CallEnded>& outcomes) {
  std::string names;
  for (const auto& o : outcomes) {
    if (completed(o)) continue;
    if (!names.empty()) names += "; ";
    names += o.member + " (call " + o.call_id + ", " + to_string(o.status);
    if (!o.below.empty()) names += "; further down, nothing came from " + list_below(o.below);
    names += ")";
  }
  if (names.empty()) return {};
  return "No answer came from: " + names +
         ". The work asked of them has not been done by them. Do not present an answer of your "
         "own as theirs.\n";
}

std::string stand_in_lines(const std::vector<CallEnded>& outcomes) {
  std::string out;
  for (const auto& o : outcomes) {
    if (!completed(o) || o.below.empty()) continue;
    out += o.member + " answered without answers from " + list_below(o.below) + ". Any part of " +
           o.member + "'s answer that stands in for them is " + o.member + "'s own, not theirs.\n";
  }
  return out;
}

std::string closing_line(bool gaps, bool sent_by_member) {
  if (!gaps)
    return "Every call has ended and its answer is above. Answer the task now; call a member "
           "again only to give it new work.";
  std::string out =
      "Answer with what you have and say which part has no answer, or call a member again if "
      "another attempt could succeed.";
  if (sent_by_member)
    out += " If there is no answer to give without them, call end-without-answer with the reason; "
           "your caller is told plainly that no answer came.";
  return out;
}

} // namespace

std::string outcome_phrase(const CallEnded& o) {
  if (completed(o)) return "completed";
  return to_string(o.status) + ", with no answer from " + o.member;
}

std::string build_continuation(const std::vector<CallEnded>& outcomes, bool sent_by_member) {
  std::string out;
  bool gaps = false;
  for (const auto& o : outcomes) {
    const bool child = is_capsule_target(o.member);
    out += (child ? "Delegation " : "Call ") + o.call_id + " to " + o.member + ": " + outcome_phrase(o) + ".\n";
    out += fence(child ? o.member : "member:" + o.member, o.output) + "\n";
    if (!completed(o) || !o.below.empty()) gaps = true;
  }
  out += missing_line(outcomes);
  out += stand_in_lines(outcomes);
  out += closing_line(gaps, sent_by_member);
  return out;
}

} // namespace mur
