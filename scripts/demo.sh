#!/usr/bin/env bash
# The main job on an example, offline: install the review formation's capsules into a
# temporary MURMUR_HOME, check its roster with `mur doctor`, then launch it with one task —
# three member processes, the lead handing the coder its task and the coder asking the
# reviewer — and print the answer and the formation's trace.
# With MUR_BINARY set (as ctest's "readme: scripts/demo.sh" entry does), that binary is used and
# nothing is installed or built; the demo itself is the same.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${MUR_BINARY:-}" ]; then
  MUR=$MUR_BINARY
  case "$MUR" in /*) ;; *) MUR="$PWD/$MUR" ;; esac
else
  scripts/setup.sh
  BUILD_DIR=${MUR_BUILD_DIR:-build}
  case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$PWD/$BUILD_DIR" ;; esac
  # An existing build is reused (configured once; the build step is then an incremental no-op).
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${MUR_BUILD_TYPE:-Debug} >/dev/null
  fi
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target mur >/dev/null
  MUR="$BUILD_DIR/mur"
fi

export MURMUR_HOME
MURMUR_HOME=$(mktemp -d)
PROJECT=$(mktemp -d)
trap 'rm -rf "$MURMUR_HOME" "$PROJECT"' EXIT
# The entry member works in the project directory: a copy, so the source tree stays clean.
cp examples/review/roster.yaml "$PROJECT/"

echo "== installing the review formation's capsules into $MURMUR_HOME"
for c in lead coder reviewer; do
  "$MUR" install -g "examples/review/capsules/$c" >/dev/null
  echo "installed review-$c@1.0.0"
done
echo
echo "== mur doctor"
"$MUR" doctor "$PROJECT" | tail -n +3
echo
echo "== mur run --roster examples/review --task \"add a --dry-run flag\""
ANSWER=$("$MUR" run --roster "$PROJECT" --task "add a --dry-run flag" 2> "$PROJECT/launch.err")
cat "$PROJECT/launch.err"
echo
echo "answer: $ANSWER"
echo
# The launch names its formation on its first stderr line ("formation frm_…: starting …").
FRM=$(grep -o 'frm_[0-9a-f]*' "$PROJECT/launch.err" | head -n1)
echo "== mur trace show $FRM"
"$MUR" trace show "$FRM"
