// task_scene.hpp — the stage for task actor scenarios under CAF's deterministic scheduler: fake
// door, egress and trace actors that record what they get, a spy in front of the model port, and
// helpers to end calls and read what the task did. Shared by tests/sim/task_actor_test.cpp (the
// script model) and tests/sim/chat_model_test.cpp (a scripted chat model).
#pragma once

#include "caf_catch.hpp"

#include "actors/atoms.hpp"
#include "actors/task.hpp"
#include "capsule/manifest.hpp"
#include "capsule/script_model.hpp"
#include "messages/wire/member_call.hpp"
#include "messages/wire/model_turn.hpp"
#include "messages/wire/runtime_tools.hpp"
#include "messages/wire/task_progress.hpp"
#include "messages/wire/trace_event.hpp"

#include <nlohmann/json.hpp>

#include <map>

namespace task_scene {

using namespace mur;
using namespace std::chrono_literals;
using json = nlohmann::json;

struct config : caf::actor_system_config {};

struct fixture : test_coordinator_fixture<config> {
  ~fixture() override {
    sched.run();
    sched.clock().cancel_all();
  }
};

// -- fakes ------------------------------------------------------------------------------------

struct DoorLog {
  std::vector<TaskWorking> working;
  std::vector<TaskFinished> finished;
  std::vector<ModelText> texts;
};
inline caf::behavior fake_door(caf::stateful_actor<DoorLog>* self) {
  return {
    [=](const TaskWorking& w) { self->state.working.push_back(w); },
    [=](const TaskFinished& f) { self->state.finished.push_back(f); },
    [=](const ModelText& t) { self->state.texts.push_back(t); },
  };
}

struct TraceLog {
  std::vector<TraceEvent> events;
  std::vector<std::string> blobs; // the content blobs sent with events (trace.capture: content)
};
inline caf::behavior fake_trace(caf::stateful_actor<TraceLog>* self) {
  return {[=](const TraceEvent& e) { self->state.events.push_back(e); },
          [=](const TraceEvent& e, const std::string& blob) {
            self->state.blobs.push_back(blob);
            self->state.events.push_back(e);
          }};
}

// Answers each CallMember with the CallStart scripted for its member (default: started).
struct EgressLog {
  std::map<std::string, CallStart> starts;
  std::vector<CallMember> calls;
  std::vector<AbandonCall> abandoned;
};
inline caf::behavior fake_egress(caf::stateful_actor<EgressLog>* self, std::map<std::string, CallStart> starts) {
  self->state.starts = std::move(starts);
  return {
    [=](const CallMember& c) -> CallStart {
      self->state.calls.push_back(c);
      CallStart s{c.call_id, CallStatus::started, "tsk_of_" + c.member, ""};
      auto it = self->state.starts.find(c.member);
      if (it != self->state.starts.end()) {
        s.status = it->second.status;
        s.message = it->second.message;
      }
      return s;
    },
    [=](const AbandonCall& a) { self->state.abandoned.push_back(a); },
  };
}

// Records every request on its way to the real script model.
struct ModelLog {
  caf::actor inner;
  std::vector<ModelTurnRequest> requests;
};
inline caf::behavior spy_model(caf::stateful_actor<ModelLog>* self, caf::actor inner) {
  self->state.inner = std::move(inner);
  return {[=](const ModelTurnRequest& req) {
    self->state.requests.push_back(req);
    return self->delegate(self->state.inner, req);
  }};
}

// The results of the tools the model called last, as the request's transcript carries them.
inline std::vector<std::string> tool_results(const ModelTurnRequest& req) {
  std::vector<std::string> out;
  std::size_t at = req.transcript.size();
  while (at > 0 && req.transcript[at - 1].role != TranscriptRole::assistant) --at;
  for (; at < req.transcript.size(); ++at)
    if (req.transcript[at].role == TranscriptRole::tool) out.push_back(req.transcript[at].content);
  return out;
}

// -- script building ----------------------------------------------------------------------------

inline ScriptTurn reply(std::string text, std::int64_t think_ms = 0) {
  ScriptTurn t;
  t.reply = std::move(text);
  t.think_ms = think_ms;
  return t;
}
inline ScriptTurn call(std::vector<ScriptCall> calls) {
  ScriptTurn t;
  t.calls = std::move(calls);
  return t;
}
inline ScriptTurn end_without(std::string reason) {
  ScriptTurn t;
  t.end_without_answer = std::move(reason);
  return t;
}
inline Inference script(std::vector<ScriptTurn> turns) {
  Inference inf;
  inf.turns = std::move(turns);
  return inf;
}

// -- the scene ----------------------------------------------------------------------------------

struct scene : fixture {
  caf::actor door = sys.spawn(fake_door);
  caf::actor trace = sys.spawn(fake_trace);
  caf::actor egress;
  caf::actor model;
  caf::actor task;
  std::vector<std::string> capsules; // spawn.allow names: set before start for a member that may delegate
  tool_port own_tool_port;           // the capsule's own tools: set before start for a member that has them
  std::vector<OwnTool> own_tools;
  TaskLimits limits;                 // the capsule's and the formation's: set before start
  Budget caller_budget;              // what the task's caller had left: set before start
  TraceCapture capture = TraceCapture::meta; // trace.capture: set before start

