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
APT_PACKAGES=(cmake g++ clang emscripten nlohmann-json3-dev googletest libgtest-dev
              json-schema-test-suite nodejs npm chromium libclang-rt-14-dev)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  say "installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
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
