#!/usr/bin/env bash
# run_a2a_side_by_side.sh — a mur door next to the @a2a-js/sdk 1.3 express reference server
# (docs/spec/a2a.md §Reference client and server), both loaded by the same tool (bench_a2a_load,
# libcurl multi) with the same
# SendMessage + GetTask pairs, then the ratios mur/reference of requests/s and of p99 latency.
# A bench that prints numbers, not a test (no ctest entry, no pass/fail threshold).
#
# Usage: tests/bench/run_a2a_side_by_side.sh [pairs=2000] [concurrency=16]
# Environment:
#   BUILD_DIR     build tree (default: <repo>/build-bench; configured Release if new)
#   SKIP_BUILD=1  use the binaries already in BUILD_DIR
#   ROUNDS        rounds, each loading mur then the reference (default 3); ratios use medians
#   WARMUP        warm-up pairs per run, not counted (default 200)
#   JOBS          build parallelism (default 2)
set -euo pipefail

pairs="${1:-2000}"
concurrency="${2:-16}"
rounds="${ROUNDS:-3}"
warmup="${WARMUP:-200}"
# shellcheck source=tests/bench/bench_setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_setup.sh"

home="$(mktemp -d "${TMPDIR:-/tmp}/mur-a2a-bench.XXXXXX")"
mur_pid="" ref_pid="" server_pid=""
stop() {
  local pid i
  for pid in $mur_pid $ref_pid $server_pid; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in $mur_pid $ref_pid $server_pid; do
    wait "$pid" 2>/dev/null || true
    for ((i = 0; i < 200; ++i)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done # shutdown, bounded
  done
  rm -rf "$home"
}
trap stop EXIT

start_server "mur door (tests/bench/a2a_capsule)" \
  env MURMUR_HOME="$home" "$mur" run --manifest "$capsule" --json --workdir "$home"
mur_pid=$server_pid mur_url=$server_url
start_server "@a2a-js/sdk $(node -p "require('$ref_dir/node_modules/@a2a-js/sdk/package.json').version") reference" \
  node "$ref_dir/reference_server.mjs"
ref_pid=$server_pid ref_url=$server_url

# Both servers speak the A2A 1.0 method names (the SDK 1.3 JSON-RPC handler answers 0.3's
# message/send with -32601), so both get the very same bodies: SendMessage {message: text "hi"},
# then GetTask {id}, each with A2A-Version: 1.0.
# Two variants, both servers each time:
#   default      SendMessage without configuration: both block (spec default
#                returnImmediately=false) until the echo task is COMPLETED.
#   immediate    configuration.returnImmediately: true — both answer right after creating the
#                task: the same semantics on both sides. The headline ratio.
echo "load: bench_a2a_load, $pairs SendMessage+GetTask pairs (+$warmup warm-up) at concurrency $concurrency," \
  "$rounds round(s); identical JSON-RPC bodies (A2A 1.0 method names) to both servers"
for variant in default immediate; do
  flags=()
  [[ $variant == immediate ]] && flags=(--return-immediately)
  results="$home/results-$variant.jsonl"
  echo
  echo "##### variant: $variant"
  for ((r = 1; r <= rounds; ++r)); do
    for side in mur reference; do
      url=$mur_url
      [[ $side == reference ]] && url=$ref_url
      echo "--- round $r: $side"
      out="$("$load" --url "$url" --pairs "$pairs" --concurrency "$concurrency" --warmup "$warmup" \
        --label "$side" --json "${flags[@]}")" || echo "($side: some requests failed; see the counts below)"
      printf '%s\n' "$out" | sed '$d'
      printf '%s\n' "$out" | tail -n 1 >>"$results"
    done
  done
done

for variant in default immediate; do
node - "$home/results-$variant.jsonl" "$variant" <<'EOF'
const fs = require('fs');
const runs = fs.readFileSync(process.argv[2], 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const side = (name) => {
  const rs = runs.filter((r) => r.label === name);
  return { rps: median(rs.map((r) => r.requests_per_s)), p50: median(rs.map((r) => r.p50_ms)),
           p99: median(rs.map((r) => r.p99_ms)), failures: rs.reduce((n, r) => n + r.failures, 0), n: rs.length };
};
const m = side('mur'), ref = side('reference');
const f = (x, d = 2) => x.toFixed(d);
console.log(`\n=== summary, variant ${process.argv[3]} (median of ${m.n} run(s) each) ===`);
console.log(`mur door   : ${f(m.rps, 0).padStart(7)} requests/s  p50 ${f(m.p50, 3)} ms  p99 ${f(m.p99, 3)} ms  failures ${m.failures}`);
console.log(`reference  : ${f(ref.rps, 0).padStart(7)} requests/s  p50 ${f(ref.p50, 3)} ms  p99 ${f(ref.p99, 3)} ms  failures ${ref.failures}`);
console.log(`ratio mur/reference requests/s: ${f(m.rps / ref.rps)}   (> 1: mur serves more)`);
console.log(`ratio mur/reference p99       : ${f(m.p99 / ref.p99)}   (< 1: mur's tail is shorter)`);
EOF
done
