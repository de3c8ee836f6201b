#include "launcher/cli.hpp"

#include "capsule/capsule_store.hpp"
#include "capsule/manifest.hpp"
#include "launcher/cli_words.hpp"
#include "launcher/cmd_formations.hpp"
#include "launcher/cmd_new.hpp"
#include "launcher/cmd_run_capsule.hpp"
#include "launcher/cmd_run_roster.hpp"
#include "launcher/cmd_ps.hpp"
#include "launcher/cmd_send.hpp"
#include "launcher/cmd_stop.hpp"
#include "launcher/cmd_token.hpp"
#include "launcher/cmd_trace.hpp"
#include "launcher/doctor.hpp"
#include "launcher/task_source.hpp"
#include "launcher/template_check.hpp"
#include "launcher/trace_list.hpp"
#include "launcher/view_command.hpp"
#include "capsule/murmur_home.hpp"
#include "messages/duration.hpp"
#include "messages/failure.hpp"
#include "messages/formation_channel.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace mur {
namespace {

std::string current_dir() {
  char buf[4096];
  if (::getcwd(buf, sizeof buf) == nullptr)
    throw Failure("E-INS-003", "the current directory cannot be read", "cd into an existing directory");
  return buf;
}

int cmd_install(const std::string& dir, bool global, bool force) {
  try { // a template naming an unknown placeholder is refused before anything is stored
    check_templates(load_manifest_dir(dir), dir + "/murmur.yaml");
  } catch (const Failure& f) {
    if (f.code() == template_code) throw;
    // any other problem is the store's to report, in its own order (E-INS-001 first)
  }
  const std::string root = global ? murmur_home() + "/artifacts" : current_dir() + "/.murmur/artifacts";
  auto outcome = install_capsule(dir, root, global ? StoreScope::global : StoreScope::project, force);
  const auto& c = outcome.capsule;
  const char* verb = outcome.kind == InstallOutcome::Kind::unchanged ? "already installed"
                     : outcome.kind == InstallOutcome::Kind::replaced ? "replaced"
                                                                       : "installed";
  std::cout << verb << " " << c.name << "@" << c.version << " in the " << to_string(c.scope)
            << " store: " << c.dir << "\n  sha256 " << c.sha256 << "\n";
  return exit_ok;
}

int cmd_list(bool json) {
  const StoreRoots roots = StoreRoots::for_project(current_dir());
  auto project = list_store(roots.project, StoreScope::project);
  auto global = list_store(roots.global, StoreScope::global);
  if (json) {
    auto arr = nlohmann::json::array();
    for (const auto* store : {&project, &global})
      for (const auto& c : *store)
        arr.push_back({{"name", c.name}, {"version", c.version}, {"scope", to_string(c.scope)},
                       {"sha256", c.sha256}, {"dir", c.dir}, {"description", c.description},
                       {"intact", c.problem.empty()}, {"problem", c.problem}});
    std::cout << arr.dump() << "\n";
    return exit_ok;
  }
  auto show = [](const char* title, const std::string& root, const std::vector<StoredCapsule>& cs) {
    std::cout << title << " store (" << root << ")\n";
    if (cs.empty()) std::cout << "  (none)\n";
    for (const auto& c : cs) {
      std::cout << "  " << c.name << "@" << c.version << "  "
                << (c.sha256.empty() ? std::string("-") : c.sha256.substr(0, 12));
      if (!c.problem.empty()) std::cout << "  DAMAGED: " << c.problem;
      else if (!c.description.empty()) std::cout << "  " << c.description;
      std::cout << "\n";
    }
  };
  show("project", roots.project, project);
  show("global", roots.global, global);
  return exit_ok;
}


// A flag given in a mode it does not apply to.
void refuse_in_mode(const CLI::Option* opt, const std::string& mode, const std::string& why,
                    const std::string& help = "mur run --help") {
  if (opt->count() == 0) return;
  const std::string name = "--" + opt->get_lnames().front(); // get_name() is "" for a hidden option
  throw UsageError("E-CLI-002", name + " does not apply to " + mode + ": " + why, "drop " + name + " (see " + help + ")");
}

} // namespace

