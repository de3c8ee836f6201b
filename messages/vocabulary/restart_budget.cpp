// restart_budget.cpp — see restart_budget.hpp.
#include "messages/vocabulary/restart_budget.hpp"

namespace mur {

bool RestartBudget::take(time_point now) {
  while (!recent_.empty() && now - recent_.front() >= policy_.within) recent_.pop_front();
  if (static_cast<int>(recent_.size()) >= policy_.max) return false;
  recent_.push_back(now);
  ++granted_;
  return true;
}

} // namespace mur
