#!/usr/bin/env bash
# The whole test suite on a fresh machine: install what is needed, configure, build, run
# every test with ctest. Exits non-zero on any failure; prints how long each phase took.
set -euo pipefail
cd "$(dirname "$0")/.."

phases=()
phase_start=$SECONDS
# Ends the phase named $1: its seconds are kept for the summary.
phase_done() {
  phases+=("$1 $((SECONDS - phase_start)) s")
  phase_start=$SECONDS
}
summary() {
  local code=$?
  if ((${#phases[@]})); then printf 'test.sh: %s\n' "${phases[@]}" "total $SECONDS s" >&2; fi
  return $code
}
trap summary EXIT

scripts/setup.sh
phase_done "setup (apt)"
BUILD_DIR=${MUR_BUILD_DIR:-build}
if command -v npm >/dev/null; then
  for dir in tests/interop tests/models tests/harness tests/conformance tests/browser tests/otel tests/tools examples/tools/capsules/coder; do
    (cd "$dir" && npm ci --no-audit --no-fund >/dev/null)
  done
fi
phase_done "npm ci"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${MUR_BUILD_TYPE:-Debug} >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
phase_done "build"
(cd "$BUILD_DIR" && ctest --output-on-failure -j"$(nproc)" --timeout 300)
phase_done "ctest"
# Every libFuzzer target for a short bound (docs/spec/choices.md §Hostile input); any crash
# fails the suite.
# MUR_FUZZ_SECONDS=0 leaves fuzzing out (local iteration only).
if [ "${MUR_FUZZ_SECONDS:-15}" != 0 ]; then
  scripts/fuzz.sh "${MUR_FUZZ_SECONDS:-15}"
  phase_done "fuzz (build and run)"
fi
