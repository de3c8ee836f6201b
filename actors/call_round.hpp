// call_round.hpp — the calls of a task's current round: each from the moment the task claims it
// until its outcome is delivered in the round's one continuation.
//
// Invariant: at most one call per member (and per capsule target) is in a round, so a second call
// to a member is refused until the first one's outcome has been delivered; a call arrives at most
// once; outcomes are handed out in the order they arrived.
// Rule: one open call per callee at a time; a round's outcomes all reach the model in one
// continuation (docs/spec/formation.md §How a member gives another work).
#pragma once

#include "messages/wire/member_call.hpp"

#include <caf/actor_clock.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mur {

struct RoundCall {
  std::string call_id;
  std::string member;          // the callee, or "capsule:<name>" for a delegation
  std::string member_task_id;
  std::string task_text;       // what was sent
  caf::actor_clock::time_point made;
  std::function<void(std::string, bool)> on_result; // its tool result (text, is it an error)
  std::optional<CallEnded> ended; // once arrived (its output already cut)
  bool truncated = false;
};

class CallRound {
public:
  void claim(RoundCall c) { calls_.push_back(std::move(c)); }
  // Forgets a call the egress refused (nothing was sent).
  void drop(const std::string& call_id);
  RoundCall* find(const std::string& call_id);
  const RoundCall* of_member(const std::string& member) const;
  // Records an outcome; false when the call is not in the round or arrived already.
  bool arrive(CallEnded ended, bool truncated);

  bool empty() const { return calls_.empty(); }
  bool any_out() const;
  std::size_t children_out() const;
  const std::vector<RoundCall>& calls() const { return calls_; }
  // The calls that arrived, in the order they did.
  std::vector<const RoundCall*> arrived() const;
  void clear();

private:
  std::vector<RoundCall> calls_;
  std::vector<std::string> arrival_; // call ids, in the order their outcomes arrived
};

} // namespace mur
