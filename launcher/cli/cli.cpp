#include "launcher/cli/cli.hpp"

#include "capsule/capsule_store.hpp"
#include "capsule/manifest.hpp"
#include "capsule/murmur_home.hpp"
#include "launcher/admission/template_check.hpp"
#include "launcher/base/cli_words.hpp"
#include "launcher/cli/command.hpp"
#include "launcher/cli/run_command_line.hpp"
#include "launcher/cli/cmd_formations.hpp"
#include "launcher/cli/cmd_host.hpp"
#include "launcher/admission/admission.hpp"
#include "launcher/run/host_reach.hpp"
#include "os/tls_identity.hpp"
#include "launcher/cli/cmd_new.hpp"
#include "launcher/cli/id_resolver.hpp"
#include "launcher/cli/cmd_ps.hpp"
#include "launcher/cli/cmd_answer.hpp"
#include "launcher/cli/cmd_cancel.hpp"
#include "launcher/cli/cmd_send.hpp"
#include "launcher/cli/cmd_stop.hpp"
#include "launcher/cli/cmd_token.hpp"
#include "launcher/cli/doctor.hpp"
#include "launcher/run/task_source.hpp"
#include "launcher/traces/cmd_trace.hpp"
#include "launcher/traces/trace_list.hpp"
#include "launcher/view/view_command.hpp"
#include "messages/credentials/formation_channel.hpp"
#include "messages/vocabulary/duration.hpp"
#include "messages/vocabulary/failure.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <memory>
#include <iostream>
#include <sstream>
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
  std::ostringstream size;
  size << std::fixed << std::setprecision(1) << static_cast<double>(outcome.bytes) / (1 << 20) << " MiB, "
       << std::setprecision(2) << outcome.seconds << " s";
  std::cout << verb << " " << c.name << "@" << c.version << " in the " << to_string(c.scope)
            << " store: " << c.dir << "\n  sha256 " << c.sha256 << "\n  " << outcome.files << " files, "
            << size.str() << "\n";
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


// install DIR… [-g] [--force]: each folder in turn, each reported; a folder refused is said
// (its code and Fix on stderr) and the others are still installed. Exit 0 when every folder
// was installed (or was already), 1 when any was refused.
int cmd_install_each(const std::vector<std::string>& dirs, const std::function<int(const std::string&)>& one) {
  if (dirs.size() == 1) return one(dirs.front());
  std::vector<std::string> refused;
  for (const auto& dir : dirs) {
    try {
      one(dir);
    } catch (const UsageError&) {
      throw;
    } catch (const Failure& f) {
      print_failure(f, false, std::cout, std::cerr);
      refused.push_back(dir);
    }
  }
  if (refused.empty()) return exit_ok;
  std::cerr << "installed " << dirs.size() - refused.size() << " of " << dirs.size() << " folders; refused: ";
  for (std::size_t i = 0; i < refused.size(); ++i) std::cerr << (i ? ", " : "") << refused[i];
  std::cerr << "\n";
  return exit_refused;
}

// install DIR --host NAME [--force]: into the global store of a host the roster here names.
int cmd_install_on_host(const std::string& dir, const std::string& host_name, bool force) {
  check_templates(load_manifest_dir(dir), dir + "/murmur.yaml");
  const Roster roster = load_roster(locate_roster("."));
  const auto host = std::find_if(roster.hosts.begin(), roster.hosts.end(),
                                 [&](const RosterHost& h) { return h.name == host_name; });
  if (host == roster.hosts.end())
    throw Failure("E-HST-001", "the roster here (" + roster.file + ") declares no host '" + host_name + "'",
                  "run mur install --host in the project directory whose roster.yaml names that host under hosts:");
  const std::string key = host_key_path(roster, *host);
  if (certificate_pem(key).empty())
    throw Failure("E-HST-008", "hosts." + host_name + ".key: " + key + " holds no certificate",
                  "copy the host's certificate there: run mur host --certificate on that machine");
  const HostInstall done = install_on_host(*host, key, dir, force, std::chrono::seconds(30));
  if (done.refusal) throw *done.refusal;
  const auto& c = done.installed;
  std::cout << c.kind << " " << c.name << "@" << c.version << " on host " << host_name << " (" << host->address
            << ")\n  sha256 " << c.sha256 << "\n";
  return exit_ok;
}

