#!/usr/bin/env bash
# test_names.sh — fails when a Catch2 test name holds ';'. catch_discover_tests cuts a name at
# ';' (a CMake list separator), so such a test becomes ctest entries that match no test and run
# nothing, yet pass. Run by ctest ("hygiene: …") and by hand from the repository root.
set -euo pipefail
cd "$(dirname "$0")/../.."
if grep -nE 'TEST_CASE(_METHOD)?\(([A-Za-z_]+, *)?"[^"]*;' tests/*/*.cpp; then
  echo "test_names.sh: the test names above hold ';' — ctest would run none of them; use ',' instead" >&2
  exit 1
fi
