// The egress's rules about message order, pinned one message at a time with CAF's expect(...)
// (from(a).to(b)), in the style of CAF's ping_pong example: a call is offered only after its
// address arrives; a busy callee is offered again only when its backoff has passed; an abandoned
// call's late answer is never delivered to its task (a task the callee took is canceled).
// The egress's call actors run against a fake door-call port that answers as each scenario says.
#include "caf_catch.hpp"

#include "actors/atoms.hpp"
#include "actors/egress.hpp"
#include "lead_bundle.hpp"
#include "messages/credentials/formation_authority.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/wire/door_call.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/member_call.hpp"

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

using namespace mur;
using namespace std::chrono_literals;

namespace {

// Answers each SendMessage with the next scripted reply (none left: holds it until put_atom);
// answers every other request with the task as WORKING.
struct NetworkLog {
  std::deque<DoorReply> offers;
  std::vector<DoorRequest> requests;
  std::vector<caf::response_promise> held;
};

DoorReply with_task(TaskState state, std::string id, bool busy = false) {
  DoorReply r;
  r.task.id = std::move(id);
  r.task.state = state;
  r.task.busy = busy;
  return r;
}

caf::behavior fake_network(caf::stateful_actor<NetworkLog>* self, std::deque<DoorReply> offers) {
  self->state.offers = std::move(offers);
  return {
    [=](const DoorCallTo&, const Bearer&, const DoorRequest& req) -> caf::result<DoorReply> {
      auto& st = self->state;
      st.requests.push_back(req);
      if (req.method != DoorMethod::send_message) return with_task(TaskState::working, req.task_id);
      if (st.offers.empty()) {
        st.held.push_back(self->make_response_promise());
        return st.held.back();
      }
      DoorReply r = st.offers.front();
      st.offers.pop_front();
      return r;
    },
    [=](caf::put_atom) { // the held offer is answered now: the callee took the task
      for (auto& p : self->state.held) p.deliver(with_task(TaskState::working, "tsk_coder"));
      self->state.held.clear();
    },
  };
}

struct egress_scene : test_coordinator_fixture<caf::actor_system_config> {
  FormationAuthority authority{ids::mint(ids::formation)};
  caf::actor network;
  egress_handle egress;
  const std::string call_id = "mcl_0000000000000000000000000001";

  void start(std::deque<DoorReply> offers) {
    network = sys.spawn(fake_network, std::move(offers));
    EgressSetup e;
    e.member = "lead";
    e.bundle = sim::lead_to_coder_bundle(authority);
    e.allows_localhost = true;
    e.network = caf::actor_cast<network_port>(network);
    egress = spawn_egress(sys, std::move(e));
    sched.run();
  }

  ~egress_scene() override {
    anon_send_exit(egress, caf::exit_reason::kill);
    anon_send_exit(network, caf::exit_reason::kill);
    sched.run();
    sched.clock().cancel_all();
  }

  NetworkLog& network_log() { return deref<caf::stateful_actor<NetworkLog>>(network).state; }

  // The actor the egress spawned last (its newest call), found where the scheduler queued it.
  caf::actor newest_call() {
    REQUIRE(!sched.jobs.empty());
    return caf::actor_cast<caf::actor>(dynamic_cast<caf::abstract_actor*>(sched.jobs.back()));
  }

  // The task (this test) asks for a call; the egress hands it to a call actor of its own.
  caf::actor call_coder() {
    self->send(egress, CallMember{"tsk_lead", call_id, "coder", "work"});
    expect((CallMember), from(self).to(egress));
    auto call = newest_call();
    expect((CallMember), from(self).to(call));
    return call;
  }

  void tell_address() { self->send(egress, address_atom_v, std::vector<MemberText>{{"coder", "http://coder"}}); }

  // Everything the task was sent, as the names of the message types.
  std::vector<std::string> task_mailbox() {
    std::vector<std::string> out;
    bool more = true;
    while (more)
      self->receive([&](const CallStart&) { out.push_back("CallStart"); },
                    [&](const CallEnded&) { out.push_back("CallEnded"); },
                    [&](const caf::error&) { out.push_back("error"); },
                    caf::after(0s) >> [&] { more = false; });
    return out;
  }
};

} // namespace

