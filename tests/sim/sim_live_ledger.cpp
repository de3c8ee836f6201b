// sim_live_ledger.cpp — see sim_live_ledger.hpp.
#include "sim_live_ledger.hpp"

#include <caf/all.hpp>

#include <set>
#include <string>

namespace mur::sim {
namespace {

struct LedgerState {
  int max_live = 0;
  int members = 0;
  // One entry per slot held, by delegation id: simulated members seeded alike mint the same ids
  // (no two real processes do), so an id may stand for several slots, each freed once.
  std::multiset<std::string> held;
  std::int32_t most = 0;
  static inline const char* name = "sim.live_ledger";
};

using ledger_actor = sim_live_actor::stateful_pointer<LedgerState>;

sim_live_actor::behavior_type ledger(ledger_actor self, int max_live, int members) {
  self->state.max_live = max_live;
  self->state.members = members;
  return {
    [=](const TakeLiveSlot& rq) {
      auto& st = self->state;
      if (static_cast<int>(st.held.size()) >= st.max_live - st.members) return LiveSlot{rq.call_id, false, st.max_live, ""};
      st.held.insert(rq.call_id);
      st.most = std::max<std::int32_t>(st.most, static_cast<std::int32_t>(st.held.size()));
      return LiveSlot{rq.call_id, true, st.max_live, ""};
    },
    [=](const FreeLiveSlot& f) {
      auto it = self->state.held.find(f.call_id);
      if (it != self->state.held.end()) self->state.held.erase(it);
    },
    [=](caf::get_atom) { return self->state.most; },
    [=](caf::get_atom, caf::get_atom) { return static_cast<std::int32_t>(self->state.held.size()); },
  };
}

} // namespace

sim_live_actor spawn_sim_live_ledger(caf::actor_system& sys, int max_live, int members) {
  return sys.spawn(ledger, max_live, members);
}

} // namespace mur::sim
