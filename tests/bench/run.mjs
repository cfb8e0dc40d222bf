// The bench command (`node tests/bench/run.mjs [--quick]`, not part of the test command): every figure as a ratio to
// a peer measured side by side in this process run, medians of several runs; writes tests/out/bench.json.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
// Restart with --expose-gc, so each timed sample starts from a collected heap.
if (typeof globalThis.gc !== 'function') {
  const r = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, self, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}

const { streamBench } = await import('./stream.mjs');
const { roundBench, dispatchBench, manyCallsBench, printManyCalls } = await import('./rounds.mjs');
const { viewBench, printView } = await import('./view.mjs');
const { validationBench, loadSchemaSet } = await import('./validation.mjs');
const { startupBench } = await import('./startup.mjs');
const { memoryBench } = await import('./memory.mjs');
const { fmtInt, fmtNum, fmtKB, pad, lpad } = await import('./common.mjs');

const here = path.dirname(self);
const ROOT = path.resolve(here, '../..');
const OUT = path.join(ROOT, 'tests/out');
const quick = process.argv.includes('--quick');
const started = performance.now();
const print = (line = '') => console.log(line);

// ---------------------------------------------------------------- which module is this?

function moduleInfo() {
  const dist = path.join(ROOT, 'js-shim/dist/agui_core.wasm');
  const bytes = fs.readFileSync(dist);
  const hash = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  let build = 'unknown: not the output of build-wasm/ (the temporary stub -O1 module?)';
  const cache = path.join(ROOT, 'build-wasm/CMakeCache.txt');
  const built = path.join(ROOT, 'build-wasm/bindings/agui_core.wasm');
  if (fs.existsSync(cache) && fs.existsSync(built)) {
    const type = /CMAKE_BUILD_TYPE:STRING=(.*)/.exec(fs.readFileSync(cache, 'utf8'))?.[1] ?? '?';
    const same = crypto.createHash('sha256').update(fs.readFileSync(built)).digest('hex').slice(0, 12) === hash;
    if (same) build = `build-wasm/ ${type}`;
  }
  return {
    file: 'js-shim/dist/agui_core.wasm',
    bytes: bytes.length,
    sha256: hash,
    build,
    mtime: fs.statSync(dist).mtime.toISOString(),
  };
}

// ---------------------------------------------------------------- targets

const targets = [];
function target(name, value, op, bound, unit = '') {
  const pass = op === '>=' ? value >= bound : op === '<=' ? value <= bound : value < bound;
  let margin;
  if (!Number.isFinite(value)) margin = 'not measured';
  else if (op === '>=')
    margin = `${fmtNum(value, 2)}${unit} vs >= ${bound}${unit}: ${pass ? `${fmtNum((value / bound - 1) * 100, 0)}% above` : `${fmtNum((1 - value / bound) * 100, 0)}% short (needs ${fmtNum(bound / value, 2)}x)`}`;
  else
    margin = `${fmtNum(value, 2)}${unit} vs ${op} ${bound}${unit}: ${pass ? `${fmtNum((1 - value / bound) * 100, 0)}% under` : `${fmtNum((value / bound - 1) * 100, 0)}% over (needs ${fmtNum(value / bound, 2)}x less)`}`;
  targets.push({ name, value, op, bound, unit, pass: Number.isFinite(value) && pass, margin });
}

// ---------------------------------------------------------------- run

const info = moduleInfo();
const load0 = os.loadavg();
print('agui-client-tools bench');
print(`module ${info.file}: ${fmtInt(info.bytes)} B, sha256 ${info.sha256}, built ${info.mtime}; build: ${info.build}`);
print(
  `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${load0.map((x) => x.toFixed(2)).join(' ')}${quick ? ', --quick' : ''}`,
);
print(
  'Every ratio compares paths measured interleaved in this one process run (medians); absolute figures drift with machine load.',
);
print();

