// Builds the demo page into dist/: esbuild bundles src/main.js (ESM, code-split so ECharts and
// Leaflet load only when a chart or map arrives), then copies the wasm core, Leaflet's CSS and the
// static files from public/. Offline and fast; `node build.mjs [outdir]`, or import buildPage().
import * as esbuild from 'esbuild';
import { cp, mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export const DEFAULT_OUTDIR = join(here, 'dist');

/**
 * @param {{outdir?: string, minify?: boolean, sourcemap?: boolean, logLevel?: string}} options
 * @returns {Promise<{outdir: string}>}
 */
export async function buildPage({
  outdir = DEFAULT_OUTDIR,
  minify = true,
  sourcemap = true,
  logLevel = 'warning',
} = {}) {
  outdir = resolve(outdir);
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  await esbuild.build({
    absWorkingDir: here,
    entryPoints: { main: join(here, 'src/main.js') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify,
    sourcemap: sourcemap ? 'linked' : false,
    chunkNames: 'chunks/[name]-[hash]',
    legalComments: 'linked',
    logLevel,
  });
  // The package resolves its .wasm with new URL(..., import.meta.url), which esbuild does not
  // ship: main.js passes new URL('./agui_core.wasm', import.meta.url), so it sits beside it.
  const wasm = require.resolve('agui-client-tools/agui_core.wasm');
  const leaflet = join(dirname(require.resolve('leaflet/package.json')), 'dist');
  await Promise.all([
    cp(wasm, join(outdir, 'agui_core.wasm')),
    cp(join(leaflet, 'leaflet.css'), join(outdir, 'vendor/leaflet/leaflet.css')),
    cp(join(leaflet, 'images'), join(outdir, 'vendor/leaflet/images'), { recursive: true }),
    cp(join(here, 'public'), outdir, { recursive: true }),
  ]);
  return { outdir };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  const { outdir } = await buildPage({ outdir: process.argv[2] ?? DEFAULT_OUTDIR });
  console.log(`built the demo page into ${outdir} in ${Date.now() - started} ms`);
}
