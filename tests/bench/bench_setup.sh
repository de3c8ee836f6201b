# bench_setup.sh — sourced by the A2A benches: builds (unless SKIP_BUILD=1) the optimised `mur`
# and `bench_a2a_load` in BUILD_DIR (default <repo>/build-bench, RelWithDebInfo when new) and
# installs the @a2a-js/sdk reference server's packages from its lockfile. Sets: here, repo,
# build, jobs, ref_dir, capsule, mur (MUR_BIN, else BUILD_DIR/mur), load; defines start_server.
# shellcheck source=tests/bench/bench_build.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_build.sh"
ref_dir="$here/a2a_reference"
capsule="$here/a2a_capsule"

bench_build mur bench_a2a_load
mur="${MUR_BIN:-$build/mur}"
load="$build/bench_a2a_load"
[[ -x "$mur" && -x "$load" ]] || { echo "missing $mur or $load (build them, or unset SKIP_BUILD)" >&2; exit 1; }
[[ -d "$ref_dir/node_modules/@a2a-js/sdk" ]] || (cd "$ref_dir" && npm ci --silent --no-audit --no-fund)

# Starts a server whose first stdout line is JSON with "url"; sets $server_pid, $server_url.
# The line is read from the server's own stdout (no sleeps); the rest of its output is drained.
start_server() {
  local name="$1" fd line
  shift
  exec {fd}< <(exec "$@")
  server_pid=$!
  if ! IFS= read -r -t 60 -u "$fd" line; then
    echo "$name: no readiness line on stdout within 60 s" >&2
    exit 1
  fi
  cat <&"$fd" >/dev/null &
  exec {fd}<&-
  server_url="$(node -e 'process.stdout.write(JSON.parse(process.argv[1]).url)' "$line")"
  echo "$name: $server_url (pid $server_pid)"
}
