#!/usr/bin/env bash
# Runs every test: the core's GoogleTest suites natively and as wasm under node,
# the official JSON Schema suite (beside ajv), the package's node tests against a
# real AG-UI server, and the browser tests in Debian's Chromium.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

npm_ci tests
npm_ci demo-page
build_native
build_wasm

say "core suites, native"
ctest --test-dir "$ROOT/build" --output-on-failure
say "core suites, wasm under node"
ctest --test-dir "$ROOT/build-wasm" --output-on-failure

say "node tests (the package against a real AG-UI server) and browser tests"
cd "$ROOT/tests"
suites=(node/)
[ -n "$(find browser -name '*.test.mjs' 2>/dev/null)" ] && suites+=(browser/)
node --test --test-concurrency=2 "${suites[@]}"
