#!/usr/bin/env bash
# run_door_growth.sh — does a door serve its 100,000th task as fast as its first? Blocking
# SendMessage (no returnImmediately: one request per task, answered when the echo task has
# ended) at 16 connections through one mur door for many tasks, then the same load on the
# @a2a-js/sdk reference server in the same run, both driven by bench_a2a_load (--send-only).
# Prints, per side: requests/s overall and of the first and last tenth of the run, p50/p99,
# the server's RSS before (ahead of the warm-up) and after; then the ratios mur/reference and
# last tenth/first tenth. Numbers, not a test (no ctest entry, no threshold); the targets they
# are read against: the last tenth within 10% of the first; mur's RSS after 100,000 tasks under
# 64 MiB with the default lifecycle.retain_tasks; mur ≥ 4× the reference's requests/s, p99 ≤ ¼
# of its.
#
# Prints the load average before each side (the box may be shared with other work).
#
# Usage: tests/bench/run_door_growth.sh [tasks=100000] [concurrency=16]
# Environment:
#   BUILD_DIR     build tree (default: <repo>/build-bench; configured RelWithDebInfo if new)
#   SKIP_BUILD=1  use the binaries already in BUILD_DIR
#   MUR_BIN       the mur binary to measure (default: BUILD_DIR/mur), e.g. an older build
#   WARMUP        warm-up tasks per side, not counted (default 500)
#   SIDES         which servers, in order (default "mur reference")
#   JOBS          build parallelism (default 2)
set -euo pipefail

tasks="${1:-100000}"
concurrency="${2:-16}"
warmup="${WARMUP:-500}"
sides="${SIDES:-mur reference}"
# shellcheck source=tests/bench/bench_setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_setup.sh"

home="$(mktemp -d "${TMPDIR:-/tmp}/mur-door-growth.XXXXXX")"
server_pid=""
stop_server() {
  local i
  [[ -n "$server_pid" ]] || return 0
  kill -TERM "$server_pid" 2>/dev/null || true
  for ((i = 0; i < 600; ++i)); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.05; done # bounded
  if kill -0 "$server_pid" 2>/dev/null; then
    echo "(server pid $server_pid had not ended 30 s after SIGTERM: killed)"
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}
trap 'stop_server; rm -rf "$home"' EXIT

results="$home/results.jsonl"
echo "load: bench_a2a_load --send-only, $tasks blocking SendMessage tasks (+$warmup warm-up) at concurrency" \
  "$concurrency, one server at a time, each started fresh; identical bodies (A2A 1.0 method names)"
for side in $sides; do
  echo
  # The box may be shared: the load before each side says how far its numbers can be trusted.
  echo "load average before $side: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [[ $side == mur ]]; then
    start_server "mur door (tests/bench/a2a_capsule, $mur)" \
      env MURMUR_HOME="$home" "$mur" run --manifest "$capsule" --json --workdir "$home"
  else
    start_server "@a2a-js/sdk $(node -p "require('$ref_dir/node_modules/@a2a-js/sdk/package.json').version") reference" \
      node "$ref_dir/reference_server.mjs"
  fi
  out="$("$load" --url "$server_url" --pairs "$tasks" --concurrency "$concurrency" --warmup "$warmup" \
    --label "$side" --send-only --rss-pid "$server_pid" --json)" || echo "($side: some requests failed; see the counts)"
  printf '%s\n' "$out" | sed '$d'
  printf '%s\n' "$out" | tail -n 1 >>"$results"
  stop_server
done

node - "$results" <<'JS'
const fs = require('fs');
const runs = fs.readFileSync(process.argv[2], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const mib = (k) => (k >= 0 ? (k / 1024).toFixed(1) + ' MiB' : 'n/a');
console.log('\n=== door growth summary ===');
console.log('side        tasks   req/s  first10%  last10%  last/first  p50 ms   p99 ms   RSS before -> after   failures');
for (const r of runs)
  console.log(`${r.label.padEnd(10)} ${String(r.requests).padStart(6)} ${f(r.requests_per_s, 0).padStart(7)} ` +
    `${f(r.first_tenth_rps, 0).padStart(9)} ${f(r.last_tenth_rps, 0).padStart(8)} ` +
    `${f(r.last_tenth_rps / r.first_tenth_rps).padStart(11)} ${f(r.p50_ms, 3).padStart(7)} ${f(r.p99_ms, 3).padStart(8)}   ` +
    `${mib(r.rss_before_kib)} -> ${mib(r.rss_after_kib)}   ${r.failures}`);
const m = runs.find((r) => r.label === 'mur'), ref = runs.find((r) => r.label === 'reference');
if (m && ref) {
  console.log(`ratio mur/reference requests/s          : ${f(m.requests_per_s / ref.requests_per_s)}  (target >= 4)`);
  console.log(`ratio mur/reference last-tenth requests/s: ${f(m.last_tenth_rps / ref.last_tenth_rps)}`);
  console.log(`ratio mur/reference p50                 : ${f(m.p50_ms / ref.p50_ms)}`);
  console.log(`ratio mur/reference p99                 : ${f(m.p99_ms / ref.p99_ms)}  (target <= 0.25)`);
}
if (m) {
  console.log(`mur last tenth / first tenth            : ${f(m.last_tenth_rps / m.first_tenth_rps)}  (target >= 0.90)`);
  console.log(`mur RSS after                           : ${mib(m.rss_after_kib)}  (target < 64 MiB)`);
}
JS
