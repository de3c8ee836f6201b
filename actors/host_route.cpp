// host_route.cpp — see host_route.hpp.
#include "actors/host_route.hpp"

#include "actors/host_formation.hpp"
#include "actors/spawn_refusal.hpp"
#include "messages/credentials/formation_bundle.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <set>

namespace mur {
namespace {

struct HostState {
  host_formation_port formation;
  bool lost = false;
};

struct RouteState {
  HostRouteSetup setup;
  spawn_listener launcher;
  std::map<std::string, HostState> hosts;
  std::set<std::string> started; // remote members the launcher was told started
  std::set<std::string> ended;   // remote members reported ended (since their last start)
  std::map<std::string, caf::typed_response_promise<MemberStarted, lifeline_end>> starting; // asked of their host
  static inline const char* name = "mur.host_route";
};

using route_self = host_route_actor::stateful_pointer<RouteState>;

const std::string* host_of(route_self self, const std::string& member) {
  auto it = self->state.setup.placed.find(member);
  return it == self->state.setup.placed.end() ? nullptr : &it->second;
}

void report_ended(route_self self, const MemberExited& ex) {
  auto& st = self->state;
  if (!st.ended.insert(ex.name).second) return;
  if (st.launcher) self->send(st.launcher, ex);
}

void lose(route_self self, const std::string& host, const std::string& why) {
  auto& st = self->state;
  auto it = st.hosts.find(host);
  if (it == st.hosts.end() || it->second.lost) return;
  it->second.lost = true;
  for (const auto& [member, where] : st.setup.placed) {
    if (where != host) continue;
    if (st.started.count(member))
      report_ended(self, MemberExited{member, 255, "\n    | (mur) the link to host '" + host + "' was lost: " + why, ""});
    if (auto s = st.starting.find(member); s != st.starting.end()) { // its start is refused now, not at the ready deadline
      s->second.deliver(spawn_refusal("the link to its host '" + host + "' was lost: " + why));
      st.starting.erase(s);
    }
  }
}

caf::result<MemberStarted, lifeline_end> start_remote(route_self self, const std::string& host, const SpawnMember& sm,
                                                      const BundleRef& ref) {
  auto& st = self->state;
  auto it = st.hosts.find(host);
  if (it == st.hosts.end()) return spawn_refusal("its host '" + host + "' was not opened for this formation");
  if (it->second.lost) return spawn_refusal("the link to its host '" + host + "' was lost");
  if (!ref.bundle) return spawn_refusal("it has no bundle");
  FormationBundle bundle = *ref.bundle;
  if (auto tls = st.setup.door_tls.find(sm.name); tls != st.setup.door_tls.end()) {
    bundle.tls.certificate = tls->second.certificate;
    bundle.tls.key = tls->second.key;
  }
  HostSecret secret{render_bundle(bundle)};
  std::fill(bundle.tls.key.begin(), bundle.tls.key.end(), '\0');
  auto rp = self->make_response_promise<MemberStarted, lifeline_end>();
  const std::string name = sm.name;
  st.starting.emplace(name, rp);
  self->request(it->second.formation, caf::infinite, sm, std::move(secret))
    .then(
      [=](const MemberStarted& info, const caf::actor& end) {
        auto& s = self->state;
        auto p = s.starting.find(name);
        if (p == s.starting.end()) { // its host was lost meanwhile: the launcher was told; it ends
          self->send_exit(end, caf::exit_reason::user_shutdown);
          return;
        }
        s.started.insert(name);
        s.ended.erase(name); // a restart: its next end is reported too
        p->second.deliver(info, caf::actor_cast<lifeline_end>(end));
        s.starting.erase(p);
      },
      [=](const caf::error& err) {
        auto& s = self->state;
        auto p = s.starting.find(name);
        if (p == s.starting.end()) return;
        if (spawn_refusal_reason(err)) p->second.deliver(err);
        else p->second.deliver(spawn_refusal("its host '" + host + "' could not start it (" + self->system().render(err) + ")"));
        s.starting.erase(p);
      });
  return rp;
}

// SendAddresses and KillMember: to the host formation of the member's host (none once it is
// lost), or to the local port.
template <class Message>
void send_where_it_runs(route_self self, const Message& m) {
  auto& st = self->state;
  if (const std::string* host = host_of(self, m.name)) {
    auto it = st.hosts.find(*host);
    if (it != st.hosts.end() && !it->second.lost) self->send(it->second.formation, m);
    return;
  }
  self->send(st.setup.local, m);
}

void beat(route_self self) {
  auto& st = self->state;
  for (auto& [host, h] : st.hosts) {
    if (h.lost) continue;
    const std::string name = host;
    const auto wait = st.setup.period * st.setup.lost_after;
    self->request(h.formation, wait, HostBeat{st.setup.formation_id})
      .then([](const HostBeat&) {},
            [=](const caf::error& err) {
              lose(self, name, "it answered no beat within " + std::to_string(wait.count()) + " ms (" +
                                 self->system().render(err) + ")");
            });
  }
  self->delayed_send(self, st.setup.period, beat_atom_v);
}

} // namespace

host_route_actor spawn_host_route(caf::actor_system& sys, HostRouteSetup setup) {
  return sys.spawn([setup = std::move(setup)](route_self self) -> host_route_actor::behavior_type {
    self->state.setup = setup;
    self->attach_functor([local = setup.local](const caf::error&) { caf::anon_send_exit(local, caf::exit_reason::user_shutdown); });
    self->set_down_handler([self](const caf::down_msg& dm) {
      for (auto& [host, h] : self->state.hosts)
        if (dm.source == h.formation.address()) lose(self, host, "its formation there ended (" + self->system().render(dm.reason) + ")");
    });
    self->delayed_send(self, setup.period, beat_atom_v);
    return {
      [self](const SpawnMember& sm, const BundleRef& ref) -> caf::result<MemberStarted, lifeline_end> {
        self->state.launcher = caf::actor_cast<spawn_listener>(self->current_sender());
        if (const std::string* host = host_of(self, sm.name)) return start_remote(self, *host, sm, ref);
        return self->delegate(self->state.setup.local, sm, ref);
      },
      [self](const SendAddresses& sa) { send_where_it_runs(self, sa); },
      [self](const KillMember& k) { send_where_it_runs(self, k); },
      [self](spawned_atom, const std::string& name, std::int64_t pid) {
        if (self->state.launcher && host_of(self, name)) self->send(self->state.launcher, spawned_atom_v, name, pid);
      },
      [self](const MemberExited& ex) {
        if (host_of(self, ex.name)) report_ended(self, ex);
      },
      [self](caf::put_atom, const std::string& host, const caf::actor& formation) {
        auto& h = self->state.hosts[host];
        h.formation = caf::actor_cast<host_formation_port>(formation);
        self->monitor(formation);
      },
      [self](beat_atom) { beat(self); },
    };
  });
}

} // namespace mur
