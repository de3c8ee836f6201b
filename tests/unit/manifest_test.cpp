#include "capsule/manifest.hpp"
#include "messages/vocabulary/failure.hpp"
#include "manifest_refusal.hpp"

#include <catch2/catch.hpp>

using mur::Manifest;
using mur::parse_manifest;

namespace {

const std::string head = "name: worker\nversion: 1.0.0\n";

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
  refused(head + "lifecycle: {retain_tasks: {max: 0}}\n", "E-MAN-002", "lifecycle.retain_tasks.max: must be between 1");
  refused(head + "lifecycle: {retain_tasks: {max: 2000000}}\n", "E-MAN-002", "lifecycle.retain_tasks.max: must be between 1");
  refused(head + "lifecycle: {retain_tasks: {max_age: 0}}\n", "E-MAN-002", "lifecycle.retain_tasks.max_age: must be longer than zero");
  refused(head + "lifecycle: {retain_tasks: {max_age: soon}}\n", "E-MAN-002", "lifecycle.retain_tasks.max_age: is not a duration");
  refused(head + "lifecycle: {retain_tasks: {keep: 3}}\n", "E-MAN-002", "lifecycle.retain_tasks.keep: is not a known key");
  refused(head + "lifecycle: {retain_tasks: {}}\n", "E-MAN-002", "lifecycle.retain_tasks: is empty");
  refused(head + "lifecycle: {retain_tasks: }\n", "E-MAN-002", "retain_tasks is empty");
}

TEST_CASE("file-level refusals are E-MAN-001", "[manifest]") {
  refused("", "E-MAN-001", "is empty");
  refused("name: [unclosed", "E-MAN-001", "not valid YAML");
  refused("name: a\n---\nname: b\n", "E-MAN-001", "more than one YAML document");
}

TEST_CASE("every field error names its key path (E-MAN-002)", "[manifest]") {
  refused("- a\n- b\n", "E-MAN-002", "(top level): must be a mapping");
  refused("version: 1.0.0\n", "E-MAN-002", "name: is required");
  refused("name: worker\n", "E-MAN-002", "version: is required");
  refused("name: Worker\nversion: 1\n", "E-MAN-002", "name: 'Worker' may hold only lowercase");
  refused("name: -worker\nversion: 1\n", "E-MAN-002", "may not start or end with '-'");
  refused("name: " + std::string(101, 'a') + "\nversion: 1\n", "E-MAN-002", "longer than 100");
  refused("name: w\nversion: latest\n", "E-MAN-002", "version: is a floating tag");
  refused("name: w\nversion: STABLE\n", "E-MAN-002", "floating tag");
  refused("name: w\nversion: '  '\n", "E-MAN-002", "version: is blank");
  refused("name: w\nversion: 1/2\n", "E-MAN-002", "version: may hold only");
  refused(head + "colour: blue\n", "E-MAN-002", "colour: is not a known key");
  refused(head + "name: again\n", "E-MAN-002", "name: appears more than once");
  refused(head + "lifecycle: {task_acceptance: some}\n", "E-MAN-002",
          "lifecycle.task_acceptance: 'some' is not one of none, single, queue");
  refused(head + "lifecycle: {task_acceptance: queue, queue_depth: -1}\n", "E-MAN-002", "lifecycle.queue_depth: must be between 0");
  refused(head + "lifecycle: {task_acceptance: queue, queue_depth: '2'}\n", "E-MAN-002", "lifecycle.queue_depth: must be a whole number");
  refused(head + "lifecycle: {after_task: nap}\n", "E-MAN-002", "lifecycle.after_task");
  refused(head + "lifecycle: {delegation_deadline_secs: 0}\n", "E-MAN-002", "lifecycle.delegation_deadline_secs");
  refused(head + "lifecycle: {speed: 3}\n", "E-MAN-002", "lifecycle.speed: is not a known key");
  refused(head + "exports: {peer_tasks: {accept: 'yes'}}\n", "E-MAN-002", "exports.peer_tasks.accept: must be true or false");
  refused(head + "exports: {peer_tasks: {accept: yes}}\n", "E-MAN-002", "must be true or false");
  refused(head + "network: {authentication: {scheme: basic}}\n", "E-MAN-002", "network.authentication.scheme: 'basic'");
  refused(head + "network: {authentication: }\n", "E-MAN-002", "authentication is empty");
  refused(head + "network: {authentication: {credentials: {operator: {scopes: [GetTask]}}}}\n", "E-MAN-002", "'operator' is the runtime's own");
  refused(head + "network: {authentication: {credentials: {'a:b': {scopes: [GetTask]}}}}\n", "E-MAN-002", "credential name 'a:b'");
  refused(head + "network: {authentication: {credentials: {ci: {scopes: [DeleteEverything]}}}}\n", "E-MAN-002",
          "network.authentication.credentials.ci.scopes[0]: 'DeleteEverything' is not a door method");
  refused(head + "network: {authentication: {credentials: {ci: {scopes: []}}}}\n", "E-MAN-002", "scopes: is empty");
  refused(head + "trace: {retain: {}}\n", "E-MAN-002", "trace.retain: is empty");
  refused(head + "trace: {retain: }\n", "E-MAN-002", "retain is empty");
  refused(head + "trace: {retain: {max_sessions: 0}}\n", "E-MAN-002", "trace.retain.max_sessions: must be between 1");
  refused(head + "trace: {retain: {max_age: 0}}\n", "E-MAN-002", "trace.retain.max_age: must be longer than zero");
  refused(head + "trace: {retain: {max_age: 1week}}\n", "E-MAN-002", "trace.retain.max_age: is not a duration");
  refused(head + "inference: {transport: carrier-pigeon}\n", "E-MAN-002", "inference.transport");
  refused(head + "inference: {max_turns: 0}\n", "E-MAN-002", "inference.max_turns");
  refused(head + "inference: {transport: http, model: m}\n", "E-MAN-002", "inference.endpoint: is required");
  refused(head + "inference: {transport: http, endpoint: 'ftp://x', model: m}\n", "E-MAN-002", "inference.endpoint: must be an http");
  refused(head + "inference: {transport: http, endpoint: 'http://localhost', model: m, api_key: '${lower}'}\n", "E-MAN-002", "inference.api_key");
  refused(head + "inference: {transport: http, endpoint: 'http://localhost', model: m, system_prompt_file: ../etc/passwd}\n", "E-MAN-002",
          "must be a path inside the capsule folder");
  refused(head + "inference: {transport: process}\n", "E-MAN-002", "inference.command: is required");
  refused(head + "inference: {transport: process, command: []}\n", "E-MAN-002", "inference.command: is an empty list");
  // An agent program gets no MURMUR_ variable, not even one its capsule names.
  refused(head + "inference: {transport: process, command: [a], env: {MURMUR_HOME: /tmp}}\n", "E-MAN-002",
          "sets MURMUR_HOME: MURMUR_ variables are the runtime's");
}

