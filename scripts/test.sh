#!/usr/bin/env bash
# The whole test suite on a fresh machine: install what is needed, configure, build, run
# every test with ctest. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
BUILD_DIR=${MUR_BUILD_DIR:-build}
if command -v npm >/dev/null; then
  (cd tests/interop && npm ci --no-audit --no-fund >/dev/null)
  (cd tests/models && npm ci --no-audit --no-fund >/dev/null)
  (cd tests/harness && npm ci --no-audit --no-fund >/dev/null)
  (cd tests/browser && npm ci --no-audit --no-fund >/dev/null)
fi
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${MUR_BUILD_TYPE:-Debug} >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
(cd "$BUILD_DIR" && ctest --output-on-failure -j"$(nproc)" --timeout 300)
# Every libFuzzer target for a short bound (docs/spec/decisions.md §Hostile input); any crash
# fails the suite.
# MUR_FUZZ_SECONDS=0 leaves fuzzing out (local iteration only).
if [ "${MUR_FUZZ_SECONDS:-15}" != 0 ]; then scripts/fuzz.sh "${MUR_FUZZ_SECONDS:-15}"; fi
