#!/usr/bin/env bash
# run_delegation.sh — what a delegation costs (docs/delegation.md): examples/delegation run N times, each
# a fresh formation whose entry, in one turn, calls a member and delegates to a sub-capsule that
# mur starts as a child process. From each run's traces: the member call's duration, the
# delegation's duration (the child's start, its task and its answer), the child's start alone
# (the delegation made → the child holding its task: posix_spawn, the grant, the door), and the
# whole `mur run --roster` wall time. Prints count, median, p90 and max in ms. Numbers, not a
# test (no ctest entry, no threshold).
#
# Usage: tests/bench/run_delegation.sh [runs=30]
# Environment: BUILD_DIR (default <repo>/build-bench, configured RelWithDebInfo if new),
#   SKIP_BUILD=1, MUR_BIN (the mur to measure), JOBS (build parallelism, default 2)
set -euo pipefail

runs="${1:-30}"
# shellcheck source=tests/bench/bench_build.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_build.sh"
bench_mur

work="$(mktemp -d "${TMPDIR:-/tmp}/mur-delegation-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export MURMUR_HOME="$work/home"
for c in planner researcher summarizer; do "$mur" install -g "$repo/examples/delegation/capsules/$c" >/dev/null; done
cp -r "$repo/examples/delegation" "$work/project"

walls="$work/walls"
: >"$walls"
for ((i = 0; i < runs; ++i)); do
  start=$(date +%s%N)
  "$mur" run --roster "$work/project" --task "run $i" >/dev/null 2>&1
  echo $(( ($(date +%s%N) - start) / 1000000 )) >>"$walls"
done

python3 - "$work/project/.murmur" "$walls" "$runs" <<'PY'
import glob, json, os, statistics, sys
root, walls, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
calls, dlgs, starts = [], [], []
for f in glob.glob(os.path.join(root, "ses_*", "trace.jsonl")):
    made = {}
    for line in open(f):
        e = json.loads(line)
        t = e["event_type"]
        if t == "delegation":
            dlgs.append(e["duration_ms"])
            made[e["call_id"]] = e["timestamp"] - e.get("since_call_ms", e["duration_ms"])
        elif t == "member_call":
            calls.append(e["duration_ms"])
        elif t == "delegation_start":
            made.setdefault(e["call_id"] + "#start", e["timestamp"])
    for k, v in list(made.items()):
        if not k.endswith("#start") and k + "#start" in made:
            starts.append(made[k + "#start"] - v)
def row(name, xs):
    xs = sorted(xs)
    if not xs:
        print(f"{name:<34} none"); return
    p90 = xs[min(len(xs) - 1, int(len(xs) * 0.9))]
    print(f"{name:<34} n={len(xs):<4} median {statistics.median(xs):7.1f}  p90 {p90:7.1f}  max {xs[-1]:7.1f}")
print(f"delegation bench: {runs} formations of examples/delegation (ms)")
row("member call (planner → researcher)", calls)
row("delegation (start, task, answer)", dlgs)
row("  of which the child's start", starts)
row("mur run --roster, wall", [int(x) for x in open(walls)])
PY
