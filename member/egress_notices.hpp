// egress_notices.hpp — what a member's egress proxies refused, written into its trace.
//
// Invariant: one pipe per member session; every mur-confine the member starts gets its write end
// (os/harness_isolation.hpp, IsolationPlan::notice_fd), and only mur-confine's outer process
// keeps it — never the program — so each line read is the proxy's own. Each line that is a JSON
// object {"program","host","port","tls","why"} becomes one `egress_refused` trace event with
// those fields (strings cut to 255 bytes); anything else is dropped. A reader thread of its own
// waits on the pipe and a wake pipe (no polling timer) and ends when the object goes.
// Rule: a refused host gets 403 and a trace event (docs/isolation.md §Network).
#pragma once

#include "actors/ports.hpp"
#include "os/unique_fd.hpp"
#include "os/wake_pipe.hpp"

#include <thread>

namespace mur {

class EgressNotices {
public:
  explicit EgressNotices(trace_port trace);
  ~EgressNotices();
  EgressNotices(const EgressNotices&) = delete;
  EgressNotices& operator=(const EgressNotices&) = delete;

  int write_fd() const { return write_.get(); } // for IsolationPlan::notice_fd

private:
  UniqueFd read_, write_;
  WakePipe stop_;
  std::thread reader_;
};

} // namespace mur
