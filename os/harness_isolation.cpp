#include "os/harness_isolation.hpp"
#include "os/path_within.hpp"
#include "os/memory_file.hpp"
#include "os/nul_fields.hpp"
#include "os/program_starter.hpp"

#include "messages/vocabulary/failure.hpp"
#include "os/unique_fd.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace mur {
namespace {

// The kernel's Landlock interface (include/uapi/linux/landlock.h), spelled out here so the
// build does not depend on how new the installed kernel headers are.
struct RulesetAttr {
  std::uint64_t handled_access_fs = 0;
  std::uint64_t handled_access_net = 0;
  std::uint64_t scoped = 0;
};
struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};
constexpr unsigned create_ruleset_version = 1u << 0;
constexpr int rule_path_beneath = 1;

constexpr std::uint64_t fs_execute = 1ull << 0;
constexpr std::uint64_t fs_write_file = 1ull << 1;
constexpr std::uint64_t fs_read_file = 1ull << 2;
constexpr std::uint64_t fs_read_dir = 1ull << 3;
constexpr std::uint64_t fs_refer = 1ull << 13;    // ABI 2
constexpr std::uint64_t fs_truncate = 1ull << 14; // ABI 3
constexpr std::uint64_t fs_ioctl_dev = 1ull << 15; // ABI 5
constexpr std::uint64_t scope_abstract_unix_socket = 1ull << 0; // ABI 6
constexpr std::uint64_t scope_signal = 1ull << 1;               // ABI 6

std::uint64_t handled_fs(int abi) {
  std::uint64_t all = (1ull << 13) - 1; // ABI 1: execute … make_sym
  if (abi >= 2) all |= fs_refer;
  if (abi >= 3) all |= fs_truncate;
  if (abi >= 5) all |= fs_ioctl_dev;
  return all;
}

// Rights that apply to a file that is not a directory.
std::uint64_t file_rights(int abi) {
  return handled_fs(abi) & (fs_execute | fs_write_file | fs_read_file | fs_truncate | fs_ioctl_dev);
}

std::size_t ruleset_attr_size(int abi) {
  if (abi >= 6) return sizeof(RulesetAttr);
  if (abi >= 4) return 2 * sizeof(std::uint64_t);
  return sizeof(std::uint64_t);
}


// The entries of a directory: a path and whether it is a symlink.
using Listing = std::vector<std::pair<fs::path, bool>>;

// Listings kept while remember_listings is on (a member about to seal itself, before its first
// thread): once sealed it may no longer list the directories that hold a hidden root ("/", the
// way to $MURMUR_HOME), yet its programs' plans are made of their entries. Written only before
// the first thread, read-only after.
bool remembering = false;
std::map<std::string, Listing>& remembered() {
  static std::map<std::string, Listing> listings;
  return listings;
}

Listing list_dir(const fs::path& dir) {
  const auto kept = remembered().find(dir.string());
  if (kept != remembered().end()) return kept->second;
  Listing out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    out.emplace_back(it->path(), it->is_symlink(ec));
  if (remembering) remembered()[dir.string()] = out;
  return out;
}

// Every entry of every directory that holds a hidden root, except the hidden roots and the way
// to them: together with the hidden roots, that is the whole file tree. Symlinks are left out (a
// rule follows the file a path resolves to, so the file they name is covered, or hidden, where
// it lies).
void everything_but(const fs::path& dir, const std::vector<fs::path>& hidden, std::vector<std::string>& out) {
  for (const auto& [child, is_symlink] : list_dir(dir)) {
    if (is_symlink) continue;
    bool is_hidden = false, holds_hidden = false;
    for (const auto& h : hidden) {
      if (path_within(h, child)) is_hidden = true;
      else if (path_within(child, h)) holds_hidden = true;
    }
    if (is_hidden) continue;
    if (holds_hidden) everything_but(child, hidden, out);
    else out.push_back(child.string());
  }
}

Failure cannot_isolate(const std::string& what, int err) {
  return Failure("E-ISO-001",
                 "the program's isolation could not be set up: " + what + " (" + std::strerror(err) + ")",
                 "check that the member's directory and its installed capsule folder exist "
                 "(mur list; reinstall the capsule if its copy is gone)");
}

