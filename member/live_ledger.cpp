// live_ledger.cpp — see live_ledger.hpp.
#include "member/live_ledger.hpp"

#include "os/live_slots.hpp"

#include <caf/all.hpp>

#include <map>
#include <optional>
#include <stdexcept>

namespace mur {
namespace {

struct LedgerState {
  std::optional<LiveSlots> slots;
  std::string unreadable;              // why the ledger could not be read ("" when it could)
  std::map<std::string, UniqueFd> held; // by delegation id
  static inline const char* name = "mur.live_ledger";
};

using ledger_actor = live_port::stateful_pointer<LedgerState>;

LiveSlot take(ledger_actor self, const TakeLiveSlot& rq) {
  auto& st = self->state;
  if (!st.slots) return LiveSlot{rq.call_id, false, 0, st.unreadable};
  const std::int32_t max_live = st.slots->limit().max_live;
  if (st.held.count(rq.call_id)) return LiveSlot{rq.call_id, true, max_live, ""};
  try {
    auto fd = st.slots->take();
    if (!fd) return LiveSlot{rq.call_id, false, max_live, ""};
    st.held.emplace(rq.call_id, std::move(*fd));
    return LiveSlot{rq.call_id, true, max_live, ""};
  } catch (const std::runtime_error& e) {
    return LiveSlot{rq.call_id, false, max_live, e.what()};
  }
}

live_port::behavior_type live_ledger(ledger_actor self, std::string dir) {
  try {
    if (dir.empty()) throw std::runtime_error("the formation's live ledger has no path a child could be handed");
    self->state.slots = LiveSlots::open(dir);
  } catch (const std::runtime_error& e) {
    self->state.unreadable = e.what();
  }
  return {
    [=](const TakeLiveSlot& rq) { return take(self, rq); },
    [=](const FreeLiveSlot& f) { self->state.held.erase(f.call_id); },
  };
}

} // namespace

live_port spawn_live_ledger(caf::actor_system& sys, const std::string& dir) { return sys.spawn(live_ledger, dir); }

} // namespace mur
