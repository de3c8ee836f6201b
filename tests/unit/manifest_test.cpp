#include "capsule/manifest.hpp"
#include "messages/vocabulary/failure.hpp"
#include "manifest_refusal.hpp"

#include <catch2/catch.hpp>

using mur::Manifest;
using mur::parse_manifest;
using mur::test::manifest_refused_each;

namespace {

const std::string head = "name: worker\nversion: 1.0.0\n";

// A manifest: the head, then `text`.
std::string with_head(const std::string& text) { return head + text; }

mur::Failure refusal(const std::string& text) { return mur::test::manifest_refusal(text); }
void refused(const std::string& text, const std::string& code, const std::string& fragment) {
  mur::test::manifest_refused(text, code, fragment);
}

} // namespace

TEST_CASE("a full manifest parses with every field", "[manifest]") {
  Manifest m = parse_manifest(R"(
name: reviewer
version: "1.10"
description: Reviews code
inference:
  transport: script
  routes:
    - match: "^urgent"
      turns: [{reply: "fast {{task}}"}]
  turns:
    - call: {member: coder, task: "Write this: {{task}}"}
      think_ms: 20
    - call: [{member: a, task: x}, {member: b, task: y}]
    - reply: "Reviewed. The coder said: {{answer.coder}}"
  max_turns: 12
lifecycle:
  task_acceptance: queue
  queue_depth: 2
  after_task: sleep
  delegation_deadline_secs: 300
exports: {peer_tasks: {accept: true}}
capabilities: {network: {allow: [localhost, "127.0.0.1:8080", "https://example.com"]}}
network:
  authentication:
    scheme: bearer
    credentials: {ci: {scopes: [SendMessage, GetTask, GetTask]}}
trace: {retain: {max_sessions: 20, max_age: 7d}}
)", "murmur.yaml");
  CHECK(m.name == "reviewer");
  CHECK(m.version == "1.10");
  CHECK(m.inference.max_turns == 12);
  REQUIRE(m.inference.routes.size() == 1);
  CHECK(m.inference.routes[0].turns[0].reply == std::optional<std::string>("fast {{task}}"));
  REQUIRE(m.inference.turns.size() == 3);
  CHECK(m.inference.turns[0].calls.at(0).member == "coder");
  CHECK(m.inference.turns[0].think_ms == 20);
  CHECK(m.inference.turns[1].calls.size() == 2);
  CHECK(m.lifecycle.task_acceptance == mur::TaskAcceptance::queue);
  CHECK(m.lifecycle.queue_depth == 2);
  CHECK(m.lifecycle.after_task == mur::AfterTask::sleep);
  CHECK(m.lifecycle.delegation_deadline_secs == 300);
  CHECK(m.accepts_peer_tasks);
  CHECK(m.allows_localhost());
  REQUIRE(m.authentication);
  CHECK(m.authentication->credentials.at(0).name == "ci");
  CHECK(m.authentication->credentials.at(0).scopes.words() == std::vector<std::string>{"SendMessage", "GetTask"});
  CHECK(m.retain->max_sessions == 20);
  CHECK(m.retain->max_age == std::chrono::hours(168));
  CHECK(m.tasks_held_at_once() == 3);
}

TEST_CASE("defaults: the echo script, single/exit, no consent, public door", "[manifest]") {
  Manifest m = parse_manifest(head, "murmur.yaml");
  CHECK(m.inference.transport == mur::Transport::script);
  REQUIRE(m.inference.turns.size() == 1);
  CHECK(m.inference.turns[0].reply == std::optional<std::string>("{{task}}"));
  CHECK(m.lifecycle.task_acceptance == mur::TaskAcceptance::single);
  CHECK(m.lifecycle.after_task == mur::AfterTask::exit);
  CHECK(m.lifecycle.conversation == mur::Conversation::stateless);
  CHECK(m.lifecycle.delegation_deadline_secs == 600);
  CHECK(m.tasks_held_at_once() == 1);
  CHECK_FALSE(m.accepts_peer_tasks);
  CHECK_FALSE(m.authentication);
  CHECK_FALSE(m.allows_localhost());
  CHECK(m.files() == std::vector<std::string>{"murmur.yaml"});
}

