#!/usr/bin/env bash
# atom_spelling.sh — one spelling for atom values: `x_atom_v`, never `x_atom::value`.
#
# Rewrites every tracked C++ source of the repository in place. Idempotent: a second run changes
# nothing. Re-run it after merging a branch that still spells `x_atom::value`; every atom it can
# meet has a `_v` constant (the project's from the type-ID block in messages/vocabulary/message_types.hpp
# and tests/sim/sim_atoms.hpp, CAF's own from caf/type_id.hpp).
# Usage: scripts/dev/atom_spelling.sh [--check]   (--check: list offenders, exit 1 if any)
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"

pattern='\b([A-Za-z_][A-Za-z0-9_]*_atom)::value\b'
mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.h' | xargs -r grep -lE "$pattern" || true)

if [[ "${1:-}" == "--check" ]]; then
  if ((${#files[@]})); then
    grep -nE "$pattern" "${files[@]}"
    exit 1
  fi
  exit 0
fi

((${#files[@]})) || { echo "atom_spelling: nothing to change"; exit 0; }
sed -E -i "s/$pattern/\\1_v/g" "${files[@]}"
echo "atom_spelling: rewrote ${#files[@]} file(s)"
