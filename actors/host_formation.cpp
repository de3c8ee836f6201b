// host_formation.cpp — see host_formation.hpp.
#include "actors/host_formation.hpp"

#include "messages/credentials/formation_channel.hpp"

#include <caf/all.hpp>

#include <map>
#include <memory>
#include <set>

namespace mur {
namespace {

struct HostFormationState {
  HostFormationSetup setup;
  std::map<std::string, lifeline_end> ends; // members started here, by name
  std::set<std::string> starting;           // asked, not yet answered
  int beats = 0;                            // since the last check
  int missed = 0;                           // checks in a row without a beat
  bool ending = false;
  static inline const char* name = "mur.host_formation";
};

using host_formation_self = host_formation_actor::stateful_pointer<HostFormationState>;

// Every lifeline closes now; whatever still runs is killed after the grace, then all ends.
void end_formation(host_formation_self self) {
  auto& st = self->state;
  if (st.ending) return;
  st.ending = true;
  for (auto& [name, end] : st.ends) self->send_exit(end, caf::exit_reason::user_shutdown);
  self->delayed_send(self, st.setup.kill_grace, deadline_atom_v);
}

void finish(host_formation_self self) {
  auto& st = self->state;
  for (const auto& [name, end] : st.ends) self->send(st.setup.spawn, KillMember{name});
  for (const auto& name : st.starting) self->send(st.setup.spawn, KillMember{name});
  self->send_exit(st.setup.spawn, caf::exit_reason::user_shutdown);
  self->quit();
}

caf::result<MemberStarted, caf::actor> start(host_formation_self self, const SpawnMember& sm, HostSecret& secret) {
  auto& st = self->state;
  if (st.ending) return caf::make_error(caf::sec::request_receiver_down);
  std::shared_ptr<const FormationBundle> bundle;
  try {
    FormationBundle b = parse_bundle(secret.text, st.setup.formation_id);
    if (b.member != sm.name) throw ChannelLineRefused("the bundle is for another member");
    if (st.setup.identity) b.launcher = st.setup.identity;
    bundle = std::make_shared<const FormationBundle>(std::move(b));
  } catch (const ChannelLineRefused&) {
    std::fill(secret.text.begin(), secret.text.end(), '\0');
    return caf::make_error(caf::sec::invalid_argument);
  }
  std::fill(secret.text.begin(), secret.text.end(), '\0');
  if (sm.formation_id != st.setup.formation_id) return caf::make_error(caf::sec::invalid_argument);
  st.starting.insert(sm.name);
  auto rp = self->make_response_promise<MemberStarted, caf::actor>();
  const std::string name = sm.name;
  self->request(st.setup.spawn, caf::infinite, sm, BundleRef{bundle})
    .then(
      [=](const MemberStarted& info, const lifeline_end& end) mutable {
        auto& s = self->state;
        s.starting.erase(name);
        if (s.ending) { // late: the launcher is gone; this member goes with the rest
          self->send_exit(end, caf::exit_reason::user_shutdown);
          s.ends.emplace(name, end);
          rp.deliver(caf::make_error(caf::sec::request_receiver_down));
          return;
        }
        s.ends[name] = end; // a restart replaces the end of the process that died
        rp.deliver(info, caf::actor_cast<caf::actor>(end));
      },
      [=](const caf::error& err) mutable {
        self->state.starting.erase(name);
        rp.deliver(err);
      });
  return rp;
}

} // namespace

host_formation_actor spawn_host_formation(caf::actor_system& sys, HostFormationSetup setup) {
  return sys.spawn([setup = std::move(setup)](host_formation_self self) -> host_formation_actor::behavior_type {
    self->state.setup = setup;
    self->monitor(setup.launcher);
    self->set_down_handler([self](const caf::down_msg& dm) {
      if (dm.source == self->state.setup.launcher.address()) end_formation(self);
    });
    self->attach_functor([spawn = setup.spawn](const caf::error&) { caf::anon_send_exit(spawn, caf::exit_reason::user_shutdown); });
    self->delayed_send(self, setup.period, beat_atom_v);
    return {
      [self](const SpawnMember& sm, HostSecret& secret) -> caf::result<MemberStarted, caf::actor> {
        return start(self, sm, secret);
      },
      [self](const SendAddresses& sa) {
        if (!self->state.ending) self->send(self->state.setup.spawn, sa);
      },
      [self](const KillMember& k) { self->send(self->state.setup.spawn, k); },
      [self](const HostBeat& beat) {
        ++self->state.beats;
        return beat;
      },
      [self](spawned_atom, const std::string& name, std::int64_t pid) {
        self->send(caf::actor_cast<spawn_listener>(self->state.setup.launcher), spawned_atom_v, name, pid);
      },
      [self](const MemberExited& ex) {
        self->state.ends.erase(ex.name);
        self->send(caf::actor_cast<spawn_listener>(self->state.setup.launcher), ex);
      },
      [self](beat_atom) {
        auto& st = self->state;
        if (st.ending) return;
        st.missed = st.beats > 0 ? 0 : st.missed + 1;
        st.beats = 0;
        if (st.missed >= st.setup.lost_after) return end_formation(self);
        self->delayed_send(self, st.setup.period, beat_atom_v);
      },
      [self](deadline_atom) { finish(self); }, // the kill grace passed
    };
  });
}

} // namespace mur
