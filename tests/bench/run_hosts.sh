#!/usr/bin/env bash
# run_hosts.sh — a formation across machines against the same formation on one (docs/hosts.md):
# network namespaces this script makes (a launcher's and two hosts', joined by one bridge), a
# `mur host` agent in each host's. For 3 and 12 members (the entry on the launcher's machine, the
# workers alternately on the two hosts, or all local): the time to ready (launch to the entry's
# readiness line, median of `rounds`), then, served, 20 call-member hops (lead → w1 across hosts,
# TLS included: the lead's member_call duration_ms), and the teardown after SIGKILL of the
# launcher (until every member's pid is gone, remote ones included). Prints each pair and the
# ratio. Numbers, not a test (no ctest entry, no threshold). Needs root and `ip` (iproute2).
#
# Usage: tests/bench/run_hosts.sh [rounds=3]
# Environment: BUILD_DIR (default <repo>/build-bench, configured RelWithDebInfo if new),
#   SKIP_BUILD=1, MUR_BIN (the mur to measure), JOBS (build parallelism, default 2)
set -euo pipefail

rounds="${1:-3}"
# shellcheck source=tests/bench/bench_build.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_build.sh"
bench_mur
mur="$(readlink -f "$mur")"
if [[ $EUID -ne 0 ]] || ! command -v ip >/dev/null; then
  echo "run_hosts.sh: needs root and ip (iproute2) to make network namespaces" >&2
  exit 2
fi

tag="b$$"
net="10.232.$(($$ % 250))"
work="$(mktemp -d "${TMPDIR:-/tmp}/mur-hosts-bench.XXXXXX")"
agents=()
cleanup() {
  for p in "${agents[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for i in 0 1 2; do ip netns del "m$i$tag" 2>/dev/null || true; done
  ip netns del "br$tag" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

ip netns add "br$tag"
ip -n "br$tag" link add br0 type bridge
ip -n "br$tag" link set br0 up
for i in 0 1 2; do
  ns="m$i$tag"
  ip netns add "$ns"
  ip link add "v$i$tag" type veth peer name "p$i$tag"
  ip link set "v$i$tag" netns "$ns"
  ip link set "p$i$tag" netns "br$tag"
  ip -n "br$tag" link set "p$i$tag" master br0
  ip -n "br$tag" link set "p$i$tag" up
  ip -n "$ns" addr add "$net.$((i + 1))/24" dev "v$i$tag"
  ip -n "$ns" link set "v$i$tag" up
  ip -n "$ns" link set lo up
done
in_ns() { local i="$1"; shift; ip netns exec "m$i$tag" "$@"; }

# Capsules: an entry that hands "call …" to w1, a worker that answers at once.
mkdir -p "$work/capsules/entry" "$work/capsules/worker" "$work/project"
cat >"$work/capsules/entry/murmur.yaml" <<'YAML'
name: bench-entry
version: 1.0.0
inference:
  transport: script
  routes:
    - match: "^call"
      turns:
        - call: {member: w1, task: "{{task}}"}
        - reply: "{{answer.w1}}"
  turns:
    - reply: ok
lifecycle: {task_acceptance: queue, queue_depth: 4, after_task: sleep}
capabilities: {network: {allow: [localhost]}}
network: {authentication: {scheme: bearer}}
YAML
cat >"$work/capsules/worker/murmur.yaml" <<'YAML'
name: bench-worker
version: 1.0.0
inference:
  transport: script
  turns:
    - reply: done
lifecycle: {task_acceptance: queue, queue_depth: 4, after_task: sleep}
exports: {peer_tasks: {accept: true}}
network: {authentication: {scheme: bearer}}
YAML
export MURMUR_HOME="$work/launcher"
"$mur" install -g "$work/capsules/entry" >/dev/null
"$mur" install -g "$work/capsules/worker" >/dev/null
# roster MEMBERS SPREAD(0|1)
roster() {
  local n="$1" spread="$2" r
  r="roster_version: 1
hosts:
  gpu1: {address: '$net.2:7420', key: gpu1.pem}
  gpu2: {address: '$net.3:7420', key: gpu2.pem}
members:
  - {name: lead, capsule: bench-entry, version: 1.0.0, entry: true}
"
  for ((w = 1; w < n; ++w)); do
    if ((spread)); then r+="  - {name: w$w, capsule: bench-worker, version: 1.0.0, host: gpu$((2 - w % 2))}
"
    else r+="  - {name: w$w, capsule: bench-worker, version: 1.0.0}
"; fi
  done
  r+="reachability:
  - {from: lead, to: [w1]}
"
  printf '%s' "$r" >"$work/project/roster.yaml"
}

# This launcher's identity: mur doctor makes it on a roster with hosts (they cannot be reached yet).
for i in 1 2; do MURMUR_HOME="$work/host$i" "$mur" host --certificate >"$work/project/gpu$i.pem"; done
roster 3 1
in_ns 0 "$mur" doctor "$work/project" >/dev/null 2>&1 || true
for i in 1 2; do
  MURMUR_HOME="$work/host$i" "$mur" install -g "$work/capsules/worker" >/dev/null
  MURMUR_HOME="$work/host$i" in_ns "$i" "$mur" host --listen "$net.$((i + 1)):7420" \
    --trust "$work/launcher/launcher/identity.crt" --name "gpu$i" >"$work/host$i.out" 2>"$work/host$i.err" &
  agents+=($!)
done
for i in 1 2; do
  for _ in $(seq 100); do grep -q listening "$work/host$i.out" 2>/dev/null && break; sleep 0.05; done
done

now_ms() { date +%s%3N; }
median() { sort -n | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]; else print "-"}'; }

