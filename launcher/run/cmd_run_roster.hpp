// cmd_run_roster.hpp — `mur run --roster [DIR|DIR/roster.yaml] [--task TEXT|@FILE] [--json]
// [--deadline DUR] [-v] [--ui [--ui-port N]]`: admits the roster, then runs the launcher actor with the real ports
// (process spawner, HTTP door network) until the formation ends.
//
// Invariant: SIGINT/SIGTERM/SIGHUP are blocked before any thread starts and reach the launcher
// actor only as `(sigterm_atom, N)`; nothing is started before admission succeeds; the launcher
// record `$MURMUR_HOME/running/<frm_id>.json` exists exactly while the launch runs; every
// member's bundle names this launcher ({pid, process_start}). The task and the deadline come
// already read (launcher/run/task_source.hpp, the command line's duration) and reach the entry as text. A formation directory that cannot be
// made is only a warning: each peer then fails E-RUN-045 naming its own directory. Afterwards
// every member is reaped, records of gone members are removed, retention runs, and the exit
// code is the launcher's: the entry's code, 124 deadline, 128+N signal, 1 failed launch.
// Rule: the launch steps in order, and every way a formation ends
// (docs/spec/formation.md §Launch, §How a formation ends).
#pragma once

#include <chrono>
#include <string>

namespace mur {

struct RunRosterOptions {
  std::string roster;   // DIR or DIR/roster.yaml ("" ⇒ .)
  std::string task;     // the task's text; "" ⇒ serve mode
  bool json = false;
  std::chrono::milliseconds deadline{0}; // 0 ⇒ none
  bool verbose = false;
  bool ui = false;      // --ui: serve the formation's live view (launcher/view/view_command.hpp)
  int ui_port = 0;      // --ui-port N (0: the OS chooses)
};

int cmd_run_roster(const RunRosterOptions& options);

} // namespace mur
