// call_round.cpp — the calls of a task's current round (see call_round.hpp).
#include "actors/call_round.hpp"

#include "messages/wire/child_spawn.hpp"

#include <algorithm>

namespace mur {

void CallRound::drop(const std::string& call_id) {
  calls_.erase(std::remove_if(calls_.begin(), calls_.end(), [&](const RoundCall& c) { return c.call_id == call_id; }),
               calls_.end());
}

RoundCall* CallRound::find(const std::string& call_id) {
  for (auto& c : calls_)
    if (c.call_id == call_id) return &c;
  return nullptr;
}

const RoundCall* CallRound::of_member(const std::string& member) const {
  for (const auto& c : calls_)
    if (c.member == member) return &c;
  return nullptr;
}

bool CallRound::arrive(CallEnded ended, bool truncated) {
  RoundCall* c = find(ended.call_id);
  if (c == nullptr || c->ended) return false;
  ended.member = c->member;
  if (c->member_task_id.empty()) c->member_task_id = ended.member_task_id;
  c->truncated = truncated;
  c->ended = std::move(ended);
  arrival_.push_back(c->call_id);
  return true;
}

bool CallRound::any_out() const {
  return std::any_of(calls_.begin(), calls_.end(), [](const RoundCall& c) { return !c.ended; });
}

std::size_t CallRound::children_out() const {
  return static_cast<std::size_t>(std::count_if(
    calls_.begin(), calls_.end(), [](const RoundCall& c) { return is_capsule_target(c.member) && !c.ended; }));
}

std::vector<const RoundCall*> CallRound::arrived() const {
  std::vector<const RoundCall*> out;
  for (const auto& id : arrival_)
    for (const auto& c : calls_)
      if (c.call_id == id) out.push_back(&c);
  return out;
}

void CallRound::clear() {
  calls_.clear();
  arrival_.clear();
}

} // namespace mur