namespace {

int dispatch(int argc, char** argv) {
  CLI::App app{"mur — run formations of agent capsules on one machine", "mur"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mur 0.1.0");

  // install
  std::string install_dir;
  bool install_global = false, install_force = false;
  auto* install = app.add_subcommand("install", "Install a capsule folder into the project store (or -g: the global store)");
  install->add_option("DIR", install_dir, "capsule folder holding murmur.yaml")->required();
  install->add_flag("-g,--global", install_global, "install into $MURMUR_HOME/artifacts");
  install->add_flag("--force", install_force, "replace an installed copy of the same version with other bytes");

  // list
  bool list_json = false;
  auto* list = app.add_subcommand("list", "List installed capsules: project store, then global");
  list->add_flag("--json", list_json, "print one JSON array");

  // doctor
  std::string doctor_dir = ".";
  bool doctor_json = false;
  auto* doctor = app.add_subcommand("doctor", "Check a formation's roster.yaml against the installed capsules");
  doctor->add_option("DIR", doctor_dir, "project directory, its roster.yaml, or a capsule folder (default: current)");
  doctor->add_flag("--json", doctor_json, "print the report as one JSON object");

  // new
  std::string new_name, new_model = "script";
  auto* create = app.add_subcommand("new", "Scaffold a formation project NAME/: roster.yaml and two capsules");
  create->add_option("NAME", new_name, "the project directory to create (also the capsules' name prefix)")->required();
  create->add_option("--model", new_model, "script (offline, the default) or http (an OpenAI-compatible server)");

  // run
  std::string roster, capsule, capsule_version, manifest_dir, workdir, task, deadline, resume;
  bool run_json = false, verbose = false, ui = false;
  int port = 0, ui_port = 0;
  auto* run = app.add_subcommand("run", "Launch a formation (--roster) or one capsule session (--capsule/--manifest)");
  auto* roster_opt = run->add_option("--roster", roster, "project directory or its roster.yaml (default: ./roster.yaml)")
                       ->expected(0, 1);
  auto* capsule_opt = run->add_option("--capsule", capsule, "installed capsule name");
  auto* version_opt = run->add_option("--capsule-version", capsule_version, "installed capsule version");
  auto* manifest_opt = run->add_option("--manifest", manifest_dir, "run an uninstalled capsule folder");
  auto* workdir_opt = run->add_option("--workdir", workdir, "the session's accessible directory (--capsule/--manifest)");
  auto* task_opt = run->add_option("--task", task, "TEXT or @FILE: run this one task");
  std::string launch_task; // the entry's task as the launcher read it: its text, never a file name
  auto* launch_task_opt = run->add_option("--launch-task-text", launch_task, "")->group("")->excludes(task_opt);
  run->add_flag("--json", run_json, "print JSON lines on stdout");
  auto* deadline_opt = run->add_option("--deadline", deadline, "end the formation after DUR (500ms, 90s, 10m, 2h, 7d; --roster)");
  auto* port_opt = run->add_option("--port", port, "serve the door on 127.0.0.1:N (--capsule/--manifest)");
  auto* verbose_opt = run->add_flag("-v,--verbose", verbose, "(--roster) print each task, call and answer on stderr as it happens");
  auto* ui_opt = run->add_flag("--ui", ui, "(--roster) serve the formation's live view on 127.0.0.1 (the URL is printed on stderr)");
  auto* ui_port_opt = run->add_option("--ui-port", ui_port, "(--roster --ui) serve the view on 127.0.0.1:N")->needs(ui_opt);
  auto* resume_opt = run->add_option("--resume", resume, "")->expected(0, 1)->group("");
  RunCapsuleOptions one; // hidden flags the launcher passes to each member
  auto* sha_opt = run->add_option("--capsule-sha256", one.capsule_sha256, "")->group("");
  auto* store_opt = run->add_option("--store-root", one.store_root, "")->group("");
  auto* accept_opt = run->add_option("--lifecycle-task-acceptance", one.task_acceptance, "")->group("");
  auto* after_opt = run->add_option("--lifecycle-after-task", one.after_task, "")->group("");
  auto* entry_opt = run->add_flag("--formation-entry", one.formation_entry, "")->group("");
  // A delegated child: its grant arrives on stdin (docs/delegation.md, "The child process").
  auto* grant_opt = run->add_flag("--spawn-grant-stdin", one.spawn_grant_stdin, "")->group("");

  // send / stop / ps / trace
  std::string target, text;
  bool send_json = false, send_wait = false, ps_json = false, trace_json = false, trace_full = false, trace_follow = false;
  bool trace_list_json = false;
  double stop_timeout = 10;
  auto* send = app.add_subcommand("send", "Hand a running door a task and print its answer");
  send->add_option("TARGET", target, "frm_…, ses_… or the door's URL (as mur ps shows it)")->required();
  send->add_option("TEXT", text, "the task")->required();
  send->add_flag("--json", send_json, "print the outcome as JSON");
  send->add_flag("--wait", send_wait, "while the door is busy, keep offering the task until it is taken");
  auto* stop = app.add_subcommand("stop", "Stop a formation (frm_…) or a session (ses_…)");
  stop->add_option("TARGET", target, "frm_… or ses_…")->required();
  stop->add_option("--timeout", stop_timeout, "seconds before SIGKILL (default 10)");
  auto* ps = app.add_subcommand("ps", "List running sessions, grouped by formation");
  ps->add_flag("--json", ps_json, "print JSON");
  auto* trace = app.add_subcommand(
    "trace", "Read traces: a formation's or session's tasks as a tree (show), watching one (show --follow), past runs (list)");
  trace->require_subcommand(1);
  auto* trace_show = trace->add_subcommand(
    "show", "Show a formation's (or a session's) tasks as a tree in time order: each task's calls, the callee's task under each");
  trace_show->add_option("TARGET", target, "frm_… or ses_…")->required();
  auto* trace_json_opt = trace_show->add_flag("--json", trace_json, "print the tree as one JSON document (docs/traces.md)");
  auto* trace_full_opt = trace_show->add_flag("--full", trace_full, "print whole task and answer texts (default: 80 characters)");
  trace_show->add_flag("--follow", trace_follow,
                       "frm_… only: print each task, call and answer as it happens, until the formation ends");
  auto* trace_list = trace->add_subcommand(
    "list", "List formations ($MURMUR_HOME/formations) and the sessions in the current directory's .murmur/, newest first");
  trace_list->add_flag("--json", trace_list_json, "print one JSON object {formations, sessions}");

  // view
  int view_port = 0;
  auto* view = app.add_subcommand(
    "view", "Serve a formation's (or a session's) live view on 127.0.0.1: members, tasks, calls in flight, the tree");
  view->add_option("TARGET", target, "frm_… or ses_…")->required();
  auto* view_port_opt = view->add_option("--port", view_port, "serve on 127.0.0.1:N (default: a port the system chooses)");

  // token
  TokenQuery token_query;
  auto* token = app.add_subcommand("token", "Print a declared credential's token of a running session (for an A2A client)");
  token->add_option("NAME", token_query.credential, "the credential's name under network.authentication.credentials")->required();
  token->add_option("--session", token_query.session, "ses_… of the session");
  token->add_option("--formation", token_query.formation, "frm_… of the formation (with --member)");
  token->add_option("--member", token_query.member, "the member's name (with --formation)");

  // formations
  FormationsRemoval removal;
  auto* formations = app.add_subcommand("formations", "Manage formation directories ($MURMUR_HOME/formations)");
  formations->require_subcommand(1);
  auto* formations_rm = formations->add_subcommand("rm", "Remove formation directories; never one that runs");
  formations_rm->add_option("ID", removal.ids, "frm_… to remove");
  formations_rm->add_flag("--ended", removal.ended, "every formation that no longer runs");
  formations_rm->add_option("--older-than", removal.older_than, "every ended formation launched longer ago than DUR (7d, 12h, …)");

  // help
  std::vector<std::string> help_words;
  auto* help = app.add_subcommand("help", "Show help for mur or for one command");
  help->add_option("COMMAND", help_words, "the command (e.g. run, trace show)");

  if (argc <= 1) {
    std::cout << app.help();
    return exit_usage;
  }
  check_words(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const CLI::App* at = &app;
    for (const CLI::App* s = app.get_subcommands().empty() ? nullptr : app.get_subcommands().front(); s != nullptr;
         s = s->get_subcommands().empty() ? nullptr : s->get_subcommands().front())
      at = s;
    std::string where = "mur";
    if (at != &app) where += " " + at->get_name();
    if (at->get_parent() != nullptr && at->get_parent() != &app) where = "mur " + at->get_parent()->get_name() + " " + at->get_name();
    throw UsageError("E-CLI-003", where + ": " + e.what(), "see " + where + " --help");
  }

  if (*help) {
    const CLI::App* about = &app;
    for (const auto& w : help_words) {
      const CLI::App* next = nullptr;
      for (const CLI::App* s : about->get_subcommands([](const CLI::App*) { return true; }))
        if (s->get_name() == w) next = s;
      if (next == nullptr) {
        std::vector<std::string> names;
        for (const CLI::App* s : about->get_subcommands([](const CLI::App*) { return true; })) names.push_back(s->get_name());
        const std::string near = nearest_word(w, names);
        throw UsageError("E-CLI-001", "unknown command '" + w + "'" + (near.empty() ? "" : " \xE2\x80\x94 did you mean '" + near + "'?"),
                         "see mur --help for the commands");
      }
      about = next;
    }
    std::string path = "mur";
    for (const auto& w : help_words) path += " " + w;
    std::cout << about->get_formatter()->make_help(about, path, CLI::AppFormatMode::Normal);
    return exit_ok;
  }
  if (*install) return cmd_install(install_dir, install_global, install_force);
  if (*list) return cmd_list(list_json);
  if (*doctor) return run_doctor(doctor_dir, std::cout, doctor_json);
  if (*create) return cmd_new(new_name, new_model);
  if (*run) {
    const bool roster_mode = roster_opt->count() > 0;
    if (roster_mode) {
      const std::string mode = "mur run --roster";
      if (resume_opt->count() > 0)
        throw UsageError("E-CLI-002", "mur run --roster refuses --resume: a formation cannot be resumed; launch it again",
                         "run mur run --roster again: a new launch is a new formation, with its own id");
      for (const auto* o : {capsule_opt, version_opt, manifest_opt})
        refuse_in_mode(o, mode, "a formation runs the capsules its roster.yaml names");
      refuse_in_mode(workdir_opt, mode, "the entry member works in the project directory, each peer in its formation directory");
      for (const auto* o : {accept_opt, after_opt})
        refuse_in_mode(o, mode, "each member's lifecycle is its manifest's (the launcher sets the entry's)");
      refuse_in_mode(port_opt, mode, "every member's door takes a port of its own; see them with mur ps");
      for (const auto* o : {sha_opt, store_opt, entry_opt})
        refuse_in_mode(o, mode, "it is the launcher's own flag for the members it starts");
      refuse_in_mode(grant_opt, mode, "it is how a delegating member starts its sub-capsule, never a formation");
    } else {
      if (capsule.empty() && manifest_dir.empty())
        throw UsageError("E-CLI-003", "mur run: say what to run",
                         "pass --roster [DIR] for a formation, or --capsule NAME --capsule-version V (or --manifest DIR) "
                         "for one capsule");
      if (!capsule.empty() && !manifest_dir.empty())
        throw UsageError("E-CLI-002", "--capsule and --manifest name two capsules: give one",
                         "run an installed capsule with --capsule NAME --capsule-version V, or a folder with --manifest DIR");
      const std::string mode = "one capsule session";
      if (resume_opt->count() > 0)
        throw UsageError("E-CLI-002", "this version cannot resume a session: --resume is not supported",
                         "start a new session: mur run without --resume");
      if (!manifest_dir.empty()) refuse_in_mode(version_opt, "mur run --manifest", "the folder's murmur.yaml names its version");
      refuse_in_mode(deadline_opt, mode, "--deadline ends a formation (mur run --roster); stop a session with Ctrl-C or mur stop ses_…");
      refuse_in_mode(verbose_opt, mode, "a session prints its progress without it");
      refuse_in_mode(ui_opt, mode, "it serves a formation's view; watch a session with mur view ses_…");
    }
    // The task is read here once (an @FILE included) and carried as text from here on.
    if (task_opt->count() > 0) task = task_from_argument(task, "--task TEXT or --task @FILE");
    if (launch_task_opt->count() > 0) task = launch_task; // from the launcher: text already
    std::chrono::milliseconds deadline_ms{0};
    if (!deadline.empty()) {
      auto d = parse_duration(deadline);
      if (auto* err = std::get_if<DurationError>(&d))
        throw UsageError("E-CLI-003", "--deadline is not a duration: " + err->why, "give " + std::string(duration_forms));
      deadline_ms = std::get<std::chrono::milliseconds>(d);
      if (deadline_ms.count() == 0)
        throw UsageError("E-CLI-003", "--deadline 0 would end the formation before it starts",
                         "give a deadline above zero, e.g. --deadline 10m, or none to run until stopped");
    }
    if (port_opt->count() > 0 && (port < 1 || port > 65535))
      throw UsageError("E-CLI-003", "--port " + std::to_string(port) + " is not a TCP port", "give a port from 1 to 65535");
    if (ui_port_opt->count() > 0 && (ui_port < 1 || ui_port > 65535))
      throw UsageError("E-CLI-003", "--ui-port " + std::to_string(ui_port) + " is not a TCP port", "give a port from 1 to 65535");
    if (!roster_mode) {
      one.capsule = capsule, one.capsule_version = capsule_version, one.manifest_dir = manifest_dir;
      one.workdir = workdir, one.task = task, one.json = run_json;
      one.port = port;
      return cmd_run_capsule(one);
    }
    RunRosterOptions ro{roster, task, run_json, deadline_ms, verbose};
    ro.ui = ui, ro.ui_port = ui_port;
    return cmd_run_roster(ro);
  }
  if (*send) {
    refuse_empty_task(text, "mur send TARGET \"TEXT\"");
    return cmd_send(target, text, send_json, send_wait);
  }
  if (*stop) return cmd_stop(target, stop_timeout);
  if (*ps) return cmd_ps(ps_json);
  if (*trace_show) {
    if (trace_follow) {
      refuse_in_mode(trace_json_opt, "mur trace show --follow", "it prints one line per event as it happens",
                     "mur trace show --help");
      refuse_in_mode(trace_full_opt, "mur trace show --follow", "it prints one line per event as it happens",
                     "mur trace show --help");
      return cmd_trace_follow(target);
    }
    return cmd_trace_show(target, trace_json, trace_full);
  }
  if (*trace_list) return cmd_trace_list(trace_list_json);
  if (*view) {
    if (view_port_opt->count() > 0 && (view_port < 1 || view_port > 65535))
      throw UsageError("E-CLI-003", "--port " + std::to_string(view_port) + " is not a TCP port", "give a port from 1 to 65535");
    return cmd_view(target, static_cast<std::uint16_t>(view_port));
  }
  if (*token) return cmd_token(token_query);
  if (*formations_rm) return cmd_formations_rm(removal);
  return exit_usage;
}

// Whether failures are to be printed as JSON: `--json` was given, and this is not a member a
// launcher started (its launcher reads the member's refusal on stderr).
bool failures_as_json(int argc, char** argv) {
  const char* frm = std::getenv(FORMATION_ID_ENV);
  if (frm != nullptr && *frm != '\0') return false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (a == "--json") return true;
  }
  return false;
}

} // namespace

int run_cli(int argc, char** argv) {
  const bool json = failures_as_json(argc, argv);
  try {
    return dispatch(argc, argv);
  } catch (const UsageError& u) {
    print_failure(u, json, std::cout, std::cerr);
    return exit_usage;
  } catch (const Failure& f) {
    print_failure(f, json, std::cout, std::cerr);
    return exit_refused;
  } catch (const std::exception& e) {
    if (!json) throw;
    print_failure(Failure("E-ERR-001", std::string("unexpected failure: ") + e.what(),
                          "this is a bug in mur; please report it with the command you ran"),
                  true, std::cout, std::cerr);
    return exit_refused;
  }
}

} // namespace mur
