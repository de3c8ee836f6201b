// Reachability at one door, through the loopback network's real Authorization check: a token
// for another door, a foreign formation, a forged token, and a formation caller reaching only
// the tasks it started. And the caller's egress layer, refused with its fix.
#include "caf_catch.hpp"

#include "actors/atoms.hpp"
#include "actors/door.hpp"
#include "actors/egress.hpp"
#include "actors/task.hpp"
#include "capsule/manifest.hpp"
#include "capsule/script_model.hpp"
#include "lead_bundle.hpp"
#include "messages/credentials/formation_authority.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/vocabulary/rpc_error_codes.hpp"
#include "messages/wire/door_call.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/member_call.hpp"
#include "messages/wire/model_turn.hpp"
#include "sim_world.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {

struct door_fixture : test_coordinator_fixture<caf::actor_system_config> {
  FormationAuthority authority{ids::mint(ids::formation)};
  sim_network_actor network = spawn_sim_network(sys);
  model_port model;
  door_handle door;
  const std::string url = "http://127.0.0.1:40001";

  explicit door_fixture(AcceptancePolicy::Kind acceptance = AcceptancePolicy::Kind::queue) {
    model = spawn_script_model(sys, parse_manifest("name: w\nversion: 1\ninference: {turns: [{think_ms: 1000, reply: done}]}\n", "m").inference);
    DoorSetup d;
    d.session_id = ids::mint(ids::session);
    d.capsule_name = "coder-c";
    d.acceptance.kind = acceptance;
    d.acceptance.queue_depth = 4;
    d.acceptance.exit_after_task = false;
    d.authenticated = true;
    d.accepts_peer_tasks = true;
    auto& s = sys;
    auto m = model;
    d.start_task = [&s, m](const TaskView& t, const Transcript&, const task_owner& door) {
      TaskSetup ts;
      ts.task = t;
      ts.member = "coder";
      ts.model = m;
      ts.door = door;
      return spawn_task(s, std::move(ts));
    };
    door = spawn_door(sys, std::move(d));
    DoorKeys keys{std::make_shared<DoorTokenIssuer>(),
                  std::make_shared<FormationVerifier>(authority.formation_id(), "coder", authority.verify_key())};
    anon_send(network, caf::put_atom_v, url, door, keys);
    sched.run();
  }
  ~door_fixture() override {
    anon_send_exit(door, caf::exit_reason::kill);
    anon_send_exit(network, caf::exit_reason::kill);
    anon_send_exit(model, caf::exit_reason::kill);
    sched.run();
    sched.clock().cancel_all();
  }

  DoorReply call(std::shared_ptr<const FormationToken> token, DoorRequest req) {
    return call_at(url, std::move(token), std::move(req));
  }
  DoorReply call_at(const std::string& at, std::shared_ptr<const FormationToken> token, DoorRequest req) {
    self->send(network, DoorCallTo{at}, Bearer{std::move(token)}, std::move(req));
    sched.run();
    return received<DoorReply>(self);
  }
  std::shared_ptr<const FormationToken> token(FormationAuthority& a, const std::string& from, const std::string& to) {
    return std::make_shared<const FormationToken>(a.mint(from, to));
  }
  static DoorRequest send(const std::string& text) {
    DoorRequest r;
    r.method = DoorMethod::send_message;
    r.text = text;
    r.peer_origin = true;
    r.return_immediately = true; // as an egress offers: answered as soon as the task is held
    return r;
  }
  static DoorRequest on_task(const char* method, const std::string& id) {
    DoorRequest r;
    r.method = door_method_named(method).value();
    r.task_id = id;
    return r;
  }
};

// The same door under the `single` policy: one task at a time, nothing queued.
struct single_door_fixture : door_fixture {
  single_door_fixture() : door_fixture(AcceptancePolicy::Kind::single) {}
};

} // namespace

