#!/usr/bin/env bash
# readme_test.sh — README.md commands that no other test runs as written, run as written against
# the real binary:
#   - `scripts/demo.sh` (with MUR_BINARY, so it neither installs nor builds): it exits 0 and its
#     answer is the review formation's, reviewer's approval included;
#   - "One capsule session, by hand": `mur install -g` of the reviewer capsule, then
#     `mur run --capsule review-reviewer --capsule-version 1.0.0 --json` serving, its readiness
#     line, `mur send ses_… "Review this patch"` answered with the reviewer's approval, and
#     `mur stop ses_…` ending the session.
# Every other README command is found in a test by scripts/dev/check_docs.sh (a block's
# `<!-- tested-by: … -->` note names where). Waits are bounded loops on a condition; nothing is
# timed. Run by ctest ("readme: …", CMakeLists.txt); by hand from the repository root:
#   MUR_BINARY=build/mur tests/process/readme_test.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
mur=${MUR_BINARY:?set MUR_BINARY to the mur executable}
case "$mur" in /*) ;; *) mur="$PWD/$mur" ;; esac

export MURMUR_HOME
MURMUR_HOME=$(mktemp -d)
work=$(mktemp -d)
session_pid=
running() { # the process runs (a zombie, ended but not yet reaped by this shell, does not)
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1 || true)
  [ -n "$state" ] && [ "$state" != Z ]
}
cleanup() {
  if [ -n "$session_pid" ] && running "$session_pid"; then kill -KILL "$session_pid" || true; fi
  rm -rf "$MURMUR_HOME" "$work"
}
trap cleanup EXIT
fail() {
  echo "readme_test.sh: $*" >&2
  for f in demo.out session.err; do
    if [ -s "$work/$f" ]; then sed "s/^/  $f: /" "$work/$f" >&2; fi
  done
  exit 1
}

# 1. scripts/demo.sh, as the README's first block runs it.
MUR_BINARY="$mur" scripts/demo.sh >"$work/demo.out" 2>&1 || fail "scripts/demo.sh exited $?"
grep -q "^answer: Lead's summary\. Coder: patch written for .*Reviewer said: Approved: the patch does what was asked\.$" \
  "$work/demo.out" || fail "scripts/demo.sh printed no reviewed answer"
echo "readme_test.sh: scripts/demo.sh ok"

# 2. One capsule session, by hand (its own MURMUR_HOME: the demo's is gone).
"$mur" install -g examples/review/capsules/reviewer >/dev/null || fail "mur install -g failed"
(cd "$work" && exec "$mur" run --capsule review-reviewer --capsule-version 1.0.0 --json) \
  >"$work/ready.json" 2>"$work/session.err" &
session_pid=$!
ses=
for _ in $(seq 1 600); do # at most 60 s for the readiness line
  ses=$(grep -o '"session_id":"ses_[0-9a-f]\{32\}"' "$work/ready.json" | head -n1 | cut -d'"' -f4 || true)
  [ -n "$ses" ] && break
  running "$session_pid" || fail "the session ended before its readiness line"
  sleep 0.1
done
[ -n "$ses" ] || fail "no readiness line within 60 s"
answer=$("$mur" send "$ses" "Review this patch") || fail "mur send $ses failed"
[ "$answer" = "Approved: the patch does what was asked." ] || fail "mur send $ses answered: $answer"
"$mur" stop "$ses" >/dev/null || fail "mur stop $ses failed" # exit 0: the session has ended
if running "$session_pid"; then fail "the session still runs after mur stop"; fi
wait "$session_pid" || true
session_pid=
echo "readme_test.sh: one capsule session by hand ok"