TEST_CASE("http and process transports", "[manifest]") {
  Manifest h = parse_manifest(head + "inference: {transport: http, endpoint: 'http://localhost:11434/v1', "
                                     "model: qwen, api_key: '${OPENAI_KEY}', system_prompt_file: prompts/sys.md, max_tokens: 512}\n",
                              "murmur.yaml");
  CHECK(h.inference.transport == mur::Transport::http);
  CHECK(h.files() == std::vector<std::string>{"murmur.yaml", "prompts/sys.md"});
  Manifest p = parse_manifest(head + "inference: {transport: process, command: [my-agent, --flag]}\n", "murmur.yaml");
  CHECK(p.inference.command == std::vector<std::string>{"my-agent", "--flag"});
}

TEST_CASE("tasks held at once follows the acceptance policy", "[manifest]") {
  CHECK(parse_manifest(head + "lifecycle: {task_acceptance: none}\n", "m").tasks_held_at_once() == 0);
  CHECK(parse_manifest(head + "lifecycle: {task_acceptance: queue}\n", "m").tasks_held_at_once() == 2);
  CHECK(parse_manifest(head + "lifecycle: {task_acceptance: queue, queue_depth: 0}\n", "m").tasks_held_at_once() == 0);
}

TEST_CASE("lifecycle.retain_tasks bounds the ended tasks a door keeps", "[manifest][retention]") {
  Manifest d = parse_manifest(head, "m");
  CHECK(d.lifecycle.retain_tasks_max == 1000);
  CHECK(d.lifecycle.retain_tasks_max_age == std::chrono::hours(1));
  Manifest m = parse_manifest(head + "lifecycle: {retain_tasks: {max: 50, max_age: 10m}}\n", "m");
  CHECK(m.lifecycle.retain_tasks_max == 50);
  CHECK(m.lifecycle.retain_tasks_max_age == std::chrono::minutes(10));
  Manifest one = parse_manifest(head + "lifecycle: {retain_tasks: {max: 1}}\n", "m");
  CHECK(one.lifecycle.retain_tasks_max == 1);
  CHECK(one.lifecycle.retain_tasks_max_age == std::chrono::hours(1));
  manifest_refused_each("E-MAN-002", with_head, {
    {"lifecycle: {retain_tasks: {max: 0}}\n", "lifecycle.retain_tasks.max: must be between 1"},
    {"lifecycle: {retain_tasks: {max: 2000000}}\n", "lifecycle.retain_tasks.max: must be between 1"},
    {"lifecycle: {retain_tasks: {max_age: 0}}\n", "lifecycle.retain_tasks.max_age: must be longer than zero"},
    {"lifecycle: {retain_tasks: {max_age: soon}}\n", "lifecycle.retain_tasks.max_age: is not a duration"},
    {"lifecycle: {retain_tasks: {keep: 3}}\n", "lifecycle.retain_tasks.keep: is not a known key"},
    {"lifecycle: {retain_tasks: {}}\n", "lifecycle.retain_tasks: is empty"},
    {"lifecycle: {retain_tasks: }\n", "retain_tasks is empty"},
  });
}

TEST_CASE("file-level refusals are E-MAN-001", "[manifest]") {
  manifest_refused_each("E-MAN-001", {
    {"", "is empty"},
    {"name: [unclosed", "not valid YAML"},
    {"name: a\n---\nname: b\n", "more than one YAML document"},
  });
}

