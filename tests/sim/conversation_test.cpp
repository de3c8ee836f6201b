// Conversations at one door (lifecycle.conversation, actors/conversation_store.hpp), through the
// loopback network's real Authorization check and real task actors over the script model: a
// threaded door continues a caller's conversation in its contextId and no one else's; a
// stateless door starts every task from nothing; a conversation past its cap drops its oldest
// exchange and the trace says so; a member's calls carry one context per (its context, callee),
// so a threaded callee continues across the caller's tasks.
#include "caf_catch.hpp"

#include "actors/atoms.hpp"
#include "actors/callee_context.hpp"
#include "actors/door.hpp"
#include "actors/egress.hpp"
#include "actors/task.hpp"
#include "actors/trace_recorder.hpp"
#include "capsule/manifest.hpp"
#include "capsule/script_model.hpp"
#include "lead_bundle.hpp"
#include "messages/credentials/formation_authority.hpp"
#include "messages/vocabulary/ids.hpp"
#include "messages/wire/door_call.hpp"
#include "messages/wire/door_request.hpp"
#include "messages/wire/member_call.hpp"
#include "sim_world.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using namespace mur;
using namespace mur::sim;
using namespace std::chrono_literals;

namespace {

// The callee `coder`: a script that answers with what it sees of its conversation.
constexpr const char* coder_yaml =
  "name: coder-c\nversion: 1.0.0\ninference: {turns: [{reply: '{{history_count}} before. {{history}}'}]}\n";

struct conversation_fixture : test_coordinator_fixture<caf::actor_system_config> {
  FormationAuthority authority{ids::mint(ids::formation)};
  sim_network_actor network = spawn_sim_network(sys);
  model_port model;
  trace_port trace;
  door_handle door;
  const std::string url = "http://127.0.0.1:40001";

  explicit conversation_fixture(bool threaded, ConversationCaps caps = {}) {
    model = spawn_script_model(sys, parse_manifest(coder_yaml, "m").inference);
    trace = spawn_trace_recorder(sys, "ses_coder");
    DoorSetup d;
    d.session_id = ids::mint(ids::session);
    d.capsule_name = "coder-c";
    d.acceptance.kind = AcceptancePolicy::Kind::queue;
    d.acceptance.queue_depth = 4;
    d.acceptance.exit_after_task = false;
    d.authenticated = true;
    d.accepts_peer_tasks = true;
    d.threaded = threaded;
    d.conversation_caps = caps;
    d.trace = trace;
    auto& s = sys;
    auto m = model;
    auto tr = trace;
    d.start_task = [&s, m, tr, threaded](const TaskView& t, const Transcript& history, const task_owner& door) {
      TaskSetup ts;
      ts.task = t;
      ts.member = "coder";
      ts.model = m;
      ts.trace = tr;
      ts.door = door;
      ts.threaded = threaded;
      ts.history = history;
      return spawn_task(s, std::move(ts));
    };
    door = spawn_door(sys, std::move(d));
    DoorKeys keys{std::make_shared<DoorTokenIssuer>(),
                  std::make_shared<FormationVerifier>(authority.formation_id(), "coder", authority.verify_key())};
    anon_send(network, caf::put_atom_v, url, door, keys);
    sched.run();
  }
  ~conversation_fixture() override {
    anon_send_exit(door, caf::exit_reason::kill);
    anon_send_exit(network, caf::exit_reason::kill);
    anon_send_exit(model, caf::exit_reason::kill);
    anon_send_exit(trace, caf::exit_reason::kill);
    sched.run();
    sched.clock().cancel_all();
  }

  std::shared_ptr<const FormationToken> from(const std::string& caller) {
    return std::make_shared<const FormationToken>(authority.mint(caller, "coder"));
  }
  // A task sent by `caller` in `context`, answered once it ended (a blocking SendMessage).
  TaskView answer(const std::string& caller, const std::string& text, const std::string& context) {
    DoorRequest r;
    r.method = DoorMethod::send_message;
    r.text = text;
    r.context_id = context;
    r.peer_origin = true;
    self->send(network, DoorCallTo{url}, Bearer{from(caller)}, std::move(r));
    sched.run();
    DoorReply reply = received<DoorReply>(self);
    REQUIRE(reply.ok());
    REQUIRE(reply.task.state == TaskState::completed);
    return reply.task;
  }
  std::vector<nlohmann::json> events(const std::string& type) {
    self->send(trace, trace_atom_v);
    sched.run();
    std::vector<nlohmann::json> out;
    for (const auto& line : received<std::vector<std::string>>(self)) {
      auto j = nlohmann::json::parse(line);
      if (j["event_type"] == type) out.push_back(std::move(j));
    }
    return out;
  }
};

struct threaded_fixture : conversation_fixture {
  threaded_fixture() : conversation_fixture(true) {}
};
struct stateless_fixture : conversation_fixture {
  stateless_fixture() : conversation_fixture(false) {}
};
struct capped_fixture : conversation_fixture {
  capped_fixture() : conversation_fixture(true, ConversationCaps{2, 1 << 20, 8}) {}
};

} // namespace