  void start(const Inference& inf, std::string submitter = "operator", std::vector<std::string> callees = {"coder", "tester"},
             std::map<std::string, CallStart> starts = {}, int max_turns = 10) {
    start_with(caf::actor_cast<caf::actor>(spawn_script_model(sys, inf)), std::move(submitter), std::move(callees),
               std::move(starts), max_turns);
  }

  // The same with any model port behind the spy (a scripted chat model, say).
  void start_with(caf::actor inner_model, std::string submitter = "operator",
                  std::vector<std::string> callees = {"coder", "tester"}, std::map<std::string, CallStart> starts = {},
                  int max_turns = 10) {
    egress = sys.spawn(fake_egress, std::move(starts));
    model = sys.spawn(spy_model, std::move(inner_model));
    TaskSetup setup;
    setup.task.id = "tsk_lead";
    setup.task.context_id = "ctx_lead";
    setup.task.request = "build the thing";
    setup.task.submitter = std::move(submitter);
    setup.member = "lead";
    setup.callees = std::move(callees);
    setup.capsules = capsules;
    setup.max_turns = max_turns;
    setup.system_text = system_message("", setup.member, setup.callees, setup.capsules); // as the member actor builds it
    // The fakes are untyped (they record what they get): cast to the ports they stand in for.
    setup.model = caf::actor_cast<model_port>(model);
    setup.egress = caf::actor_cast<call_port>(egress);
    setup.trace = caf::actor_cast<trace_port>(trace);
    setup.door = caf::actor_cast<task_owner>(door);
    setup.tools = own_tool_port;
    setup.own_tools = own_tools;
    setup.limits = limits;
    setup.task.budget = caller_budget;
    setup.capture = capture;
    task = caf::actor_cast<caf::actor>(spawn_task(sys, setup));
    sched.run();
  }

  DoorLog& door_log() { return deref<caf::stateful_actor<DoorLog>>(door).state; }
  std::vector<ModelTurnRequest>& requests() { return deref<caf::stateful_actor<ModelLog>>(model).state.requests; }
  EgressLog& egress_log() { return deref<caf::stateful_actor<EgressLog>>(egress).state; }

  std::vector<json> events(const std::string& type) {
    std::vector<json> out;
    for (const auto& e : deref<caf::stateful_actor<TraceLog>>(trace).state.events)
      if (e.type == type) out.push_back(json::parse(e.fields));
    return out;
  }
  std::vector<std::string>& blobs() { return deref<caf::stateful_actor<TraceLog>>(trace).state.blobs; }
  std::vector<std::string> event_types() {
    std::vector<std::string> out;
    for (const auto& e : deref<caf::stateful_actor<TraceLog>>(trace).state.events) out.push_back(e.type);
    return out;
  }

  const CallMember& call_to(const std::string& member) {
    for (const auto& c : egress_log().calls)
      if (c.member == member) return c;
    FAIL("no call to " << member);
    throw 0;
  }

  // The egress reports how the call to `member` ended.
  void end_call(const std::string& member, const std::string& status, const std::string& output,
                std::vector<NoAnswer> below = {}, Usage usage = {}) {
    const auto& c = call_to(member);
    CallEnded e;
    e.call_id = c.call_id;
    e.member = member;
    e.status = parse_call_status(status).value();
    e.output = output;
    e.member_task_id = "tsk_of_" + member;
    e.below = std::move(below);
    e.duration_ms = 42;
    e.usage = usage;
    self->send(task, e);
    sched.run();
  }

  const TaskFinished& finished() {
    REQUIRE(door_log().finished.size() == 1);
    return door_log().finished.front();
  }
};

} // namespace task_scene
