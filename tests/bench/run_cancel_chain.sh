#!/usr/bin/env bash
# run_cancel_chain.sh — how long a cancel takes to reach the bottom of a call chain
# (docs/cancel.md): a formation of N members in a line (m0, the entry, calls m1, … calls m<N-1>,
# which thinks for ten minutes), served; each round hands m0 a task with `mur send`, waits until
# the last member's task has started, then runs `mur cancel frm_…`, which returns once the whole
# chain has confirmed. Prints the median, p90 and max of: `mur cancel`'s wall time (the
# operator's wait, the process's start included), and from the traces the time from m0's
# task_cancel to the last member's task_end, and to m0's own (every confirmation back up). Numbers, not a test (no ctest entry, no threshold).
#
# Usage: tests/bench/run_cancel_chain.sh [rounds=20] [members=8]
# Environment: BUILD_DIR (default <repo>/build-bench, configured RelWithDebInfo if new),
#   SKIP_BUILD=1, MUR_BIN (the mur to measure), JOBS (build parallelism, default 2)
set -euo pipefail

rounds="${1:-20}"
members="${2:-8}"
# shellcheck source=tests/bench/bench_build.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_build.sh"
bench_mur

work="$(mktemp -d "${TMPDIR:-/tmp}/mur-cancel-bench.XXXXXX")"
launcher=""
cleanup() { [[ -n "$launcher" ]] && kill "$launcher" 2>/dev/null && wait "$launcher" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export MURMUR_HOME="$work/home"
mkdir -p "$work/project"
peer='lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep}
exports: {peer_tasks: {accept: true}}
capabilities: {network: {allow: [localhost]}}
network: {authentication: {scheme: bearer}}'
roster="$work/project/roster.yaml"
printf 'roster_version: 1\nmembers:\n' >"$roster"
for ((i = 0; i < members; ++i)); do
  dir="$work/capsules/chain-m$i"
  mkdir -p "$dir"
  if ((i + 1 < members)); then
    turns="    - call: {member: m$((i + 1)), task: \"{{task}}\"}
    - reply: \"{{answer.m$((i + 1))}}\""
  else
    turns="    - {think_ms: 600000, reply: late}"
  fi
  if ((i == 0)); then extra='capabilities: {network: {allow: [localhost]}}
network: {authentication: {scheme: bearer}}'; else extra="$peer"; fi
  printf 'name: chain-m%d\nversion: 1.0.0\ninference:\n  transport: script\n  turns:\n%s\n%s\n' "$i" "$turns" "$extra" >"$dir/murmur.yaml"
  "$mur" install -g "$dir" >/dev/null
  printf '  - {name: m%d, capsule: chain-m%d, version: 1.0.0%s}\n' "$i" "$i" "$([[ $i == 0 ]] && echo ', entry: true')" >>"$roster"
done
printf 'reachability:\n' >>"$roster"
for ((i = 0; i + 1 < members; ++i)); do printf '  - {from: m%d, to: [m%d]}\n' "$i" "$((i + 1))" >>"$roster"; done

"$mur" run --roster "$work/project" --json >"$work/run.out" 2>"$work/run.err" &
launcher=$!
for _ in $(seq 1 600); do grep -q '"url"' "$work/run.out" 2>/dev/null && [[ $(wc -l <"$work/run.out") -ge 2 ]] && break; sleep 0.05; done
frm=$(head -1 "$work/run.out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["formation_id"])')
last_trace() { ls "$MURMUR_HOME/formations/$frm/m$((members - 1))/.murmur/"ses_*/trace.jsonl 2>/dev/null | head -1; }

walls="$work/walls"
: >"$walls"
for ((r = 0; r < rounds; ++r)); do
  "$mur" send "$frm" "round $r" >/dev/null 2>&1 &
  sender=$!
  # The bottom member has started round r's task (one task_start per round); a trace reaches
  # its file at its next flush, so this is a wait for an event of another process, bounded.
  for _ in $(seq 1 1200); do
    t=$(last_trace)
    [[ -n "$t" ]] && [[ $(grep -c '"event_type":"task_start"' "$t") -gt $r ]] && break
    sleep 0.025
  done
  start=$(date +%s%N)
  "$mur" cancel "$frm" >/dev/null
  echo $(( ($(date +%s%N) - start) / 1000000 )) >>"$walls"
  wait "$sender" || true
done
kill "$launcher"; wait "$launcher" 2>/dev/null || true; launcher=""

python3 - "$work" "$frm" "$walls" "$members" <<'PY'
import glob, json, os, statistics, sys
work, frm, walls, members = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def events(pattern):
    out = []
    for f in glob.glob(pattern):
        out += [json.loads(l) for l in open(f) if l.strip()]
    return out
entry = events(os.path.join(work, "project", ".murmur", "ses_*", "trace.jsonl"))
last = events(os.path.join(work, "home", "formations", frm, f"m{members - 1}", ".murmur", "ses_*", "trace.jsonl"))
cancels = [e["timestamp"] for e in entry if e["event_type"] == "task_cancel"]
ends = [e["timestamp"] for e in last if e["event_type"] == "task_end" and e.get("state") == "canceled"]
reach = [b - a for a, b in zip(sorted(cancels), sorted(ends))]
entry_ends = [e["timestamp"] for e in entry if e["event_type"] == "task_end" and e.get("state") == "canceled"]
back = [b - a for a, b in zip(sorted(cancels), sorted(entry_ends))]
def row(name, xs):
    xs = sorted(xs)
    if not xs:
        print(f"{name:<44} none"); return
    p90 = xs[min(len(xs) - 1, int(len(xs) * 0.9))]
    print(f"{name:<44} n={len(xs):<4} median {statistics.median(xs):7.1f}  p90 {p90:7.1f}  max {xs[-1]:7.1f}")
print(f"cancel bench: a chain of {members} members (ms)")
row("mur cancel, until the chain confirmed", [int(l) for l in open(walls)])
row(f"m0's task_cancel → m{members - 1}'s task_end", reach)
row("m0's task_cancel → m0's task_end (all confirmed)", back)
PY
