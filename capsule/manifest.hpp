// manifest.hpp — a capsule's `murmur.yaml` (docs/spec/choices.md §Manifest, §Script model;
// every key in docs/manifest.md).
//
// Invariant: a Manifest value exists only for a file that passed every rule: known keys only
// (an unknown key is refused with its path), the right YAML types, name/version spelling,
// lifecycle values in range, a script whose routes compile, and no two keys that contradict
// each other. The manifest is what the roster's three reachability layers read: a callee's
// consent (`exports.peer_tasks.accept`), a caller's egress (`capabilities.network.allow`) and
// an authenticated door (`network.authentication`).
// Rule: a callee consents with exports.peer_tasks.accept: true; a caller's egress needs the bare
// `localhost` in capabilities.network.allow (docs/spec/formation.md §Who may call whom).
//
// Retention: `lifecycle.retain_tasks: {max: 1000, max_age: 1h}` (the defaults) bounds the door's
// task table: an ended task is kept while it is among the newest `max` ended ones and younger
// than `max_age` since it ended; running and queued tasks are always kept. Both must keep
// something (max ≥ 1, max_age > 0), so the task that just ended can always be read back (an
// `after_task: exit` session reports its launch task from the door).
//
// Delegation targets: `capabilities.spawn.allow: ["<capsule>@<exact version>", …]` names the
// capsules this one may delegate to (docs/delegation.md). Each entry is a valid capsule name and an
// exact version (the roster's rule, capsule/capsule_names.hpp), never the capsule itself, and no
// capsule name twice (the `delegate` tool and `{{answer.NAME}}` name a child by its capsule
// name). Whether the entries are installed is admission's and doctor's to check (E-ROS-009).
// spawn.allow combines freely with network.authentication.
//
// Codes: E-MAN-001 the file is missing, unreadable or not YAML; E-MAN-002 a key or value is
// wrong; E-MAN-003 two keys contradict each other; E-CAP-001 a network.allow entry is malformed.
#pragma once

#include "messages/vocabulary/enum_words.hpp"

#include "capsule/tool_server_spec.hpp"
#include "messages/credentials/door_scope.hpp"
#include "messages/vocabulary/model_endpoint.hpp"
#include "messages/vocabulary/task_budget.hpp"
#include "messages/vocabulary/token_price.hpp"
#include "messages/vocabulary/call_chain.hpp"
#include "messages/vocabulary/trace_capture.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mur {

enum class TaskAcceptance { none, single, queue };
enum class AfterTask { exit, sleep };
enum class Transport { script, http, process };
enum class Conversation { stateless, threaded };

// Each enum's words, in one table (EnumWords): what a manifest may write, and what is printed.
inline constexpr EnumWords<TaskAcceptance, 3> task_acceptance_words{
  {{TaskAcceptance::none, "none"}, {TaskAcceptance::single, "single"}, {TaskAcceptance::queue, "queue"}}};
inline constexpr EnumWords<AfterTask, 2> after_task_words{{{AfterTask::exit, "exit"}, {AfterTask::sleep, "sleep"}}};
inline constexpr EnumWords<Transport, 3> transport_words{
  {{Transport::script, "script"}, {Transport::http, "http"}, {Transport::process, "process"}}};
inline constexpr EnumWords<Conversation, 2> conversation_words{
  {{Conversation::stateless, "stateless"}, {Conversation::threaded, "threaded"}}};
std::string to_string(TaskAcceptance a);
std::string to_string(AfterTask a);
std::string to_string(Transport t);
std::optional<TaskAcceptance> parse_task_acceptance(std::string_view word);
std::optional<AfterTask> parse_after_task(std::string_view word);

// One `call-member` tool call a script turn makes.
struct ScriptCall {
  std::string member;
  std::string task; // a template: {{task}}, {{member}}, {{answer.NAME}}, {{answers}}
};

// One `delegate` tool call a script turn makes (docs/spec/choices.md §Script model): its answer
// is {{answer.CAPSULE}}.
struct ScriptDelegation {
  std::string capsule; // an entry of capabilities.spawn.allow, by name
  std::string task;    // a template, as a call's
};

// One model turn of a script (docs/spec/choices.md §Script model).
// One call of the capsule's own tools a script turn makes (`use: {tool, arguments}`).
struct ScriptToolUse {
  std::string tool;      // <server>__<tool>
  std::string arguments; // a JSON object, as text
};

struct ScriptTurn {
  std::vector<ScriptCall> calls;
  std::optional<std::string> reply;
  std::optional<std::string> end_without_answer;
  std::optional<std::string> fail;
  std::int64_t think_ms = 0;
  std::vector<ScriptDelegation> delegations; // made after the turn's calls
  std::vector<ScriptToolUse> uses;           // made first; a later turn reads them as {{tool_results}}
  std::optional<std::string> ask;            // ask-operator's question (a template); the next turn reads the answer as {{tool_results}}
};

struct ScriptRoute {
  std::string match; // an ECMAScript regular expression, checked to compile
  std::vector<ScriptTurn> turns;
};

