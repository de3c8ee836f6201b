#include "launcher/cli.hpp"

#include "capsule/capsule_store.hpp"
#include "launcher/cmd_run_capsule.hpp"
#include "launcher/cmd_run_roster.hpp"
#include "launcher/cmd_ps.hpp"
#include "launcher/cmd_send.hpp"
#include "launcher/cmd_stop.hpp"
#include "launcher/cmd_trace.hpp"
#include "launcher/doctor.hpp"
#include "capsule/murmur_home.hpp"
#include "messages/duration.hpp"
#include "messages/failure.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

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

} // namespace

int run_cli(int argc, char** argv) {
  CLI::App app{"mur — run formations of agent capsules on one machine"};
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
  auto* doctor = app.add_subcommand("doctor", "Check a formation's roster.yaml against the installed capsules");
  doctor->add_option("DIR", doctor_dir, "project directory (default: current)");

  // run
  std::string roster, capsule, capsule_version, manifest_dir, workdir, task, deadline;
  bool run_json = false, verbose = false;
  auto* run = app.add_subcommand("run", "Launch a formation (--roster) or one capsule session (--capsule)");
  auto* roster_opt = run->add_option("--roster", roster, "project directory or its roster.yaml (default: ./roster.yaml)")
                       ->expected(0, 1);
  auto* capsule_opt = run->add_option("--capsule", capsule, "installed capsule name");
  run->add_option("--capsule-version", capsule_version, "installed capsule version")->needs(capsule_opt);
  auto* manifest_opt = run->add_option("--manifest", manifest_dir, "run an uninstalled capsule folder");
  run->add_option("--workdir", workdir, "the session's accessible directory");
  run->add_option("--task", task, "TEXT or @FILE: run this one task");
  run->add_flag("--json", run_json, "print JSON lines on stdout");
  run->add_option("--deadline", deadline, "end the formation after DUR (500ms, 90s, 10m, 2h, 7d)");
  run->add_flag("-v,--verbose", verbose, "more progress on stderr");
  RunCapsuleOptions one; // hidden flags the launcher passes to each member
  run->add_option("--capsule-sha256", one.capsule_sha256, "")->group("");
  run->add_option("--store-root", one.store_root, "")->group("");
  run->add_option("--lifecycle-task-acceptance", one.task_acceptance, "")->group("");
  run->add_option("--lifecycle-after-task", one.after_task, "")->group("");
  run->add_flag("--formation-entry", one.formation_entry, "")->group("");
  roster_opt->excludes(capsule_opt)->excludes(manifest_opt);

  // send / stop / ps / trace
  std::string target, text;
  bool send_json = false, ps_json = false, trace_json = false;
  double stop_timeout = 10;
  auto* send = app.add_subcommand("send", "Hand a running door a task and print its answer");
  send->add_option("TARGET", target, "frm_…, ses_… or a URL")->required();
  send->add_option("TEXT", text, "the task")->required();
  send->add_flag("--json", send_json, "print the outcome as JSON");
  auto* stop = app.add_subcommand("stop", "Stop a formation (frm_…) or a session (ses_…)");
  stop->add_option("TARGET", target, "frm_… or ses_…")->required();
  stop->add_option("--timeout", stop_timeout, "seconds before SIGKILL (default 10)");
  auto* ps = app.add_subcommand("ps", "List running sessions, grouped by formation");
  ps->add_flag("--json", ps_json, "print JSON");
  auto* trace = app.add_subcommand("trace", "Read traces");
  trace->require_subcommand(1);
  auto* trace_show = trace->add_subcommand("show", "Show a formation's members and calls, or a session");
  trace_show->add_option("TARGET", target, "frm_… or ses_…")->required();
  trace_show->add_flag("--json", trace_json, "print JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_usage;
  }

  if (*install) return cmd_install(install_dir, install_global, install_force);
  if (*list) return cmd_list(list_json);
  if (*doctor) return run_doctor(doctor_dir, std::cout);
  if (*run) {
    if (!deadline.empty()) {
      auto d = parse_duration(deadline);
      if (auto* err = std::get_if<DurationError>(&d)) {
        std::cerr << "mur run: --deadline is not a duration: " << err->why << "\nFix: give "
                  << duration_forms << "\n";
        return exit_usage;
      }
    }
    if (roster_opt->count() == 0 && capsule.empty() && manifest_dir.empty()) {
      std::cerr << "mur run: say what to run\nFix: pass --roster [DIR] for a formation, or "
                   "--capsule NAME --capsule-version V for one capsule\n";
      return exit_usage;
    }
    if (roster_opt->count() == 0) {
      one.capsule = capsule, one.capsule_version = capsule_version, one.manifest_dir = manifest_dir;
      one.workdir = workdir, one.task = task, one.json = run_json;
      return cmd_run_capsule(one);
    }
    return cmd_run_roster(RunRosterOptions{roster, task, run_json, deadline, verbose});
  }
  if (*send) return cmd_send(target, text, send_json);
  if (*stop) return cmd_stop(target, stop_timeout);
  if (*ps) return cmd_ps(ps_json);
  if (*trace_show) return cmd_trace_show(target, trace_json);
  return exit_usage;
}

} // namespace mur
