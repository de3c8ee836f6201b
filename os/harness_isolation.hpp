// harness_isolation.hpp — keeping a member's external program (`transport: process`) out of
// every other member's directory, though all of them run as the same user.
//
// Invariant: a program started by spawn_isolated with a Landlock plan can read and execute
// everything it could before EXCEPT what lies under its hidden roots ($MURMUR_HOME: every
// formation's member directories, the global store; for a peer also <project>/.murmur: the
// entry's session and the project store); under them it may read and execute its capsule
// folder, nothing else. It may write, create and remove only in its own directory, the
// temporary directories (/tmp, /var/tmp, /dev/shm), what the caller adds (the member's $TMPDIR,
// the real HOME a capsule asks for), and /dev/null, zero, full, random and urandom — so a program run as
// root cannot change a file of the system (/etc, /proc/sys, /sys, a device) though it owns
// them all. The
// restriction is the kernel's (Landlock, Linux 5.13+), holds for root as for any user, cannot be
// lifted by the program or its children, and follows no symlink or /proc magic link out of it
// (Landlock checks the real file hierarchy). It also keeps the program from signalling, or
// reaching over abstract Unix sockets, any process outside it (Landlock ABI 6+). Where the
// kernel has no Landlock the plan says so (`mechanism == none`, `why`), and the launcher warns
// W-ISO-001 instead of claiming isolation.
//
// Cost: directories that hold a hidden root (e.g. $HOME when $MURMUR_HOME is ~/.murmur, the
// project directory for a peer) keep every entry they had when the turn started, but the
// program cannot create new entries directly in them. A peer's (or delegated child's) program
// runs in <member dir>/work/, with its member directory hidden, so its sessions (.murmur/, the
// trace) are out of its reach (member/program_dir.hpp). Not covered: the entry's program runs
// in the project directory, which holds the entry's sessions (.murmur/<ses_id>/, its trace): it
// can read and write them.
//
// How: the plan is plain data (paths). spawn_isolated checks that its ruleset can be built here
// (E-ISO-001 at once), then starts `mur-confine` (os/confined_start.hpp, beside this binary)
// with the plan on its descriptor 3; that program adds its namespaces, restricts itself by the
// plan, drops every capability, installs the syscall filter and then runs the program. A member
// whose own runtime is sealed (member/member_seal.hpp) has its starter start mur-confine for it
// (os/program_starter.hpp), which adds the member's own seal as a bound.
// Rule: no member reaches another member's directory (docs/spec/formation.md §Member directories;
// docs/spec/choices.md §Agent programs).
#pragma once

#include "os/process_spawn.hpp"

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mur {

struct IsolationPlan {
  enum class Mechanism { landlock, none };
  Mechanism mechanism = Mechanism::none;
  int landlock_abi = 0;              // the kernel's Landlock ABI version (0: none)
  std::string why;                   // mechanism none: why, for W-ISO-001
  std::vector<std::string> hidden_roots; // canonical
  std::vector<std::string> full;     // may use everything beneath (own dir, the temporary directories, a few devices)
  std::vector<std::string> read_exec; // may read and execute beneath (the capsule folder; must exist)
  std::vector<std::string> readable;  // may read and execute beneath (everything else outside the hidden roots)
  bool own_dir_limited = false;      // own_dir holds a hidden root: only its other entries are usable
  // May create, write, rename within and remove files beneath, but read or list nothing there
  // (a member's running record: written in a directory that holds other sessions' tokens).
  std::vector<std::string> write_only;
  // Landlock ABI 6+: no signal to a process outside the domain. A member runtime's own plan
  // turns it off (the programs its starter seals are outside its domain, and it must end them).
  bool scope_signals = true;
  // Per process of the program (RLIMIT_NOFILE; RLIMIT_AS where no memory group holds the member).
  std::optional<std::int64_t> open_files, address_space_mib;
  // Its network: its own namespace, left only through the member's egress proxy
  // (os/egress_gate.hpp) as `allow` grants, and these ports of 127.0.0.1 forwarded.
  bool network = false;
  std::vector<std::string> allow;
  std::vector<int> forward_ports;
  std::string label;    // who the program is, in its notices ("the agent program", "the tool server 'files'")
  int notice_fd = -1;   // not sent: a pipe the proxy's refusals are written to, one JSON line each
};

// The kernel's Landlock ABI version, 0 when it has none (or it is disabled at boot).
int landlock_abi_version();

// The plan for one program: `own_dir` (its working directory, read/write), `capsule_dir` (its
// installed capsule, read/execute), `hidden_roots` (what is hidden but for those two; for a
// peer: $MURMUR_HOME and <project>/.murmur, where the entry's session and the project store
// live; for the entry, whose own directory is the project: $MURMUR_HOME). A hidden root inside
// own_dir makes own_dir limited (the program cannot create entries directly in it), so never
// pass one there. Paths that do not exist are resolved as far as they do. Never throws for a
// missing mechanism.
IsolationPlan isolation_for(const std::string& own_dir, const std::string& capsule_dir,
                            const std::vector<std::string>& hidden_roots,
                            const std::vector<std::string>& also_writable = {});
IsolationPlan isolation_for(const std::string& own_dir, const std::string& capsule_dir,
                            const std::string& hidden_root);

// While on, the listings isolation_for makes are kept and used again by later plans: a member
// turns it on to make its own plan just before it seals itself, when it may still list the
// directories above the hidden roots (after that it may not). Only before the first thread.
void remember_listings(bool on);
// What was kept, as text (a delegated child's, on a descriptor: it seals itself inside its
// parent's seal, so it could not list them either), and kept again from such a text.
std::string remembered_listings();
void remember_listings_from(const std::string& text);

// spawn_process(request) through mur-confine with the plan (request.inherit must be empty; the
// plan's notice_fd, when set, reaches mur-confine's outer process alone, at descriptor 4): the
// pid is mur-confine's, which mirrors the program's end. Throws Failure E-ISO-001 when a
// Landlock plan cannot be built or mur-confine is missing (nothing is started),
// std::system_error when the child cannot be started.
pid_t spawn_isolated(const SpawnRequest& request, const IsolationPlan& plan);

// Restricts the calling thread (and what it starts) by the plan: no_new_privs, then Landlock
// when the plan has it. Throws Failure E-ISO-001.
void restrict_to_plan(const IsolationPlan& plan);

// The plan as mur-confine reads it on descriptor 3 (NUL-separated fields), and back.
std::string encode_plan(const IsolationPlan& plan);
IsolationPlan decode_plan(const std::string& text);

// Where mur-confine is: beside this binary. "" when it is not there.
std::string confine_binary();

// The W-ISO-001 warning text for a plan without a mechanism ("" when the plan isolates).
std::string isolation_warning(const IsolationPlan& plan, const std::string& member);

} // namespace mur