UniqueFd build_ruleset(const IsolationPlan& plan) {
  const int abi = plan.landlock_abi;
  RulesetAttr attr;
  attr.handled_access_fs = handled_fs(abi);
  if (abi >= 6) attr.scoped = scope_abstract_unix_socket | (plan.scope_signals ? scope_signal : 0);
  const long fd = ::syscall(SYS_landlock_create_ruleset, &attr, ruleset_attr_size(abi), 0u);
  if (fd < 0) throw cannot_isolate("landlock_create_ruleset", errno);
  UniqueFd ruleset(static_cast<int>(fd));
  auto add = [&](const std::string& path, std::uint64_t rights, bool must_exist) {
    const int target = ::open(path.c_str(), O_PATH | O_CLOEXEC | O_NOFOLLOW);
    if (target < 0) {
      if (!must_exist && (errno == ENOENT || errno == ELOOP || errno == EACCES)) return;
      throw cannot_isolate("cannot open " + path, errno);
    }
    UniqueFd hold(target);
    struct stat st {};
    if (::fstat(target, &st) != 0) throw cannot_isolate("cannot stat " + path, errno);
    if (S_ISLNK(st.st_mode)) return;
    if (!S_ISDIR(st.st_mode)) rights &= file_rights(abi);
    PathBeneathAttr rule{rights & handled_fs(abi), target};
    if (rule.allowed_access == 0) return;
    if (::syscall(SYS_landlock_add_rule, ruleset.get(), rule_path_beneath, &rule, 0u) != 0)
      throw cannot_isolate("landlock_add_rule for " + path, errno);
  };
  for (const auto& p : plan.full) add(p, handled_fs(abi), false);
  for (const auto& p : plan.read_exec) add(p, fs_read_file | fs_read_dir | fs_execute, true);
  for (const auto& p : plan.readable) add(p, fs_read_file | fs_read_dir | fs_execute, false);
  constexpr std::uint64_t fs_remove_file = 1ull << 5, fs_make_reg = 1ull << 8;
  for (const auto& p : plan.write_only) add(p, fs_write_file | fs_truncate | fs_remove_file | fs_make_reg, true);
  return ruleset;
}

} // namespace

void remember_listings(bool on) { remembering = on; }

std::string remembered_listings() {
  std::string out;
  for (const auto& [dir, listing] : remembered()) {
    put_field(out, "D", dir);
    for (const auto& [path, is_symlink] : listing) put_field(out, is_symlink ? "L" : "E", path.string());
  }
  return out;
}

void remember_listings_from(const std::string& text) {
  Listing* into = nullptr;
  for_each_field(text, [&](const std::string& kind, const std::string& value) {
    if (kind == "D") into = &remembered()[value];
    else if (into && (kind == "E" || kind == "L")) into->emplace_back(fs::path(value), kind == "L");
  });
}

int landlock_abi_version() {
  const long v = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, create_ruleset_version);
  return v > 0 ? static_cast<int>(v) : 0;
}

IsolationPlan isolation_for(const std::string& own_dir, const std::string& capsule_dir,
                            const std::string& hidden_root) {
  return isolation_for(own_dir, capsule_dir, std::vector<std::string>{hidden_root});
}

IsolationPlan isolation_for(const std::string& own_dir, const std::string& capsule_dir,
                            const std::vector<std::string>& hidden_roots, const std::vector<std::string>& also_writable) {
  IsolationPlan plan;
  const int abi = landlock_abi_version();
  if (abi <= 0) {
    plan.why = errno == EOPNOTSUPP ? "Landlock is built into this kernel but disabled at boot (lsm=…)"
                                   : "this kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)";
    return plan;
  }
  plan.mechanism = IsolationPlan::Mechanism::landlock;
  plan.landlock_abi = abi;
  std::vector<fs::path> hidden;
  for (const auto& h : hidden_roots) {
    hidden.push_back(resolved_path(h));
    plan.hidden_roots.push_back(hidden.back().string());
  }
  const fs::path own = resolved_path(own_dir);
  const fs::path capsule = resolved_path(capsule_dir);
  if (hidden.empty()) plan.readable.push_back("/");
  else everything_but(fs::path("/"), hidden, plan.readable);
  // A rule on a directory that holds a hidden root would open all of it again.
  auto holds_hidden = [&](const fs::path& p) {
    return std::any_of(hidden.begin(), hidden.end(), [&](const fs::path& h) { return path_within(p, h); });
  };
  if (holds_hidden(own)) plan.own_dir_limited = true;
  else plan.full.push_back(own.string());
  // Where any program may write besides: the temporary directories, the caller's, a few devices.
  std::vector<std::string> writable{"/tmp", "/var/tmp", "/dev/shm", "/dev/null", "/dev/zero",
                                    "/dev/full", "/dev/random", "/dev/urandom"};
  writable.insert(writable.end(), also_writable.begin(), also_writable.end());
  for (const auto& w : writable) {
    std::error_code ec;
    if (!fs::exists(w, ec)) continue;
    const fs::path p = resolved_path(w);
    if (std::any_of(hidden.begin(), hidden.end(), [&](const fs::path& h) { return path_within(h, p); })) continue;
    if (holds_hidden(p)) everything_but(p, hidden, plan.full);
    else plan.full.push_back(p.string());
  }
  if (!holds_hidden(capsule)) plan.read_exec.push_back(capsule.string());
  return plan;
}

