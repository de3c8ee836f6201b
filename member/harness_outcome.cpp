// harness_outcome.cpp — see harness_outcome.hpp.
#include "member/harness_outcome.hpp"

#include "member/member_limits.hpp"
#include "member/program_env.hpp"
#include "messages/vocabulary/text_cut.hpp"

namespace mur {

ModelTurn harness_outcome(const HarnessTurnEnd& turn, const HarnessEnd& end) {
  ModelTurn out;
  out.stats.model = turn.program.substr(turn.program.rfind('/') + 1);
  // The declared secrets and this turn's token (the program may print what it was handed) are
  // written out of everything the program wrote, before it is cut.
  SecretRedaction secrets = turn.declared ? *turn.declared : SecretRedaction();
  secrets.add(turn.token);
  const std::string tail = clean_tail(secrets.redact(end.err_tail));
  // "<code>: what happened[; its stderr ended: …]. Fix: …"
  auto failed = [&](const std::string& code_and_what, const std::string& fix) {
    out.fails = true;
    out.failure = code_and_what + (tail.empty() ? std::string() : "; its stderr ended: " + tail) + ". Fix: " + fix;
  };
  if (!end.started) {
    failed("E-HAR-001: the agent program " + turn.program + " could not start (" + secrets.redact(end.start_error) + ")",
           "check inference.command and that the program is executable");
  } else if (turn.timed_out) {
    failed("E-HAR-003: the agent program wrote nothing and called no tool for " +
             std::to_string(turn.turn_timeout.count() / 1000) + " s, so it was ended",
           "raise inference.turn_timeout_secs, or make the program print progress");
  } else if (const auto limit = limit_reached("the agent program", turn.reached, turn.bounds, end.signal, end.exit_status);
             !limit.code_and_what.empty()) {
    failed(limit.code_and_what, limit.fix);
  } else if (end.signal != 0) {
    failed("E-HAR-002: the agent program was ended by signal " + std::to_string(end.signal),
           "read its stderr, and run it by hand with the same stdin");
  } else if (end.exit_status != 0) {
    failed("E-HAR-002: the agent program exited with status " + std::to_string(end.exit_status),
           "read its stderr, and run it by hand with the same stdin");
  } else {
    // Its answer is under the redaction rule too (it holds the values of its `${ENV}`s): a cut
    // answer first loses an end that may be part of one, then the rest is redacted.
    std::string text = end.out;
    if (end.cut) text.resize(text.size() - secrets.held_back(text));
    out.text = secrets.redact(text);
    if (end.cut) out.text += answer_cut_marker;
    out.stats.cut = end.cut;
    out.stats.stderr_tail = tail; // in the trace: what a program says on the side, when it succeeded
  }
  return out;
}

} // namespace mur
