// transport_failure.hpp — why a door call reached no door: the reason a transport failure
// carries from the door-call port to the egress.
//
// Invariant: a door-call port answers a call that reached no HTTP answer with
// make_transport_error(kind, reason); transport_fault_of reads it back, and reads CAF's own
// request timeout as `timed_out` and any other error as `other` with CAF's rendering. The reason
// is a few plain words ("connection refused", "timed out", …) and never holds a URL, a header or
// a token.
// Rule (docs/spec/choices.md §Faults are named): a refused connection is named as such at once.
#pragma once

#include <caf/fwd.hpp>

#include <cstdint>
#include <string>

namespace mur {

enum class TransportFailure : std::uint8_t {
  refused = 1,  // nothing listens at the door's port: its process has ended
  timed_out,    // connected (or connecting), but no answer in time: the process may be stopped
  reset,        // the connection broke mid-call: the process ended while answering
  no_reply,     // the door closed the connection without an HTTP answer
  other,        // anything else (an unreadable answer, an unexpected HTTP status, …)
};

struct TransportFault {
  TransportFailure kind = TransportFailure::other;
  std::string reason; // plain words, e.g. "connection refused"
};

caf::error make_transport_error(TransportFailure kind, std::string reason);

// The fault a failed door call carries; `sys` renders errors of other categories.
TransportFault transport_fault_of(const caf::error& err, caf::actor_system& sys);

// Registers the category, so logs render a transport error as its reason.
void add_transport_error_category(caf::actor_system_config& cfg);

} // namespace mur
