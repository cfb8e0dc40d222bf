// npm's prepack hook: refuses to pack the package without what dist/ must hold
// (the WebAssembly core, made by the CMake build; the minified JavaScript, made
// by scripts/build-js.mjs from src/), or with JavaScript older than src/.
import { existsSync } from 'node:fs';

const needed = ['dist/agui_core.mjs', 'dist/agui_core.wasm'];
const missing = needed.filter((file) => !existsSync(new URL(`../${file}`, import.meta.url)));
if (missing.length) {
  console.error(`agui-client-tools: cannot pack without the built WebAssembly core: ${missing.join(' and ')} missing.
Build it from the repository root (Emscripten 3.1.6 or later; NODE_PATH for Debian's acorn):
  export NODE_PATH=/usr/share/nodejs
  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=MinSizeRel && cmake --build build-wasm -j2
  node js-shim/scripts/build-js.mjs
The build copies the module into js-shim/dist/; then run npm pack again.`);
  process.exit(1);
}
const { staleFiles } = await import('./build-js.mjs');
const stale = await staleFiles();
if (stale.length) {
  console.error(`agui-client-tools: cannot pack: dist/ is not what src/ builds to (${stale.join(', ')}).
Build it from the repository root: node js-shim/scripts/build-js.mjs`);
  process.exit(1);
}
