#!/usr/bin/env bash
# test_names.sh — fails when a Catch2 test name holds ';' or '['. catch_discover_tests cuts a
# name at ';' (a CMake list separator), so such a test becomes ctest entries that match no test
# and run nothing, yet pass; and ctest hands the name to Catch as a filter, where '[…]' reads as
# a tag, so a name holding one matches no test and fails. Run by ctest ("hygiene: …") and by
# hand from the repository root.
set -euo pipefail
cd "$(dirname "$0")/../.."
if grep -nE 'TEST_CASE(_METHOD)?\(([A-Za-z_]+, *)?"[^"]*;' tests/*/*.cpp; then
  echo "test_names.sh: the test names above hold ';' — ctest would run none of them; use ',' instead" >&2
  exit 1
fi
if grep -nE 'TEST_CASE(_METHOD)?\(([A-Za-z_]+, *)?"[^"]*\[' tests/*/*.cpp; then
  echo "test_names.sh: the test names above hold '[' — Catch would read it as a tag and match none; say it in words" >&2
  exit 1
fi
