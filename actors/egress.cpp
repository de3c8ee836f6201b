// egress.cpp — routes a member's calls to one actor each (see egress.hpp; the call's own states
// are in egress_call.cpp).
#include "actors/egress.hpp"

#include "messages/credentials/address_line.hpp"

#include "actors/atoms.hpp"
#include "messages/wire/member_call.hpp"
#include "messages/wire/model_turn.hpp"

#include <caf/all.hpp>

#include <map>
#include <set>
#include <utility>
#include <vector>

namespace mur {
namespace {

// A call waiting for its callee's address: who asked, and the promise its answer goes to.
struct AddressWait {
  caf::actor_addr call;
  caf::typed_response_promise<std::string> promise;
};

struct EgressState {
  EgressSetup setup;
  std::map<std::string, std::string> addresses;             // member → door url
  std::set<std::string> ended;                              // callees that ended as their lifecycle says
  std::map<std::string, std::vector<AddressWait>> waiting;  // member → calls waiting for its address
  std::map<std::string, egress_call_handle> calls;          // call id → its actor, until it ends
  std::map<caf::actor_addr, std::string> call_of;           // its actor → call id
  static inline const char* name = "mur.egress";
};

using egress_actor = egress_handle::stateful_base<EgressState>;

std::shared_ptr<const FormationToken> token_for(const EgressState& st, const std::string& member) {
  if (!st.setup.bundle) return nullptr;
  for (const auto& c : st.setup.bundle->calls)
    if (c.name == member) return std::shared_ptr<const FormationToken>(st.setup.bundle, &c.token);
  return nullptr;
}

// The exact version spawn.allow names for a delegation target ("" when it names none).
std::string version_of(const EgressState& st, const std::string& target) {
  for (const auto& s : st.setup.spawnable)
    if (capsule_target(s.capsule) == target) return s.version;
  return {};
}

std::string callee_list(const EgressState& st) {
  std::string out;
  if (st.setup.bundle)
    for (const auto& c : st.setup.bundle->calls) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

// Why a call is refused before it starts ("" when it may start).
std::string refusal_of(const EgressState& st, const CallMember& req) {
  if (is_capsule_target(req.member)) {
    if (st.setup.children && !version_of(st, req.member).empty()) return {};
    return "'" + capsule_of(req.member) + "' is not a capsule this one may delegate to "
           "(its capabilities.spawn.allow does not list it); nothing was started";
  }
  if (token_for(st, req.member)) return {};
  const std::string list = callee_list(st);
  return "'" + req.member + "' is not a member this one may call" +
         (list.empty() ? std::string(" (it may call none)") : "; it may call: " + list);
}

// What the egress knows of a callee's door: its url, "" once it ended, none yet.
std::optional<std::string> address_of(const EgressState& st, const std::string& member) {
  if (st.ended.count(member)) return std::string();
  auto it = st.addresses.find(member);
  if (it == st.addresses.end()) return std::nullopt;
  return it->second;
}

caf::result<CallStart> on_call(egress_actor* self, const CallMember& req) {
  auto& st = self->state;
  if (const std::string why = refusal_of(st, req); !why.empty()) return CallStart{req.call_id, CallStatus::refused, "", why};
  EgressCallSetup cs;
  cs.allows_localhost = st.setup.allows_localhost;
  cs.call_deadline = st.setup.call_deadline;
  cs.address_wait = st.setup.address_wait;
  cs.egress = address_book{self};
  cs.network = st.setup.network;
  cs.trace = st.setup.trace;
  if (is_capsule_target(req.member)) {
    cs.child_version = version_of(st, req.member);
    cs.children = st.setup.children;
    cs.live = st.setup.live;
  } else {
    cs.token = token_for(st, req.member);
    cs.address = address_of(st, req.member);
  }
  auto call = spawn_egress_call(self, std::move(cs));
  self->monitor(call);
  st.calls[req.call_id] = call;
  st.call_of[call.address()] = req.call_id;
  return self->delegate(call, req);
}

void on_addresses(egress_actor* self, const std::vector<MemberText>& lines) {
  auto& st = self->state;
  for (const auto& a : lines) {
    if (!token_for(st, a.member)) continue;
    if (a.text.empty()) { // the callee ended as its lifecycle says
      st.ended.insert(a.member);
    } else if (a.text == restarting_url) { // its door is gone; calls wait for the new one
      st.addresses.erase(a.member);
      st.ended.erase(a.member);
      continue;
    } else {
      st.addresses[a.member] = a.text;
      st.ended.erase(a.member);
    }
    auto it = st.waiting.find(a.member);
    if (it == st.waiting.end()) continue;
    auto waits = std::move(it->second);
    st.waiting.erase(it);
    for (auto& w : waits) w.promise.deliver(*address_of(st, a.member));
  }
}

// A call ended: its route and any address wait of it are forgotten.
void on_call_down(egress_actor* self, const caf::down_msg& dm) {
  auto& st = self->state;
  auto it = st.call_of.find(dm.source);
  if (it == st.call_of.end()) return;
  st.calls.erase(it->second);
  st.call_of.erase(it);
  for (auto w = st.waiting.begin(); w != st.waiting.end();) {
    auto& v = w->second;
    v.erase(std::remove_if(v.begin(), v.end(), [&](const AddressWait& x) { return x.call == dm.source; }), v.end());
    w = v.empty() ? st.waiting.erase(w) : std::next(w);
  }
}

egress_handle::behavior_type egress(egress_actor* self, EgressSetup setup) {
  self->state.setup = std::move(setup);
  self->set_down_handler([=](caf::down_msg& dm) { on_call_down(self, dm); });
  return {
    [=](const CallMember& req) { return on_call(self, req); },
    [=](address_atom, const std::vector<MemberText>& lines) { on_addresses(self, lines); },
    [=](address_atom, const std::string& member) -> caf::result<std::string> {
      if (auto known = address_of(self->state, member)) return *known;
      auto caller = self->current_sender(); // before the promise takes it over
      auto rp = self->make_response_promise<std::string>();
      self->state.waiting[member].push_back(AddressWait{caller ? caller->address() : caf::actor_addr(), rp});
      return rp;
    },
    [=](const AbandonCall& a) {
      auto it = self->state.calls.find(a.call_id);
      if (it != self->state.calls.end()) self->send(it->second, a);
    },
    [=](const AnswerCall& a) {
      auto it = self->state.calls.find(a.call_id);
      if (it != self->state.calls.end()) self->send(it->second, a);
    },
  };
}

} // namespace

egress_handle spawn_egress(caf::actor_system& sys, EgressSetup setup) {
  return sys.spawn(egress, std::move(setup));
}

} // namespace mur
