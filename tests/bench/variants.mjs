// Build-flag experiment behind the bench's fix proposals and issue 23's size steps (not part of run.mjs; builds take
// minutes): compiles the core + bindings with em++ into tests/out/variants/<name>/ with the flags CMakeLists.txt ships
// (-Oz -finline-functions -flto, the core's own libc++ templates, no exceptions, no RTTI, linked -Oz -flto with
// emmalloc, then wasm-opt -Oz once more) and variants that each change one thing (compile flags, link flags, or the
// wasm-opt run after the link), plus a
// --profiling-funcs copy for size attribution and named profiles; prints each module's size (.wasm and Emscripten's
// glue: raw, gzip -9, brotli 11) and times the core alone (raw Driver: feed + JSON.parse of each step and the changes
// it carries, as runtime.js does) on the 22k-event stream and on a tool round, interleaved, as ratios to shipped.
//   node tests/bench/variants.mjs [--build-only] [--reps=5] [--only=name,name] [--jobs=1]
// --only builds and times those variants and the shipped one (and shipped-names for the attribution); --jobs is how
// many em++ compile at once (1 by default: the machines are shared).
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
// NO_EXC: since issue 23 §1 the core and the bindings are built without exceptions (PUBLIC on agui_core): every
// failure is a value and nlohmann_json aborts where it would throw. The module's link has no exception flag, so
// Emscripten links libc++ and libc++abi without exceptions (DISABLE_EXCEPTION_CATCHING defaults to 1).
// NO_RTTI: since issue 23 §3 the wasm build has no RTTI either (PUBLIC on agui_core in wasm). embind then names types
// by the address of a static per type instead of typeid(), which it needs only to name a type that was never bound in
// an error message (EMSCRIPTEN_HAS_UNBOUND_TYPE_NAMES=0, on the bindings) and to find the dynamic type of a
// polymorphic bound class (we bind none: Registry and Driver have no virtual functions). The link takes -fno-rtti too:
// it picks the embind library built without RTTI (libembind.a; libembind-rtti.a otherwise), whose built-in types
// (std::string, val, ...) then carry the same type ids as the bindings' calls; without it every call is unbound.
// WASM_EH: native wasm exceptions, as the module shipped before §1 (the reference variant: today's sources, which
// throw nothing, with the exception runtime and every landing pad back; not what was shipped before §1, whose sources
// caught exceptions, but what the flags alone cost).
const OWN = '-D_LIBCPP_DISABLE_EXTERN_TEMPLATE';
const INLINE = '-finline-functions';
const NO_EXC = ['-fno-exceptions', '-DJSON_NOEXCEPTION'];
const NO_RTTI = ['-fno-rtti', '-DEMSCRIPTEN_HAS_UNBOUND_TYPE_NAMES=0'];
const WASM_EH = '-fwasm-exceptions';
// The shipped compile flags, and each object set as the shipped flags with one change.
const SHIPPED = ['-Oz', INLINE, '-flto', OWN, ...NO_EXC, ...NO_RTTI];
const without = (...flags) => SHIPPED.filter((f) => !flags.includes(f));
const level = (o) => SHIPPED.map((f) => (f === '-Oz' ? o : f));
const OBJECTS = {
  shipped: SHIPPED,
  shippedExtern: without(OWN),
  noInline: without(INLINE), // -Oz as 3.1.6 gives it
  os: level('-Os'), // -Os with inlining
  o2: level('-O2'), // -O2 inlines by itself; -finline-functions changes nothing there
  bulk: [...SHIPPED, '-mbulk-memory'],
  rtti: without(...NO_RTTI),
  // The compile flags before §1: exceptions and RTTI.
  beforeS1: ['-Oz', INLINE, '-flto', OWN, WASM_EH],
};
// The files a stream event passes through: the hotO2 variant takes their -O2 objects and the rest as shipped.
const STREAM_FILES = ['sse_parser', 'utf8', 'json_text', 'event_reducer', 'thread'];
// The shipped link flags (bindings/CMakeLists.txt; CMake puts MinSizeRel's -Os first and the target's -Oz wins).
const SHIPPED_LINK = ['-Oz', '-flto', '-sMALLOC=emmalloc', '-fno-rtti'];
const linkWith = (...flags) => [...SHIPPED_LINK, ...flags];
const linkLevel = (o) => SHIPPED_LINK.map((f) => (f === '-Oz' ? o : f));
// post: the wasm-opt run on the linked .wasm that the module's POST_BUILD step does (bindings/CMakeLists.txt):
// binaryen 108, the one Emscripten 3.1.6 runs, -Oz until it stops shrinking. The link strips the target_features
// section, so the run is told the features of Emscripten 3.1.6's default target (MVP and mutable globals; the module
// has no sign-extension, bulk-memory or saturating-truncation instruction), and introduces none a browser the module
// runs in today would lack.
const WASM_OPT_AGAIN = ['--mvp-features', '--enable-mutable-globals', '-Oz', '--converge'];
const shipped = (v) => ({ link: SHIPPED_LINK, post: WASM_OPT_AGAIN, ...v });
const VARIANTS = [
  shipped({ name: 'shipped', objects: 'shipped' }),
  // Names for size attribution (-g: wasm-opt keeps the name section only when told to).
  shipped({
    name: 'shipped-names',
    objects: 'shipped',
    link: linkWith('--profiling-funcs'),
    post: [...WASM_OPT_AGAIN, '-g'],
    untimed: true,
  }),
  shipped({ name: 'libcxx-extern', objects: 'shippedExtern' }),
  shipped({ name: 'Oz-no-inlining', objects: 'noInline' }),
  // The optimisation level, at compile and at link.
  shipped({ name: 'Os-inline', objects: 'os', link: linkLevel('-Os') }),
  shipped({ name: 'O2', objects: 'o2', link: linkLevel('-O2') }),
  shipped({ name: 'stream-files-O2', objects: 'hotO2' }),
  // -Oz at link time also picks Emscripten's size-optimised libc, whose memcpy copies a byte at a time; -Os does not.
  shipped({ name: 'linked-Os', objects: 'shipped', link: linkLevel('-Os') }),
  // memory.copy / memory.fill instructions for the core's own copies (needs Safari 15+, node 14+).
  shipped({
    name: 'bulk-memory',
    objects: 'bulk',
    link: linkWith('-mbulk-memory'),
    post: [...WASM_OPT_AGAIN, '--enable-bulk-memory'],
  }),
  // RTTI back, at compile and at link (as shipped before issue 23 §3).
  shipped({ name: 'rtti', objects: 'rtti', link: SHIPPED_LINK.filter((f) => f !== '-fno-rtti') }),
  // No wasm-opt run after the link (as shipped before issue 23 §3).
  shipped({ name: 'no-wasm-opt-after', objects: 'shipped', post: null }),
  // Instead of it, the link's own wasm-opt run until it stops shrinking (-sBINARYEN_EXTRA_PASSES=-Oz,--converge
  // gives the same bytes).
  shipped({
    name: 'binaryen-converge',
    objects: 'shipped',
    link: linkWith('-sBINARYEN_EXTRA_PASSES=--converge'),
    post: null,
  }),
  // The link told -fno-exceptions too: DISABLE_EXCEPTION_THROWING=1 besides the default DISABLE_EXCEPTION_CATCHING=1.
  shipped({ name: 'linked-no-exceptions', objects: 'shipped', link: linkWith('-fno-exceptions') }),
  // No setjmp/longjmp support (nothing in the module calls setjmp).
  shipped({ name: 'no-longjmp', objects: 'shipped', link: linkWith('-sSUPPORT_LONGJMP=0') }),
  // wasm-ctor-eval runs the static constructors at build time and writes their results into the data.
  shipped({ name: 'eval-ctors', objects: 'shipped', link: linkWith('-sEVAL_CTORS=1') }),
  // errno kept out of the JS glue (3.1.6: effective only with Closure, which Debian's Emscripten lacks).
  shipped({ name: 'no-errno', objects: 'shipped', link: linkWith('-sSUPPORT_ERRNO=0') }),
  // Not here (2026-12-07, docs/size.md): -fno-threadsafe-statics, which em++ 3.1.6 passes to clang already (the same
  // bytes); -sBINARYEN_IGNORE_IMPLICIT_TRAPS=1 (the optimiser may treat loads, stores and divisions as pure), 371 bytes
  // less and a module whose feed traps, "memory access out of bounds".
  // Reference: the flags before issue 23 §1 (native wasm exceptions, RTTI, no wasm-opt after the link), on today's
  // sources.
  { name: 'before-s1-wasm-exceptions', objects: 'beforeS1', link: ['-Oz', '-flto', '-sMALLOC=emmalloc', WASM_EH] },
];

