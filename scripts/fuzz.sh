#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with Debian's clang under ASan + UBSan (its own
# build directory, build-fuzz) and runs each for SECONDS (default 60) from its committed seed
# corpus tests/fuzz/corpus/<target>. Exits non-zero when a target finds a crash, a leak, a
# sanitizer report or a hang; the input that did it is kept in build-fuzz/fuzz-artifacts/.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET…]
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET=${1:-60}
shift || true
BUILD_DIR=${MUR_FUZZ_BUILD_DIR:-build-fuzz}
CLANG=${MUR_CLANG:-}
if [ -z "$CLANG" ]; then
  for c in clang++-16 clang++-14 clang++; do
    if command -v "$c" >/dev/null; then CLANG=$c; break; fi
  done
fi
[ -n "$CLANG" ] || { echo "fuzz: no clang++ (scripts/setup.sh installs clang and libfuzzer)" >&2; exit 2; }
CC=${CLANG/clang++/clang}

targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in tests/fuzz/*_fuzz.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi

started=$(date +%s)
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMUR_FUZZ=ON \
  -DCMAKE_CXX_COMPILER="$CLANG" -DCMAKE_C_COMPILER="$CC" >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target "${targets[@]}"
echo "fuzz: built ${#targets[@]} targets in $(($(date +%s) - started)) s" >&2

artifacts="$BUILD_DIR/fuzz-artifacts"
mkdir -p "$artifacts"
failed=0
for t in "${targets[@]}"; do
  seeds="tests/fuzz/corpus/$t"
  work="$BUILD_DIR/fuzz-corpus/$t" # what a run learns stays out of the committed seeds
  mkdir -p "$work" "$seeds"
  log="$BUILD_DIR/fuzz-$t.log"
  set +e
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
    "$BUILD_DIR/$t" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
    -max_len=262144 -print_final_stats=1 -artifact_prefix="$artifacts/$t-" "$work" "$seeds" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  if ((rc != 0)); then
    failed=1
    echo "fuzz: $t FAILED (exit $rc) after ${execs:-?} executions; log $log" >&2
    grep -m20 -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" >&2 || true
  else
    echo "fuzz: $t ok: ${execs:-?} executions in ${SECONDS_PER_TARGET} s" >&2
  fi
done
echo "fuzz: done in $(($(date +%s) - started)) s" >&2
exit $failed