TEST_CASE_METHOD(door_fixture, "a door refuses missing, forged, foreign and misaddressed tokens in order", "[sim][door]") {
  auto none = call(nullptr, send("x"));
  CHECK(none.refusal == DoorRefusal::unauthenticated);

  FormationAuthority stranger{authority.formation_id()}; // same formation id, another key: a forgery
  auto forged = call(token(stranger, "lead", "coder"), send("x"));
  CHECK(forged.refusal == DoorRefusal::invalid_token);

  FormationAuthority other{ids::mint(ids::formation)}; // another formation and key: refused at the signature
  auto foreign = call(token(other, "lead", "coder"), send("x"));
  CHECK(foreign.refusal == DoorRefusal::invalid_token);

  auto misaddressed = call(token(authority, "lead", "reviewer"), send("x"));
  CHECK(misaddressed.refusal == DoorRefusal::not_permitted);
  CHECK(misaddressed.refusal_message.find("'lead'") != std::string::npos);

  auto ok = call(token(authority, "lead", "coder"), send("x"));
  CHECK(ok.ok());
  CHECK(ok.task.submitter == "member:lead");
}

TEST_CASE_METHOD(door_fixture, "a token signed with the trusted key but naming another formation is refused",
                 "[sim][door]") {
  // The same door reached at a second address whose verifier trusts this formation's key but
  // belongs to another formation id: the signature checks out, so only the formation-id check
  // can refuse the token there.
  const std::string elsewhere_url = "http://127.0.0.1:40002";
  const std::string elsewhere_id = ids::mint(ids::formation);
  REQUIRE(elsewhere_id != authority.formation_id());
  DoorKeys keys{std::make_shared<DoorTokenIssuer>(),
                std::make_shared<FormationVerifier>(elsewhere_id, "coder", authority.verify_key())};
  anon_send(network, caf::put_atom_v, elsewhere_url, door, keys);
  sched.run();

  auto lead = token(authority, "lead", "coder");
  auto at_home = call(lead, send("x")); // the very token is good where its formation id matches
  CHECK(at_home.ok());
  auto elsewhere = call_at(elsewhere_url, lead, send("x"));
  CHECK(elsewhere.refusal == DoorRefusal::invalid_token); // 401 at the HTTP layer (http_refusal)
  CHECK(elsewhere.task.id.empty()); // nothing was started
}

TEST_CASE_METHOD(door_fixture, "a formation caller reaches only the tasks it started, and only the five methods",
                 "[sim][door]") {
  auto lead = token(authority, "lead", "coder");
  auto tester = token(authority, "tester", "coder");
  auto mine = call(lead, send("lead's work"));
  REQUIRE(mine.ok());
  auto theirs = call(tester, send("tester's work"));
  REQUIRE(theirs.ok());

  CHECK(call(lead, on_task("GetTask", mine.task.id)).task.id == mine.task.id);
  auto peek = call(lead, on_task("GetTask", theirs.task.id));
  CHECK(peek.rpc_code == -32001); // exactly like an id it never held
  auto unknown = call(lead, on_task("GetTask", ids::mint(ids::task)));
  CHECK(unknown.rpc_code == -32001);
  CHECK(peek.rpc_message.substr(0, 15) == unknown.rpc_message.substr(0, 15));
  CHECK(call(lead, on_task("CancelTask", theirs.task.id)).rpc_code == -32001);
  CHECK(call(lead, on_task("SubscribeToTask", theirs.task.id)).rpc_code == -32001);
  DoorRequest list;
  list.method = DoorMethod::list_tasks;
  auto listed = call(lead, list);
  REQUIRE(listed.tasks.size() == 1);
  CHECK(listed.tasks[0].id == mine.task.id);
  CHECK(listed.total_size == 1);

  list.filter_state = "TASK_STATE_COMPLETED"; // nothing of the lead's has completed yet
  CHECK(call(lead, list).total_size == 0);
  list.filter_state = "";
  list.filter_updated_after_ms = listed.tasks[0].updated_ms; // strictly after its last change: none
  CHECK(call(lead, list).total_size == 0);
  list.filter_updated_after_ms = listed.tasks[0].updated_ms - 1;
  CHECK(call(lead, list).total_size == 1);
  list.filter_updated_after_ms = 0;
  // The tester's task was never touched by the lead's attempts.
  CHECK(call(tester, on_task("GetTask", theirs.task.id)).task.state != TaskState::canceled);
  // Its own task it may cancel.
  CHECK(call(lead, on_task("CancelTask", mine.task.id)).task.state == TaskState::canceled);

  // Nothing that watches or stops the session.
  for (const char* m : {"SendStreamingMessage", "session/stop", "GetExtendedAgentCard"}) {
    INFO(m);
    DoorRequest r;
    r.method = door_method_named(m).value();
    auto refused = call(lead, r);
    CHECK(refused.refusal == DoorRefusal::insufficient_scope);
    CHECK(to_string(refused.refusal_scope) == m);
  }
}

