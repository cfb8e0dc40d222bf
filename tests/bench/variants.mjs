// Build-flag experiment behind the bench's fix proposals (not part of run.mjs; builds take minutes): compiles the
// core + bindings with em++ into tests/out/variants/<name>/ (-Oz -finline-functions -flto as shipped, the same
// without -finline-functions as Emscripten 3.1.6 gives -Oz and -Os, -Os with inlining, -O2 -flto, the shipped flags
// with exception handling compiled out, linked -Os, with bulk memory, -O2 for the stream's files only, and a
// --profiling-funcs copy for size attribution and named profiles), then times the core alone (raw Driver: feed +
// JSON.parse of each step and the changes it carries, as runtime.js does) on the 22k-event stream and on a tool round, interleaved.
//   node tests/bench/variants.mjs [--build-only] [--reps=5]
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { makeStream } from './generate.mjs';
import { coreHeaders, coreSources, median, noopRegistry, nowArgs, scriptedRun } from './common.mjs';
import { sizeTable } from './size-table.mjs';
import { feedBytes, heapText } from '../../js-shim/src/core.js';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../..');
const OUT = path.join(ROOT, 'tests/out/variants');
const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };

const LINK = [
  '--bind',
  '-sMODULARIZE=1',
  '-sEXPORT_ES6=1',
  '-sEXPORT_NAME=createAguiCore',
  '-sENVIRONMENT=web,worker',
  '-sALLOW_MEMORY_GROWTH=1',
  '-sINITIAL_MEMORY=1MB',
  '-sFILESYSTEM=0',
  '-sDYNAMIC_EXECUTION=0',
  '-sTOTAL_STACK=256KB',
  '-sINCOMING_MODULE_JS_API=[wasmBinary,locateFile,instantiateWasm,print,printErr]',
  '-sTEXTDECODER=2',
];
// OWN: the core instantiates libc++'s templates itself, as CMakeLists.txt builds it (the prebuilt libc++.a in
// Debian's frozen cache has them unoptimised); 'shippedExtern' is the shipped flags without that.
// INLINE: Emscripten 3.1.6 adds -fno-inline-functions for -Os and -Oz (LLVM inlines nothing); the shipped flags undo it.
// EH: native wasm exceptions, as shipped. NO_EH (-fignore-exceptions) compiles every try/catch and unwind path out:
// a throw then aborts the module, so that variant is not shippable; it measures what an exception-free core would
// save (the stream and round paths throw nothing, so it can be timed).
const OWN = '-D_LIBCPP_DISABLE_EXTERN_TEMPLATE';
const INLINE = '-finline-functions';
const EH = '-fwasm-exceptions';
const NO_EH = '-fignore-exceptions';
const OBJECTS = {
  shipped: ['-Oz', INLINE, '-flto', OWN, EH],
  shippedExtern: ['-Oz', INLINE, '-flto', EH],
  oz: ['-Oz', '-flto', OWN, EH],
  os: ['-Os', '-flto', OWN, EH],
  osInline: ['-Os', INLINE, '-flto', OWN, EH],
  o2lto: ['-O2', '-flto', OWN, EH],
  noEh: ['-Oz', INLINE, '-flto', OWN, NO_EH],
  bulk: ['-Oz', INLINE, '-flto', OWN, EH, '-mbulk-memory'],
};
// The files a stream event passes through: the hotO2 variant takes their -O2 objects and the rest as shipped.
const STREAM_FILES = ['sse_parser', 'utf8', 'json_text', 'event_reducer', 'thread'];
const VARIANTS = [
  { name: 'shipped-Oz-inline-lto', objects: 'shipped', link: ['-Oz', '-flto', '-sMALLOC=emmalloc', EH] },
  { name: 'shipped-names', objects: 'shipped', link: ['-Oz', '-flto', '-sMALLOC=emmalloc', EH, '--profiling-funcs'] },
  { name: 'shipped-libcxx-extern', objects: 'shippedExtern', link: ['-Oz', '-flto', '-sMALLOC=emmalloc', EH] },
  { name: 'Oz-lto-no-inlining', objects: 'oz', link: ['-Oz', '-flto', '-sMALLOC=emmalloc', EH] },
  { name: 'Os-lto-no-inlining', objects: 'os', link: ['-Os', '-flto', '-sMALLOC=emmalloc', EH] },
  { name: 'Os-inline-lto', objects: 'osInline', link: ['-Os', '-flto', '-sMALLOC=emmalloc', EH] },
  { name: 'O2-lto', objects: 'o2lto', link: ['-O2', '-flto', '-sMALLOC=emmalloc', EH] },
  { name: 'shipped-no-exceptions', objects: 'noEh', link: ['-Oz', '-flto', '-sMALLOC=emmalloc', NO_EH] },
  // -Oz at link time also picks Emscripten's size-optimised libc, whose memcpy copies a byte at a time; -Os does not.
  { name: 'shipped-linked-Os', objects: 'shipped', link: ['-Os', '-flto', '-sMALLOC=emmalloc', EH] },
  // memory.copy / memory.fill instructions for the core's own copies (needs Safari 15+, node 14+).
  { name: 'shipped-bulk-memory', objects: 'bulk', link: ['-Oz', '-flto', '-sMALLOC=emmalloc', EH, '-mbulk-memory'] },
  { name: 'stream-files-O2', objects: 'hotO2', link: ['-Oz', '-flto', '-sMALLOC=emmalloc', EH] },
];

