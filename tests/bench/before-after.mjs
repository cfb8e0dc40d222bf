// Two builds of the module in one process, interleaved: the core alone (raw Driver, each step's changes
// JSON.parse'd, as runtime.js does) on the 22k-event stream, a tool round, and a state of 1,000 and 10,000 keys
// (a STATE_SNAPSHOT, one STATE_DELTA, the follow-up request body written). For a change's note: what it costs.
//   git worktree add /tmp/before <commit> && (cd /tmp/before && emcmake cmake -B build-wasm -DCMAKE_BUILD_TYPE=MinSizeRel \
//     -DAGUI_BUILD_TESTS=OFF && cmake --build build-wasm --target agui_core_module)     # with NODE_PATH=/usr/share/nodejs
//   node tests/bench/before-after.mjs /tmp/before/js-shim/dist js-shim/dist [--reps=5]
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { median, fmtInt, noopRegistry, nowArgs } from './common.mjs';
import { makeStream, encodeEvents, runStarted, runFinished } from './generate.mjs';
import { coreStream, coreRound } from './variants.mjs';
import { feedBytes, heapText } from '../../js-shim/src/core.js';

async function load(dir) {
  const { default: create } = await import(path.resolve(dir, 'agui_core.mjs'));
  const bytes = fs.readFileSync(path.resolve(dir, 'agui_core.wasm'));
  const core = await create({ wasmBinary: bytes });
  const registry = noopRegistry(core);
  return { dir, core, registry, bytes, stream: [], round: [], state: new Map() };
}

// A run that sets a state of `keys` keys and patches one; ms from the first byte to the request body written.
function coreState(core, keys) {
  const snapshot = {};
  for (let i = keys - 1; i >= 0; i -= 1) snapshot[`key${i}`] = { n: i, label: `value ${i}` };
  const driver = new core.Driver(new core.Registry(), 'bench-thread');
  JSON.parse(driver.open(JSON.stringify({ options: {} }), ...nowArgs(core)));
  const step = JSON.parse(driver.send(JSON.stringify('state'), '{}'));
  const runId = step.run.runId;
  const bytes = encodeEvents([
    runStarted('bench-thread', runId),
    { type: 'STATE_SNAPSHOT', snapshot },
    { type: 'STATE_DELTA', delta: [{ op: 'replace', path: `/key${keys >> 1}/n`, value: -1 }] },
    runFinished('bench-thread', runId),
  ]);
  const t0 = performance.now();
  feedBytes(driver, runId, bytes);
  JSON.parse(driver.endOfStream(runId, ...nowArgs(core)));
  const body = JSON.parse(
    JSON.parse(driver.send(JSON.stringify('again'), '{}')).run ? heapText(driver.runInput()) : 'null',
  );
  const ms = performance.now() - t0;
  driver.delete();
  if (body?.state?.[`key${keys >> 1}`]?.n !== -1) throw new Error('the patched state did not go out');
  return ms;
}

const [before, after] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!before || !after) {
  console.error('usage: node tests/bench/before-after.mjs BEFORE_DIST_DIR AFTER_DIST_DIR [--reps=5]');
  process.exit(2);
}
const reps = Number(process.argv.find((a) => a.startsWith('--reps='))?.slice(7) ?? 5);
const builds = [await load(before), await load(after)];
const stream = makeStream(22000, 1);
const SIZES = [1000, 10000];
for (const b of builds) {
  for (let i = 0; i < 3; i += 1) coreStream(b.core, stream);
  for (let i = 0; i < 300; i += 1) coreRound(b.core, b.registry, i);
  for (const n of SIZES) coreState(b.core, n);
}
for (let r = 0; r < reps; r += 1) {
  for (const b of builds) {
    b.stream.push(coreStream(b.core, stream).ms);
    const rounds = [];
    for (let i = 0; i < 200; i += 1) rounds.push(coreRound(b.core, b.registry, i));
    b.round.push(median(rounds));
    for (const n of SIZES) (b.state.get(n) ?? b.state.set(n, []).get(n)).push(coreState(b.core, n));
  }
}
console.log(`core alone, medians of ${reps} interleaved repetitions (after / before: < 1 is faster):`);
const [a, b] = builds;
const row = (label, x, y, unit) =>
  console.log(
    `  ${label.padEnd(34)} before ${x.toFixed(1).padStart(8)} ${unit}   after ${y.toFixed(1).padStart(8)} ${unit}   after/before ${(y / x).toFixed(2)}`,
  );
console.log(
  `  wasm gzipped: before ${(zlib.gzipSync(a.bytes, { level: 9 }).length / 1024).toFixed(1)} KB, after ${(zlib.gzipSync(b.bytes, { level: 9 }).length / 1024).toFixed(1)} KB`,
);
row(`22k stream (${fmtInt(stream.counts.events)} events)`, median(a.stream), median(b.stream), 'ms');
row('tool round, 1 call', median(a.round), median(b.round), 'µs');
for (const n of SIZES)
  row(
    `state of ${fmtInt(n)} keys (per key: µs)`,
    (median(a.state.get(n)) * 1000) / n,
    (median(b.state.get(n)) * 1000) / n,
    'µs',
  );