const sizes = quick ? [1400, 5600] : [1400, 5600, 22000];
const stream = await streamBench({
  sizes,
  reps: quick ? 3 : 7,
  refReps: quick ? { 1400: 3, 5600: 1 } : { 1400: 7, 5600: 5, 22000: 3 },
});

const col = 20;
print(
  '1. Stream application: the same SSE bytes (@ag-ui/encoder) in 1-4 KB chunks from a fake fetch, send()/runAgent() to resolution',
);
print(`   ${pad('', 34)}${stream.sizes.map((s) => lpad(`${fmtNum(s.events / 1000, 1)}k events`, col)).join('')}`);
const row = (label, f) => print(`   ${pad(label, 34)}${stream.sizes.map((s) => lpad(f(s), col)).join('')}`);
row('events / SSE bytes', (s) => `${fmtInt(s.events)} / ${fmtKB(s.bytes)}`);
row('(a) this runtime  [ev/s]', (s) => fmtInt(s.eventsPerSec.a));
row('(b) @ag-ui/client HttpAgent', (s) => `${fmtInt(s.eventsPerSec.b)} (${s.reps.b} runs)`);
row('(c) minimal JS reducer', (s) => fmtInt(s.eventsPerSec.c));
row('(d) JSON.parse per event only', (s) => fmtInt(s.eventsPerSec.d));
row('(e) body read only (context)', (s) => fmtInt(s.eventsPerSec.e));
row('core alone: raw Driver (context)', (s) => fmtInt(s.eventsPerSec.core));
row('(a) median ms', (s) => fmtNum(s.medianMs.a, 1));
row('a/b (x faster than reference)', (s) => `${fmtNum(s.ratios.a_b, 1)}x`);
row('a/c', (s) => `${fmtNum(s.ratios.a_c, 2)}x`);
row('a/d', (s) => `${fmtNum(s.ratios.a_d, 2)}x`);
row('core alone / (a) time', (s) => `${fmtNum(100 * s.ratios.coreShare, 0)}%`);
row('changes delivered to subscriber', (s) => fmtInt(s.changesDelivered));
print(
  `   (a), (c), (d), (e): ${stream.sizes[0].reps.a} runs each; all four paths checked equal (messages, state, change counts) before timing.`,
);
print(
  `   measured after ${stream.warmups} warm-up turns at the largest size, the sizes cycled per repetition; the process's first turn (cold wasm, V8 baseline tier): ${fmtNum(stream.cold.ms, 1)} ms for ${fmtInt(stream.cold.events)} events = ${fmtInt(stream.cold.eventsPerSec)} ev/s`,
);
print();

const { flatness } = stream;
print(
  `2. Flatness: cost per event at ${fmtInt(flatness.to)} events / at ${fmtInt(flatness.from)} events (1.0 = linear)`,
);
print(
  `   (a) ${fmtNum(flatness.a, 2)}   core alone ${fmtNum(flatness.core, 2)}   (c) ${fmtNum(flatness.c, 2)}   (d) ${fmtNum(flatness.d, 2)}   (b, context) ${fmtNum(flatness.b, 2)}`,
);
print();

const rounds = await roundBench(quick ? { turns1: 100, turns10: 50 } : {});
const us = (s) => `${fmtNum(s.medianUs, 0)} µs (p10 ${fmtNum(s.p10Us, 0)}, p90 ${fmtNum(s.p90Us, 0)}, n=${s.n})`;
print(
  '3. Round overhead: last chunk (RUN_FINISHED) enqueued -> follow-up request reaches fetch, no-op handlers; a fresh runtime per turn',
);
print(
  `   1 call:    ${us(rounds.calls1)};   JS floor (read, microtask handler, stringify, fetch): ${fmtNum(rounds.floor1.medianUs, 1)} µs`,
);
print(`   10 calls:  ${us(rounds.calls10)};   JS floor: ${fmtNum(rounds.floor10.medianUs, 1)} µs`);
print(`   per extra call: ${fmtNum((rounds.calls10.medianUs - rounds.calls1.medianUs) / 9, 0)} µs`);
print(
  `   the core's part (raw Driver: endOfStream, submitResult per call, each step with its changes JSON.parsed): 1 call ${fmtNum(rounds.core1.medianUs, 0)} µs, 10 calls ${fmtNum(rounds.core10.medianUs, 0)} µs`,
);
rounds.manyCalls = await manyCallsBench(quick ? { sizes: [2000, 16000], turns: 2 } : {});
printManyCalls(rounds.manyCalls, print);
rounds.view = await viewBench(quick ? { sizes: [2000, 16000], turns: 2 } : {});
printView(rounds.view, print);
print();