TEST_CASE("every field error names its key path (E-MAN-002)", "[manifest]") {
  manifest_refused_each("E-MAN-002", {
    {"- a\n- b\n", "(top level): must be a mapping"},
    {"version: 1.0.0\n", "name: is required"},
    {"name: worker\n", "version: is required"},
    {"name: Worker\nversion: 1\n", "name: 'Worker' may hold only lowercase"},
    {"name: -worker\nversion: 1\n", "may not start or end with '-'"},
    {"name: " + std::string(101, 'a') + "\nversion: 1\n", "longer than 100"},
    {"name: w\nversion: latest\n", "version: is a floating tag"},
    {"name: w\nversion: STABLE\n", "floating tag"},
    {"name: w\nversion: '  '\n", "version: is blank"},
    {"name: w\nversion: 1/2\n", "version: may hold only"},
  });
  manifest_refused_each("E-MAN-002", with_head, {
    {"colour: blue\n", "colour: is not a known key"},
    {"name: again\n", "name: appears more than once"},
    {"lifecycle: {task_acceptance: some}\n", "lifecycle.task_acceptance: 'some' is not one of none, single, queue"},
    {"lifecycle: {task_acceptance: queue, queue_depth: -1}\n", "lifecycle.queue_depth: must be between 0"},
    {"lifecycle: {task_acceptance: queue, queue_depth: '2'}\n", "lifecycle.queue_depth: must be a whole number"},
    {"lifecycle: {after_task: nap}\n", "lifecycle.after_task"},
    {"lifecycle: {conversation: remembered}\n", "lifecycle.conversation: 'remembered' is not one of stateless, threaded"},
    {"lifecycle: {delegation_deadline_secs: 0}\n", "lifecycle.delegation_deadline_secs"},
    {"lifecycle: {speed: 3}\n", "lifecycle.speed: is not a known key"},
    {"exports: {peer_tasks: {accept: 'yes'}}\n", "exports.peer_tasks.accept: must be true or false"},
    {"exports: {peer_tasks: {accept: yes}}\n", "must be true or false"},
    {"network: {authentication: {scheme: basic}}\n", "network.authentication.scheme: 'basic'"},
    {"network: {authentication: }\n", "authentication is empty"},
    {"network: {authentication: {credentials: {operator: {scopes: [GetTask]}}}}\n", "'operator' is the runtime's own"},
    {"network: {authentication: {credentials: {'a:b': {scopes: [GetTask]}}}}\n", "credential name 'a:b'"},
    {"network: {authentication: {credentials: {ci: {scopes: [DeleteEverything]}}}}\n", "network.authentication.credentials.ci.scopes[0]: 'DeleteEverything' is not a door method"},
    {"network: {authentication: {credentials: {ci: {scopes: []}}}}\n", "scopes: is empty"},
    {"trace: {retain: {}}\n", "trace.retain: is empty"},
    {"trace: {retain: }\n", "retain is empty"},
    {"trace: {retain: {max_sessions: 0}}\n", "trace.retain.max_sessions: must be between 1"},
    {"trace: {retain: {max_age: 0}}\n", "trace.retain.max_age: must be longer than zero"},
    {"trace: {retain: {max_age: 1week}}\n", "trace.retain.max_age: is not a duration"},
    {"inference: {transport: carrier-pigeon}\n", "inference.transport"},
    {"inference: {max_turns: 0}\n", "inference.max_turns"},
    {"inference: {transport: http, model: m}\n", "inference.endpoint: is required"},
    {"inference: {transport: http, endpoint: 'ftp://x', model: m}\n", "inference.endpoint: must be an http"},
    {"inference: {transport: http, endpoint: 'http://localhost', model: m, api_key: '${lower}'}\n", "inference.api_key"},
    {"inference: {transport: http, endpoint: 'http://localhost', model: m, system_prompt_file: ../etc/passwd}\n", "must be a path inside the capsule folder"},
    {"inference: {transport: process}\n", "inference.command: is required"},
    {"inference: {transport: process, command: []}\n", "inference.command: is an empty list"},
    // An agent program gets no MURMUR_ variable, not even one its capsule names.
    {"inference: {transport: process, command: [a], env: {MURMUR_HOME: /tmp}}\n", "sets MURMUR_HOME: MURMUR_ variables are the runtime's"},
  });
}