TEST_CASE_METHOD(door_fixture, "a door turns a caller away busy when its queue is full", "[sim][door][busy]") {
  auto lead = token(authority, "lead", "coder");
  std::vector<DoorReply> replies;
  for (int i = 0; i < 6; ++i) replies.push_back(call(lead, send("t" + std::to_string(i))));
  for (int i = 0; i < 5; ++i) CHECK(replies[i].task.state != TaskState::rejected); // 1 running + 4 queued
  CHECK(replies[5].task.state == TaskState::rejected);
  CHECK(replies[5].task.busy);
  CHECK(replies[5].task.status_text == busy_status_text);
  sched.clock().advance_time(1000ms);
  sched.run();
  CHECK(call(lead, send("again")).task.state != TaskState::rejected); // room again after one ended
}

TEST_CASE_METHOD(single_door_fixture, "a single door turns a second task away busy while one runs", "[sim][door][busy]") {
  auto lead = token(authority, "lead", "coder");
  auto first = call(lead, send("first"));
  REQUIRE(first.ok());
  CHECK(first.task.state != TaskState::rejected);
  auto second = call(lead, send("second")); // the first still thinks (1 s of simulated time)
  REQUIRE(second.ok());
  CHECK(second.task.state == TaskState::rejected);
  CHECK(second.task.busy);
  CHECK(second.task.status_text == busy_status_text);
  // The running task was not disturbed by the refusal.
  auto running = call(lead, on_task("GetTask", first.task.id));
  CHECK_FALSE(is_terminal(running.task.state));
}

TEST_CASE_METHOD(single_door_fixture, "a single door takes a new task once the running one has ended",
                 "[sim][door][busy]") {
  auto lead = token(authority, "lead", "coder");
  auto first = call(lead, send("first"));
  REQUIRE(first.ok());
  CHECK(call(lead, send("too soon")).task.busy);
  sched.clock().advance_time(1000ms); // the first task's model turn ends: it replies
  sched.run();
  CHECK(call(lead, on_task("GetTask", first.task.id)).task.state == TaskState::completed);
  auto next = call(lead, send("next"));
  REQUIRE(next.ok());
  CHECK(next.task.state != TaskState::rejected);
  CHECK_FALSE(next.task.busy);
  CHECK(call(lead, send("while next runs")).task.busy); // and it holds only that one again
}

