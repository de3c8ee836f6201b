// The one member wiring (capsule/member_wiring.hpp): manifest + launch options → MemberSetup, with
// the entry rule and the lifecycle overrides.
#include "capsule/member_wiring.hpp"
#include "messages/vocabulary/failure.hpp"

#include <catch2/catch.hpp>

using namespace mur;

namespace {

Manifest queue_sleeper() {
  return parse_manifest("name: worker\nversion: 1.2.3\n"
                        "lifecycle: {task_acceptance: queue, queue_depth: 3, after_task: sleep, delegation_deadline_secs: 42}\n"
                        "inference: {max_turns: 7, turns: [{reply: hi}]}\n",
                        "murmur.yaml");
}

} // namespace

TEST_CASE("member_setup maps the manifest's lifecycle, inference and names", "[wiring]") {
  LaunchOptions o;
  o.session_id = "ses_x";
  MemberSetup s = member_setup(queue_sleeper(), o, {});
  CHECK(s.session_id == "ses_x");
  CHECK(s.capsule_name == "worker");
  CHECK(s.capsule_version == "1.2.3");
  CHECK(s.member.empty()); // no bundle: not in a formation
  CHECK(s.acceptance.kind == AcceptancePolicy::Kind::queue);
  CHECK(s.acceptance.queue_depth == 3);
  CHECK_FALSE(s.acceptance.exit_after_task);
  CHECK(s.max_turns == 7);
  CHECK(s.call_deadline == std::chrono::seconds(42));
}

TEST_CASE("a serving entry holds tasks as its lifecycle says and stays, with a launch task it runs one and exits",
          "[wiring]") {
  LaunchOptions o;
  o.entry = true;
  auto serving = acceptance_for(queue_sleeper(), o);
  CHECK(serving.kind == AcceptancePolicy::Kind::queue); // its own task_acceptance and queue_depth
  CHECK(serving.queue_depth == 3);
  CHECK_FALSE(serving.exit_after_task); // no --task: it stays, after_task: exit or not
  const Manifest exits = parse_manifest("name: lead\nversion: 1.0.0\nlifecycle: {task_acceptance: none, after_task: exit}\n"
                                        "inference: {turns: [{reply: hi}]}\n", "murmur.yaml");
  CHECK(acceptance_for(exits, o).kind == AcceptancePolicy::Kind::single); // none: the entry still takes tasks
  CHECK_FALSE(acceptance_for(exits, o).exit_after_task);
  const Manifest plain = parse_manifest("name: lead\nversion: 1.0.0\ninference: {turns: [{reply: hi}]}\n", "murmur.yaml");
  CHECK(acceptance_for(plain, o).kind == AcceptancePolicy::Kind::single); // the default: one at a time
  o.task = "build it";
  auto once = acceptance_for(queue_sleeper(), o);
  CHECK(once.kind == AcceptancePolicy::Kind::single);
  CHECK(once.exit_after_task);
  // A member that is not the entry keeps its manifest's lifecycle, launch task or not.
  o.entry = false;
  CHECK(acceptance_for(queue_sleeper(), o).kind == AcceptancePolicy::Kind::queue);
  CHECK_FALSE(acceptance_for(queue_sleeper(), o).exit_after_task);
}

TEST_CASE("lifecycle overrides win over the manifest and the entry rule, bad words are E-RUN-010", "[wiring]") {
  LaunchOptions o;
  o.entry = true;
  o.task = "x";
  o.task_acceptance = "none";
  o.after_task = "sleep";
  auto a = acceptance_for(queue_sleeper(), o);
  CHECK(a.kind == AcceptancePolicy::Kind::none);
  CHECK_FALSE(a.exit_after_task);
  o.after_task = "later";
  try {
    acceptance_for(queue_sleeper(), o);
    FAIL("an unknown --lifecycle-after-task was accepted");
  } catch (const Failure& f) {
    CHECK(f.code() == "E-RUN-010");
  }
}
