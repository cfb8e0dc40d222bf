// Bench section 5: module load + instantiate time (fresh child processes, and repeated instantiation in this one)
// and package size (.wasm + JS, raw and gzipped) beside @ag-ui/client bundled and minified with esbuild.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { median } from './common.mjs';
import { shippedJs } from './size-table.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../..');
const SHIM = path.join(ROOT, 'js-shim');
const TESTS = path.join(ROOT, 'tests');

const gz = (bytes) => zlib.gzipSync(bytes, { level: 9 }).length;
const br = (bytes) => zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

// ---------------------------------------------------------------- child: one fresh start, printed as JSON

async function child(which) {
  const t0 = performance.now();
  if (which === 'runtime') {
    const { createRuntime } = await import('agui-client-tools'); // as it ships: dist/node.js
    const t1 = performance.now();
    const runtime = await createRuntime({ url: 'http://bench.invalid/agent', fetch: async () => null });
    const t2 = performance.now();
    runtime.dispose();
    return { importMs: t1 - t0, readyMs: t2 - t1, totalMs: t2 - t0, processToReadyMs: t2 };
  }
  const { HttpAgent } = await import('@ag-ui/client');
  const t1 = performance.now();
  const agent = new HttpAgent({ url: 'http://bench.invalid/agent', fetch: async () => null });
  const t2 = performance.now();
  void agent;
  return { importMs: t1 - t0, readyMs: t2 - t1, totalMs: t2 - t0, processToReadyMs: t2 };
}

if (process.argv[2] === '--child') {
  console.log(JSON.stringify(await child(process.argv[3])));
  process.exit(0);
}

// ---------------------------------------------------------------- parent

function freshStarts(which, n) {
  const runs = [];
  for (let i = 0; i < n; i += 1) {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', which], {
      cwd: TESTS,
      encoding: 'utf8',
    });
    runs.push(JSON.parse(out.trim().split('\n').pop()));
  }
  const m = (k) => median(runs.map((r) => r[k]));
  return {
    n,
    importMs: m('importMs'),
    readyMs: m('readyMs'),
    totalMs: m('totalMs'),
    processToReadyMs: m('processToReadyMs'),
  };
}

/** createAguiCore({wasmBinary}) repeated in this process: compile + instantiate + embind setup, median. */
async function instantiateInProcess(n = 11) {
  const { default: createAguiCore } = await import('../../js-shim/dist/agui_core.mjs');
  const bytes = fs.readFileSync(path.join(SHIM, 'dist/agui_core.wasm'));
  const compile = [];
  const full = [];
  for (let i = 0; i < n; i += 1) {
    let t0 = performance.now();
    await WebAssembly.compile(bytes);
    compile.push(performance.now() - t0);
    t0 = performance.now();
    await createAguiCore({ wasmBinary: bytes });
    full.push(performance.now() - t0);
  }
  return { n, compileMs: median(compile), createAguiCoreMs: median(full) };
}

async function bundle(contents, resolveDir) {
  const result = await esbuild.build({
    stdin: { contents, resolveDir, loader: 'js' },
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0].contents;
  return { raw: bytes.length, gzip: gz(bytes), brotli: br(bytes) };
}

export async function sizes() {
  const measure = (f) => {
    const bytes = fs.readFileSync(path.join(SHIM, f));
    return { file: f, raw: bytes.length, gzip: gz(bytes), brotli: br(bytes) };
  };
  // What ships: the .wasm and dist/*.js (src/ minified, the glue bundled in; tests/bench/size-table.mjs).
  const perFile = ['dist/agui_core.wasm', ...shippedJs(SHIM).map((f) => path.relative(SHIM, f))].map(measure);
  const sum = (k, pred = () => true, files = perFile) => files.filter(pred).reduce((n, f) => n + f[k], 0);
  // The same JS as written, for comparison: src/*.js and Emscripten's glue (not shipped).
  const sources = fs
    .readdirSync(path.join(SHIM, 'src'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => `src/${f}`);
  const written = [...sources, 'dist/agui_core.mjs'].map(measure);
  const isWasm = (f) => f.file.endsWith('.wasm');
  const pkg = {
    files: perFile,
    wasm: { raw: sum('raw', isWasm), gzip: sum('gzip', isWasm), brotli: sum('brotli', isWasm) },
    js: {
      raw: sum('raw', (f) => !isWasm(f)),
      gzip: sum('gzip', (f) => !isWasm(f)),
      brotli: sum('brotli', (f) => !isWasm(f)),
    },
    total: { raw: sum('raw'), gzip: sum('gzip'), brotli: sum('brotli') },
    written: {
      raw: sum('raw', undefined, written),
      gzip: sum('gzip', undefined, written),
      brotli: sum('brotli', undefined, written),
    },
  };
  // What a page downloads: the shim bundled and minified (glue included) plus the .wasm.
  const ours = await bundle("export * from 'agui-client-tools';", TESTS);
  const reference = await bundle("export * from '@ag-ui/client';", TESTS);
  return {
    package: pkg,
    bundled: {
      js: ours,
      total: { raw: ours.raw + pkg.wasm.raw, gzip: ours.gzip + pkg.wasm.gzip, brotli: ours.brotli + pkg.wasm.brotli },
    },
    reference,
  };
}

export async function startupBench({ starts = 7 } = {}) {
  const runtime = freshStarts('runtime', starts);
  const reference = freshStarts('reference', starts);
  const inProcess = await instantiateInProcess();
  return { fresh: { runtime, reference }, inProcess, size: await sizes() };
}