TEST_CASE("script errors name the turn at fault", "[manifest]") {
  manifest_refused_each("E-MAN-002", with_head, {
    {"inference: {turns: [{}]}\n", "inference.turns[0]: neither calls a member, delegates, uses a tool, asks nor ends the task"},
    {"inference: {turns: [{reply: a}, {say: b}]}\n", "inference.turns[1].say: is not a known key"},
    {"inference: {turns: [{call: {member: Coder, task: x}}]}\n", "inference.turns[0].call.member"},
    {"inference: {turns: [{call: {member: coder}}]}\n", "inference.turns[0].call.task: is required"},
    {"inference: {turns: [{call: [{member: a, task: x}, {member: b}]}]}\n", "inference.turns[0].call[1].task"},
    {"inference: {turns: [{call: []}]}\n", "lists no calls"},
    {"inference: {turns: [{reply: x, think_ms: -1}]}\n", "inference.turns[0].think_ms"},
    {"inference: {routes: [{match: '([', turns: [{reply: x}]}]}\n", "inference.routes[0].match: is not a valid regular expression"},
    {"inference: {routes: [{match: a}]}\n", "inference.routes[0].turns: is required"},
    {"inference: {routes: [{match: 'a{8888888888888888888}', turns: [{reply: x}]}]}\n", "inference.routes[0].match: repeats a part more than 1000 times"},
    {"inference: {routes: [{match: 'a{2,1001}', turns: [{reply: x}]}]}\n", "inference.routes[0].match: repeats a part more than 1000 times"},
  });
}

TEST_CASE("a script route may repeat a part up to 1000 times, and commas between digits are text", "[manifest]") {
  const Manifest m = parse_manifest(with_head("inference: {routes: [{match: 'a{2,1000}|b{1000}|1,50000|c{3,}', "
                                              "turns: [{reply: x}]}]}\n"),
                                    "murmur.yaml");
  REQUIRE(m.inference.routes.size() == 1);
  CHECK(m.inference.routes[0].match == "a{2,1000}|b{1000}|1,50000|c{3,}");
}

TEST_CASE("contradicting keys are E-MAN-003", "[manifest]") {
  manifest_refused_each("E-MAN-003", with_head, {
    {"inference: {turns: [{reply: a, fail: b}]}\n", "more than one of reply"},
    {"inference: {turns: [{reply: a, call: {member: b, task: c}}]}\n", "same turn"},
    {"inference: {transport: http, endpoint: 'http://localhost', model: m, system_prompt: a, system_prompt_file: b}\n", "inference.system_prompt_file: is set together with"},
    {"inference: {transport: script, model: m}\n", "inference.model: does not apply to transport: script"},
    {"inference: {transport: http, endpoint: 'http://localhost', model: m, turns: []}\n", "inference.turns"},
    {"lifecycle: {queue_depth: 2}\n", "task_acceptance is not queue"},
  });
}

TEST_CASE("network.allow entries are checked (E-CAP-001)", "[manifest]") {
  manifest_refused_each("E-CAP-001", with_head, {
    {"capabilities: {network: {allow: [http://localhost/path]}}\n", "capabilities.network.allow[0]"},
    {"capabilities: {network: {allow: [localhost, 'a b']}}\n", "capabilities.network.allow[1]"},
    {"capabilities: {network: {allow: ['localhost?x=1']}}\n", "allow[0]"},
  });
  refused(head + "capabilities: {network: {allow: localhost}}\n", "E-MAN-002", "capabilities.network.allow: must be a list");
  CHECK_FALSE(parse_manifest(head + "capabilities: {network: {allow: ['http://localhost']}}\n", "m").allows_localhost());
}

