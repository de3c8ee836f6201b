# bench_build.sh — sourced by the benches: sets here (tests/bench), repo, build (BUILD_DIR, default
# <repo>/build-bench) and jobs (JOBS, default 2); defines bench_build and bench_mur.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="${BUILD_DIR:-$repo/build-bench}"
jobs="${JOBS:-2}"

# Builds the targets named in $build (configured RelWithDebInfo when new), unless SKIP_BUILD=1.
bench_build() {
  [[ "${SKIP_BUILD:-0}" != 1 ]] || return 0
  [[ -f "$build/CMakeCache.txt" ]] || cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j"$jobs" --target "$@" >/dev/null
}

# Sets mur: MUR_BIN, else the mur of $build (built first unless SKIP_BUILD=1); exits when it is missing.
bench_mur() {
  [[ -n "${MUR_BIN:-}" ]] || bench_build mur
  mur="${MUR_BIN:-$build/mur}"
  [[ -x "$mur" ]] || { echo "missing $mur (build it, or unset SKIP_BUILD)" >&2; exit 1; }
}
