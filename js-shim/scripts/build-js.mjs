// Builds the JavaScript the package ships from the readable src/: each entry
// point of package.json's "exports" bundled and minified by esbuild into dist/
// as ES modules. The entries share chunks, so a page that imports both the API
// and the React adapter holds one copy of each module (one AguiError class, one
// loaded core). Emscripten's glue (dist/agui_core.mjs, written by the CMake
// build, only whitespace-minified) is bundled and minified with them; the .wasm
// stays beside the chunks, where new URL(..., import.meta.url) finds it. The
// source maps are linked and carry src/'s text, so a debugger shows the code
// as written. Run after the wasm build (tests/setup.sh's build_js).
//
//   node js-shim/scripts/build-js.mjs           # writes dist/*.js and dist/*.js.map, removes stale ones
//   node js-shim/scripts/build-js.mjs --check   # exits 1 when dist/ is not what src/ builds to
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// esbuild is the repository's dev dependency (tests/package.json: the bench and
// the package test bundle with it too); the package itself depends on nothing.
const esbuild = createRequire(new URL('../../tests/package.json', import.meta.url))('esbuild');

export const ENTRIES = ['index', 'node', 'react', 'react-node'];
const SHIM = fileURLToPath(new URL('..', import.meta.url));
const shipped = (name) => /\.js(\.map)?$/.test(name); // not the glue (.mjs) nor the .wasm

/** The built files, { 'dist/name': Buffer }, of the package in `shim`; nothing is written. */
export async function build(shim = SHIM) {
  const result = await esbuild.build({
    absWorkingDir: shim,
    entryPoints: ENTRIES.map((name) => `src/${name}.js`),
    outdir: 'dist',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'neutral',
    external: ['react', 'node:*'],
    // src/ is built as written: package.json's "sideEffects" describes dist/, and
    // src/react-node.js's bare import of node.js (which sets the node loader) must stay.
    ignoreAnnotations: true,
    minify: true,
    // No keepNames: no message or check reads a function's name (AguiError sets its
    // .name itself), and it would cost 2.4 KB gzipped; stack traces map back through the maps.
    sourcemap: 'linked',
    sourcesContent: true,
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
  });
  return Object.fromEntries(
    result.outputFiles.map((f) => [path.relative(shim, f.path).split(path.sep).join('/'), Buffer.from(f.contents)]),
  );
}

/** What differs between dist/ and a fresh build: files missing, changed, or left over from an older build. */
export async function staleFiles(shim = SHIM) {
  const fresh = await build(shim);
  const dist = path.join(shim, 'dist');
  const onDisk = fs.existsSync(dist) ? fs.readdirSync(dist).filter(shipped) : [];
  const stale = Object.entries(fresh)
    .filter(
      ([file, bytes]) => !fs.existsSync(path.join(shim, file)) || !bytes.equals(fs.readFileSync(path.join(shim, file))),
    )
    .map(([file]) => file);
  return [...stale, ...onDisk.map((f) => `dist/${f}`).filter((file) => !(file in fresh))];
}

async function main() {
  if (process.argv[2] === '--check') {
    const stale = await staleFiles();
    if (stale.length) {
      console.error(
        `js-shim/dist is not what src/ builds to (${stale.join(', ')}): run node js-shim/scripts/build-js.mjs`,
      );
      process.exit(1);
    }
    return;
  }
  const fresh = await build();
  const dist = path.join(SHIM, 'dist');
  fs.mkdirSync(dist, { recursive: true });
  for (const f of fs.readdirSync(dist).filter(shipped)) fs.rmSync(path.join(dist, f));
  for (const [file, bytes] of Object.entries(fresh)) fs.writeFileSync(path.join(SHIM, file), bytes);
  console.log(
    `js-shim/dist: ${Object.keys(fresh)
      .filter((f) => f.endsWith('.js'))
      .join(', ')} (minified, with source maps)`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