// The wasm build's sources: the core as CMakeLists.txt lists it, the host's RegExp lent as its regex engine, and the
// bindings.
const sources = () => [...coreSources({ wasm: true }), path.join(ROOT, 'bindings', 'agui_bindings.cpp')];

const newest = (files) => Math.max(...files.map((f) => fs.statSync(f).mtimeMs));

async function pool(jobs, width = 2) {
  const queue = [...jobs];
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (queue.length) await queue.shift()();
    }),
  );
}

// Objects live in a folder named by their set and flags, so changing a set's flags rebuilds it.
const objDir = (set) =>
  path.join(OUT, `obj-${set}-${crypto.createHash('sha256').update(OBJECTS[set].join(' ')).digest('hex').slice(0, 8)}`);

async function build() {
  const nlohmann = path.join(OUT, 'nlohmann-only');
  fs.mkdirSync(nlohmann, { recursive: true });
  if (!fs.existsSync(path.join(nlohmann, 'nlohmann')))
    fs.symlinkSync('/usr/include/nlohmann', path.join(nlohmann, 'nlohmann'));
  const srcs = sources();
  const headers = coreHeaders();
  const stamp = newest([...srcs, ...headers]);
  const objects = {};
  const jobs = [];
  for (const [set, flags] of Object.entries(OBJECTS)) {
    const dir = objDir(set);
    fs.mkdirSync(dir, { recursive: true });
    objects[set] = srcs.map((src) => {
      const obj = path.join(dir, `${path.basename(src, '.cpp')}.o`);
      if (!fs.existsSync(obj) || fs.statSync(obj).mtimeMs < stamp) {
        jobs.push(() =>
          run(
            'em++',
            [
              '-std=c++20',
              '-DNDEBUG',
              ...flags,
              `-I${path.join(ROOT, 'wasm')}`,
              '-isystem',
              nlohmann,
              '-c',
              src,
              '-o',
              obj,
            ],
            { env },
          ),
        );
      }
      return obj;
    });
  }
  if (jobs.length) console.log(`compiling ${jobs.length} objects...`);
  await pool(jobs);
  const isStreamFile = (obj) => STREAM_FILES.includes(path.basename(obj, '.o'));
  objects.hotO2 = [...objects.o2lto.filter(isStreamFile), ...objects.shipped.filter((o) => !isStreamFile(o))];
  for (const v of VARIANTS) {
    const dir = path.join(OUT, v.name);
    const mjs = path.join(dir, 'agui_core.mjs');
    fs.mkdirSync(dir, { recursive: true });
    const objs = objects[v.objects];
    if (fs.existsSync(mjs) && fs.statSync(mjs).mtimeMs >= newest(objs)) continue;
    console.log(`linking ${v.name}...`);
    await run('em++', [...LINK, ...v.link, ...objs, '-o', mjs], { env, maxBuffer: 1 << 24 });
  }
}

// ---------------------------------------------------------------- the core alone

export function coreStream(core, stream) {
  const registry = new core.Registry();
  const driver = new core.Driver(registry, 'bench-thread');
  let changes = 0;
  const t0 = performance.now();
  JSON.parse(driver.open(JSON.stringify({ options: {} }), ...nowArgs(core)));
  const step = JSON.parse(driver.send(JSON.stringify('Summarise the permits.')));
  changes += step.changes?.length ?? 0;
  const runId = step.run.runId;
  const [head, tail] = stream.frame('bench-thread', runId);
  for (const bytes of [head, ...stream.chunks, tail]) {
    changes += feedBytes(driver, runId, bytes).changes?.length ?? 0;
  }
  const done = JSON.parse(driver.endOfStream(runId, ...nowArgs(core)));
  changes += done.changes?.length ?? 0;
  const ms = performance.now() - t0;
  driver.delete();
  registry.delete();
  if (!done.done) throw new Error(`variant turn did not end: ${JSON.stringify(done)}`);
  return { ms, changes };
}

