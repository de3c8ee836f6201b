// harness_model.cpp — the agent-program model port (see harness_model.hpp).
#include "member/harness_model.hpp"

#include "actors/actor_interfaces.hpp"
#include "actors/atoms.hpp"
#include "http/connection_ceiling.hpp"
#include "http/loopback_listener.hpp"
#include "http/mcp_server.hpp"
#include "messages/vocabulary/base64url.hpp"
#include "messages/vocabulary/text_cut.hpp"
#include "messages/wire/model_turn.hpp"
#include "os/fd_limit.hpp"
#include "member/harness_outcome.hpp"
#include "member/member_limits.hpp"
#include "member/program_env.hpp"
#include "os/harness_run.hpp"
#include "os/process_spawn.hpp"

#include <caf/all.hpp>
#include <nlohmann/json.hpp>
#include <sodium.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>

namespace mur {
namespace {

using json = nlohmann::json;
using steady = std::chrono::steady_clock;

// What the listener's threads and the runs' threads hand the actor (local only).
struct McpPost {
  PlainRequest request;
  std::shared_ptr<PlainResponder> responder;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, McpPost& x) {
  return f(caf::meta::type_name("mur::McpPost"), x.request.method, x.request.target);
}
struct HarnessDone {
  std::uint64_t run = 0;
  std::shared_ptr<HarnessEnd> end;
};
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, HarnessDone& x) {
  return f(caf::meta::type_name("mur::HarnessDone"), x.run);
}

using harness_actor = model_port::extend<caf::reacts_to<McpPost>, caf::reacts_to<HarnessDone>,
                                         caf::reacts_to<harness_output_atom, std::uint64_t>,
                                         caf::reacts_to<harness_tick_atom, std::uint64_t>>;

struct Turn {
  caf::typed_response_promise<ModelTurn> promise;
  task_handle task;
  std::string task_id;
  McpTurn grant;                       // the token and the tools
  std::unique_ptr<HarnessRun> run;
  steady::time_point started;
  steady::time_point last_activity;
  int tools_out = 0; // tool calls the task has not answered yet: the turn waits on the runtime, not silent
  LimitCounts limits_at_start; // the member group's counters when the turn started
  bool timed_out = false;
};

struct HarnessState {
  HarnessSetup setup;
  std::unique_ptr<LoopbackListener> listener;
  std::string listen_error;
  std::uint64_t next = 1;
  std::map<std::uint64_t, Turn> turns; // by run id
  static inline const char* name = "mur.harness_model";
};

using self_ptr = harness_actor::stateful_pointer<HarnessState>;

std::string fresh_token() {
  unsigned char bytes[32];
  randombytes_buf(bytes, sizeof bytes);
  return b64url::encode(bytes, sizeof bytes);
}

// hs_<the task id's unique part>: the same session for every turn of a task.
std::string session_of(const std::string& task_id) {
  const auto at = task_id.find('_');
  return "hs_" + (at == std::string::npos ? task_id : task_id.substr(at + 1));
}

std::vector<McpTurn> live_grants(const HarnessState& st, std::vector<std::uint64_t>& ids) {
  std::vector<McpTurn> out;
  for (const auto& [id, t] : st.turns)
    if (t.run) {
      out.push_back(t.grant);
      ids.push_back(id);
    }
  return out;
}

void arm_tick(self_ptr self, std::uint64_t id, std::chrono::milliseconds after) {
  self->delayed_send(self, after, harness_tick_atom_v, id);
}

void start_turn(self_ptr self, std::uint64_t id, const ModelTurnRequest& req) {
  auto& st = self->state;
  Turn& t = st.turns.at(id);
  const bool resume = req.turn > 0;
  json in{{"session", {{"id", session_of(req.task_id)}, {"mode", resume ? "resume" : "new"}}},
          {"member", req.member},
          {"callees", req.callees},
          {"capsules", req.capsules},
          {"task", req.task_text},
          {"message", resume ? req.continuation : req.task_text},
          {"turn", req.turn},
          {"system_prompt", st.setup.system_prompt},
          {"traceparent", req.traceparent},
          {"tools", {{"url", st.listener->url() + "/mcp"}, {"token", t.grant.token}}}};
  if (req.history_messages > 0) { // a threaded member: the earlier exchanges of this task's context, oldest first
    json history = json::array();
    const auto end = std::min<std::size_t>(req.transcript.size(), 1 + static_cast<std::size_t>(req.history_messages));
    for (std::size_t i = 1; i < end; ++i) {
      const TranscriptMessage& m = req.transcript[i];
      json line{{"role", to_string(m.role)}, {"text", m.content}};
      if (!m.tool_calls.empty()) {
        json calls = json::array();
        for (const auto& c : m.tool_calls) calls.push_back({{"name", c.name}, {"arguments", c.arguments}});
        line["tool_calls"] = std::move(calls);
      }
      history.push_back(std::move(line));
    }
    in["history"] = std::move(history);
  }
  if (resume) { // the continuation's answers as data too: the latest of each member called so far
    json answers = json::array();
    for (const auto& a : req.answers) answers.push_back({{"member", a.member}, {"status", a.status}, {"text", a.text}});
    in["answers"] = std::move(answers);
  }
  HarnessStart hs;
  hs.program = st.setup.program;
  hs.argv.push_back(st.setup.program);
  hs.argv.insert(hs.argv.end(), st.setup.args.begin(), st.setup.args.end());
  hs.env = program_env(st.setup.env, st.setup.home);
  hs.cwd = st.setup.workdir;
  hs.isolation = st.setup.isolation;
  hs.isolation.forward_ports = {st.listener->port()}; // its turn's MCP endpoint, reached as it is
  hs.stdin_text = in.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  auto weak = caf::actor_cast<caf::weak_actor_ptr>(self->ctrl());
  auto tell = [weak](auto msg) {
    if (auto strong = weak.lock()) caf::anon_send(caf::actor_cast<caf::actor>(strong), std::move(msg));
  };
  t.started = t.last_activity = steady::now();
  t.limits_at_start = limit_counts(st.setup.limits);
  t.run = std::make_unique<HarnessRun>(
    std::move(hs),
    [weak, id] {
      if (auto strong = weak.lock()) caf::anon_send(caf::actor_cast<caf::actor>(strong), harness_output_atom_v, id);
    },
    [tell, id](HarnessEnd end) { tell(HarnessDone{id, std::make_shared<HarnessEnd>(std::move(end))}); });
  arm_tick(self, id, st.setup.turn_timeout);
}

ModelTurn turn_of(const HarnessSetup& setup, const Turn& t, const HarnessEnd& end) {
  const LimitCounts now = limit_counts(setup.limits);
  const LimitCounts reached = counted_since(t.limits_at_start, now);
  ModelTurn out = harness_outcome(HarnessTurnEnd{setup.program, &setup.secrets, t.grant.token, setup.turn_timeout,
                                                 t.timed_out, reached, setup.bounds},
                                  end);
  out.stats.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - t.started).count();
  return out;
}

