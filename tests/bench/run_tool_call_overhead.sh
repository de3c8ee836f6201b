#!/usr/bin/env bash
# run_tool_call_overhead.sh — the time mur adds per call of a capsule's own tool
# (docs/tools.md, "How long a tool call takes"): bench_tool_call_overhead against the pinned
# reference everything server (tests/tools), straight over its pipes and through the member's
# tool hub, CALLS calls each. Numbers, not a test (no ctest entry, no threshold).
#
# Usage: tests/bench/run_tool_call_overhead.sh [calls=1000]
# Environment: BUILD_DIR (default <repo>/build-bench, configured RelWithDebInfo if new),
# SKIP_BUILD=1 (use the bench already built there), JOBS (build parallelism, default 2).
set -euo pipefail

calls="${1:-1000}"
# shellcheck source=tests/bench/bench_build.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_build.sh"

command -v node >/dev/null || { echo "node (>= 20) is needed" >&2; exit 1; }
server="$repo/tests/tools/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[[ -f "$server" ]] || { echo "missing $server: run npm ci in tests/tools" >&2; exit 1; }
bench_build bench_tool_call_overhead
"$build/bench_tool_call_overhead" "$server" "$calls"
