// npm's prepack hook: refuses to pack the package without the built WebAssembly
// core (dist/ is made by the CMake build, not by npm), and says how to build it.
import { existsSync } from 'node:fs';

const needed = ['dist/agui_core.mjs', 'dist/agui_core.wasm'];
const missing = needed.filter((file) => !existsSync(new URL(`../${file}`, import.meta.url)));
if (missing.length) {
  console.error(`agui-client-tools: cannot pack without the built WebAssembly core: ${missing.join(' and ')} missing.
Build it from the repository root (Emscripten 3.1.6 or later; NODE_PATH for Debian's acorn):
  export NODE_PATH=/usr/share/nodejs
  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=MinSizeRel && cmake --build build-wasm -j2
The build copies the module into js-shim/dist/; then run npm pack again.`);
  process.exit(1);
}
