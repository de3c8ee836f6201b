// member_seal.cpp — see member_seal.hpp.
#include "member/member_seal.hpp"

#include "capsule/capsule_store.hpp"
#include "capsule/murmur_home.hpp"
#include "capsule/session_store.hpp"
#include "member/program_dir.hpp"
#include "member/program_env.hpp"
#include "member/running_record.hpp"
#include "messages/vocabulary/failure.hpp"
#include "os/capability_drop.hpp"
#include "os/harness_isolation.hpp"
#include "os/memory_file.hpp"
#include "os/path_within.hpp"
#include "os/program_starter.hpp"
#include "os/syscall_filter.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace mur {
namespace {

Failure cannot_seal(const std::string& what, int err) {
  return Failure("E-ISO-001", "the member's isolation could not be set up: " + what + " (" + std::strerror(err) + ")",
                 "run mur on a Linux kernel that has what mur doctor lists under Isolation");
}

// Threads of this process: Landlock would bind only the calling one.
std::size_t thread_count() {
  std::error_code ec;
  std::size_t n = 0;
  for (auto it = fs::directory_iterator("/proc/self/task", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) ++n;
  return n;
}

bool is_dir(const std::string& p) {
  std::error_code ec;
  return !p.empty() && fs::is_directory(p, ec);
}

// A delegated child's parent kept the listings it cannot make (MURMUR_LISTINGS_FD).
void take_parents_listings() {
  const char* v = std::getenv("MURMUR_LISTINGS_FD");
  if (v == nullptr || *v == '\0') return;
  const int fd = std::atoi(v);
  ::unsetenv("MURMUR_LISTINGS_FD");
  if (fd < 3 || ::fcntl(fd, F_GETFD) == -1) return;
  remember_listings_from(read_to_end(fd));
  ::close(fd);
}

// The member's own plan: what its programs' plans are made of, with what the runtime itself
// writes besides (its running record, its session where the store keeps it, the live ledger, the
// terminal) and reads besides (the stores, when it may delegate).
IsolationPlan member_plan(const Manifest& m, const MemberPlace& place) {
  const EnvRead env = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  std::vector<std::string> writable = member_tmpdir(env);
  writable.push_back("/dev/tty"); // where the operator is asked (os/terminal_question.hpp)
  take_parents_listings();
  remember_listings(true); // its programs' plans list what it may no longer list once sealed
  IsolationPlan plan = isolation_for(place.workdir, capsule_folder(m), hidden_roots_for(place.workdir, env), writable);
  remember_listings(false);
  if (plan.mechanism == IsolationPlan::Mechanism::none) return plan;
  plan.scope_signals = false; // it ends what its starter started for it, which lies outside its domain
  make_private_dirs(running_dir());
  plan.write_only.push_back(resolved_path(running_dir()).string());
  if (is_dir(place.live_dir)) plan.full.push_back(resolved_path(place.live_dir).string());
  if (capsule_has_programs(m) && program_dir_for(place.workdir, murmur_home()).trace_in_reach) {
    // Its session lives in the store, out of its programs' reach (capsule/session_store.hpp).
    const std::string session = session_store() + "/" + place.session_id;
    make_private_dirs(session);
    plan.full.push_back(resolved_path(session).string());
  } else if (plan.own_dir_limited) {
    // Its directory holds a hidden root (it works in $MURMUR_HOME itself, say): its session is
    // still its own.
    const std::string session = place.workdir + "/.murmur/" + place.session_id;
    make_private_dirs(session);
    plan.full.push_back(resolved_path(session).string());
  }
  if (!m.spawn_allow.empty()) { // a child's capsule is resolved, and read, where it is installed
    const StoreRoots roots = StoreRoots::for_project(place.store_root.empty() ? place.workdir : place.store_root);
    for (const std::string& root : {roots.project, roots.global})
      if (is_dir(root)) plan.read_exec.push_back(resolved_path(root).string());
  }
  return plan;
}

} // namespace

MemberSeal seal_member_runtime(const Manifest& m, const MemberPlace& place) {
  MemberSeal seal;
  const IsolationPlan plan = member_plan(m, place);
  if (plan.mechanism == IsolationPlan::Mechanism::none) {
    seal.why = plan.why;
    std::cerr << "warning W-ISO-004: member " << m.name << " runs without isolation (" << plan.why
              << "): its own process can read other members' directories. Fix: run mur on a kernel with Landlock "
                 "enabled\n";
    return seal;
  }
  if (thread_count() != 1) throw cannot_seal("a thread started before the member sealed itself", EBUSY);
  // Its starter first, unsealed (a delegated child's parent already gave it one).
  int starter = inherited_program_starter();
  if (starter < 0) starter = start_program_starter(plan).release();
  use_program_starter(starter);
  restrict_to_plan(plan);
  seal.landlock = plan.landlock_abi;
  std::string what;
  if (const int err = drop_all_capabilities(what)) throw cannot_seal(what, err);
  seal.capabilities_dropped = true;
  if (::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0) {
    if (const int err = install_syscall_filter()) throw cannot_seal("the syscall filter (seccomp)", err);
    seal.seccomp = true;
  }
  seal.sealed = true;
  return seal;
}

} // namespace mur
