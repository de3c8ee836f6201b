#!/usr/bin/env bash
# The main job on an example, offline: install the review formation's capsules into a
# temporary MURMUR_HOME and check its roster with `mur doctor`, then show what a refused
# roster looks like.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
BUILD_DIR=${MUR_BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${MUR_BUILD_TYPE:-Debug} >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target mur >/dev/null
MUR="$PWD/$BUILD_DIR/mur"

export MURMUR_HOME
MURMUR_HOME=$(mktemp -d)
trap 'rm -rf "$MURMUR_HOME"' EXIT

echo "== installing the review formation's capsules into $MURMUR_HOME"
for c in lead coder reviewer; do
  "$MUR" install -g "examples/review/capsules/$c"
done
echo
echo "== mur doctor examples/review"
"$MUR" doctor examples/review
echo
echo "== mur doctor examples/broken/calls-entry (a refused roster: exit 1)"
"$MUR" doctor examples/broken/calls-entry || echo "(exit $?)"
