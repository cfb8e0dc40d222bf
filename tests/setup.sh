#!/usr/bin/env bash
# Installs what the build, the tests and the demo need when it is missing, then
# builds the core natively and to WebAssembly. Sourced by tests/run.sh and
# demo-page/run.sh; safe to run again (each step is skipped when done).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export NODE_PATH=/usr/share/nodejs   # em++'s link step needs Debian's acorn
JOBS="${JOBS:-$(nproc)}"

say() { printf '\n== %s\n' "$*"; }

# --- apt packages -------------------------------------------------------------
# Each entry: the Debian package, and what shows it is there (a command or a
# file). node and npm are only installed from Debian when no node is present:
# a machine may have them from elsewhere (Debian's npm would conflict).
NEEDS=(
  "cmake:cmd:cmake" "g++:cmd:g++" "clang:cmd:clang++" "clang-format:cmd:clang-format" "emscripten:cmd:em++"
  "nlohmann-json3-dev:file:/usr/include/nlohmann/json.hpp"
  "googletest:file:/usr/src/googletest/CMakeLists.txt"
  "json-schema-test-suite:file:/usr/share/json-schema-test-suite/tests/draft7"
  "nodejs:cmd:node" "npm:cmd:npm" "chromium:file:/usr/bin/chromium"
  "libclang-rt-14-dev:file:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a"
)
missing=()
for need in "${NEEDS[@]}"; do
  IFS=: read -r pkg kind what <<<"$need"
  if [ "$kind" = cmd ]; then command -v "$what" >/dev/null 2>&1 || missing+=("$pkg")
  else [ -e "$what" ] || missing+=("$pkg"); fi
done
if ((${#missing[@]})); then
  say "installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 18 ]; then
  echo "node $node_major is too old: the package needs node 18+ (better-sqlite3 12 in the demo needs 20)" >&2
  exit 1
fi

# --- npm packages (from the committed lockfiles) --------------------------------
npm_ci() {  # folder: install when node_modules is missing or older than the lockfile
  local dir="$ROOT/$1"
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    say "npm ci in $1"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

# --- builds ----------------------------------------------------------------------
build_native() {
  say "native build (GoogleTest suites)"
  cmake -S "$ROOT" -B "$ROOT/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAGUI_BUILD_TESTS=ON >/dev/null
  cmake --build "$ROOT/build" -j"$JOBS"
}

build_wasm() {
  say "wasm build (the npm package's module, and the suites under node)"
  emcmake cmake -S "$ROOT" -B "$ROOT/build-wasm" -DCMAKE_BUILD_TYPE=MinSizeRel -DAGUI_BUILD_TESTS=ON >/dev/null
  cmake --build "$ROOT/build-wasm" -j"$JOBS" "$@"
}

build_js() {  # after build_wasm (it bundles the glue) and npm_ci tests (esbuild)
  say "the package's JavaScript: src/ minified into js-shim/dist/, with source maps"
  node "$ROOT/js-shim/scripts/build-js.mjs"
}