void on_mcp(self_ptr self, McpPost post) {
  auto& st = self->state;
  std::vector<std::uint64_t> ids;
  auto step = mcp_step(post.request, live_grants(st, ids));
  if (auto* a = std::get_if<PlainAnswer>(&step)) {
    post.responder->answer(std::move(*a));
    return;
  }
  auto& call = std::get<McpCallFor>(step);
  const std::uint64_t id = ids.at(call.turn);
  Turn& t = st.turns.at(id);
  t.last_activity = steady::now();
  ++t.tools_out;
  auto responder = post.responder;
  const McpToolCall rpc = call.call; // its id and era shape the answer
  // The answer (an ask-operator's may take a person hours) restarts the silence clock.
  auto answered = [self, id] {
    auto it = self->state.turns.find(id);
    if (it == self->state.turns.end()) return;
    --it->second.tools_out;
    it->second.last_activity = steady::now();
  };
  self->request(t.task, caf::infinite, ToolRequest{t.task_id, call.call.call})
    .then([responder, rpc, answered](const ToolReply& r) {
            answered();
            responder->answer(mcp_tool_answer(rpc, r));
          },
          [self, responder, rpc, answered](const caf::error& err) {
            answered();
            responder->answer(mcp_tool_answer(
              rpc, ToolReply{"tool error: the task did not take the call (" + self->system().render(err) +
                               "); nothing was sent.", true}));
          });
}

