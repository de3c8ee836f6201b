#include "actors/no_answer_ledger.hpp"

#include <algorithm>

namespace mur {

void NoAnswerLedger::record(const CallEnded& ended) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return e.member == ended.member; });
  const bool clears = ended.status == CallStatus::completed && ended.below.empty();
  if (clears) {
    if (it != entries_.end()) entries_.erase(it);
    return;
  }
  Entry entry{ended.member, to_string(ended.status), ended.below};
  if (it != entries_.end())
    *it = std::move(entry);
  else
    entries_.push_back(std::move(entry));
}

std::vector<NoAnswer> NoAnswerLedger::report() const {
  std::vector<NoAnswer> out;
  auto add = [&](const NoAnswer& n) {
    if (out.size() >= max_no_answer_below) return;
    bool seen = std::any_of(out.begin(), out.end(), [&](const NoAnswer& o) { return o.member == n.member; });
    if (!seen) out.push_back(n);
  };
  for (const auto& e : entries_) {
    if (e.status != "completed") add(NoAnswer{e.member, e.status});
    for (const auto& b : e.below) add(b);
  }
  return out;
}

} // namespace mur
