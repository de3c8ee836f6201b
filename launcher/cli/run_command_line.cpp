#include "launcher/cli/run_command_line.hpp"

#include "launcher/base/cli_words.hpp"
#include "launcher/run/cmd_run_capsule.hpp"
#include "launcher/run/cmd_run_roster.hpp"
#include "launcher/run/task_source.hpp"
#include "messages/vocabulary/duration.hpp"

#include <CLI/CLI.hpp>

#include <memory>

namespace mur {
namespace {

// Every flag of `mur run`, bound once; `opt` pointers tell which were given.
struct RunFlags {
  std::string roster, capsule, capsule_version, manifest_dir, workdir, task, deadline, resume;
  bool json = false, verbose = false, ui = false, launch_task_stdin = false;
  int port = 0, ui_port = 0;
  RunCapsuleOptions one; // hidden flags the launcher passes to each member
  CLI::Option *roster_opt, *capsule_opt, *version_opt, *manifest_opt, *workdir_opt, *task_opt, *launch_task_opt,
    *deadline_opt, *door_address_opt, *port_opt, *verbose_opt, *ui_opt, *ui_port_opt, *resume_opt, *sha_opt, *store_opt, *accept_opt,
    *after_opt, *entry_opt, *grant_opt;
};

void add_run_flags(CLI::App& run, RunFlags& f) {
  f.roster_opt = run.add_option("--roster", f.roster, "project directory or its roster.yaml (default: ./roster.yaml)")
                   ->expected(0, 1);
  f.capsule_opt = run.add_option("--capsule", f.capsule, "installed capsule name");
  f.version_opt = run.add_option("--capsule-version", f.capsule_version, "installed capsule version");
  f.manifest_opt = run.add_option("--manifest", f.manifest_dir, "run an uninstalled capsule folder");
  f.workdir_opt = run.add_option("--workdir", f.workdir, "the session's accessible directory (--capsule/--manifest)");
  f.task_opt = run.add_option("--task", f.task, "TEXT or @FILE: run this one task");
  // the entry's task as the launcher read it, on stdin: its text, never a file name, never on argv
  f.launch_task_opt = run.add_flag("--launch-task-stdin", f.launch_task_stdin, "")->group("")->excludes(f.task_opt);
  run.add_flag("--json", f.json, "print JSON lines on stdout");
  f.deadline_opt = run.add_option("--deadline", f.deadline, "end the formation after DUR (500ms, 90s, 10m, 2h, 7d; --roster)");
  f.port_opt = run.add_option("--port", f.port, "serve the door on 127.0.0.1:N (--capsule/--manifest)");
  f.verbose_opt = run.add_flag("-v,--verbose", f.verbose, "(--roster) print each task, call and answer on stderr as it happens");
  f.ui_opt = run.add_flag("--ui", f.ui, "(--roster) serve the formation's live view on 127.0.0.1 (the URL is printed on stderr)");
  f.ui_port_opt = run.add_option("--ui-port", f.ui_port, "(--roster --ui) serve the view on 127.0.0.1:N")->needs(f.ui_opt);
  f.resume_opt = run.add_option("--resume", f.resume, "")->expected(0, 1)->group("");
  f.sha_opt = run.add_option("--capsule-sha256", f.one.capsule_sha256, "")->group("");
  f.store_opt = run.add_option("--store-root", f.one.store_root, "")->group("");
  f.door_address_opt = run.add_option("--door-address", f.one.door_address, "")->group("");
  f.accept_opt = run.add_option("--lifecycle-task-acceptance", f.one.task_acceptance, "")->group("");
  f.after_opt = run.add_option("--lifecycle-after-task", f.one.after_task, "")->group("");
  f.entry_opt = run.add_flag("--formation-entry", f.one.formation_entry, "")->group("");
  // A delegated child: its grant arrives on stdin (docs/delegation.md, "The child process").
  f.grant_opt = run.add_flag("--spawn-grant-stdin", f.one.spawn_grant_stdin, "")->group("");
}

// --roster: the flags of one capsule session and the launcher's own flags are refused.
void refuse_outside_roster_mode(const RunFlags& f) {
  const std::string mode = "mur run --roster";
  if (f.resume_opt->count() > 0)
    throw UsageError("E-CLI-002", "mur run --roster refuses --resume: a formation cannot be resumed; launch it again",
                     "run mur run --roster again: a new launch is a new formation, with its own id");
  for (const auto* o : {f.capsule_opt, f.version_opt, f.manifest_opt})
    refuse_in_mode(o, mode, "a formation runs the capsules its roster.yaml names");
  refuse_in_mode(f.workdir_opt, mode, "the entry member works in the project directory, each peer in its formation directory");
  for (const auto* o : {f.accept_opt, f.after_opt})
    refuse_in_mode(o, mode, "each member's lifecycle is its manifest's (the launcher sets the entry's)");
  refuse_in_mode(f.port_opt, mode, "every member's door takes a port of its own; see them with mur ps");
  for (const auto* o : {f.sha_opt, f.store_opt, f.entry_opt, f.launch_task_opt})
    refuse_in_mode(o, mode, "it is the launcher's own flag for the members it starts");
  refuse_in_mode(f.grant_opt, mode, "it is how a delegating member starts its sub-capsule, never a formation");
}

// One capsule session: exactly one capsule, and no formation's flags.
void refuse_outside_capsule_mode(const RunFlags& f) {
  if (f.capsule.empty() && f.manifest_dir.empty())
    throw UsageError("E-CLI-003", "mur run: say what to run",
                     "pass --roster [DIR] for a formation, or --capsule NAME --capsule-version V (or --manifest DIR) "
                     "for one capsule");
  if (!f.capsule.empty() && !f.manifest_dir.empty())
    throw UsageError("E-CLI-002", "--capsule and --manifest name two capsules: give one",
                     "run an installed capsule with --capsule NAME --capsule-version V, or a folder with --manifest DIR");
  const std::string mode = "one capsule session";
  if (f.resume_opt->count() > 0)
    throw UsageError("E-CLI-002", "this version cannot resume a session: --resume is not supported",
                     "start a new session: mur run without --resume");
  if (!f.manifest_dir.empty()) refuse_in_mode(f.version_opt, "mur run --manifest", "the folder's murmur.yaml names its version");
  refuse_in_mode(f.deadline_opt, mode, "--deadline ends a formation (mur run --roster); stop a session with Ctrl-C or mur stop ses_…");
  refuse_in_mode(f.verbose_opt, mode, "a session prints its progress without it");
  refuse_in_mode(f.ui_opt, mode, "it serves a formation's view; watch a session with mur view ses_…");
}

// --deadline DUR, parsed once; none is 0.
std::chrono::milliseconds deadline_of(const std::string& deadline) {
  return duration_flag("--deadline", deadline, "would end the formation before it starts",
                       "give a deadline above zero, e.g. --deadline 10m, or none to run until stopped")
    .value_or(std::chrono::milliseconds{0});
}

int run_chosen_mode(RunFlags& f) {
  const bool roster_mode = f.roster_opt->count() > 0;
  if (roster_mode) refuse_outside_roster_mode(f);
  else refuse_outside_capsule_mode(f);
  // The task is read here once (an @FILE included) and carried as text from here on.
  if (f.task_opt->count() > 0) f.task = task_from_argument(f.task, "--task TEXT or --task @FILE");
  if (f.launch_task_stdin) f.task = launch_task_from_stdin(); // from the launcher: text already
  const auto deadline = deadline_of(f.deadline);
  check_port(f.port_opt, f.port, "--port");
  check_port(f.ui_port_opt, f.ui_port, "--ui-port");
  if (!roster_mode) {
    RunCapsuleOptions& one = f.one;
    one.capsule = f.capsule, one.capsule_version = f.capsule_version, one.manifest_dir = f.manifest_dir;
    one.workdir = f.workdir, one.task = f.task, one.json = f.json, one.port = f.port;
    return cmd_run_capsule(one);
  }
  RunRosterOptions ro{f.roster, f.task, f.json, deadline, f.verbose};
  ro.ui = f.ui, ro.ui_port = f.ui_port;
  return cmd_run_roster(ro);
}

} // namespace

Command declare_run(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  auto* run = app.add_subcommand("run", "Launch a formation (--roster) or one capsule session (--capsule/--manifest)");
  add_run_flags(*run, *flags);
  return {run, [flags] { return run_chosen_mode(*flags); }};
}

} // namespace mur