void restrict_to_plan(const IsolationPlan& plan) {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) throw cannot_isolate("prctl(PR_SET_NO_NEW_PRIVS)", errno);
  if (plan.mechanism == IsolationPlan::Mechanism::none) return;
  UniqueFd ruleset = build_ruleset(plan);
  if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0u) != 0) throw cannot_isolate("landlock_restrict_self", errno);
}


std::string encode_plan(const IsolationPlan& plan) {
  std::string out;
  put_field(out, "mechanism", plan.mechanism == IsolationPlan::Mechanism::landlock ? "landlock" : "none");
  put_field(out, "abi", std::to_string(plan.landlock_abi));
  for (const auto& p : plan.hidden_roots) put_field(out, "hidden", p);
  for (const auto& p : plan.full) put_field(out, "full", p);
  for (const auto& p : plan.read_exec) put_field(out, "read_exec", p);
  for (const auto& p : plan.readable) put_field(out, "readable", p);
  for (const auto& p : plan.write_only) put_field(out, "write_only", p);
  if (!plan.scope_signals) put_field(out, "signals", "unscoped");
  if (plan.open_files) put_field(out, "open_files", std::to_string(*plan.open_files));
  if (plan.address_space_mib) put_field(out, "address_space_mib", std::to_string(*plan.address_space_mib));
  if (plan.network) put_field(out, "network", "sealed");
  for (const auto& a : plan.allow) put_field(out, "allow", a);
  for (int p : plan.forward_ports) put_field(out, "forward", std::to_string(p));
  if (!plan.label.empty()) put_field(out, "label", plan.label);
  if (plan.notice_fd >= 0) put_field(out, "notices", "4");
  return out;
}

IsolationPlan decode_plan(const std::string& text) {
  IsolationPlan plan;
  for_each_field(text, [&](const std::string& key, const std::string& value) {
    if (key == "mechanism") plan.mechanism = value == "landlock" ? IsolationPlan::Mechanism::landlock : IsolationPlan::Mechanism::none;
    else if (key == "abi") plan.landlock_abi = std::atoi(value.c_str());
    else if (key == "hidden") plan.hidden_roots.push_back(value);
    else if (key == "full") plan.full.push_back(value);
    else if (key == "read_exec") plan.read_exec.push_back(value);
    else if (key == "readable") plan.readable.push_back(value);
    else if (key == "write_only") plan.write_only.push_back(value);
    else if (key == "signals") plan.scope_signals = value != "unscoped";
    else if (key == "open_files") plan.open_files = std::atoll(value.c_str());
    else if (key == "address_space_mib") plan.address_space_mib = std::atoll(value.c_str());
    else if (key == "network") plan.network = value == "sealed";
    else if (key == "allow") plan.allow.push_back(value);
    else if (key == "forward") plan.forward_ports.push_back(std::atoi(value.c_str()));
    else if (key == "label") plan.label = value;
    else if (key == "notices") plan.notice_fd = std::atoi(value.c_str());
  });
  return plan;
}

std::string confine_binary() {
  const std::string self = self_binary_path();
  if (self.empty()) return {};
  const std::string beside = fs::path(self).parent_path().string() + "/mur-confine";
  return ::access(beside.c_str(), X_OK) == 0 ? beside : std::string();
}

pid_t spawn_isolated(const SpawnRequest& request, const IsolationPlan& plan) {
  if (plan.mechanism == IsolationPlan::Mechanism::landlock) build_ruleset(plan); // E-ISO-001 here, not in the child
  const std::string helper = confine_binary();
  if (helper.empty())
    throw Failure("E-ISO-001", "the program's isolation could not be set up: mur-confine is not beside " + self_binary(),
                  "install mur whole (cmake --install installs mur and mur-confine side by side), or run the build's "
                  "own build/mur");
  // The plan travels on a memory file at the helper's descriptor 3, never on its command line.
  UniqueFd plan_fd = memory_file("mur-plan", encode_plan(plan));
  if (!plan_fd.valid()) throw cannot_isolate("memfd_create", errno);
  SpawnRequest confined = request;
  confined.program = helper;
  confined.argv = {"mur-confine", "--program", request.program, "--"};
  confined.argv.insert(confined.argv.end(), request.argv.begin(), request.argv.end());
  confined.inherit = {plan_fd.get()};
  if (plan.notice_fd >= 0) confined.inherit.push_back(plan.notice_fd);
  // A sealed member may not make namespaces: its starter, unsealed, starts mur-confine for it.
  if (const int starter = program_starter(); starter >= 0) return start_through(starter, confined, StartKind::confined);
  return spawn_process(confined);
}

std::string isolation_warning(const IsolationPlan& plan, const std::string& member) {
  if (plan.mechanism != IsolationPlan::Mechanism::none) return {};
  return "W-ISO-001: member " + member + "'s program runs without isolation: " + plan.why +
         "; it can read other members' directories (they all run as the same user). Fix: run mur "
         "on a kernel with Landlock enabled, or do not run programs you do not trust as members";
}

} // namespace mur