TEST_CASE_METHOD(egress_scene, "a call is offered only after its callee's address arrives", "[sim][egress][order]") {
  start({with_task(TaskState::working, "tsk_coder")});
  auto call = call_coder();
  expect((address_atom, std::string), from(call).to(egress).with(address_atom_v, std::string("coder")));
  CHECK_FALSE(sched.has_job()); // nothing is offered while the address is unknown
  CHECK(network_log().requests.empty());
  tell_address();
  expect((address_atom, std::vector<MemberText>), from(self).to(egress));
  expect((std::string), from(egress).to(call).with(std::string("http://coder")));
  expect((DoorCallTo, Bearer, DoorRequest), from(call).to(network));
  REQUIRE(network_log().requests.size() == 1);
  CHECK(network_log().requests[0].method == DoorMethod::send_message);
  expect((DoorReply), from(network).to(call));
  expect((CallStart), from(call).to(self));
  expect((DoorCallTo, Bearer, DoorRequest), from(call).to(network)); // it follows the task it offered
  CHECK(network_log().requests[1].method == DoorMethod::subscribe_to_task);
}

TEST_CASE_METHOD(egress_scene, "a busy callee is offered the call again only after its backoff", "[sim][egress][order]") {
  start({with_task(TaskState::rejected, "tsk_refused", true), with_task(TaskState::working, "tsk_coder")});
  tell_address();
  sched.run();
  auto call = call_coder();
  expect((DoorCallTo, Bearer, DoorRequest), from(call).to(network));
  expect((DoorReply), from(network).to(call)); // busy
  expect((CallStart), from(call).to(self).with(CallStart{call_id, CallStatus::busy, "",
                                                          "coder is busy and has not taken the task; the runtime keeps offering it"}));
  CHECK_FALSE(sched.has_job());
  const auto backoff = reoffer_delay(call_id, 1);
  sched.clock().advance_time(backoff - 1ms);
  CHECK_FALSE(sched.has_job()); // not a millisecond early
  sched.clock().advance_time(1ms);
  expect((retry_atom), from(call).to(call));
  expect((DoorCallTo, Bearer, DoorRequest), from(call).to(network));
  REQUIRE(network_log().requests.size() == 2);
  CHECK(network_log().requests[1].method == DoorMethod::send_message);
  expect((DoorReply), from(network).to(call)); // held this time
  expect((DoorCallTo, Bearer, DoorRequest), from(call).to(network));
  CHECK(network_log().requests[2].method == DoorMethod::subscribe_to_task);
  CHECK(task_mailbox() == std::vector<std::string>{}); // the busy CallStart was the only one
}

TEST_CASE_METHOD(egress_scene, "an abandoned call's late answer is not delivered and its task is canceled",
                 "[sim][egress][order]") {
  start({}); // the offer is held until the scenario answers it
  tell_address();
  sched.run();
  auto call = call_coder();
  expect((DoorCallTo, Bearer, DoorRequest), from(call).to(network));
  self->send(egress, AbandonCall{call_id});
  expect((AbandonCall), from(self).to(egress));
  expect((AbandonCall), from(egress).to(call));
  self->send(network, caf::put_atom_v);
  expect((caf::put_atom), from(self).to(network));
  expect((DoorReply), from(network).to(call)); // the late answer: the callee took the task
  expect((DoorCallTo, Bearer, DoorRequest), from(_).to(network)); // taken back, nobody waits for the answer
  REQUIRE(network_log().requests.size() == 2);
  CHECK(network_log().requests[1].method == DoorMethod::cancel_task);
  CHECK(network_log().requests[1].task_id == "tsk_coder");
  sched.run();
  // No CallStart and no CallEnded reached the task that gave the call up.
  const auto got = task_mailbox();
  CHECK(std::count(got.begin(), got.end(), "CallStart") == 0);
  CHECK(std::count(got.begin(), got.end(), "CallEnded") == 0);
}
