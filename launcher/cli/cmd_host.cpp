// cmd_host.cpp — see cmd_host.hpp.
#include "launcher/cli/cmd_host.hpp"

#include "capsule/murmur_home.hpp"
#include "launcher/admission/roster.hpp"
#include "launcher/run/host_agent.hpp"
#include "launcher/run/member_console.hpp"
#include "launcher/run/member_process.hpp"
#include "os/process_spawn.hpp"
#include "os/signal_watch.hpp"
#include "messages/vocabulary/failure.hpp"
#include "messages/wire/register_messages.hpp"
#include "os/tls_identity.hpp"

#include <CLI/CLI.hpp>
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>

namespace mur {
namespace {

constexpr const char* host_fix = "see mur host --help: --listen ADDR:PORT --trust FILE";

struct Flags {
  std::string listen, trust, name;
  bool certificate = false;
};

TlsIdentity host_identity() { return ensure_tls_identity(murmur_home() + "/host", "mur-host"); }

// How this host runs the members launchers start here: doors on the address it listens on, in
// $MURMUR_HOME/host/project as their project directory, with the host's own environment.
HostRunSetup run_setup(const std::string& listen_host) {
  HostRunSetup run;
  run.door_address = listen_host;
  if (run.door_address.size() > 2 && run.door_address.front() == '[') run.door_address = run.door_address.substr(1, run.door_address.size() - 2);
  run.program = self_binary();
  run.workdir = murmur_home() + "/host/project";
  std::error_code ec;
  std::filesystem::create_directories(run.workdir, ec);
  for (auto& e : current_environment())
    if (e.rfind("MURMUR_FORMATION_", 0) != 0) run.env.push_back(std::move(e));
  set_env_entry(run.env, "MURMUR_PROJECT_DIR", run.workdir);
  run.console = std::make_shared<MemberConsole>(false);
  return run;
}

int serve_host(const Flags& f) {
  if (f.listen.empty() || f.trust.empty())
    throw Failure("E-HST-007", "mur host needs --listen and --trust", host_fix);
  const auto listen = split_host_port(f.listen);
  if (!listen) throw Failure("E-HST-007", "--listen '" + f.listen + "' is not ADDR:PORT", "give e.g. --listen 10.0.0.2:7420");
  if (certificate_pem(f.trust).empty())
    throw Failure("E-HST-007", "--trust " + f.trust + " holds no certificate",
                  "put there the certificate of each launcher it may serve (on the launcher's machine: "
                  "$MURMUR_HOME/launcher/identity.crt, which mur doctor names)");
  const TlsIdentity me = host_identity();
  std::string name = f.name;
  if (name.empty()) {
    char buf[256] = {};
    ::gethostname(buf, sizeof buf - 1);
    name = buf;
  }
  // SIGINT and SIGTERM are waited for here, blocked in every thread the system starts.
  block_session_signals(); // SIGPIPE ignored; the signals below waited for here
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  caf::actor_system_config cfg;
  speak_tls(cfg, me.certificate, me.key, f.trust);
  caf::actor_system sys{cfg};
  const HostRunSetup run = run_setup(listen->host);
  const host_door agent = spawn_host_agent(
    sys, HostAgentSetup{name, "0.1.0", murmur_home() + "/artifacts", murmur_home() + "/host/uploads", run});
  auto port = caf::openssl::publish(agent, static_cast<std::uint16_t>(listen->port), listen->host.c_str(), true);
  if (!port) {
    caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
    throw Failure("E-HST-007", "cannot listen on " + f.listen + ": " + sys.render(port.error()),
                  "give an address of this machine and a port nothing else listens on");
  }
  std::cout << "mur host " << name << ": listening on " << f.listen << "\n" << std::flush;
  int sig = 0;
  sigwait(&stop, &sig);
  caf::anon_send_exit(agent, caf::exit_reason::user_shutdown); // kills and joins the members still here
  return 0;
}

} // namespace

Command declare_host(CLI::App& app) {
  auto f = std::make_shared<Flags>();
  auto* host = app.add_subcommand("host", "Serve this machine to the launchers of other machines (TLS)");
  host->add_option("--listen", f->listen, "ADDR:PORT to listen on (e.g. 10.0.0.2:7420)");
  host->add_option("--trust", f->trust, "a file of the launcher certificates to accept (PEM)");
  host->add_option("--name", f->name, "the name it answers with (default: the machine's host name)");
  host->add_flag("--certificate", f->certificate, "print this machine's host certificate and exit");
  return {host, [f] {
            if (f->certificate) {
              std::cout << certificate_pem(host_identity().certificate);
              return 0;
            }
            return serve_host(*f);
          }};
}

} // namespace mur
