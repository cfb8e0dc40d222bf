#!/usr/bin/env bash
# Checks the formatting of our code: the JavaScript with prettier (the pinned
# one in tests/node_modules, settings in .prettierrc.json) and the C++ with
# clang-format (.clang-format). Fails on the first file that differs.
#
#   tests/format.sh          # check only (tests/run.sh runs this)
#   tests/format.sh --write  # rewrite the files in place
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

JS=('js-shim/src/**/*.js' 'js-shim/scripts/**/*.mjs' 'tests/**/*.mjs' 'demo-page/**/*.js' 'demo-page/**/*.mjs')
mapfile -t CXX < <(find wasm bindings tests/native tests/fuzz tests/bench \( -name '*.cpp' -o -name '*.hpp' \) | sort)
PRETTIER="$ROOT/tests/node_modules/.bin/prettier"
[ -x "$PRETTIER" ] || { echo "prettier is missing: npm ci in tests/" >&2; exit 2; }

if [ "${1:-}" = --write ]; then
  "$PRETTIER" --log-level warn --write "${JS[@]}"
  clang-format -i "${CXX[@]}"
  exit 0
fi
[ $# -eq 0 ] || { echo "usage: tests/format.sh [--write]" >&2; exit 2; }
fix() { echo "formatting differs: tests/format.sh --write rewrites the files" >&2; exit 1; }
"$PRETTIER" --log-level warn --check "${JS[@]}" || fix
clang-format --dry-run --Werror "${CXX[@]}" || fix
echo "formatted: ${#CXX[@]} C++ files (clang-format), the JavaScript (prettier)"
