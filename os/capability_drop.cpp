// capability_drop.cpp — see capability_drop.hpp.
#include "os/capability_drop.hpp"

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace mur {
namespace {

// securebits (linux/securebits.h): root gains nothing at execve, and that cannot be undone.
constexpr unsigned long secbit_noroot = 1ul << 0, secbit_noroot_locked = 1ul << 1;
constexpr unsigned long secbit_no_setuid_fixup = 1ul << 2, secbit_no_setuid_fixup_locked = 1ul << 3;
constexpr unsigned long secbit_keep_caps_locked = 1ul << 5;
constexpr unsigned long secbit_no_cap_ambient_raise = 1ul << 6, secbit_no_cap_ambient_raise_locked = 1ul << 7;

} // namespace

int drop_all_capabilities(std::string& what) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capget, &header, data) != 0) return what = "capget", errno;
  const bool holds_any = data[0].permitted || data[1].permitted || data[0].effective || data[1].effective;
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  if (!holds_any) return 0; // nothing to drop: an ordinary user
  if (::prctl(PR_SET_SECUREBITS, secbit_noroot | secbit_noroot_locked | secbit_no_setuid_fixup |
                                   secbit_no_setuid_fixup_locked | secbit_keep_caps_locked |
                                   secbit_no_cap_ambient_raise | secbit_no_cap_ambient_raise_locked,
              0, 0, 0) != 0)
    return what = "prctl(PR_SET_SECUREBITS)", errno;
  for (int cap = 0; cap < 64; ++cap)
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) return what = "prctl(PR_CAPBSET_DROP)", errno;
  __user_cap_data_struct none[2]{};
  if (::syscall(SYS_capset, &header, none) != 0) return what = "capset", errno;
  return 0;
}

} // namespace mur
