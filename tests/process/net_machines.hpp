// net_machines.hpp — "machines" for the hosts tests: network namespaces the test makes itself,
// each joined to one bridge (in a namespace of its own) by a veth pair, all in one /24 of
// 10.231.x.0 chosen from the test's pid. Machine i (0-based) has address subnet + (i + 1).
// Needs root and `ip` (iproute2); where the machine forbids namespaces, `made` is false and
// `why` says why, so the test can say so and check nothing. Everything is removed at the end.
#pragma once

#include "run_command.hpp"

#include <unistd.h>

#include <string>
#include <vector>

namespace mur::test {

struct NetMachines {
  std::string tag = std::to_string(::getpid() % 100000);
  std::string subnet = "10.231." + std::to_string(::getpid() % 250) + ".";
  std::string bridge_ns = "murB" + tag;
  std::vector<std::string> names; // each machine's namespace
  bool made = false;
  std::string why;

  static Ran ip(const std::vector<std::string>& args) {
    std::vector<std::string> argv{"/usr/sbin/ip"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, {{"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"}});
  }

  explicit NetMachines(int count) {
    if (::geteuid() != 0 || ::access("/usr/sbin/ip", X_OK) != 0) {
      why = "not root, or no /usr/sbin/ip (iproute2)";
      return;
    }
    std::vector<std::vector<std::string>> steps{{"netns", "add", bridge_ns},
                                                {"-n", bridge_ns, "link", "add", "br0", "type", "bridge"},
                                                {"-n", bridge_ns, "link", "set", "br0", "up"}};
    for (int i = 0; i < count; ++i) {
      const std::string ns = "murM" + std::to_string(i) + "_" + tag, inside = veth(i), outside = "vb" + std::to_string(i) + "_" + tag;
      names.push_back(ns);
      for (auto step : std::vector<std::vector<std::string>>{
             {"netns", "add", ns},
             {"link", "add", inside, "type", "veth", "peer", "name", outside},
             {"link", "set", inside, "netns", ns},
             {"link", "set", outside, "netns", bridge_ns},
             {"-n", bridge_ns, "link", "set", outside, "master", "br0"},
             {"-n", bridge_ns, "link", "set", outside, "up"},
             {"-n", ns, "addr", "add", address(i) + "/24", "dev", inside},
             {"-n", ns, "link", "set", inside, "up"},
             {"-n", ns, "link", "set", "lo", "up"}})
        steps.push_back(step);
    }
    for (const auto& step : steps) {
      Ran r = ip(step);
      if (r.exit_code != 0) {
        why = "ip " + step[0] + " " + step[1] + " " + step[2] + ": " + r.err;
        return;
      }
    }
    made = true;
  }
  ~NetMachines() {
    for (const auto& ns : names) ip({"netns", "del", ns});
    ip({"netns", "del", bridge_ns});
  }
  NetMachines(const NetMachines&) = delete;
  NetMachines& operator=(const NetMachines&) = delete;

  std::string address(int i) const { return subnet + std::to_string(i + 1); }
  std::string veth(int i) const { return "vm" + std::to_string(i) + "_" + tag; }
  // argv run inside machine i.
  std::vector<std::string> in(int i, std::vector<std::string> argv) const {
    argv.insert(argv.begin(), {"/usr/sbin/ip", "netns", "exec", names[i]});
    return argv;
  }
  // Cuts machine i off the bridge (its own end of the link goes down).
  bool cut(int i) const { return ip({"-n", names[i], "link", "set", veth(i), "down"}).exit_code == 0; }
};

} // namespace mur::test