// The wasm build's sources: the core as CMakeLists.txt lists it, the host's RegExp lent as its regex engine, and the
// bindings.
const sources = () => [...coreSources({ wasm: true }), path.join(ROOT, 'bindings', 'agui_bindings.cpp')];

const newest = (files) => Math.max(...files.map((f) => fs.statSync(f).mtimeMs));

async function pool(jobs, width = 1) {
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

// The variants asked for (--only, with shipped and shipped-names), or all of them.
function chosen() {
  const only = process.argv
    .find((a) => a.startsWith('--only='))
    ?.slice(7)
    .split(',');
  if (!only) return VARIANTS;
  const unknown = only.filter((n) => !VARIANTS.some((v) => v.name === n));
  if (unknown.length) throw new Error(`no such variant: ${unknown.join(', ')}`);
  return VARIANTS.filter((v, i) => i < 2 || only.includes(v.name));
}

// The link's inputs as CMake gives them (bindings/CMakeLists.txt): the bindings' object, then the core and the regex
// host as static libraries, the core twice. Archives, not the objects themselves: the linker takes archive members in
// the order it needs them, which orders the module's functions, so only this links the shipped .wasm byte for byte.
async function linkInputs(set, objs) {
  // Named by the objects they hold (whose folders are named by their flags): an archive is never reused for others.
  const dir = path.join(
    OUT,
    `lib-${set}-${crypto.createHash('sha256').update(objs.join(' ')).digest('hex').slice(0, 8)}`,
  );
  fs.mkdirSync(dir, { recursive: true });
  const name = (o) => path.basename(o, '.o');
  const bindings = objs.find((o) => name(o) === 'agui_bindings');
  const regex = objs.filter((o) => name(o) === 'regexp_engine');
  const core = objs.filter((o) => o !== bindings && !regex.includes(o));
  const archive = async (file, members) => {
    if (fs.existsSync(file) && fs.statSync(file).mtimeMs >= newest(members)) return file;
    fs.rmSync(file, { force: true });
    await run('emar', ['qc', file, ...members], { env });
    await run('emranlib', [file], { env });
    return file;
  };
  const coreLib = await archive(path.join(dir, 'libagui_core.a'), core);
  const regexLib = await archive(path.join(dir, 'libagui_regex_host.a'), regex);
  return [bindings, coreLib, regexLib, coreLib];
}

async function build(variants) {
  const nlohmann = path.join(OUT, 'nlohmann-only');
  fs.mkdirSync(nlohmann, { recursive: true });
  if (!fs.existsSync(path.join(nlohmann, 'nlohmann')))
    fs.symlinkSync('/usr/include/nlohmann', path.join(nlohmann, 'nlohmann'));
  const srcs = sources();
  const headers = coreHeaders();
  const stamp = newest([...srcs, ...headers]);
  const objects = {};
  const jobs = [];
  const sets = new Set(variants.flatMap((v) => (v.objects === 'hotO2' ? ['o2', 'shipped'] : [v.objects])));
  for (const [set, flags] of Object.entries(OBJECTS)) {
    if (!sets.has(set)) continue;
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
  const width = Number(process.argv.find((a) => a.startsWith('--jobs='))?.slice(7) ?? 1);
  await pool(jobs, width);
  const isStreamFile = (obj) => STREAM_FILES.includes(path.basename(obj, '.o'));
  if (sets.has('o2'))
    objects.hotO2 = [...objects.o2.filter(isStreamFile), ...objects.shipped.filter((o) => !isStreamFile(o))];
  const linked = {};
  for (const v of variants) {
    const dir = path.join(OUT, v.name);
    const mjs = path.join(dir, 'agui_core.mjs');
    fs.mkdirSync(dir, { recursive: true });
    const objs = objects[v.objects];
    linked[v.objects] ??= await linkInputs(v.objects, objs);
    // The flags the folder was linked with, so a changed variant links again.
    const flagsFile = path.join(dir, 'flags.txt');
    const flags = JSON.stringify({
      link: v.link,
      post: v.post ?? null,
      inputs: linked[v.objects].map((f) => path.relative(OUT, f)),
    });
    if (
      fs.existsSync(mjs) &&
      fs.statSync(mjs).mtimeMs >= newest(objs) &&
      fs.existsSync(flagsFile) &&
      fs.readFileSync(flagsFile, 'utf8') === flags
    )
      continue;
    console.log(`linking ${v.name}...`);
    await run('em++', [...LINK, ...v.link, ...linked[v.objects], '-o', mjs], { env, maxBuffer: 1 << 24 });
    if (v.post) {
      const wasm = path.join(dir, 'agui_core.wasm');
      await run('wasm-opt', [...v.post, wasm, '-o', wasm], { maxBuffer: 1 << 24 });
    }
    fs.writeFileSync(flagsFile, flags);
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

// Raw, gzip -9 and brotli 11 bytes of a file, as the bench counts the package.
const sizes = (bytes) => ({
  raw: bytes.length,
  gzip: zlib.gzipSync(bytes, { level: 9 }).length,
  brotli: zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
});

async function compare(variants, reps) {
  const stream = makeStream(22000, 1);
  const loaded = [];
  for (const v of variants.filter((x) => !x.untimed)) {
    const dir = path.join(OUT, v.name);
    const { default: create } = await import(path.join(dir, 'agui_core.mjs'));
    const bytes = fs.readFileSync(path.join(dir, 'agui_core.wasm'));
    const core = await create({ wasmBinary: bytes });
    const registry = noopRegistry(core);
    const glue = fs.readFileSync(path.join(dir, 'agui_core.mjs'));
    loaded.push({ ...v, core, registry, bytes, glue, stream: [], round: [] });
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
  const rows = loaded.map((l) => ({
    name: l.name,
    wasm: sizes(l.bytes),
    glue: sizes(l.glue),
    stream22kMs: median(l.stream),
    streamEventsPerSec: (stream.counts.events / median(l.stream)) * 1000,
    roundUs: median(l.round),
  }));
  for (const r of rows) {
    r.streamSpeedupVsShipped = rows[0].stream22kMs / r.stream22kMs;
    r.roundSpeedupVsShipped = rows[0].roundUs / r.roundUs;
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const variants = chosen();
  await build(variants);
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
  const rows = await compare(variants, reps);
  // Bytes exactly, and each variant's difference from shipped, since the steps are a few hundred bytes.
  const n = (x) => x.toLocaleString('en-US');
  const d = (x, base) => (x === base ? '' : ` (${x > base ? '+' : '−'}${n(Math.abs(x - base))})`);
  const [s0] = rows;
  console.log(
    'sizes in bytes (.wasm, and the glue agui_core.mjs before the package minifies it), raw / gzip -9 / brotli 11:',
  );
  for (const r of rows) {
    console.log(
      `  ${r.name.padEnd(24)} wasm ${n(r.wasm.raw)}${d(r.wasm.raw, s0.wasm.raw)} / ${n(r.wasm.gzip)}${d(r.wasm.gzip, s0.wasm.gzip)} / ${n(r.wasm.brotli)}${d(r.wasm.brotli, s0.wasm.brotli)}  glue ${n(r.glue.raw)} / ${n(r.glue.gzip)}${d(r.glue.gzip, s0.glue.gzip)} / ${n(r.glue.brotli)}`,
    );
  }
  console.log('core alone (raw Driver, JSON.parse of every step with its changes), medians, interleaved:');
  for (const r of rows) {
    console.log(
      `  ${r.name.padEnd(24)} 22k stream ${r.stream22kMs.toFixed(0).padStart(5)} ms = ${Math.round(r.streamEventsPerSec).toLocaleString('en-US').padStart(7)} ev/s (${r.streamSpeedupVsShipped.toFixed(2)}x)  round ${r.roundUs.toFixed(1).padStart(5)} µs (${r.roundSpeedupVsShipped.toFixed(2)}x)`,
    );
  }
  fs.writeFileSync(
    path.join(ROOT, 'tests/out/variants.json'),
    `${JSON.stringify({ when: new Date().toISOString(), rows, size: { sections: size.sections, categories: size.categories } }, null, 1)}\n`,
  );
}
