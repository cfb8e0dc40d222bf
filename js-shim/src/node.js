// The node entry (package.json "exports" condition "node"): the same API, with
// the .wasm read from disk, since Emscripten 3.1.6's web build fetches it and
// node's fetch does not read file URLs.
import { readFile } from 'node:fs/promises';
import { setBinaryLoader } from './core.js';

setBinaryLoader(() => readFile(new URL('../dist/agui_core.wasm', import.meta.url)));

export * from './index.js';