TEST_CASE_METHOD(door_fixture, "a caller whose egress lacks localhost is refused with the fix, nothing sent",
                 "[sim][egress]") {
  EgressSetup e;
  e.member = "lead";
  e.bundle = lead_to_coder_bundle(authority);
  e.allows_localhost = false;
  e.network = network_port{network};
  auto egress = spawn_egress(sys, std::move(e));
  anon_send(egress, address_atom_v, std::vector<MemberText>{{"coder", url}});
  sched.run();
  self->send(egress, CallMember{"tsk_x", ids::mint(ids::member_call), "coder", "work"});
  sched.run();
  CallStart start;
  self->receive([&](CallStart& s) { start = s; }, caf::after(0s) >> [] {});
  CHECK(start.status == CallStatus::refused);
  CHECK(start.message.find("capabilities.network.allow") != std::string::npos);
  CHECK(start.message.find("Fix:") != std::string::npos);
  DoorRequest list;
  list.method = DoorMethod::list_tasks;
  CHECK(call(token(authority, "lead", "coder"), list).total_size == 0);

  // A member it may not call is refused before any wait, naming whom it may call.
  self->send(egress, CallMember{"tsk_x", ids::mint(ids::member_call), "reviewer", "work"});
  sched.run();
  self->receive([&](CallStart& s) { start = s; }, caf::after(0s) >> [] {});
  CHECK(start.status == CallStatus::refused);
  CHECK(start.message.find("it may call: coder") != std::string::npos);
  anon_send_exit(egress, caf::exit_reason::kill);
}

TEST_CASE("busy re-offers back off from 250 ms, doubling to 4 s, with bounded jitter", "[egress]") {
  const long long base[] = {250, 500, 1000, 2000, 4000, 4000, 4000};
  std::vector<std::string> ids;
  for (int i = 0; i < 200; ++i) ids.push_back("mcl_" + std::to_string(1000 + i));
  // jitter[n-1][i]: what the delay adds to the base for call i before offer n+1.
  std::vector<std::vector<long long>> jitter(7);
  for (int n = 1; n <= 7; ++n)
    for (const auto& id : ids) {
      const long long d = reoffer_delay(id, n).count();
      CHECK(d >= base[n - 1]);
      CHECK(d <= base[n - 1] + 250);
      jitter[n - 1].push_back(d - base[n - 1]);
    }
  for (int n = 1; n <= 7; ++n) {
    INFO("offer " << n);
    const auto& j = jitter[n - 1];
    // Different calls are spread apart (not one shared offset), over the whole 0–250 ms range.
    CHECK(std::set<long long>(j.begin(), j.end()).size() > 50);
    CHECK(*std::min_element(j.begin(), j.end()) < 50);
    CHECK(*std::max_element(j.begin(), j.end()) > 200);
  }
  // One call's jitter changes from offer to offer.
  std::size_t moved = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) moved += jitter[0][i] != jitter[1][i];
  CHECK(moved > 100);
  // Deterministic: asked again later, in another order, every call gets the same delays (a
  // simulation replays them).
  for (int n = 7; n >= 1; --n)
    for (std::size_t i = ids.size(); i-- > 0;) CHECK(reoffer_delay(ids[i], n).count() == base[n - 1] + jitter[n - 1][i]);
  CHECK(reoffer_delay("mcl_x", 0) == reoffer_delay("mcl_x", 1)); // before the first offer counts as the first
}

TEST_CASE_METHOD(door_fixture, "SendMessage blocks until the task ends unless returnImmediately is set", "[sim][door]") {
  auto lead = token(authority, "lead", "coder");
  DoorRequest blocking = send("wait for me");
  blocking.return_immediately = false;
  self->send(network, DoorCallTo{url}, Bearer{lead}, blocking);
  sched.run();
  bool got = false;
  self->receive([&](DoorReply&) { got = true; }, caf::after(0s) >> [] {});
  CHECK_FALSE(got); // the task is still running (its model thinks for 1 s)
  sched.clock().advance_time(1000ms);
  sched.run();
  DoorReply done;
  self->receive([&](DoorReply& r) { done = r; got = true; }, caf::after(0s) >> [] {});
  REQUIRE(got);
  CHECK(done.task.state == TaskState::completed);
  CHECK(done.task.answer == "done");
  // A message for an existing task: ours never wait for input.
  DoorRequest again = send("more");
  again.task_id = done.task.id;
  CHECK(call(lead, again).rpc_code == -32004);
  again.task_id = ids::mint(ids::task);
  CHECK(call(lead, again).rpc_code == -32001);
}