TEST_CASE("script errors name the turn at fault", "[manifest]") {
  refused(head + "inference: {turns: [{}]}\n", "E-MAN-002", "inference.turns[0]: neither calls a member, delegates nor ends the task");
  refused(head + "inference: {turns: [{reply: a}, {say: b}]}\n", "E-MAN-002", "inference.turns[1].say: is not a known key");
  refused(head + "inference: {turns: [{call: {member: Coder, task: x}}]}\n", "E-MAN-002", "inference.turns[0].call.member");
  refused(head + "inference: {turns: [{call: {member: coder}}]}\n", "E-MAN-002", "inference.turns[0].call.task: is required");
  refused(head + "inference: {turns: [{call: [{member: a, task: x}, {member: b}]}]}\n", "E-MAN-002", "inference.turns[0].call[1].task");
  refused(head + "inference: {turns: [{call: []}]}\n", "E-MAN-002", "lists no calls");
  refused(head + "inference: {turns: [{reply: x, think_ms: -1}]}\n", "E-MAN-002", "inference.turns[0].think_ms");
  refused(head + "inference: {routes: [{match: '([', turns: [{reply: x}]}]}\n", "E-MAN-002",
          "inference.routes[0].match: is not a valid regular expression");
  refused(head + "inference: {routes: [{match: a}]}\n", "E-MAN-002", "inference.routes[0].turns: is required");
}

TEST_CASE("contradicting keys are E-MAN-003", "[manifest]") {
  refused(head + "inference: {turns: [{reply: a, fail: b}]}\n", "E-MAN-003", "more than one of reply");
  refused(head + "inference: {turns: [{reply: a, call: {member: b, task: c}}]}\n", "E-MAN-003", "same turn");
  refused(head + "inference: {transport: http, endpoint: 'http://localhost', model: m, system_prompt: a, system_prompt_file: b}\n",
          "E-MAN-003", "inference.system_prompt_file: is set together with");
  refused(head + "inference: {transport: script, model: m}\n", "E-MAN-003", "inference.model: does not apply to transport: script");
  refused(head + "inference: {transport: http, endpoint: 'http://localhost', model: m, turns: []}\n", "E-MAN-003", "inference.turns");
  refused(head + "lifecycle: {queue_depth: 2}\n", "E-MAN-003", "task_acceptance is not queue");
}