TEST_CASE_METHOD(threaded_fixture, "a threaded door continues a caller's conversation in its context and no one else's",
                 "[sim][door][conversation]") {
  CHECK(answer("lead", "add a flag", "ctx_a").answer == "0 before. ");
  const TaskView second = answer("lead", "and document it", "ctx_a");
  CHECK(second.context_id == "ctx_a");
  CHECK(second.answer == "1 before. user: add a flag\nassistant: 0 before. ");
  // Another caller naming the same context does not see lead's conversation, and starts its own.
  CHECK(answer("reviewer", "what was asked?", "ctx_a").answer == "0 before. ");
  CHECK(answer("reviewer", "and now?", "ctx_a").answer == "1 before. user: what was asked?\nassistant: 0 before. ");
  // Another context of the same caller starts from nothing; the first goes on where it was.
  CHECK(answer("lead", "elsewhere", "ctx_b").answer == "0 before. ");
  CHECK(answer("lead", "third", "ctx_a").answer.rfind("2 before. user: add a flag\n", 0) == 0);
  // A task sent with no context gets a fresh one, so it starts from nothing too.
  const TaskView fresh = answer("lead", "no context", "");
  CHECK(fresh.context_id.rfind("ctx_", 0) == 0);
  CHECK(fresh.answer == "0 before. ");
  // Each task_start says how much of its conversation its model saw.
  auto starts = events("task_start");
  REQUIRE(starts.size() == 7);
  CHECK(starts[0]["history_messages"] == 0);
  CHECK(starts[1]["history_messages"] == 2);
  CHECK(starts[5]["history_messages"] == 4);
}

TEST_CASE_METHOD(stateless_fixture, "a stateless door starts every task from nothing, in any context",
                 "[sim][door][conversation]") {
  CHECK(answer("lead", "add a flag", "ctx_a").answer == "0 before. ");
  CHECK(answer("lead", "and document it", "ctx_a").answer == "0 before. ");
  auto starts = events("task_start");
  REQUIRE(starts.size() == 2);
  CHECK_FALSE(starts[1].contains("history_messages"));
}

TEST_CASE_METHOD(capped_fixture, "past its cap a conversation drops its oldest exchange, and the trace says so",
                 "[sim][door][conversation]") {
  answer("lead", "one", "ctx_a");
  answer("lead", "two", "ctx_a");
  CHECK(events("conversation_trimmed").empty());
  CHECK(answer("lead", "three", "ctx_a").answer.rfind("2 before. user: one\n", 0) == 0);
  auto trimmed = events("conversation_trimmed"); // three joined: one went
  REQUIRE(trimmed.size() == 1);
  CHECK(trimmed[0]["context_id"] == "ctx_a");
  CHECK(trimmed[0]["exchanges_dropped"] == 1);
  CHECK(trimmed[0]["exchanges_kept"] == 2);
  CHECK(trimmed[0]["caps"]["max_exchanges"] == 2);
  CHECK(answer("lead", "four", "ctx_a").answer.rfind("2 before. user: two\n", 0) == 0);
}

TEST_CASE_METHOD(threaded_fixture, "a member's calls carry one context per caller context and callee, so the callee threads",
                 "[sim][egress][conversation]") {
  EgressSetup e;
  e.member = "lead";
  e.bundle = lead_to_coder_bundle(authority);
  e.allows_localhost = true;
  e.network = network_port{network};
  auto egress = spawn_egress(sys, std::move(e));
  anon_send(egress, address_atom_v, std::vector<MemberText>{{"coder", url}});
  sched.run();
  // Two tasks of lead in one context call coder, one after the other; a third in another context.
  auto call = [&](const std::string& lead_task, const std::string& lead_context, const std::string& text) {
    CallMember c{lead_task, ids::mint(ids::member_call), "coder", text};
    c.context_id = lead_context;
    self->send(egress, c);
    sched.run();
    CallEnded ended;
    bool got = false;
    for (int i = 0; i < 4 && !got; ++i)
      self->receive([&](CallEnded& x) { ended = std::move(x); got = true; }, [](CallStart&) {},
                    caf::after(0s) >> [] {});
    REQUIRE(got);
    return ended.output;
  };
  CHECK(call("tsk_1", "ctx_lead", "write the parser") == "0 before. ");
  CHECK(call("tsk_2", "ctx_lead", "now the tests") == "1 before. user: write the parser\nassistant: 0 before. ");
  CHECK(call("tsk_3", "ctx_other", "unrelated") == "0 before. ");
  DoorRequest list;
  list.method = DoorMethod::list_tasks;
  self->send(network, DoorCallTo{url}, Bearer{from("lead")}, list);
  sched.run();
  DoorReply listed = received<DoorReply>(self);
  REQUIRE(listed.tasks.size() == 3);
  int in_lead = 0, in_other = 0;
  for (const auto& t : listed.tasks) {
    in_lead += t.context_id == callee_context("ctx_lead", "coder");
    in_other += t.context_id == callee_context("ctx_other", "coder");
  }
  CHECK(in_lead == 2);
  CHECK(in_other == 1);
  anon_send_exit(egress, caf::exit_reason::kill);
}
