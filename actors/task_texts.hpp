// task_texts.hpp — what a task actor tells its model about its tool calls, in the project's words.
//
// Invariant: these texts carry member names, call ids, statuses and the door's or egress's own
// reasons — never a token, a URL or a port. A tool error always says that nothing was sent.
// Rule: a repeat call to a callee with a call open is refused, nothing sent; a reply made
// despite a missing answer gets a line naming the members it lacks
// (docs/spec/formation.md §How a member gives another work).
#pragma once

#include "messages/wire/a2a_task.hpp"
#include "messages/wire/member_call.hpp"

#include <string>
#include <vector>

namespace mur::task_texts {

// call-member results, by how the call started.
std::string call_started(const CallStart& start, const std::string& member);
std::string call_busy(const CallStart& start, const std::string& member);
std::string call_ended_at_once(const CallStart& start, const std::string& member, bool sent_by_member);

// call-member tool errors (nothing was sent).
std::string tool_error(const std::string& text);
std::string not_callable(const std::string& member, const std::vector<std::string>& callees);
// A delegation to a capsule outside spawn.allow, or one too many at once.
std::string not_spawnable(const std::string& capsule, const std::vector<std::string>& capsules);
std::string too_many_children(std::size_t at_once);
std::string still_pending(const std::string& member, const std::string& call_id);
std::string call_while_ending(const std::string& member);
// A call that would loop back to a member above (`path` ends with the callee), or go deeper than
// the formation's max_depth.
std::string call_cycle(const std::string& path);
std::string call_too_deep(int depth, int max_depth);

// A canceled task's status: who canceled it, everything canceled below it (`below`, deeper
// levels included) and the callees that did not confirm.
std::string canceled(const std::string& by, const std::vector<NoAnswer>& below, const std::vector<std::string>& unconfirmed);

// end-without-answer refusals, in the order they are checked, and its acceptance.
std::string ewa_no_callees();
std::string ewa_not_member_sent();
std::string ewa_call_out(const std::string& member, const std::string& call_id);
std::string ewa_blank_reason();
std::string ewa_already_ending();
std::string ewa_accepted();
// The status of a task that completed with an empty answer after `refusal` (an ewa_* text).
std::string empty_after_refused_ending(const std::string& refusal);

// The line appended to an answer given without answers from the members in `report`.
std::string answered_without(const std::vector<NoAnswer>& report);

// A member's answer as the model reads it back: its output, or its no-answer text.
std::string answer_text(const CallEnded& ended);

} // namespace mur::task_texts