// install DIR [-g] [--force] [--host NAME]
Command declare_install(CLI::App& app) {
  struct Flags { std::vector<std::string> dirs; std::string host; bool global = false, force = false; };
  auto f = std::make_shared<Flags>();
  auto* install = app.add_subcommand("install", "Install capsule folders into the project store (or -g: the global store)");
  install->add_option("DIR", f->dirs, "capsule folders, each holding murmur.yaml (mur install capsules/*)")->required();
  install->add_flag("-g,--global", f->global, "install into $MURMUR_HOME/artifacts");
  install->add_flag("--force", f->force, "replace an installed copy of the same version with other bytes");
  install->add_option("--host", f->host, "install into the global store of this host of the roster here (docs/hosts.md)");
  return {install, [f] {
            return cmd_install_each(f->dirs, [f](const std::string& dir) {
              return f->host.empty() ? cmd_install(dir, f->global, f->force) : cmd_install_on_host(dir, f->host, f->force);
            });
          }};
}

Command declare_list(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* list = app.add_subcommand("list", "List installed capsules: project store, then global");
  list->add_flag("--json", *json, "print one JSON array");
  return {list, [json] { return cmd_list(*json); }};
}

Command declare_doctor(CLI::App& app) {
  struct Flags { std::string dir = "."; bool json = false, no_probe = false; };
  auto f = std::make_shared<Flags>();
  auto* doctor = app.add_subcommand("doctor", "Check a formation's roster.yaml against the installed capsules");
  doctor->add_option("DIR", f->dir, "project directory, its roster.yaml, or a capsule folder (default: current)");
  doctor->add_flag("--json", f->json, "print the report as one JSON object");
  doctor->add_flag("--no-probe", f->no_probe,
                   "do not ask the http members' model servers for /models or resolve the process members' programs (offline)");
  return {doctor, [f] { return run_doctor(f->dir, std::cout, f->json, !f->no_probe); }};
}

Command declare_new(CLI::App& app) {
  struct Flags { std::string name, model = "script"; };
  auto f = std::make_shared<Flags>();
  auto* create = app.add_subcommand("new", "Scaffold a formation project NAME/: roster.yaml and two capsules");
  create->add_option("NAME", f->name, "the project directory to create (also the capsules' name prefix)")->required();
  create->add_option("--model", f->model, "script (offline, the default) or http (an OpenAI-compatible server)");
  return {create, [f] { return cmd_new(f->name, f->model); }};
}

// What the id arguments take (launcher/cli/id_resolver.hpp resolves prefixes and `last`).
constexpr IdKinds frm_or_ses{true, true, false};
constexpr IdKinds any_id{true, true, true};

// --timeout SECS|DUR of mur send, parsed once; none when not given.
std::optional<std::chrono::milliseconds> send_timeout(const std::string& timeout) {
  return duration_flag("--timeout", timeout, "would stop waiting before the task is sent",
                       "give a time above zero, e.g. --timeout 120, or leave it out to wait as long as the task works");
}

Command declare_send(CLI::App& app) {
  struct Flags { std::string target, text, timeout, context; bool json = false, wait = false; };
  auto f = std::make_shared<Flags>();
  auto* send = app.add_subcommand("send", "Hand a running door a task and print its answer");
  send->add_option("TARGET", f->target, "frm_…, ses_… (a unique prefix, or last) or the door's URL (as mur ps shows it)")->required();
  send->add_option("TEXT", f->text, "the task")->required();
  send->add_flag("--json", f->json, "print the outcome as JSON");
  send->add_flag("--wait", f->wait, "while the door is busy, keep offering the task until it is taken");
  send->add_option("--timeout", f->timeout, "stop waiting after SECS (or DUR: 90s, 10m, 2h); the task goes on (default: wait as long as it works)");
  send->add_option("--context", f->context, "send it in this A2A contextId (a threaded member continues that conversation)");
  return {send, [f] {
            refuse_empty_task(f->text, "mur send TARGET \"TEXT\"");
            return cmd_send(resolve_id(f->target, frm_or_ses, IdScope::running), f->text, f->json, f->wait,
                            send_timeout(f->timeout), f->context);
          }};
}

Command declare_cancel(CLI::App& app) {
  struct Flags {
    std::string target, task;
    bool json = false;
    std::int64_t within = 5000;
  };
  auto f = std::make_shared<Flags>();
  auto* cancel = app.add_subcommand("cancel", "Cancel running tasks, and every call they have out, down the tree");
  cancel->add_option("TARGET", f->target, "a task id (tsk_…), or frm_…, ses_… or a door's URL: all its running tasks (an id's unique prefix will do, or last)")->required();
  cancel->add_option("TASK_ID", f->task, "only this task of TARGET");
  cancel->add_flag("--json", f->json, "print what was canceled as JSON");
  cancel->add_option("--within", f->within, "ms to wait for the tree below to confirm (default 5000)");
  return {cancel, [f] {
            const std::string task = f->task.empty() ? f->task : resolve_id(f->task, IdKinds{false, false, true}, IdScope::running);
            return cmd_cancel(resolve_id(f->target, any_id, IdScope::running), task, f->json, f->within);
          }};
}

