#!/usr/bin/env bash
# Runs every test: the formatting check (tests/format.sh), the core's
# GoogleTest suites natively and as wasm under node, the official JSON Schema
# suite (beside ajv), the package's node tests against a real AG-UI server,
# CopilotKit's runtime and a LangGraph server, the browser tests in Debian's
# Chromium (and the demo agent's), the core suites again under AddressSanitizer
# and UndefinedBehaviorSanitizer, and a short run of each libFuzzer target
# (AGUI_FUZZ_SECONDS, default 45 per target).
#
#   tests/run.sh           # everything (what CI runs)
#   tests/run.sh --quick   # for iteration: the core natively and the node tests
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

if [ "${1:-}" = --quick ]; then
  npm_ci tests
  npm_ci tests/third-party/copilotkit
  npm_ci tests/third-party/langgraph
  npm_ci tests/third-party/genui
  build_native
  build_wasm --target agui_core_module   # the package's module only, not the wasm suites
  build_js
  say "core suites, native"
  "$ROOT/build/tests/agui_core_tests" --gtest_brief=1
  say "node tests (the package against a real AG-UI server, CopilotKit's runtime and LangGraph)"
  cd "$ROOT/tests"
  node --test --test-concurrency=2 node/
  say "quick run passed: the wasm suites, browser tests, sanitizers and fuzzers were not run"
  exit 0
fi
[ $# -eq 0 ] || { echo "usage: tests/run.sh [--quick]" >&2; exit 2; }

npm_ci tests
say "formatting: prettier on the JavaScript, clang-format on the C++"
"$ROOT/tests/format.sh"
npm_ci tests/third-party/copilotkit   # CopilotKit's runtime, for tests/node/copilotkit.test.mjs
npm_ci tests/third-party/langgraph     # LangGraph's API server and @ag-ui/langgraph, for tests/node/langgraph.test.mjs
npm_ci tests/third-party/genui        # the A2UI and MCP Apps middlewares, for tests/node/generative-ui.test.mjs
npm_ci demo-page
npm_ci demo-page/react-app
build_native
build_wasm
build_js

# Runs a suite, shows its output, and prints its "[  PASSED  ] N tests." line.
# (Not `tee /dev/stderr`: when stderr is a file, opening it again truncates it.)
passed() {
  local out
  out=$("$@" 2>&1) || { printf '%s\n' "$out" >&2; return 1; }
  printf '%s\n' "$out" >&2
  grep -E '^\[  PASSED  \]' <<<"$out"
}

# The same GoogleTest suites, natively and as wasm under node: each must pass,
# and both must report the same count.
say "core suites, native"
native=$(passed "$ROOT/build/tests/agui_core_tests" --gtest_brief=1)
say "core suites, wasm under node"
wasm=$(passed node --no-experimental-fetch "$ROOT/build-wasm/tests/agui_core_tests.js" --gtest_brief=1)
if [ "$native" != "$wasm" ]; then
  echo "native and wasm suites disagree: native '$native', wasm '$wasm'" >&2
  exit 1
fi
echo "native and wasm agree: $native"

say "the official JSON Schema suite, ours beside ajv"
npm_ci tests/schema
node "$ROOT/tests/schema/ajv-compare.mjs" "$ROOT/build/tests/agui_core_tests"

say "node tests (the package against a real AG-UI server), browser tests and the demo agent's tests"
cd "$ROOT/tests"
suites=(node/)
[ -n "$(find browser -name '*.test.mjs' 2>/dev/null)" ] && suites+=(browser/)
node --test --test-concurrency=2 "${suites[@]}"

say "core suites under AddressSanitizer + UndefinedBehaviorSanitizer (g++)"
asan=$(passed "$ROOT/tests/sanitize.sh")
if [ "$asan" != "$native" ]; then
  echo "the sanitized suites disagree with the native ones: '$asan', native '$native'" >&2
  exit 1
fi

say "fuzzing: each libFuzzer target for ${AGUI_FUZZ_SECONDS:-45} s from the committed corpus"
"$ROOT/tests/fuzz/run.sh"