const validation = await validationBench();
const dispatch = await dispatchBench(loadSchemaSet().set, quick ? { turns: 15 } : {});
const v = validation;
print(
  `4. Validation: ${v.schemas} schemas, ${v.ajv.cases} instances (valid and invalid) from ${v.setFile}; validations/s, round-robin, median of 5`,
);
print(
  `   ajv 8 (Ajv2020, allErrors) compiled:      ${fmtInt(v.ajv.validatePerSec)}/s   (valid ${fmtInt(v.ajv.validateValidPerSec)}, invalid ${fmtInt(v.ajv.validateInvalidPerSec)}; with JSON.parse of the text ${fmtInt(v.ajv.parseAndValidatePerSec)}/s)`,
);
if (v.wasm.skipped) print(`   wasm through the bindings: skipped: ${v.wasm.skipped}`);
else {
  print(
    `   wasm through the bindings (resolveInterrupt, text in, parse+validate+refusal out): ${fmtInt(v.wasm.callsPerSec)} calls/s (valid ${fmtInt(v.wasm.validCallsPerSec)}, invalid ${fmtInt(v.wasm.invalidCallsPerSec)})`,
  );
  print(
    `     boundary alone ({not:{}}): ${fmtNum(v.wasm.usBoundary, 2)} µs/call; validation estimate (difference, interleaved): ${fmtNum(v.wasm.usValidateEstimate, 2)} µs = ${fmtInt(v.wasm.estValidatePerSec)}/s;  ajv(parse+validate)/wasm call: ${fmtNum(v.ajv.parseAndValidatePerSec / v.wasm.callsPerSec, 1)}x`,
  );
}
if (v.native.skipped) print(`   native: skipped: ${v.native.skipped}`);
else {
  print(
    `   native (g++ -O2, validate_native.cpp): validate ${fmtInt(v.native.validatePerSec)}/s (valid ${fmtInt(v.native.validateValidPerSec)}, invalid ${fmtInt(v.native.validateInvalidPerSec)}); is_valid ${fmtInt(v.native.isValidPerSec)}/s; parse+validate ${fmtInt(v.native.parseAndValidatePerSec)}/s`,
  );
  print(
    `     native validate / ajv: ${fmtNum(v.native.validatePerSec / v.ajv.validatePerSec, 2)}x   (mismatches vs the set's labels: native ${v.native.mismatches}, ajv ${v.ajv.mismatches})`,
  );
}
print(
  `   per-call dispatch incl. validation (tool round, ${dispatch.perTurn} calls/turn, valid args): ${fmtNum(dispatch.perCallUs, 1)} µs/call = ${fmtInt(dispatch.callsPerSec)} calls/s;`,
);
print(
  `     same calls against permissive schemas: ${fmtNum(dispatch.perCallPermissiveUs, 1)} µs/call -> validation's share ~${fmtNum(dispatch.validationShareUs, 1)} µs/call`,
);
print();

