// syscall_filter.cpp — see syscall_filter.hpp.
#include "os/syscall_filter.hpp"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

namespace mur {
namespace {

#if defined(__x86_64__)
constexpr std::uint32_t this_arch = AUDIT_ARCH_X86_64;
constexpr std::uint32_t x32_bit = 0x40000000u; // __X32_SYSCALL_BIT: the same calls by other numbers
#elif defined(__aarch64__)
constexpr std::uint32_t this_arch = AUDIT_ARCH_AARCH64;
constexpr std::uint32_t x32_bit = 0;
#else
#error "the syscall filter knows x86_64 and aarch64"
#endif

struct Refused {
  const char* name;
  long nr;
};

// Each a call no member's program needs; #ifdef because not every architecture has each.
const std::vector<Refused>& refused_list() {
  static const std::vector<Refused> list{
#define MUR_REFUSE(call) {#call, SYS_##call},
    MUR_REFUSE(ptrace) MUR_REFUSE(process_vm_readv) MUR_REFUSE(process_vm_writev) MUR_REFUSE(kcmp)
    MUR_REFUSE(mount) MUR_REFUSE(umount2) MUR_REFUSE(pivot_root) MUR_REFUSE(setns) MUR_REFUSE(unshare)
    MUR_REFUSE(fsopen) MUR_REFUSE(fsconfig) MUR_REFUSE(fsmount) MUR_REFUSE(fspick) MUR_REFUSE(move_mount)
    MUR_REFUSE(open_tree) MUR_REFUSE(mount_setattr)
    MUR_REFUSE(kexec_load) MUR_REFUSE(kexec_file_load) MUR_REFUSE(init_module) MUR_REFUSE(finit_module)
    MUR_REFUSE(delete_module) MUR_REFUSE(bpf) MUR_REFUSE(perf_event_open) MUR_REFUSE(reboot)
    MUR_REFUSE(swapon) MUR_REFUSE(swapoff) MUR_REFUSE(syslog) MUR_REFUSE(acct) MUR_REFUSE(quotactl)
#ifdef SYS_iopl
    MUR_REFUSE(iopl)
#endif
#ifdef SYS_ioperm
    MUR_REFUSE(ioperm)
#endif
    MUR_REFUSE(keyctl) MUR_REFUSE(add_key) MUR_REFUSE(request_key)
    MUR_REFUSE(settimeofday) MUR_REFUSE(clock_settime) MUR_REFUSE(clock_adjtime)
    MUR_REFUSE(userfaultfd) MUR_REFUSE(open_by_handle_at)
    MUR_REFUSE(io_uring_setup) MUR_REFUSE(io_uring_enter) MUR_REFUSE(io_uring_register)
#ifdef SYS_quotactl_fd
    MUR_REFUSE(quotactl_fd)
#endif
#ifdef SYS_listmount
    MUR_REFUSE(listmount) MUR_REFUSE(statmount)
#endif
#ifdef SYS_open_tree_attr
    MUR_REFUSE(open_tree_attr)
#endif
#undef MUR_REFUSE
  };
  return list;
}

constexpr std::uint32_t new_namespace_flags = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |
                                              CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | 0x00000080u /* NEWTIME */;

sock_filter statement(std::uint16_t code, std::uint32_t k) { return sock_filter{code, 0, 0, k}; }
sock_filter jump(std::uint16_t code, std::uint32_t k, std::uint8_t jt, std::uint8_t jf) {
  return sock_filter{code, jt, jf, k};
}

std::vector<sock_filter> program() {
  const std::uint32_t eperm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
  const std::uint32_t enosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
  std::vector<sock_filter> p;
  p.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, this_arch, 1, 0));
  p.push_back(statement(BPF_RET | BPF_K, eperm));
  p.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
  if (x32_bit != 0) {
    p.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, x32_bit, 0, 1));
    p.push_back(statement(BPF_RET | BPF_K, eperm));
  }
  for (const Refused& r : refused_list()) {
    p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<std::uint32_t>(r.nr), 0, 1));
    p.push_back(statement(BPF_RET | BPF_K, eperm));
  }
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1));
  p.push_back(statement(BPF_RET | BPF_K, enosys));
  // ioctl(fd, TIOCSTI or TIOCLINUX, …): typing into a terminal, or driving the console.
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 5));
  p.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[1])));
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 2, 0));
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX, 1, 0));
  p.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  p.push_back(statement(BPF_RET | BPF_K, eperm));
  // clone(flags, …): flags is the first argument on both architectures; its low 32 bits hold
  // every CLONE_NEW* flag.
  p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3));
  p.push_back(statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])));
  p.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, new_namespace_flags, 0, 1));
  p.push_back(statement(BPF_RET | BPF_K, eperm));
  p.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  return p;
}

} // namespace

const std::vector<std::string>& refused_syscalls() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Refused& r : refused_list()) out.emplace_back(r.name);
    out.emplace_back("ioctl TIOCSTI and TIOCLINUX");
    out.emplace_back("clone (with a CLONE_NEW* flag)");
    out.emplace_back("clone3 (ENOSYS)");
    return out;
  }();
  return names;
}

int install_syscall_filter() {
  std::vector<sock_filter> p = program();
  sock_fprog prog{static_cast<unsigned short>(p.size()), p.data()};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) return errno;
  return 0;
}

} // namespace mur
