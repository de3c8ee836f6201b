// atoms.hpp — the project's CAF atoms (each at most 10 characters of [0-9A-Za-z_]).
#pragma once

#include <caf/atom.hpp>

namespace mur {

using cancel_atom = caf::atom_constant<caf::atom("murcancel")>;      // door → task: cancel it
using lifeline_atom = caf::atom_constant<caf::atom("lifeline")>;     // lifeline reader → member: EOF
using sigterm_atom = caf::atom_constant<caf::atom("sigterm")>;       // signal adapter → member
using deadline_atom = caf::atom_constant<caf::atom("deadline")>;     // a deadline passed
using winddown_atom = caf::atom_constant<caf::atom("winddown")>;     // member → door: close, cancel, refuse
using retry_atom = caf::atom_constant<caf::atom("retry")>;           // egress: re-offer / re-poll
using address_atom = caf::atom_constant<caf::atom("address")>;       // channel → member/egress: address line
using wait_atom = caf::atom_constant<caf::atom("addrwait")>;         // egress: address wait ran out
using think_atom = caf::atom_constant<caf::atom("think")>;           // script model: think_ms passed
using trace_atom = caf::atom_constant<caf::atom("trace")>;           // read back a trace (tests, mur trace)
using ended_atom = caf::atom_constant<caf::atom("ended")>;           // a member's session has ended
using task_end_atom = caf::atom_constant<caf::atom("taskend")>;      // door → member → supervisor: a task ended

} // namespace mur
