// syscall_filter.hpp — the system calls no member's program or tool server needs, refused by the
// kernel (seccomp) before the program starts.
//
// Invariant: after install_syscall_filter() succeeds, the calling thread and everything it
// starts (the filter survives execve and is inherited by every child) get EPERM from each call
// of refused_syscalls() — reaching into other processes (ptrace, process_vm_readv/writev,
// kcmp), changing what is mounted or which namespace a process is in (mount, umount2,
// pivot_root, fsopen…, setns, unshare, clone/clone3 asking for a new namespace), the kernel
// itself (kexec, module loading, bpf, perf_event_open, iopl/ioperm, reboot, swap, syslog, acct,
// quotactl), the keyrings (keyctl, add_key, request_key), the clock (settimeofday,
// clock_settime, clock_adjtime), userfaultfd, open_by_handle_at, io_uring (whose operations no
// filter sees), ioctl TIOCSTI and TIOCLINUX (typing into a terminal) — and ENOSYS from clone3
// (whose flags live in memory a filter cannot read; every libc then falls back to clone). A
// call made under another architecture's numbering (x32, i386 on x86_64) is refused whole
// (EPERM), so no refused call is reached by another number. Every other call is allowed: the
// filter is a deny list, so what programs ordinarily do keeps working. It needs no_new_privs
// (set by the caller). The list is docs/isolation.md's.
// Rule: a seccomp filter refuses what no member needs (docs/isolation.md §System calls).
#pragma once

#include <string>
#include <vector>

namespace mur {

// The names of the refused calls, in the filter's order (for doctor and the docs).
const std::vector<std::string>& refused_syscalls();

// Installs the filter on the calling thread. Returns 0, or the errno of the step that failed
// (EINVAL: this kernel has no seccomp filters).
int install_syscall_filter();

} // namespace mur