struct Inference {
  Transport transport = Transport::script;
  int max_turns = 10;
  // script
  std::vector<ScriptRoute> routes;
  std::vector<ScriptTurn> turns;
  // http (OpenAI-compatible Chat Completions; capsule/http_inference.hpp checks these)
  std::string endpoint;        // base URL before /chat/completions, as written
  ModelEndpoint model_endpoint; // the same, parsed once when the manifest is read (messages/vocabulary/model_endpoint.hpp)
  std::string model;
  std::string api_key_env;     // NAME of `api_key: ${NAME}` ("" ⇒ no key); a literal key is refused
  std::string system_prompt;
  std::string system_prompt_file; // relative to the capsule folder
  std::optional<int> max_tokens;    // sent only when set
  std::optional<double> temperature; // sent only when set
  bool stream = true;
  int request_timeout_secs = 300;
  // Extra request-body fields, passed through as they are: name → its value as JSON text, in
  // file order. Never one of the fields mur sets itself.
  std::vector<std::pair<std::string, std::string>> params;
  std::optional<TokenPrice> price; // inference.price: what the model's tokens cost (none: no cost shown)
  // process
  std::vector<std::string> command;
  // Variables the agent program gets beside a minimal environment: name → a value, or
  // `${NAME}` read from the member's environment when a turn starts. In file order.
  std::vector<std::pair<std::string, std::string>> env;
  int turn_timeout_secs = 600; // no output and no tool call for this long ends the turn (E-HAR-003)
};

struct Lifecycle {
  TaskAcceptance task_acceptance = TaskAcceptance::single;
  int queue_depth = 1;
  AfterTask after_task = AfterTask::exit;
  int delegation_deadline_secs = 600;
  int input_timeout_secs = 3600; // how long an ask-operator question waits for a person's answer
  // stateless: every task starts from nothing; threaded: a task continues its caller's earlier
  // exchanges in its A2A contextId (actors/conversation_store.hpp; docs/manifest.md).
  Conversation conversation = Conversation::stateless;
  // lifecycle.retain_tasks: {max, max_age} — how many ended tasks the door remembers, and how
  // long after each ended; a forgotten task answers -32001 like an id never held.
  int retain_tasks_max = 1000;                                   // 1..1,000,000
  std::chrono::milliseconds retain_tasks_max_age{3'600'000};     // a duration above zero (1h)
};

struct DeclaredCredential {
  std::string name;
  DoorScopes scopes; // the door methods it reaches
};

struct Authentication {
  std::string scheme = "bearer";
  std::vector<DeclaredCredential> credentials; // in file order
};

// One `capabilities.spawn.allow` entry: a capsule at an exact version.
struct CapsuleRef {
  std::string name;
  std::string version;
  std::string text() const { return name + "@" + version; }
  bool operator==(const CapsuleRef& o) const { return name == o.name && version == o.version; }
};

struct Retention {
  std::optional<int> max_sessions;
  std::optional<std::chrono::milliseconds> max_age;
};

struct Manifest {
  std::string name;
  std::string version;
  std::string description;
  Inference inference;
  Lifecycle lifecycle;
  bool accepts_peer_tasks = false;
  std::vector<std::string> network_allow;
  std::vector<CapsuleRef> spawn_allow; // capabilities.spawn.allow, in file order
  // capabilities.limits: the member runtime and its processes together (memory_mib, pids,
  // cpu_percent; os/member_cgroup.hpp), and each program's open files. None set: unbounded.
  struct Resources {
    std::optional<std::int64_t> memory_mib, pids, cpu_percent, open_files;
  } resources;
  bool real_home = false;              // capabilities.home: real — its programs get the user's HOME, not a private one
  bool ask_operator = false;           // capabilities.ask_operator: its tasks may ask a person (ask-operator)
  std::optional<Authentication> authentication;
  std::optional<Retention> retain;
  TraceCapture capture = TraceCapture::meta; // trace.capture: none | meta | content (docs/traces.md §Transcripts)
  std::vector<std::string> install_exclude; // install.exclude: globs of paths an install leaves out
  std::vector<ToolServerSpec> tools;        // its own MCP tool servers (capsule/tool_server_spec.hpp)
  SpendLimits limits;                       // limits: what each of its tasks may spend (docs/budgets.md)
  int max_depth = 0;                        // limits.max_depth: how deep its tasks may call (0: the roster's)
  std::string folder; // the folder it was read from ("" when parsed from text alone)

  // How many tasks the door holds at once (running + queued): the W-ROS-001 capacity.
  int tasks_held_at_once() const;
  // Whether the bare entry `localhost` is in capabilities.network.allow (a caller's egress).
  bool allows_localhost() const;
  // The files the manifest itself names, relative to its folder: murmur.yaml first. An install
  // takes the whole folder (capsule_store.hpp); these must be among its files.
  std::vector<std::string> files() const;
};

// Whether install.exclude `globs` leave out the relative path `rel` (or a folder above it).
bool install_excludes(const std::vector<std::string>& globs, const std::string& rel);

// Parses manifest text; `label` is how the file is named in messages (e.g. "capsules/coder/murmur.yaml").
Manifest parse_manifest(const std::string& text, const std::string& label);
// Reads DIR/murmur.yaml; a system_prompt_file must exist inside DIR, and so must a process
// command[0] that holds a '/' and is not absolute (an executable file; capsule/harness_program.hpp).
Manifest load_manifest_dir(const std::string& dir);

} // namespace mur