# One served launch: sets ready_ms, launcher pid, pids (every member's) and frm.
serve() {
  local t0
  t0=$(now_ms)
  # exec: the coproc's pid is the launcher's own (`ip netns exec` execs it in turn)
  coproc LAUNCH { exec ip netns exec "m0$tag" "$mur" run --roster "$work/project" --json 2>/dev/null; }
  launcher_pid=$LAUNCH_PID
  read -r formation_line <&"${LAUNCH[0]}"
  read -r entry_line <&"${LAUNCH[0]}"
  ready_ms=$(($(now_ms) - t0))
  frm=$(printf '%s' "$formation_line" | sed -n 's/.*"formation_id":"\([^"]*\)".*/\1/p')
  pids=$(printf '%s\n%s' "$formation_line" "$entry_line" | grep -o '"pid":[0-9]*' | cut -d: -f2 | tr '\n' ' ')
}

# Whether pid runs (a zombie waiting for its reaper counts as gone: it runs nothing any more).
running() { [[ -r /proc/$1/stat ]] && [[ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]]; }

# SIGKILL the launcher; how long until every member pid is gone.
teardown() {
  local t0 left
  t0=$(now_ms)
  kill -9 "$launcher_pid" 2>/dev/null || true
  for _ in $(seq 2000); do
    left=0
    for p in $pids; do running "$p" && left=1; done
    ((left)) || break
    sleep 0.005
  done
  wait "$launcher_pid" 2>/dev/null || true
  teardown_ms=$(($(now_ms) - t0))
}

printf '%-9s %-7s %12s %12s %14s\n' members where "ready (ms)" "hop (ms)" "teardown (ms)"
for n in 3 12; do
  for spread in 0 1; do
    roster "$n" "$spread"
    readies=() teardowns=()
    for ((r = 0; r < rounds; ++r)); do
      serve
      readies+=("$ready_ms")
      if ((r == 0)); then
        for i in $(seq 20); do in_ns 0 "$mur" send "$frm" "call $i" >/dev/null; done
      fi
      teardown
      teardowns+=("$teardown_ms")
    done
    hop=$(cat "$work/project/.murmur"/*/trace.jsonl 2>/dev/null | grep '"event_type":"member_call"' |
      grep -o '"duration_ms":[0-9.]*' | cut -d: -f2 | median)
    rm -rf "$work/project/.murmur"
    where="local"
    if ((spread)); then where="3 hosts"; fi
    ready=$(printf '%s\n' "${readies[@]}" | median)
    down=$(printf '%s\n' "${teardowns[@]}" | median)
    printf '%-9s %-7s %12s %12s %14s\n' "$n" "$where" "$ready" "$hop" "$down"
    eval "ready_${n}_${spread}=$ready hop_${n}_${spread}=$hop down_${n}_${spread}=$down"
  done
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
for n in 3 12; do
  eval "echo \"$n members, 3 hosts / local: ready \$(ratio \$ready_${n}_1 \$ready_${n}_0)×, hop \$(ratio \$hop_${n}_1 \$hop_${n}_0)×, teardown \$(ratio \$down_${n}_1 \$down_${n}_0)×\""
done
