// How an agent program's turn ends (member/harness_outcome.hpp): its answer, or the E-HAR
// failure with its Fix, and nothing it wrote holding a declared secret or its turn's token.
#include "member/harness_outcome.hpp"

#include <catch2/catch.hpp>

using namespace mur;

namespace {

const std::string token = "mcp-turn-token-3f9a0c77e1d24b58";
const std::string key = "sk-declared-0123456789";

HarnessTurnEnd turn(const SecretRedaction& declared, bool timed_out = false) {
  return HarnessTurnEnd{"/opt/capsule/agent.py", &declared, token, std::chrono::seconds(90), timed_out};
}

HarnessEnd ended(int status, std::string out, std::string err) {
  HarnessEnd e;
  e.exit_status = status;
  e.out = std::move(out);
  e.err_tail = std::move(err);
  return e;
}

} // namespace

TEST_CASE("harness outcome: the answer and the stderr tail have the turn's token and the declared secrets written out",
          "[unit][harness]") {
  const SecretRedaction declared({key});
  const ModelTurn t = harness_outcome(turn(declared), ended(0, "token " + token + ", key " + key, "my token is " + token));
  CHECK_FALSE(t.fails);
  CHECK(t.text == "token [redacted], key [redacted]");
  CHECK(t.stats.stderr_tail == "my token is [redacted]");
  CHECK(t.stats.model == "agent.py");
}

TEST_CASE("harness outcome: a cut answer loses an end that may start a secret before the rest is redacted",
          "[unit][harness]") {
  const SecretRedaction declared({key});
  HarnessEnd e = ended(0, "answer " + token.substr(0, 12), "");
  e.cut = true;
  const ModelTurn t = harness_outcome(turn(declared), e);
  CHECK(t.text.find(token.substr(0, 12)) == std::string::npos);
  CHECK(t.stats.cut);
}

TEST_CASE("harness outcome: each failure names its code, quotes the redacted tail and gives a Fix", "[unit][harness]") {
  const SecretRedaction declared({key});
  SECTION("not started") {
    HarnessEnd e;
    e.started = false;
    e.start_error = "No such file or directory";
    const ModelTurn t = harness_outcome(turn(declared), e);
    REQUIRE(t.fails);
    CHECK(t.failure.rfind("E-HAR-001: the agent program /opt/capsule/agent.py could not start (No such file", 0) == 0);
    CHECK(t.failure.find("Fix: check inference.command") != std::string::npos);
  }
  SECTION("silent") {
    const ModelTurn t = harness_outcome(turn(declared, true), ended(0, "", ""));
    REQUIRE(t.fails);
    CHECK(t.failure.rfind("E-HAR-003: the agent program wrote nothing and called no tool for 90 s", 0) == 0);
  }
  SECTION("exit status") {
    const ModelTurn t = harness_outcome(turn(declared), ended(3, "partial", "Traceback: key=" + key + " token=" + token));
    REQUIRE(t.fails);
    CHECK(t.failure.rfind("E-HAR-002: the agent program exited with status 3; its stderr ended: Traceback: key=[redacted] "
                          "token=[redacted]. Fix: ", 0) == 0);
    CHECK(t.text.empty());
  }
}