TEST_CASE("capabilities.limits and capabilities.home are read with their ranges", "[manifest][isolation]") {
  const Manifest m = parse_manifest(head + "capabilities:\n  home: real\n  limits: {memory_mib: 512, pids: 64, cpu_percent: 150, open_files: 256}\n", "m");
  CHECK(m.real_home);
  CHECK(m.resources.memory_mib == std::optional<std::int64_t>(512));
  CHECK(m.resources.pids == std::optional<std::int64_t>(64));
  CHECK(m.resources.cpu_percent == std::optional<std::int64_t>(150));
  CHECK(m.resources.open_files == std::optional<std::int64_t>(256));
  const Manifest none = parse_manifest(head, "m");
  CHECK_FALSE(none.real_home);
  CHECK_FALSE(none.resources.memory_mib);
  CHECK_FALSE(none.resources.pids);
  CHECK_FALSE(parse_manifest(head + "capabilities: {home: private}\n", "m").real_home);
  manifest_refused_each("E-MAN-002", with_head, {
    {"capabilities: {home: mine}\n", "capabilities.home: 'mine' is not one of private, real"},
    {"capabilities: {limits: {memory_mib: 8}}\n", "capabilities.limits.memory_mib: must be between 16"},
    {"capabilities: {limits: {pids: 0}}\n", "capabilities.limits.pids: must be between 8"},
    {"capabilities: {limits: {cpu_percent: 0}}\n", "capabilities.limits.cpu_percent: must be between 1"},
    {"capabilities: {limits: {open_files: 100000000}}\n", "capabilities.limits.open_files: must be between 16"},
    {"capabilities: {limits: {swap_mib: 1}}\n", "swap_mib: is not a known key"},
    {"capabilities: {limits: {max_tokens: 1}}\n", "max_tokens: is not a known key"},
  });
}

TEST_CASE("no manifest input crashes", "[manifest]") {
  const char* inputs[] = {"{", "]", "&a [*a]", "!!binary x", "name: *nope", "\t", "---\n---\n", "? [a]\n: b\n",
                          "name: {a: 1}\nversion: 1\n", "name: w\nversion: [1]\n", "\xff\xfe",
                          "name: w\nversion: 1\ninference: [1]\n"};
  for (const char* in : inputs) {
    INFO(in);
    try {
      parse_manifest(in, "murmur.yaml");
    } catch (const mur::Failure& f) {
      CHECK(f.code().rfind("E-", 0) == 0);
    }
  }
}

TEST_CASE("capabilities.spawn.allow: capsules at exact versions, beside network.authentication", "[manifest][spawn]") {
  Manifest m = parse_manifest(head + "capabilities:\n  network: {allow: [localhost]}\n"
                                     "  spawn: {allow: [helper@1.0.0, \"tool-2@2.1.0-rc.1+b7\"]}\n"
                                     "network: {authentication: {scheme: bearer}}\n",
                              "murmur.yaml");
  REQUIRE(m.spawn_allow.size() == 2);
  CHECK(m.spawn_allow[0] == mur::CapsuleRef{"helper", "1.0.0"});
  CHECK(m.spawn_allow[1].name == "tool-2");
  CHECK(m.spawn_allow[1].version == "2.1.0-rc.1+b7");
  CHECK(m.spawn_allow[1].text() == "tool-2@2.1.0-rc.1+b7");
  CHECK(m.authentication);
  CHECK(parse_manifest(head, "m").spawn_allow.empty());
  CHECK(parse_manifest(head + "capabilities: {spawn: {allow: []}}\n", "m").spawn_allow.empty());
  CHECK(parse_manifest(head + "capabilities: {spawn: {}}\n", "m").spawn_allow.empty());
}

