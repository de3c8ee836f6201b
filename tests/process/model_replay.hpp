// model_replay.hpp — the replay model server (tests/models/replay_server.mjs) as process tests
// use it, and a formation of `transport: http` members that talks to it.
//
// Invariant: each ReplayServer is its own node process on its own free loopback port, ended
// (SIGTERM, then reaped) when the object goes away; what it recorded is read over HTTP, never
// guessed. Each ModelFormation has its own MURMUR_HOME and project (FormationFixture), its
// capsules pointing at that server and nothing else. Waits are bounded (`generous`), never
// timing assertions.
#pragma once

#include "formation_fixture.hpp"
#include "launched_mur.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mur::test {

class ReplayServer {
public:
  ReplayServer();
  ~ReplayServer();
  ReplayServer(const ReplayServer&) = delete;
  ReplayServer& operator=(const ReplayServer&) = delete;

  const std::string& endpoint() const { return endpoint_; } // http://127.0.0.1:PORT/v1
  // GET /__replay/requests: every chat request so far, in arrival order.
  nlohmann::json requests() const;
  // Those whose entry (scenario or fixture name) is `entry`.
  std::vector<nlohmann::json> requests_of(const std::string& entry) const;
  // POST /__replay/release?gate=NAME.
  void release(const std::string& gate) const;
  // Polls the record until some request satisfies `pred` (bounded by `generous`); that
  // request, or null when none came.
  nlohmann::json await_request(const std::function<bool(const nlohmann::json&)>& pred) const;

private:
  std::unique_ptr<LaunchedMur> node_;
  std::string endpoint_, base_;
};

// The first user message of a recorded request (the task as the member received it), its last
// message, and the texts of its messages with `role`.
std::string task_of(const nlohmann::json& request);
nlohmann::json last_message(const nlohmann::json& request);
std::vector<std::string> texts_of(const nlohmann::json& request, const std::string& role);
bool contains_ci(const std::string& text, const std::string& needle);

// The lifecycle a capsule of a ModelFormation has unless told: a queue of one, asleep after a task.
inline const std::string queued_lifecycle = "{task_acceptance: queue, queue_depth: 1, after_task: sleep}";

// Capsules `t-NAME` with `transport: http` at the server, and a roster of them.
struct ModelFormation {
  explicit ModelFormation(const std::string& example = "review");
  FormationFixture f;
  ReplayServer replay;
  TempDir capsules;

  // Installs capsule t-NAME: `model` at the replay endpoint, `inference_extra` lines under
  // inference (each "  key: value\n"), `lifecycle` the flow mapping of lifecycle.
  void capsule(const std::string& name, const std::string& model, const std::string& inference_extra = "",
               const std::string& lifecycle = queued_lifecycle);
  // The pair most tests use: capsules lead (`lead_model`, the entry) and coder (`coder_model`),
  // and the roster in which lead calls coder.
  void lead_and_coder(const std::string& lead_model, const std::string& lead_extra = "",
                      const std::string& coder_model = "coder", const std::string& coder_extra = "",
                      const std::string& coder_lifecycle = queued_lifecycle);
  // Writes the project's roster: `members` in order (the first is the entry, capsule t-NAME),
  // `edges` as "from: [to, …]" pairs.
  void roster(const std::vector<std::string>& members, const std::vector<std::pair<std::string, std::string>>& edges);
  std::vector<std::string> run_args(const std::vector<std::string>& extra) const;
  // `mur run --roster` of the project with `--task TASK --deadline 120s`, in `env` (default: f.env).
  Ran run_task(const std::string& task, const std::map<std::string, std::string>* env = nullptr) const;
  // run_task in f.env with REPLAY_MODEL_KEY set to `key` (the api_key of a capsule that names it).
  Ran run_task_with_key(const std::string& task, const std::string& key) const;
};

// The pair with the lead's model `lead_model` and api_key ${REPLAY_MODEL_KEY}, `add a flag`
// launched with that variable `key`: CHECKs that it failed with `code` on stderr (or, when
// `code_on_stdout`, on either) and that the key is on neither its stdout nor its stderr, nor in
// any file under the home or the project.
Ran failed_keeping_key(ModelFormation& m, const std::string& lead_model, const std::string& key,
                       const std::string& code, bool code_on_stdout = false);

// `mur send TARGET TEXT --json` in f's environment: the answer line, REQUIREd to be a JSON object.
nlohmann::json send_json(const FormationFixture& f, const std::string& target, const std::string& text);

// lead (entry, `lead_model`) → coder (`coder_model`), served (`run --roster --json --deadline
// 170s`, `extra_env` added to the fixture's environment) until the object goes away (SIGTERM).
struct ServingPair {
  ModelFormation m;
  std::unique_ptr<LaunchedMur> run;
  std::unique_ptr<Serving> s;
  ServingPair(const std::string& lead_model, const std::string& lead_extra, const std::string& coder_model = "coder",
              const std::string& coder_lifecycle = queued_lifecycle,
              const std::map<std::string, std::string>& extra_env = {});
  ~ServingPair();
  ServingPair(const ServingPair&) = delete;
  ServingPair& operator=(const ServingPair&) = delete;
  std::string coder_session() const; // the coder's session id, from the formation line
};

} // namespace mur::test