const startup = await startupBench({ starts: quick ? 3 : 7 });
const s = startup.size;
print('5. Start and size');
print(
  `   fresh node process, import + createRuntime ready: ${fmtNum(startup.fresh.runtime.totalMs, 1)} ms (import ${fmtNum(startup.fresh.runtime.importMs, 1)}, load+instantiate+open ${fmtNum(startup.fresh.runtime.readyMs, 1)}); @ag-ui/client import + new HttpAgent: ${fmtNum(startup.fresh.reference.totalMs, 1)} ms  -> ratio ${fmtNum(startup.fresh.reference.totalMs / startup.fresh.runtime.totalMs, 2)}x (median of ${startup.fresh.runtime.n})`,
);
print(
  `   in process: WebAssembly.compile ${fmtNum(startup.inProcess.compileMs, 2)} ms; createAguiCore({wasmBinary}) ${fmtNum(startup.inProcess.createAguiCoreMs, 2)} ms (median of ${startup.inProcess.n})`,
);
print(`   ${pad('', 46)}${lpad('raw', 12)}${lpad('gzip -9', 12)}${lpad('brotli 11', 12)}`);
const srow = (label, r) =>
  print(`   ${pad(label, 46)}${lpad(fmtKB(r.raw), 12)}${lpad(fmtKB(r.gzip), 12)}${lpad(fmtKB(r.brotli), 12)}`);
srow('dist/agui_core.wasm', s.package.wasm);
srow('JS as written: src/*.js + glue (not shipped)', s.package.written);
srow('JS: dist/*.js (src/ + glue, minified)', s.package.js);
srow('package (.wasm + JS), as shipped', s.package.total);
srow('shim bundled+minified (esbuild) + .wasm', s.bundled.total);
srow('@ag-ui/client bundled+minified (esbuild)', s.reference);
print();

const memory = memoryBench(quick ? { rounds: 2000, longBudgetMs: 10000 } : { rounds: 10000, longBudgetMs: 30000 });
print(
  '6. Memory: wasm heap (HEAP8.buffer.byteLength) over tool rounds, 1 call per round, 5 rounds per turn; fresh node process each',
);
const mline = (m) => {
  const at = (r) => m.points.find((p) => p.rounds === r);
  const last = m.points[m.points.length - 1];
  return (
    m.points.map((p) => `${fmtInt(p.rounds)}: ${fmtKB(p.heap)}`).join(', ') +
    `  (final thread ${fmtInt(last.threadMessages)} messages, request ${fmtKB(last.requestBytes)}; ${fmtNum(m.elapsedMs / 1000, 1)} s)` +
    (at(10) ? '' : '')
  );
};
print(`   runtime per turn (opened, 5 rounds, disposed): ${mline(memory.fresh)}`);
print(
  `     heap sizes seen: ${memory.fresh.growth.map(fmtKB).join(' -> ')}; JS heap after gc: ${fmtKB(memory.fresh.points[0].jsHeapUsed)} -> ${fmtKB(memory.fresh.points[memory.fresh.points.length - 1].jsHeapUsed)}`,
);
print(`   one long-lived runtime:                       ${mline(memory.long)}`);
if (memory.long.stoppedAt)
  print(
    `     stopped at ${fmtInt(memory.long.stoppedAt)} rounds by its ${memory.long.budgetMs / 1000} s budget: every run re-sends the whole thread (AG-UI), so a long thread costs O(n) per round, O(n^2) in all`,
  );
print(`     heap sizes seen: ${memory.long.growth.map(fmtKB).join(' -> ')}`);
const longPts = memory.long.points;
if (longPts.length >= 2) {
  const a = longPts[0];
  const b = longPts[longPts.length - 1];
  print(
    `     growth: ${fmtNum((b.heap - a.heap) / Math.max(1, b.threadMessages - a.threadMessages), 0)} heap bytes per thread message (the thread as JSON: ${fmtNum(b.requestBytes / b.threadMessages, 0)} B/message)`,
  );
}
print();

// ---------------------------------------------------------------- targets

