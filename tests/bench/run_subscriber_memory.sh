#!/usr/bin/env bash
# run_subscriber_memory.sh — a member's memory under twenty SSE subscribers that never read
# while a fast model streams 8 MiB of answer (the bounded-door process test, run alone on a
# RelWithDebInfo build). Prints the member's RSS before and at its peak, from the test's own
# `bench:` line, for each of N runs. Numbers, not a test (the test itself only asserts a ceiling
# far above normal).
#
# Usage: tests/bench/run_subscriber_memory.sh [runs=3]
# Environment: BUILD_DIR (default <repo>/build-bench, configured RelWithDebInfo if new),
#   SKIP_BUILD=1, JOBS (build parallelism, default 2)
set -euo pipefail

runs="${1:-3}"
# shellcheck source=tests/bench/bench_build.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_build.sh"
bench_build mur mur_process_tests
for ((i = 1; i <= runs; i++)); do
  "$build/mur_process_tests" "door bounds: twenty subscribers that never read a fast model's stream are dropped, memory stays bounded" \
    | grep '^bench:' || { echo "run $i: the test failed" >&2; exit 1; }
done
