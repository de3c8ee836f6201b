// trace_list.hpp — `mur trace list [--json]`: the formations under $MURMUR_HOME/formations and
// the sessions under the current directory's `.murmur/`, newest first, each with its start time,
// roster directory or capsule, duration and outcome.
//
// Invariant: read-only; a formation is a directory with a `formation.json` marker
// (launcher/base/formation_dirs.hpp), its times and outcome read from its members' traces; a session
// is a `ses_…` directory whose trace.jsonl starts with session_start. Nothing listed holds a
// token (traces hold none).
// Rule (docs/spec/choices.md §Observability): `mur trace list` lists formations and sessions,
// newest first, with start time, roster or capsule, duration and outcome (`--json` too).
#pragma once

namespace mur {

int cmd_trace_list(bool json);

} // namespace mur