TEST_CASE("capabilities.spawn.allow refusals name the entry (E-MAN-002)", "[manifest][spawn]") {
  auto allow = [](const std::string& entries) { return head + "capabilities: {spawn: {allow: [" + entries + "]}}\n"; };
  // not name@version
  manifest_refused_each("E-MAN-002", allow, {
    {"helper", "capabilities.spawn.allow[0]: 'helper' is not <capsule>@<version>"},
    {"'@1.0.0'", "capabilities.spawn.allow[0]: '@1.0.0' is not <capsule>@<version>"},
    {"ok@1.0.0, 'helper@'", "capabilities.spawn.allow[1]: 'helper@' is not"},
    // not a valid capsule name
    {"Helper@1.0.0", "allow[0]: 'Helper@1.0.0': the capsule name 'Helper' may hold only"},
    {"-helper@1.0.0", "the capsule name '-helper' may not start or end with '-'"},
    {"'a/b@1.0.0'", "the capsule name 'a/b'"},
  });
  // not an exact version: floating tags and ranges
  for (const char* v : {"latest", "Stable", "EDGE"})
    refused(allow(std::string("helper@") + v), "E-MAN-002", "is a floating tag");
  for (const char* v : {"'helper@^1.0'", "'helper@~1.2'", "'helper@>=1.0'", "'helper@1.*'", "'helper@1.0 - 2.0'",
                        "'helper@1.0 || 2.0'", "'helper@1@2'"})
    refused(allow(v), "E-MAN-002", "capabilities.spawn.allow[0]: 'helper@");
  manifest_refused_each("E-MAN-002", allow, {
    {"'helper@.1'", "may not start with '.'"},
    // the capsule itself, at any version
    {"worker@1.0.0", "allow[0]: 'worker@1.0.0' names this capsule itself"},
    {"helper@1.0.0, worker@2.0.0", "allow[1]: 'worker@2.0.0' names this capsule itself"},
    // a repeated entry, or the same capsule at two versions
    {"helper@1.0.0, tool@1.0.0, helper@1.0.0", "capabilities.spawn.allow[2]: 'helper@1.0.0' names the capsule 'helper' again (capabilities.spawn.allow[0]"},
    {"helper@1.0.0, helper@1.1.0", "allow[1]: 'helper@1.1.0' names the capsule 'helper' again"},
  });
  manifest_refused_each("E-MAN-002", with_head, {
    // shape
    {"capabilities: {spawn: {allow: helper@1.0.0}}\n", "capabilities.spawn.allow: must be a list"},
    {"capabilities: {spawn: {allow: [[helper, 1.0.0]]}}\n", "capabilities.spawn.allow[0]"},
    {"capabilities: {spawn: {deny: [helper@1.0.0]}}\n", "capabilities.spawn"},
    {"capabilities: {spawn: [helper@1.0.0]}\n", "capabilities.spawn"},
  });
}

TEST_CASE("a script turn delegates to capsules of spawn.allow (E-MAN-003 for any other)", "[manifest][spawn]") {
  const std::string allow = "capabilities: {spawn: {allow: [helper@1.0.0, tool@2.0.0]}}\n";
  auto with_head_and_allow = [&](const std::string& text) { return head + allow + text; };
  Manifest m = parse_manifest(head + allow +
                                "inference: {turns: [{delegate: {capsule: helper, task: 'do {{task}}'}}, "
                                "{call: {member: b, task: x}, delegate: [{capsule: tool, task: t}, {capsule: helper, task: h}]}, "
                                "{reply: '{{answer.helper}}'}]}\n",
                              "murmur.yaml");
  REQUIRE(m.inference.turns.size() == 3);
  REQUIRE(m.inference.turns[0].delegations.size() == 1);
  CHECK(m.inference.turns[0].delegations[0].capsule == "helper");
  CHECK(m.inference.turns[0].delegations[0].task == "do {{task}}");
  CHECK(m.inference.turns[1].calls.size() == 1);
  REQUIRE(m.inference.turns[1].delegations.size() == 2);
  CHECK(m.inference.turns[1].delegations[0].capsule == "tool");
  refused(head + "inference: {turns: [{delegate: {capsule: helper, task: x}}]}\n", "E-MAN-003",
          "inference.turns[0].delegate: 'helper' is not listed in capabilities.spawn.allow");
  manifest_refused_each("E-MAN-003", with_head_and_allow, {
    {"inference: {routes: [{match: a, turns: [{reply: r}]}, {match: b, turns: [{reply: r}, {delegate: {capsule: other, task: x}}]}]}\n", "inference.routes[1].turns[1].delegate: 'other' is not listed"},
    {"inference: {turns: [{delegate: {capsule: helper, task: x}, reply: done}]}\n", "both calls (delegates or uses a tool) and ends the task in the same turn"},
  });
  manifest_refused_each("E-MAN-002", with_head_and_allow, {
    {"inference: {turns: [{delegate: {capsule: helper}}]}\n", "task"},
    {"inference: {turns: [{delegate: []}]}\n", "lists no delegations"},
    {"inference: {turns: [{delegate: {capsule: Helper, task: x}}]}\n", "the capsule name"},
  });
}

