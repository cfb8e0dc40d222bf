#!/usr/bin/env bash
# The main job: builds the package's wasm module and the demo page, then starts
# the demo AG-UI agent (no API key, no network) and prints the URL to open.
# PORT=8787 by default; set AGUI_DEMO_OPENAI_BASE_URL, _API_KEY and _MODEL to
# use an OpenAI-compatible model instead of the built-in planner.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../tests/setup.sh"

build_wasm --target agui_core_module
npm_ci tests   # esbuild, for the package's JavaScript
build_js
npm_ci demo-page
say "building the page"
node "$ROOT/demo-page/build.mjs"
say "starting the demo agent"
exec node "$ROOT/demo-page/server/main.mjs"