// A tool round as runtime.js drives it; returns µs from endOfStream (RUN_FINISHED seen) to the follow-up request body taken.
export function coreRound(core, registry, n) {
  const driver = new core.Driver(registry, 'bench-thread');
  JSON.parse(driver.open(JSON.stringify({ options: { repeatLimit: 0 } }), ...nowArgs(core)));
  let step = JSON.parse(driver.send(JSON.stringify('go')));
  const runId = step.run.runId;
  feedBytes(driver, runId, scriptedRun('bench-thread', runId, { calls: 1, args: () => ({ i: n }) }));
  const t0 = performance.now();
  step = JSON.parse(driver.endOfStream(runId, ...nowArgs(core)));
  step = JSON.parse(driver.submitResult(step.execute[0].toolCallId, JSON.stringify('ok')));
  const request = step.run ? heapText(driver.runInput()) : '';
  const us = (performance.now() - t0) * 1000;
  if (!request) throw new Error('no follow-up run');
  driver.delete();
  return us;
}

async function compare(reps) {
  const stream = makeStream(22000, 1);
  const loaded = [];
  for (const v of VARIANTS) {
    const dir = path.join(OUT, v.name);
    const { default: create } = await import(path.join(dir, 'agui_core.mjs'));
    const bytes = fs.readFileSync(path.join(dir, 'agui_core.wasm'));
    const core = await create({ wasmBinary: bytes });
    const registry = noopRegistry(core);
    loaded.push({ ...v, core, registry, bytes, stream: [], round: [] });
  }
  // Warm up (tier-up), then interleave.
  for (const l of loaded) for (let i = 0; i < 3; i += 1) coreStream(l.core, stream);
  for (const l of loaded) for (let i = 0; i < 300; i += 1) coreRound(l.core, l.registry, i);
  for (let r = 0; r < reps; r += 1) {
    for (const l of loaded) {
      l.stream.push(coreStream(l.core, stream).ms);
      const rounds = [];
      for (let i = 0; i < 200; i += 1) rounds.push(coreRound(l.core, l.registry, i));
      l.round.push(median(rounds));
    }
  }
  const base = loaded[0];
  const rows = loaded.map((l) => ({
    name: l.name,
    wasmBytes: l.bytes.length,
    wasmGzip: zlib.gzipSync(l.bytes, { level: 9 }).length,
    stream22kMs: median(l.stream),
    streamEventsPerSec: (stream.counts.events / median(l.stream)) * 1000,
    roundUs: median(l.round),
  }));
  for (const r of rows) {
    r.streamSpeedupVsShipped = rows[0].stream22kMs / r.stream22kMs;
    r.roundSpeedupVsShipped = rows[0].roundUs / r.roundUs;
  }
  void base;
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await build();
  const names = path.join(OUT, 'shipped-names/agui_core.wasm');
  const size = sizeTable({ file: names, withPackage: false });
  console.log(
    `size attribution (${path.relative(ROOT, names)}, code section ${(size.codeBytes / 1024).toFixed(1)} KB, data ${(size.dataBytes / 1024).toFixed(1)} KB):`,
  );
  for (const g of size.groups)
    console.log(
      `  ${(g.bytes / 1024).toFixed(1).padStart(7)} KB ${(100 * g.share).toFixed(1).padStart(5)}%  ${g.group}`,
    );
  if (process.argv.includes('--build-only')) process.exit(0);
  const reps = Number(process.argv.find((a) => a.startsWith('--reps='))?.slice(7) ?? 5);
  const rows = await compare(reps);
  console.log('core alone (raw Driver, JSON.parse of every step with its changes), medians, interleaved:');
  for (const r of rows) {
    console.log(
      `  ${r.name.padEnd(26)} wasm ${(r.wasmBytes / 1024).toFixed(0).padStart(4)} KB (${(r.wasmGzip / 1024).toFixed(0)} KB gz)  22k stream ${r.stream22kMs.toFixed(0).padStart(5)} ms = ${Math.round(r.streamEventsPerSec).toLocaleString('en-US').padStart(7)} ev/s (${r.streamSpeedupVsShipped.toFixed(2)}x)  round ${r.roundUs.toFixed(0).padStart(4)} µs (${r.roundSpeedupVsShipped.toFixed(2)}x)`,
    );
  }
  fs.writeFileSync(
    path.join(ROOT, 'tests/out/variants.json'),
    `${JSON.stringify({ when: new Date().toISOString(), rows, size: { sections: size.sections, categories: size.categories } }, null, 1)}\n`,
  );
}