TEST_CASE_METHOD(test_coordinator_fixture<caf::actor_system_config>,
                 "a task actor that dies without reporting fails its task and frees the slot", "[sim][door]") {
  DoorSetup d;
  d.session_id = ids::mint(ids::session);
  d.capsule_name = "c";
  d.acceptance.kind = AcceptancePolicy::Kind::single;
  d.acceptance.exit_after_task = false;
  auto& s = sys;
  d.start_task = [&s](const TaskView&, const Transcript&, const task_owner&) {
    return caf::actor_cast<task_handle>(s.spawn([](caf::event_based_actor* crash) { crash->quit(caf::sec::runtime_error); }));
  };
  auto door = spawn_door(sys, std::move(d));
  DoorRequest req;
  req.method = DoorMethod::send_message;
  req.text = "x";
  req.return_immediately = true;
  req.verdict.kind = DoorAuthorization::Kind::Ok;
  req.verdict.credential = "operator";
  req.verdict.scopes = {mur::DoorMethod::send_message};
  self->send(door, req);
  sched.run();
  DoorReply first;
  self->receive([&](DoorReply& r) { first = r; }, caf::after(0s) >> [] {});
  REQUIRE(first.ok());
  self->send(door, caf::get_atom_v);
  sched.run();
  std::vector<TaskView> tasks;
  self->receive([&](std::vector<TaskView>& t) { tasks = t; }, caf::after(0s) >> [] {});
  REQUIRE(tasks.size() == 1);
  CHECK(tasks[0].state == TaskState::failed);
  CHECK(tasks[0].status_text.find("ended unexpectedly") != std::string::npos);
  self->send(door, req); // the single slot is free again
  sched.run();
  DoorReply second;
  self->receive([&](DoorReply& r) { second = r; }, caf::after(0s) >> [] {});
  CHECK(second.task.state != TaskState::rejected);
  anon_send_exit(door, caf::exit_reason::kill);
  sched.run();
}

TEST_CASE_METHOD(door_fixture, "a formation caller may refer only to tasks it started (referenceTaskIds)", "[sim][door]") {
  auto lead = token(authority, "lead", "coder");
  auto mine = call(lead, send("lead's work"));
  REQUIRE(mine.ok());
  auto theirs = call(token(authority, "tester", "coder"), send("tester's work"));
  REQUIRE(theirs.ok());
  // Checked like taskId: another caller's task or an unknown id is -32001.
  auto refers = [&](std::vector<std::string> refs) {
    DoorRequest r = send("follow-up");
    r.reference_task_ids = std::move(refs);
    return call(lead, r);
  };
  auto to_theirs = refers({mine.task.id, theirs.task.id});
  CHECK(to_theirs.rpc_code == -32001);
  CHECK(to_theirs.rpc_message.find(theirs.task.id) != std::string::npos);
  CHECK(refers({ids::mint(ids::task)}).rpc_code == -32001);
  CHECK(refers({mine.task.id}).ok());
}

namespace {

// The same door under the `none` policy: it takes no task at all.
struct none_door_fixture : door_fixture {
  none_door_fixture() : door_fixture(AcceptancePolicy::Kind::none) {}
};

// An egress of `lead`, which may call `coder` at the fixture's door.
egress_handle lead_egress(door_fixture& f) {
  auto bundle = std::make_shared<FormationBundle>();
  bundle->formation_id = f.authority.formation_id();
  bundle->member = "lead";
  bundle->verify_key = f.authority.verify_key();
  bundle->calls.push_back(FormationCall{"coder", f.authority.mint("lead", "coder")});
  EgressSetup e;
  e.member = "lead";
  e.bundle = bundle;
  e.allows_localhost = true;
  e.network = network_port{f.network};
  auto egress = spawn_egress(f.sys, std::move(e));
  anon_send(egress, address_atom_v, std::vector<MemberText>{{"coder", f.url}});
  f.sched.run();
  return egress;
}

} // namespace