TEST_CASE("network.allow entries are checked (E-CAP-001)", "[manifest]") {
  refused(head + "capabilities: {network: {allow: [http://localhost/path]}}\n", "E-CAP-001", "capabilities.network.allow[0]");
  refused(head + "capabilities: {network: {allow: [localhost, 'a b']}}\n", "E-CAP-001", "capabilities.network.allow[1]");
  refused(head + "capabilities: {network: {allow: ['localhost?x=1']}}\n", "E-CAP-001", "allow[0]");
  refused(head + "capabilities: {network: {allow: localhost}}\n", "E-MAN-002", "capabilities.network.allow: must be a list");
  CHECK_FALSE(parse_manifest(head + "capabilities: {network: {allow: ['http://localhost']}}\n", "m").allows_localhost());
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
  refused(allow("helper"), "E-MAN-002", "capabilities.spawn.allow[0]: 'helper' is not <capsule>@<version>");
  refused(allow("'@1.0.0'"), "E-MAN-002", "capabilities.spawn.allow[0]: '@1.0.0' is not <capsule>@<version>");
  refused(allow("ok@1.0.0, 'helper@'"), "E-MAN-002", "capabilities.spawn.allow[1]: 'helper@' is not");
  // not a valid capsule name
  refused(allow("Helper@1.0.0"), "E-MAN-002", "allow[0]: 'Helper@1.0.0': the capsule name 'Helper' may hold only");
  refused(allow("-helper@1.0.0"), "E-MAN-002", "the capsule name '-helper' may not start or end with '-'");
  refused(allow("'a/b@1.0.0'"), "E-MAN-002", "the capsule name 'a/b'");
  // not an exact version: floating tags and ranges
  for (const char* v : {"latest", "Stable", "EDGE"})
    refused(allow(std::string("helper@") + v), "E-MAN-002", "is a floating tag");
  for (const char* v : {"'helper@^1.0'", "'helper@~1.2'", "'helper@>=1.0'", "'helper@1.*'", "'helper@1.0 - 2.0'",
                        "'helper@1.0 || 2.0'", "'helper@1@2'"})
    refused(allow(v), "E-MAN-002", "capabilities.spawn.allow[0]: 'helper@");
  refused(allow("'helper@.1'"), "E-MAN-002", "may not start with '.'");
  // the capsule itself, at any version
  refused(allow("worker@1.0.0"), "E-MAN-002", "allow[0]: 'worker@1.0.0' names this capsule itself");
  refused(allow("helper@1.0.0, worker@2.0.0"), "E-MAN-002", "allow[1]: 'worker@2.0.0' names this capsule itself");
  // a repeated entry, or the same capsule at two versions
  refused(allow("helper@1.0.0, tool@1.0.0, helper@1.0.0"), "E-MAN-002",
          "capabilities.spawn.allow[2]: 'helper@1.0.0' names the capsule 'helper' again (capabilities.spawn.allow[0]");
  refused(allow("helper@1.0.0, helper@1.1.0"), "E-MAN-002", "allow[1]: 'helper@1.1.0' names the capsule 'helper' again");
  // shape
  refused(head + "capabilities: {spawn: {allow: helper@1.0.0}}\n", "E-MAN-002", "capabilities.spawn.allow: must be a list");
  refused(head + "capabilities: {spawn: {allow: [[helper, 1.0.0]]}}\n", "E-MAN-002", "capabilities.spawn.allow[0]");
  refused(head + "capabilities: {spawn: {deny: [helper@1.0.0]}}\n", "E-MAN-002", "capabilities.spawn");
  refused(head + "capabilities: {spawn: [helper@1.0.0]}\n", "E-MAN-002", "capabilities.spawn");
}

TEST_CASE("a script turn delegates to capsules of spawn.allow (E-MAN-003 for any other)", "[manifest][spawn]") {
  const std::string allow = "capabilities: {spawn: {allow: [helper@1.0.0, tool@2.0.0]}}\n";
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
  refused(head + allow + "inference: {routes: [{match: a, turns: [{reply: r}]}, {match: b, turns: [{reply: r}, {delegate: {capsule: other, task: x}}]}]}\n",
          "E-MAN-003", "inference.routes[1].turns[1].delegate: 'other' is not listed");
  refused(head + allow + "inference: {turns: [{delegate: {capsule: helper, task: x}, reply: done}]}\n", "E-MAN-003",
          "both calls (or delegates) and ends the task in the same turn");
  refused(head + allow + "inference: {turns: [{delegate: {capsule: helper}}]}\n", "E-MAN-002", "task");
  refused(head + allow + "inference: {turns: [{delegate: []}]}\n", "E-MAN-002", "lists no delegations");
  refused(head + allow + "inference: {turns: [{delegate: {capsule: Helper, task: x}}]}\n", "E-MAN-002", "the capsule name");
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
