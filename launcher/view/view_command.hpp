// view_command.hpp — `mur view FRM_OR_SES [--port N]`: serves a formation's (or one session's)
// live view on 127.0.0.1 (launcher/view/view_server.hpp) until it has ended and a page has the last
// state; `mur run --roster --ui` serves the same view of the formation it launches.
//
// Invariant: read-only (the members' trace files, polled every 100 ms, and the launcher's or
// session's running record), but for the page's Answer: sent to the live session holding the
// task, as `mur answer` sends it (launcher/base/task_answer.hpp); prints only the `view: URL` line (and, once the formation has ended
// with no page open, where to see it) on stderr. A target that is no id is E-TRC-001; one with no
// trace and not running is E-TRC-002.
// Rule (docs/spec/choices.md §Observability): `mur run --roster --ui` (or `mur view frm_…`)
// serves on 127.0.0.1 a small self-contained page.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mur {

int cmd_view(const std::string& target, std::uint16_t port);

// `run --roster --ui`: the view of formation `formation_id` while it runs, ended by `finish`.
class FormationView {
public:
  // Listens now (so a port that cannot be served refuses the launch before anything starts)
  // and prints the URL line; `members` are the roster's names.
  FormationView(std::string formation_id, std::string project_dir, std::vector<std::string> members, std::uint16_t port);
  ~FormationView(); // finish()
  FormationView(const FormationView&) = delete;
  FormationView& operator=(const FormationView&) = delete;
  // Sends the last state (the formation has ended) to the pages open, waits a few seconds at
  // most for it to reach one, and stops serving. Idempotent.
  void finish();
  // `run --ui --task`: the formation has ended; sends its last state, says so on stderr, and keeps
  // serving it until SIGINT, SIGTERM or SIGHUP (blocked in every thread: taken here by sigwait),
  // then finish(). Returns the signal.
  int serve_until_signal();

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace mur