TEST_CASE_METHOD(none_door_fixture, "a task_acceptance none door answers every new task with -32601 and holds nothing",
                 "[sim][door]") {
  auto lead = token(authority, "lead", "coder");
  auto offered = call(lead, send("x"));
  CHECK(offered.rpc_code == rpc::method_not_found);
  CHECK(offered.rpc_code == -32601);
  CHECK(offered.task.id.empty());
  // From its operator, blocking or streaming, the same: no task is ever made.
  for (auto method : {DoorMethod::send_message, DoorMethod::send_streaming_message}) {
    DoorRequest r = send("from the operator");
    r.method = method;
    r.peer_origin = false;
    r.return_immediately = false;
    r.verdict.kind = DoorAuthorization::Kind::Ok;
    r.verdict.credential = "operator";
    r.verdict.scopes = DoorScopes::all();
    self->send(door, r);
    sched.run();
    CHECK(received<DoorReply>(self).rpc_code == -32601);
  }
  // The other methods still answer: the door is there, it only takes no task.
  DoorRequest list;
  list.method = DoorMethod::list_tasks;
  auto listed = call(lead, list);
  CHECK(listed.ok());
  CHECK(listed.total_size == 0);
  CHECK(call(lead, on_task("GetTask", ids::mint(ids::task))).rpc_code == -32001);
  // The order of checks holds: an unauthenticated caller is refused before the method is judged.
  CHECK(call(nullptr, send("x")).refusal == DoorRefusal::unauthenticated);
}

TEST_CASE_METHOD(door_fixture, "a call abandoned while its offer is in flight: the task the callee took is canceled",
                 "[sim][egress]") {
  auto egress = lead_egress(*this);
  const std::string call_id = ids::mint(ids::member_call);
  // The calling task ends (it is canceled) right after it called: the AbandonCall reaches the
  // egress while its SendMessage is still on its way to the callee's door.
  self->send(egress, CallMember{"tsk_x", call_id, "coder", "work"});
  self->send(egress, AbandonCall{call_id});
  sched.run();
  DoorRequest list;
  list.method = DoorMethod::list_tasks;
  auto listed = call(token(authority, "lead", "coder"), list);
  REQUIRE(listed.total_size == 1); // the callee took the offer ...
  CHECK(listed.tasks[0].state == TaskState::canceled); // ... and the egress took it back at once
  CHECK(listed.tasks[0].request == "work");
  // Its model's turn would have ended after 1 s: the task stays canceled, and the abandoned call
  // tells no one anything (no CallEnded reaches the task that abandoned it).
  sched.clock().advance_time(2000ms);
  sched.run();
  CHECK(call(token(authority, "lead", "coder"), on_task("GetTask", listed.tasks[0].id)).task.state == TaskState::canceled);
  bool ended = false;
  self->receive([&](CallEnded&) { ended = true; }, [&](CallStart&) {}, caf::after(0s) >> [] {});
  CHECK_FALSE(ended);
  anon_send_exit(egress, caf::exit_reason::kill);
}

TEST_CASE_METHOD(door_fixture, "a member call abandoned once the callee holds its task leaves that task running",
                 "[sim][egress]") {
  auto egress = lead_egress(*this);
  const std::string call_id = ids::mint(ids::member_call);
  self->send(egress, CallMember{"tsk_x", call_id, "coder", "work"});
  sched.run();
  CallStart start;
  self->receive([&](CallStart& s) { start = s; }, caf::after(0s) >> [] {});
  REQUIRE(start.status == CallStatus::started);
  self->send(egress, AbandonCall{call_id});
  sched.run();
  auto lead = token(authority, "lead", "coder");
  CHECK(call(lead, on_task("GetTask", start.member_task_id)).task.state == TaskState::working);
  sched.clock().advance_time(1000ms); // its model's turn ends: it completes, nobody canceled it
  sched.run();
  auto done = call(lead, on_task("GetTask", start.member_task_id)).task;
  CHECK(done.state == TaskState::completed);
  CHECK(done.answer == "done");
  anon_send_exit(egress, caf::exit_reason::kill);
}