harness_actor::behavior_type harness_model(self_ptr self, HarnessSetup setup) {
  auto& st = self->state;
  st.setup = std::move(setup);
  auto weak = caf::actor_cast<caf::weak_actor_ptr>(self->ctrl());
  try {
    st.listener = std::make_unique<LoopbackListener>(
      [weak](PlainRequest r, std::shared_ptr<PlainResponder> resp) {
        if (auto strong = weak.lock())
          caf::anon_send(caf::actor_cast<caf::actor>(strong), McpPost{std::move(r), std::move(resp)});
        else
          resp->answer(PlainAnswer{503, {}, ""});
      },
      1024 * 1024, 0, ListenerBounds{bounded_ceiling(tool_server_connections, open_file_limit()), 4 * 1024 * 1024});
  } catch (const std::exception& e) {
    st.listen_error = e.what();
  }
  // A task that ends while its turn runs takes the turn with it.
  self->set_down_handler([=](const caf::down_msg& dm) {
    for (auto& [id, t] : self->state.turns)
      if (t.task && t.task.address() == dm.source && t.run) t.run->kill();
  });
  return {
    [=](const ModelTurnRequest& req) -> caf::result<ModelTurn> {
      auto& st = self->state;
      if (!st.listener) {
        ModelTurn t;
        t.fails = true;
        t.failure = "E-HAR-001: the tool server could not start (" + st.listen_error + "). Fix: check loopback networking";
        return t;
      }
      const std::uint64_t id = st.next++;
      Turn t;
      // Read before make_response_promise, which takes the sender over (CAF 0.17).
      t.task = caf::actor_cast<task_handle>(self->current_sender());
      t.promise = self->make_response_promise<ModelTurn>();
      t.task_id = req.task_id;
      t.grant = McpTurn{fresh_token(), req.callees, req.capsules, req.tools, req.ask_operator};
      auto rp = t.promise;
      if (t.task) self->monitor(t.task);
      st.turns.emplace(id, std::move(t));
      start_turn(self, id, req);
      return rp;
    },
    [=](McpPost& post) { on_mcp(self, std::move(post)); },
    [=](harness_output_atom, std::uint64_t id) {
      auto it = self->state.turns.find(id);
      if (it != self->state.turns.end()) it->second.last_activity = steady::now();
    },
    [=](harness_tick_atom, std::uint64_t id) {
      auto it = self->state.turns.find(id);
      if (it == self->state.turns.end() || !it->second.run) return;
      Turn& t = it->second;
      const auto quiet = std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - t.last_activity);
      if (t.tools_out > 0) { // waiting on the runtime's answer to a tool call is not silence
        arm_tick(self, id, self->state.setup.turn_timeout);
      } else if (quiet >= self->state.setup.turn_timeout) {
        t.timed_out = true;
        t.run->kill();
      } else {
        arm_tick(self, id, self->state.setup.turn_timeout - quiet);
      }
    },
    [=](HarnessDone& d) {
      auto& st = self->state;
      auto it = st.turns.find(d.run);
      if (it == st.turns.end()) return;
      Turn t = std::move(it->second);
      st.turns.erase(it); // the token dies with the turn
      ModelTurn out = turn_of(st.setup, t, *d.end);
      if (t.task) self->demonitor(t.task.address());
      t.promise.deliver(std::move(out));
      // The run's thread sent this as its last act: joining it here is short.
      t.run.reset();
    },
  };
}

} // namespace

model_port spawn_harness_model(caf::actor_system& sys, HarnessSetup setup) {
  return model_port{sys.spawn(harness_model, std::move(setup))};
}

} // namespace mur
