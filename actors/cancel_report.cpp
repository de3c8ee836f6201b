#include "actors/cancel_report.hpp"

namespace mur {

CancelReport cancel_report(const std::vector<CallCanceled>& undone, const std::vector<std::string>& silent,
                           std::int64_t waited_ms) {
  CancelReport r;
  auto add = [&](const std::string& member, const std::string& status) {
    if (r.below.size() >= max_no_answer_below) return;
    for (const auto& n : r.below)
      if (n.member == member) return;
    r.below.push_back({member, status});
  };
  for (const auto& u : undone) {
    if (u.outcome == "canceled") {
      add(u.member, "canceled");
      for (const auto& n : u.below) add(n.member, n.status);
    } else if (u.outcome == "unconfirmed") {
      r.unconfirmed.push_back(u.member + (u.detail.empty() ? "" : " (" + u.detail + ")"));
      add(u.member, "unconfirmed");
    }
  }
  for (const auto& member : silent) {
    r.unconfirmed.push_back(member + " (no confirmation within " + std::to_string(waited_ms) + " ms)");
    add(member, "unconfirmed");
  }
  return r;
}

} // namespace mur