Command declare_answer(CLI::App& app) {
  struct Flags {
    std::string task, text;
    bool json = false;
  };
  auto f = std::make_shared<Flags>();
  auto* answer = app.add_subcommand("answer", "Answer the question a task waits on (a member asked the operator)");
  answer->add_option("TARGET", f->task, "the task that asks (tsk_…), or frm_…, ses_… or a door's URL whose one task asks (an id's unique prefix will do, or last)")->required();
  answer->add_option("TEXT", f->text, "the answer")->required();
  answer->add_flag("--json", f->json, "print the outcome as JSON");
  return {answer, [f] {
            refuse_empty_task(f->text, "mur answer TARGET \"TEXT\"");
            return cmd_answer(resolve_id(f->task, any_id, IdScope::running), f->text, f->json);
          }};
}

Command declare_stop(CLI::App& app) {
  struct Flags { std::string target; double timeout = 10; };
  auto f = std::make_shared<Flags>();
  auto* stop = app.add_subcommand("stop", "Stop a formation (frm_…) or a session (ses_…)");
  stop->add_option("TARGET", f->target, "frm_… or ses_… (a unique prefix, or last)")->required();
  stop->add_option("--timeout", f->timeout, "seconds before SIGKILL (default 10)");
  return {stop, [f] { return cmd_stop(resolve_id(f->target, frm_or_ses, IdScope::running), f->timeout); }};
}

Command declare_ps(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* ps = app.add_subcommand("ps", "List running sessions, grouped by formation");
  ps->add_flag("--json", *json, "print JSON");
  return {ps, [json] { return cmd_ps(*json); }};
}

// trace show TARGET [--json|--full|--follow], trace list [--json]: two commands under `trace`.
std::vector<Command> declare_trace(CLI::App& app) {
  struct Flags {
    std::string target;
    bool json = false, full = false, follow = false, list_json = false;
    CLI::Option *json_opt = nullptr, *full_opt = nullptr;
  };
  auto f = std::make_shared<Flags>();
  auto* trace = app.add_subcommand(
    "trace", "Read traces: a formation's or session's tasks as a tree (show), watching one (show --follow), past runs (list)");
  trace->require_subcommand(1);
  auto* show = trace->add_subcommand(
    "show", "Show a formation's (or a session's) tasks as a tree in time order: each task's calls, the callee's task under each");
  show->add_option("TARGET", f->target, "frm_… or ses_… (a unique prefix, or last)")->required();
  f->json_opt = show->add_flag("--json", f->json, "print the tree as one JSON document (docs/traces.md)");
  f->full_opt = show->add_flag("--full", f->full, "print whole task and answer texts (default: 80 characters)");
  show->add_flag("--follow", f->follow, "frm_… only: print each task, call and answer as it happens, until the formation ends");
  auto* list = trace->add_subcommand(
    "list", "List formations ($MURMUR_HOME/formations) and the sessions in the current directory's .murmur/, newest first");
  list->add_flag("--json", f->list_json, "print one JSON object {formations, sessions}");
  auto run_show = [f] {
    if (!f->follow) return cmd_trace_show(resolve_id(f->target, frm_or_ses, IdScope::traced), f->json, f->full);
    const std::string mode = "mur trace show --follow", why = "it prints one line per event as it happens";
    refuse_in_mode(f->json_opt, mode, why, "mur trace show --help");
    refuse_in_mode(f->full_opt, mode, why, "mur trace show --help");
    return cmd_trace_follow(resolve_id(f->target, IdKinds{true, false, false}, IdScope::traced));
  };
  return {{show, run_show}, {list, [f] { return cmd_trace_list(f->list_json); }}};
}

Command declare_view(CLI::App& app) {
  struct Flags { std::string target; int port = 0; CLI::Option* port_opt = nullptr; };
  auto f = std::make_shared<Flags>();
  auto* view = app.add_subcommand(
    "view", "Serve a formation's (or a session's) live view on 127.0.0.1: members, tasks, calls in flight, the tree");
  view->add_option("TARGET", f->target, "frm_… or ses_… (a unique prefix, or last)")->required();
  f->port_opt = view->add_option("--port", f->port, "serve on 127.0.0.1:N (default: a port the system chooses)");
  return {view, [f] {
            check_port(f->port_opt, f->port, "--port");
            return cmd_view(resolve_id(f->target, frm_or_ses, IdScope::traced), static_cast<std::uint16_t>(f->port));
          }};
}

