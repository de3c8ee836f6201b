// restart_budget.hpp — how often a member that dies may be started again (roster `restart:`).
//
// Invariant: a RestartBudget grants at most `max` restarts within any window of `within`: a
// death at time t is granted a restart only when fewer than `max` restarts were granted in
// (t - within, t]; grants older than the window are forgotten, so a member that dies rarely is
// restarted forever, and one that dies `max + 1` times within the window is not. A policy of
// max 0 (the default: no `restart:` key) never grants one.
// Rule: a member may declare `restart: {max: 3, within_secs: 60}` in the roster; a member that dies
// is restarted, and only when its budget of restarts is spent does the formation end (exit 69)
// (docs/roster.md §Restarts).
#pragma once

#include <chrono>
#include <deque>

namespace mur {

struct RestartPolicy {
  int max = 0;                           // restarts within the window; 0 ⇒ none (the formation ends)
  std::chrono::seconds within{60};       // the window, 1 s – 1 day
};

class RestartBudget {
public:
  using time_point = std::chrono::steady_clock::time_point;

  RestartBudget() = default;
  explicit RestartBudget(RestartPolicy policy) : policy_(policy) {}

  // A member died at `now`: whether it may be restarted; a grant is counted.
  bool take(time_point now);
  // Restarts granted in all (what mur ps and the trace show).
  int granted() const { return granted_; }
  // Restarts granted within the window ending at the last take (the "1 of 3" a report shows).
  int in_window() const { return static_cast<int>(recent_.size()); }
  const RestartPolicy& policy() const { return policy_; }

private:
  RestartPolicy policy_;
  std::deque<time_point> recent_; // grants within the window, oldest first
  int granted_ = 0;
};

} // namespace mur
