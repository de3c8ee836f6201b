// isolation_probe.cpp — see isolation_probe.hpp.
#include "os/isolation_probe.hpp"

#include "os/harness_isolation.hpp"
#include "os/member_cgroup.hpp"
#include "os/member_pipes.hpp"
#include "os/process_spawn.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <sstream>
#include <system_error>

namespace mur {

namespace {

// What mur-confine --probe put in place.
IsolationProbe probe_programs() {
  IsolationProbe none;
  const std::string helper = confine_binary();
  if (helper.empty()) {
    none.why = "mur-confine is not beside " + self_binary();
    return none;
  }
  PipeEnds out = make_pipe();
  SpawnRequest req;
  req.program = helper;
  req.argv = {"mur-confine", "--probe"};
  req.env = current_environment();
  req.stdout_fd = out.write.get();
  req.stderr_fd = out.write.get(); // an E-ISO-001 of the probe is its answer too
  pid_t pid = -1;
  try {
    pid = spawn_process(req);
  } catch (const std::system_error& e) {
    none.why = std::string("mur-confine could not start: ") + e.what();
    return none;
  }
  out.write.reset();
  std::string text;
  char buf[512];
  for (ssize_t n; (n = ::read(out.read.get(), buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buf, std::size_t(n));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const auto at = text.find("pid_namespace=");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || at == std::string::npos) {
    none.why = "mur-confine --probe failed: " + text.substr(0, text.find('\n'));
    return none;
  }
  return read_probe_line(text.substr(at, text.find('\n', at) - at));
}

} // namespace

IsolationProbe read_probe_line(const std::string& line) {
  std::map<std::string, std::string> kv;
  std::istringstream in(line);
  for (std::string word; in >> word;)
    if (const auto eq = word.find('='); eq != std::string::npos) kv[word.substr(0, eq)] = word.substr(eq + 1);
  IsolationProbe p;
  p.ran = true;
  p.pid_namespace = kv["pid_namespace"] == "yes";
  p.user_namespace = kv["user_namespace"] == "yes";
  p.private_proc = kv["private_proc"] == "yes";
  p.network = kv["network"] == "yes";
  p.landlock = std::atoi(kv["landlock"].c_str());
  p.capabilities_dropped = kv["capabilities"] == "none";
  p.seccomp = kv["seccomp"] == "yes";
  if (kv["why"] != "-") {
    p.why = kv["why"];
    for (char& c : p.why)
      if (c == '_') c = ' ';
  }
  return p;
}

IsolationProbe probe_isolation() {
  IsolationProbe found = probe_programs();
  found.resource_groups = probe_member_cgroup(found.resource_groups_why);
  return found;
}

} // namespace mur
