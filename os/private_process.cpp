// private_process.cpp — see private_process.hpp.
#include "os/private_process.hpp"

#include <sys/prctl.h>

namespace mur {

void make_process_private() { ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

} // namespace mur
