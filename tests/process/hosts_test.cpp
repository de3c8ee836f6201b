// A launcher and a host agent (`mur host`) on two "machines": network namespaces this test makes,
// joined through a bridge (net_machines.hpp). mur doctor reaches the host over TLS only when each side holds the
// other's certificate, checks that the member's capsule is installed there (mur install --host
// puts it there over the same connection), and names each
// failure: nothing listening, a launcher the host does not trust, a host presenting another
// certificate than the roster's, a cut link. Needs root and `ip` (iproute2): where the machine
// forbids namespaces, the test says so and checks nothing.
#include "formation_fixture.hpp"
#include "launched_mur.hpp"
#include "net_machines.hpp"
#include "run_command.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using namespace mur::test;


TEST_CASE("mur doctor reaches a host agent in another network namespace over TLS, and names each way it cannot",
          "[process][hosts]") {
  NetMachines net(2); // 0: the launcher's, 1: the host's
  if (!net.made) {
    WARN("SKIPPED: this machine gives no network namespaces to the test (" << net.why << "): hosts not tested");
    return;
  }
  FormationFixture launcher; // the review formation, installed in the launcher's store
  TempDir host_home;
  const std::map<std::string, std::string> host_env{{"MURMUR_HOME", host_home.path}};
  Ran host_cert = run_command({MUR_BINARY, "host", "--certificate"}, host_env);
  REQUIRE(host_cert.exit_code == 0);
  REQUIRE(host_cert.out.rfind("-----BEGIN CERTIFICATE-----", 0) == 0);
  std::ofstream(launcher.project.path + "/gpu1.pem") << host_cert.out;
  const std::string address = net.address(1) + ":7420";
  auto roster_with_key = [&](const std::string& key) {
    std::ofstream(launcher.project.path + "/roster.yaml")
      << "roster_version: 1\nhosts:\n  gpu1: {address: '" << address << "', key: " << key << "}\n"
      << "members:\n  - {name: lead, capsule: review-lead, version: 1.0.0, entry: true}\n"
         "  - {name: coder, capsule: review-coder, version: 1.0.0, host: gpu1}\n"
         "  - {name: reviewer, capsule: review-reviewer, version: 1.0.0}\n"
         "reachability:\n  - {from: lead, to: [coder]}\n";
  };
  roster_with_key("gpu1.pem");
  auto doctor = [&](const std::map<std::string, std::string>& env, int code = 1) {
    Ran r = run_command(net.in(0, {MUR_BINARY, "doctor", launcher.project.path}), env);
    INFO(r.out << r.err);
    CHECK(r.exit_code == code);
    return r.out;
  };

  // Nothing listens there yet: unreachable (and this launcher's identity is made).
  std::string out = doctor(launcher.env);
  CHECK(out.find("E-HST-002: host 'gpu1' (" + address + ") cannot be reached: Connection refused") != std::string::npos);
  const std::string launcher_cert = launcher.home.path + "/launcher/identity.crt";
  REQUIRE(fs::exists(launcher_cert));
  CHECK((fs::status(launcher.home.path + "/launcher/identity.key").permissions() & fs::perms::group_all) == fs::perms::none);

  LaunchedMur host(net.in(1, {MUR_BINARY, "host", "--listen", address, "--trust", launcher_cert, "--name", "gpu1"}),
                   host_env);
  REQUIRE(host.read_line() == "mur host gpu1: listening on " + address);

  // Reached over TLS, but the member's capsule is not installed there.
  out = doctor(launcher.env);
  CHECK(out.find("gpu1 (" + address + "): reached, mur host gpu1") != std::string::npos);
  CHECK(out.find("E-HST-004: member 'coder' (review-coder@1.0.0) on host 'gpu1': not installed there") != std::string::npos);

  // Installed from this machine, over the same connection: every check passes.
  Ran put = run_command(net.in(0, {MUR_BINARY, "install", "--host", "gpu1", launcher.example_dir + "/capsules/coder"}),
                        launcher.env, launcher.project.path);
  INFO(put.out << put.err);
  REQUIRE(put.exit_code == 0);
  CHECK(put.out.find("installed review-coder@1.0.0 on host gpu1 (" + address + ")") != std::string::npos);
  CHECK(fs::exists(host_home.path + "/artifacts/review-coder/1.0.0/murmur.yaml"));
  out = doctor(launcher.env, 0);
  CHECK(out.find("coder: review-coder@1.0.0 installed there") != std::string::npos);
  CHECK(out.find("E-HST") == std::string::npos); // every host check passed (and mur doctor exited 0)

  // Installed with other bytes: named.
  TempDir edited;
  fs::copy(launcher.example_dir + "/capsules/coder", edited.path, fs::copy_options::recursive);
  std::ofstream(edited.path + "/murmur.yaml", std::ios::app) << "# edited\n";
  REQUIRE(run_command({MUR_BINARY, "install", "-g", "--force", edited.path}, host_env).exit_code == 0);
  out = doctor(launcher.env);
  CHECK(out.find("E-HST-004: member 'coder' (review-coder@1.0.0) on host 'gpu1': it is installed there with other bytes")
        != std::string::npos);

  // A launcher the host does not trust, and a host that is not the one the roster names: refused.
  TempDir stranger_home;
  fs::copy(launcher.home.path + "/artifacts", stranger_home.path + "/artifacts", fs::copy_options::recursive);
  out = doctor({{"MURMUR_HOME", stranger_home.path}});
  CHECK(out.find("E-HST-003: host 'gpu1' (" + address + ") and this launcher did not agree on TLS") != std::string::npos);
  Ran smuggled = run_command(net.in(0, {MUR_BINARY, "install", "--host", "gpu1", "--force", edited.path}),
                             {{"MURMUR_HOME", stranger_home.path}}, launcher.project.path);
  CHECK(smuggled.exit_code == 1);
  CHECK(smuggled.err.find("E-HST-003") != std::string::npos);
  std::ofstream(launcher.project.path + "/other.pem")
    << run_command({MUR_BINARY, "host", "--certificate"}, {{"MURMUR_HOME", stranger_home.path}}).out;
  roster_with_key("other.pem");
  CHECK(doctor(launcher.env).find("E-HST-003") != std::string::npos);
  roster_with_key("gpu1.pem");

  // The link cut: unreachable.
  REQUIRE(net.cut(0));
  out = doctor(launcher.env);
  CHECK(out.find("E-HST-002: host 'gpu1' (" + address + ") cannot be reached") != std::string::npos);

  // mur run checks the hosts as doctor does, before anything starts.
  Ran run = run_command(net.in(0, {MUR_BINARY, "run", "--roster", launcher.project.path, "--task", "x"}), launcher.env);
  CHECK(run.exit_code == 1);
  CHECK(run.err.find("error[E-HST-002]: host 'gpu1' (" + address + ") cannot be reached") != std::string::npos);

  host.signal(SIGTERM);
  CHECK(host.wait() == 0);
}
