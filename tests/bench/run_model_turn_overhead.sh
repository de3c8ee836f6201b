#!/usr/bin/env bash
# run_model_turn_overhead.sh — the time mur adds per model turn (docs/models.md, "How long mur
# takes between model turns"): one
# `transport: http` member (`mur run --manifest`, a public door) against the replay model
# server (tests/models/replay_server.mjs), whose scenario `two-requests` makes every task take
# two model requests (a tool call, answered at once by the runtime, then the text). N tasks,
# one after another; tests/bench/model_turn_driver.mjs reads the server's record of when each
# request arrived and when each response's last byte left (CLOCK_MONOTONIC) and prints, per
# model turn, the time from the server's last byte to mur's next request, and for the last turn
# to the task's answer: count, median, p90, max in ms. Target: median ≤ 1 ms. Numbers, not a
# test (no ctest entry, no threshold).
#
# Usage: tests/bench/run_model_turn_overhead.sh [tasks=500]
# Environment:
#   BUILD_DIR     build tree (default: <repo>/build-bench; configured RelWithDebInfo if new)
#   SKIP_BUILD=1  use the mur already in BUILD_DIR
#   MUR_BIN       the mur binary to measure (default: BUILD_DIR/mur), e.g. build/mur
#   WARMUP        warm-up tasks per mode, not counted (default 20)
#   MODES         which responses, in order (default "stream plain": SSE chunks, then one JSON body)
#   JOBS          build parallelism (default 2)
set -euo pipefail

tasks="${1:-500}"
warmup="${WARMUP:-20}"
modes="${MODES:-stream plain}"
# shellcheck source=tests/bench/bench_build.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_build.sh"

command -v node >/dev/null || { echo "node (>= 20) is needed" >&2; exit 1; }
bench_mur

work="$(mktemp -d "${TMPDIR:-/tmp}/mur-model-turns.XXXXXX")"
pids=()
stop_all() {
  local pid i
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 600; ++i)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done # bounded
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  pids=()
}
trap 'stop_all; rm -rf "$work"' EXIT

# Starts "$@" and reads its first stdout line (no sleeps); sets $line and $started_pid.
start() {
  local fd
  exec {fd}< <(exec "$@")
  started_pid=$!
  pids+=("$started_pid")
  if ! IFS= read -r -t 60 -u "$fd" line; then
    echo "$1: no first line on stdout within 60 s" >&2
    exit 1
  fi
  cat <&"$fd" >/dev/null &
  exec {fd}<&-
}

echo "mur: $mur"
echo "load: $tasks tasks (+$warmup warm-up) one after another, blocking SendMessage to one http member's door;"
echo "      replay scenario two-requests (a tool call answered at once, then the answer): 2 model requests per task"
for mode in $modes; do
  [[ $mode == stream || $mode == plain ]] || { echo "MODES: stream or plain, not '$mode'" >&2; exit 2; }
  echo
  start node "$repo/tests/models/replay_server.mjs" --port 0
  endpoint="$line"
  replay="${endpoint%/v1}"
  capsule="$work/capsule-$mode"
  mkdir -p "$capsule"
  cat >"$capsule/murmur.yaml" <<EOF
name: bench-model-turns
version: 1.0.0
inference:
  transport: http
  endpoint: $endpoint
  model: two-requests
  stream: $([[ $mode == stream ]] && echo true || echo false)
lifecycle: {task_acceptance: queue, queue_depth: 1, after_task: sleep, retain_tasks: {max: 100, max_age: 1h}}
EOF
  mkdir -p "$work/home-$mode" "$work/run-$mode"
  start env MURMUR_HOME="$work/home-$mode" "$mur" run --manifest "$capsule" --json --workdir "$work/run-$mode"
  door="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).url)' "$line")"
  echo "replay server $endpoint, mur door $door ($mode responses)"
  node "$here/model_turn_driver.mjs" --door "$door" --replay "$replay" --tasks "$tasks" --warmup "$warmup" --label "$mode"
  stop_all
done