Command declare_token(CLI::App& app) {
  auto q = std::make_shared<TokenQuery>();
  auto* token = app.add_subcommand("token", "Print a declared credential's token of a running session (for an A2A client)");
  token->add_option("NAME", q->credential, "the credential's name under network.authentication.credentials")->required();
  token->add_option("--session", q->session, "ses_… of the session");
  token->add_option("--formation", q->formation, "frm_… of the formation (with --member)");
  token->add_option("--member", q->member, "the member's name (with --formation)");
  return {token, [q] {
            if (!q->session.empty()) q->session = resolve_id(q->session, IdKinds{false, true, false}, IdScope::running);
            if (!q->formation.empty()) q->formation = resolve_id(q->formation, IdKinds{true, false, false}, IdScope::running);
            return cmd_token(*q);
          }};
}

Command declare_formations(CLI::App& app) {
  auto removal = std::make_shared<FormationsRemoval>();
  auto* formations = app.add_subcommand("formations", "Manage formation directories ($MURMUR_HOME/formations)");
  formations->require_subcommand(1);
  auto* rm = formations->add_subcommand("rm", "Remove formation directories; never one that runs");
  rm->add_option("ID", removal->ids, "frm_… to remove");
  rm->add_flag("--ended", removal->ended, "every formation that no longer runs");
  rm->add_option("--older-than", removal->older_than, "every ended formation launched longer ago than DUR (7d, 12h, …)");
  return {rm, [removal] {
            for (auto& id : removal->ids) id = resolve_id(id, IdKinds{true, false, false}, IdScope::traced);
            return cmd_formations_rm(*removal);
          }};
}

// help [COMMAND…]: the help of mur or of the command the words name (E-CLI-001 for a word that
// names none, with the nearest).
Command declare_help(CLI::App& app) {
  auto words = std::make_shared<std::vector<std::string>>();
  auto* help = app.add_subcommand("help", "Show help for mur or for one command");
  help->add_option("COMMAND", *words, "the command (e.g. run, trace show)");
  return {help, [&app, words] {
            const CLI::App* about = &app;
            for (const auto& w : *words) {
              const auto subs = about->get_subcommands([](const CLI::App*) { return true; });
              const CLI::App* next = nullptr;
              std::vector<std::string> names;
              for (const CLI::App* s : subs) {
                if (s->get_name() == w) next = s;
                names.push_back(s->get_name());
              }
              if (next == nullptr) {
                const std::string near = nearest_word(w, names);
                throw UsageError("E-CLI-001",
                                 "unknown command '" + w + "'" + (near.empty() ? "" : " \xE2\x80\x94 did you mean '" + near + "'?"),
                                 "see mur --help for the commands");
              }
              about = next;
            }
            std::string path = "mur";
            for (const auto& w : *words) path += " " + w;
            std::cout << about->get_formatter()->make_help(about, path, CLI::AppFormatMode::Normal);
            return exit_ok;
          }};
}

// CLI11's own parse error, said as E-CLI-003 naming the (sub)command it arose in.
[[noreturn]] void refuse_parse_error(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* at = &app;
  for (const CLI::App* s = app.get_subcommands().empty() ? nullptr : app.get_subcommands().front(); s != nullptr;
       s = s->get_subcommands().empty() ? nullptr : s->get_subcommands().front())
    at = s;
  std::string where = "mur";
  if (at != &app) where += " " + at->get_name();
  if (at->get_parent() != nullptr && at->get_parent() != &app) where = "mur " + at->get_parent()->get_name() + " " + at->get_name();
  throw UsageError("E-CLI-003", where + ": " + e.what(), "see " + where + " --help");
}

int dispatch(int argc, char** argv) {
  CLI::App app{"mur — run formations of agent capsules on one machine", "mur"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mur 0.1.0");
  std::vector<Command> commands{declare_install(app), declare_list(app), declare_doctor(app), declare_new(app),
                                declare_run(app),     declare_send(app), declare_cancel(app), declare_answer(app),
                                declare_stop(app),    declare_ps(app)};
  for (auto& c : declare_trace(app)) commands.push_back(std::move(c));
  for (auto* declare : {declare_view, declare_token, declare_formations, declare_host, declare_help})
    commands.push_back(declare(app));
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
    refuse_parse_error(app, e);
  }
  for (const auto& c : commands)
    if (*c.chosen) return c.run();
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