const bySize = (n) => stream.sizes.find((x) => x.targetEvents === n);
const big = bySize(22000) ?? stream.sizes[stream.sizes.length - 1];
const small = bySize(1400);
target(`(a) vs @ag-ui/client at ${fmtNum(big.events / 1000, 1)}k events`, big.ratios.a_b, '>=', 100, 'x');
target(`(a) vs @ag-ui/client at ${fmtNum(small.events / 1000, 1)}k events`, small.ratios.a_b, '>=', 5, 'x');
for (const x of stream.sizes)
  target(`(a) at or above (c) at ${fmtNum(x.events / 1000, 1)}k events (a/c)`, x.ratios.a_c, '>=', 1, 'x');
target('flatness (a)', flatness.a, '<=', 1.3);
target('round overhead, 1 call', rounds.calls1.medianUs, '<', 100, ' µs');
{
  const [lo, hi] = [rounds.manyCalls[0], rounds.manyCalls[rounds.manyCalls.length - 1]];
  for (const key of ['oneMessage', 'messagePerCall']) {
    target(
      `round of ${fmtInt(hi.calls)} calls (${key}) flat: µs/call vs at ${fmtInt(lo.calls)}`,
      hi[key].perCallUs / lo[key].perCallUs,
      '<=',
      1.3,
    );
  }
}
target(
  `turn of ${fmtInt(rounds.view.to)} calls on one message, runtime + createThreadView, flat: µs/call vs at ${fmtInt(rounds.view.from)}`,
  rounds.view.flatness.view,
  '<=',
  1.3,
);
target('package (.wasm + JS) gzipped', s.package.total.gzip / 1024, '<=', 100, ' KB');
const f = memory.fresh;
const h10 = f.points.find((p) => p.rounds === 10)?.heap;
const hN = f.points[f.points.length - 1].heap;
const stepsAfter10 = f.growth.filter((g) => g > h10).length;
targets.push({
  name: `heap flat over ${fmtInt(f.rounds)} rounds (runtime per turn)`,
  value: hN,
  pass: f.rounds >= 10000 && stepsAfter10 <= 1,
  margin: `${fmtKB(h10)} after 10 rounds, ${fmtKB(hN)} after ${fmtInt(f.rounds)}: ${stepsAfter10} growth step(s)${f.rounds < 10000 ? ' (fewer than 10,000 rounds run)' : ''}`,
});
const lp = memory.long.points;
targets.push({
  name: `heap, one long-lived runtime (informational: the thread grows)`,
  value: lp[lp.length - 1].heap,
  pass: null,
  margin: `${fmtKB(lp[0].heap)} after 10 rounds, ${fmtKB(lp[lp.length - 1].heap)} after ${fmtInt(lp[lp.length - 1].rounds)} (${fmtInt(lp[lp.length - 1].threadMessages)} messages)`,
});

print('Targets');
for (const t of targets)
  print(`   ${t.pass === null ? 'INFO' : t.pass ? 'PASS' : 'MISS'}  ${pad(t.name, 52)} ${t.margin}`);
const load1 = os.loadavg();
const infoEnd = moduleInfo();
const moduleChanged = infoEnd.sha256 !== info.sha256;
print();
if (moduleChanged) {
  print(
    `WARNING: js-shim/dist/agui_core.wasm changed during the run (${info.sha256} -> ${infoEnd.sha256}, built ${infoEnd.mtime}): someone rebuilt it; sections run in child processes (5, 6) may have used the new module. Run again.`,
  );
}
print(
  `total bench time ${fmtNum((performance.now() - started) / 1000, 0)} s; load average at the end ${load1.map((x) => x.toFixed(2)).join(' ')}`,
);

fs.mkdirSync(OUT, { recursive: true });
const file = path.join(OUT, 'bench.json');
fs.writeFileSync(
  file,
  `${JSON.stringify({ when: new Date().toISOString(), node: process.version, cpus: os.cpus().length, loadavg: { start: load0, end: load1 }, quick, module: info, moduleAtEnd: infoEnd, moduleChanged, stream, rounds, validation, dispatch, startup, memory, targets }, null, 1)}\n`,
);
print(`figures written to ${path.relative(process.cwd(), file)}`);