TEST_CASE("a script turn may not delegate to more capsules than run at once, nor to one twice (E-MAN-003)", "[manifest][spawn]") {
  const std::string allow = "capabilities: {spawn: {allow: [c1@1.0.0, c2@1.0.0, c3@1.0.0, c4@1.0.0, c5@1.0.0]}}\n";
  auto turn = [&](const std::string& list) { return head + allow + "inference: {turns: [{delegate: [" + list + "]}]}\n"; };
  CHECK(parse_manifest(turn("{capsule: c1, task: a}, {capsule: c2, task: b}, {capsule: c3, task: c}, {capsule: c4, task: d}"), "m")
          .inference.turns[0].delegations.size() == 4);
  refused(turn("{capsule: c1, task: a}, {capsule: c2, task: b}, {capsule: c3, task: c}, {capsule: c4, task: d}, {capsule: c5, task: e}"),
          "E-MAN-003", "inference.turns[0].delegate: 5 delegations in one turn, but at most 4 run at once");
  refused(turn("{capsule: c1, task: a}, {capsule: c2, task: b}, {capsule: c1, task: again}"), "E-MAN-003",
          "inference.turns[0].delegate[2]: 'c1' again in the same turn");
}

TEST_CASE("tools: a capsule's tool servers are read with their keys, defaults and refusals (E-MAN-002)", "[manifest][tools]") {
  auto m = parse_manifest(head + "tools:\n  - {name: files, command: [node, srv.mjs, .], env: {T: '${TOK}'}, allow: [read], timeout_secs: 9}\n"
                                 "  - {name: web-search, command: [srv]}\n",
                          "murmur.yaml");
  REQUIRE(m.tools.size() == 2);
  CHECK(m.tools[0].command == std::vector<std::string>{"node", "srv.mjs", "."});
  CHECK(m.tools[0].env == std::vector<std::pair<std::string, std::string>>{{"T", "${TOK}"}});
  CHECK(m.tools[0].allow == std::vector<std::string>{"read"});
  CHECK(m.tools[0].timeout_secs == 9);
  CHECK(!m.tools[1].allow);
  CHECK(m.tools[1].timeout_secs == 120);
  auto tools = [](const std::string& entries) { return head + "tools: [" + entries + "]\n"; };
  mur::test::manifest_refused_each("E-MAN-002", tools, {
    {"{name: Files, command: [x]}", "tools[0].name: 'Files' is not 1-32 of a-z"},
    {"{name: a__b, command: [x]}", "tools[0].name: 'a__b'"},
    {"{name: files}", "tools[0].command: is required"},
    {"{name: files, command: []}", "tools[0].command: is an empty list"},
    {"{name: files, url: 'http://127.0.0.1:1/mcp', command: [x]}", "tools[0].url: is given beside command"},
    {"{name: files, url: 'http://example.com/mcp'}", "tools[0].url: uses http:// with the host example.com, which is not loopback"},
    {"{name: files, url: 'http://example.com/mcp', allow_insecure_http: false}", "which is not loopback"},
    {"{name: files, command: [x], allow_insecure_http: true}", "tools[0].allow_insecure_http: applies to url, not command"},
    {"{name: files, url: 'http://example.com/mcp', allow_insecure_http: 'yes'}", "allow_insecure_http: must be true or false"},
    {"{name: files, url: 'http://helper.formation.invalid/mcp'}", "tools[0].url: names helper.formation.invalid, a formation's virtual address"},
    {"{name: files, url: 'https://u:p@example.com/mcp'}", "tools[0].url: holds user info"},
    {"{name: files, url: 'http://127.0.0.1:1'}", "tools[0].url: has no path"},
    {"{name: files, url: 'http://127.0.0.1:1/mcp', env: {A: b}}", "tools[0].env: applies to command, not url"},
    {"{name: files, command: [x], headers: {A: b}}", "tools[0].headers: applies to url, not command"},
    {"{name: files, url: 'http://127.0.0.1:1/mcp', headers: {'Bad Name': b}}", "names a header 'Bad Name'"},
    {"{name: files, url: 'http://127.0.0.1:1/mcp', headers: {Mcp-Session-Id: b}}", "sets Mcp-Session-Id, which mur sets itself"},
    {"{name: files, url: 'http://127.0.0.1:1/mcp', headers: {A: b, a: c}}", "names a twice"},
    {"{name: files, url: 'http://127.0.0.1:1/mcp', headers: {A: 'Bearer ${lower}'}}", "holds a ${ that does not open a ${NAME}"},
    {"{name: files, url: 'http://127.0.0.1:1/mcp', headers: {A: 'Bearer ${KEY'}}", "holds a ${ that does not open a ${NAME}"},
    {"{name: files, command: [x]}, {name: files, command: [y]}", "'files' is the name of another tool server"},
    {"{name: files, command: [x], env: {MURMUR_HOME: x}}", "MURMUR_ variables are the runtime's"},
    {"{name: files, command: [x], env: {T: 'a${B}'}}", "mixes ${…} with other text"},
    {"{name: files, command: [x], allow: []}", "tools[0].allow: is empty"},
    {"{name: files, command: [x], timeout_secs: 0}", "tools[0].timeout_secs: must be between 1"},
    {"{name: files, command: [x], colour: red}", "colour: is not a known key"},
  });
  mur::test::manifest_refused(head + "tools: []\n", "E-MAN-002", "tools: is an empty list");
  // a streamable HTTP server: its url as given, its headers in file order with their references
  auto h = parse_manifest(head + "tools:\n  - {name: search, url: 'https://tools.example.com/mcp/', "
                                 "headers: {Authorization: 'Bearer ${SEARCH_KEY}', X-Team: blue}, allow: [find]}\n",
                          "murmur.yaml");
  REQUIRE(h.tools.size() == 1);
  CHECK(h.tools[0].command.empty());
  CHECK(h.tools[0].url == "https://tools.example.com/mcp/"); // as written
  CHECK(h.tools[0].headers ==
        std::vector<std::pair<std::string, std::string>>{{"Authorization", "Bearer ${SEARCH_KEY}"}, {"X-Team", "blue"}});
  mur::test::manifest_refused(head + "inference: {turns: [{use: {tool: files__read}}]}\n", "E-MAN-003",
                   "inference.turns[0].use: 'files__read' names no tool server of this capsule");
  mur::test::manifest_refused(head + "tools: [{name: files, command: [x]}]\ninference: {turns: [{use: {tool: read}}]}\n", "E-MAN-002",
                   "'read' is not <server>__<tool>");
}

TEST_CASE("lifecycle.conversation: threaded keeps conversations, stateless (the default) does not", "[manifest][conversation]") {
  CHECK(parse_manifest(head + "lifecycle: {conversation: threaded}\n", "murmur.yaml").lifecycle.conversation ==
        mur::Conversation::threaded);
  CHECK(parse_manifest(head + "lifecycle: {conversation: stateless}\n", "murmur.yaml").lifecycle.conversation ==
        mur::Conversation::stateless);
}
