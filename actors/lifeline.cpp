#include "actors/lifeline.hpp"

#include "actors/atoms.hpp"

#include <caf/all.hpp>

#include <map>
#include <memory>

namespace mur {
namespace {

struct LifelinesState {
  std::shared_ptr<std::map<std::string, lifeline_end>> ends = std::make_shared<std::map<std::string, lifeline_end>>();
  static inline const char* name = "mur.lifelines";
};

lifelines_handle::behavior_type lifelines(lifelines_handle::stateful_pointer<LifelinesState> self) {
  auto ends = self->state.ends;
  // However this actor ends (closed, its launcher killed), every end it holds is closed.
  self->attach_functor([ends](const caf::error&) {
    for (auto& [name, end] : *ends) caf::anon_send_exit(end, caf::exit_reason::user_shutdown);
    ends->clear();
  });
  return {
    [=](caf::put_atom, const std::string& name, const lifeline_end& end) {
      auto& held = (*ends)[name];
      // A member started again under its name (a restart): the end of its dead process closes now,
      // not with the formation.
      if (held && held != end) caf::anon_send_exit(held, caf::exit_reason::user_shutdown);
      held = end;
    },
    [=](caf::close_atom, const std::string& name) {
      auto it = ends->find(name);
      if (it == ends->end()) return;
      caf::anon_send_exit(it->second, caf::exit_reason::user_shutdown);
      ends->erase(it);
    },
    [=](caf::close_atom) {
      for (auto& [name, end] : *ends) caf::anon_send_exit(end, caf::exit_reason::user_shutdown);
      ends->clear();
    },
  };
}

lifeline_end::behavior_type simulated_end(lifeline_end::pointer self) {
  return {[=](caf::close_atom) { self->quit(); }};
}

struct WatchState {
  bool reported = false;
  caf::actor self_ref; // the watch lives as long as its member needs it, whoever spawned it
  static inline const char* name = "mur.lifeline_watch";
};

caf::behavior lifeline_watch(caf::stateful_actor<WatchState>* self, lifeline_end end, lifeline_listener member) {
  self->state.self_ref = caf::actor_cast<caf::actor>(self);
  self->monitor(end);
  self->monitor(member);
  self->set_down_handler([=](const caf::down_msg& dm) {
    if (dm.source != member.address() && !self->state.reported) {
      self->state.reported = true;
      self->send(member, lifeline_atom_v);
    }
    self->state.self_ref = nullptr;
    self->quit();
  });
  return {[](caf::get_atom) {}};
}

} // namespace

lifelines_handle spawn_lifelines(caf::actor_system& sys) { return sys.spawn(lifelines); }
lifeline_end spawn_lifeline_end(caf::actor_system& sys) { return sys.spawn(simulated_end); }
caf::actor spawn_lifeline_watch(caf::actor_system& sys, lifeline_end end, lifeline_listener member) {
  return sys.spawn(lifeline_watch, std::move(end), std::move(member));
}

} // namespace mur
