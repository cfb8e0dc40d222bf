// A tool call's arguments streamed in 10-byte deltas, 1 KB to 100 KB: the cost per delta of the runtime's partial
// arguments (tool_call_partial: the core reads each byte once and hands out how the value grew, the shim replays
// that onto the live value), beside partial-json re-parsing each prefix in JS, as the peers do. Two framings: a step
// per delta (each SSE chunk holds one delta: every step hands out a partial) and 32 deltas a step.
//   node --expose-gc tests/bench/partial-args.mjs [--reps=5]
import { parse as partialJsonParse } from 'partial-json';
import { feedBytes, loadCore } from '../../js-shim/src/core.js';
import { PartialArgs } from '../../js-shim/src/partial-args.js';
import '../../js-shim/src/node.js';
import { fmtNum, median, nowArgs } from './common.mjs';
import { encodeEvents, runStarted } from './generate.mjs';

const SIZES = [1_000, 10_000, 100_000];
const DELTA = 10;
const reps = Number(process.argv.find((a) => a.startsWith('--reps='))?.slice(7) ?? 5);

/** Arguments of about `bytes` bytes: rows of a table, as a model writes a chart's data. */
function argumentsOf(bytes) {
  const rows = [];
  let text = '';
  for (let i = 0; text.length < bytes; i += 1) {
    rows.push({ id: i, name: `permit ${i}`, area: 120.5 + i, tags: ['residential', i % 2 ? 'new' : 'renovation'] });
    text = JSON.stringify({ title: 'Permits by district', rows });
  }
  return text;
}

const deltasOf = (text) => {
  const out = [];
  for (let i = 0; i < text.length; i += DELTA) out.push(text.slice(i, i + DELTA));
  return out;
};

/** µs per delta for the runtime: the arguments' events fed `perStep` deltas at a time, each step's changes parsed and its partials replayed. */
function core(coreModule, text, perStep) {
  const registry = new coreModule.Registry();
  const driver = new coreModule.Driver(registry, 'bench');
  JSON.parse(driver.open(JSON.stringify({ options: {} }), ...nowArgs(coreModule)));
  const runId = JSON.parse(driver.send(JSON.stringify('chart'))).run.runId;
  feedBytes(
    driver,
    runId,
    encodeEvents([runStarted('bench', runId), { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'chart' }]),
  );
  const deltas = deltasOf(text);
  const chunks = [];
  for (let i = 0; i < deltas.length; i += perStep) {
    chunks.push(
      encodeEvents(deltas.slice(i, i + perStep).map((delta) => ({ type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta }))),
    );
  }
  const partials = new PartialArgs();
  let last = null;
  const t0 = performance.now();
  for (const chunk of chunks) {
    for (const change of feedBytes(driver, runId, chunk).changes ?? []) {
      if (change.kind === 'tool_call_partial') last = partials.resolve(change).args;
    }
  }
  const us = ((performance.now() - t0) * 1000) / deltas.length;
  driver.delete();
  registry.delete();
  if (JSON.stringify(last) !== text) throw new Error('the last partial value is not the arguments');
  return us;
}

/** µs per delta for partial-json re-parsing the prefix after each delta. */
function peer(text) {
  const deltas = deltasOf(text);
  let prefix = '';
  let last = null;
  const t0 = performance.now();
  for (const delta of deltas) {
    prefix += delta;
    last = partialJsonParse(prefix);
  }
  const us = ((performance.now() - t0) * 1000) / deltas.length;
  if (JSON.stringify(last) !== text) throw new Error('partial-json did not end with the arguments');
  return us;
}

const coreModule = await loadCore();
const rows = [];
for (const size of SIZES) {
  const text = argumentsOf(size);
  const samples = { step: [], batched: [], peer: [] };
  core(coreModule, text, 1); // warm-up
  peer(text);
  for (let r = 0; r < reps; r += 1) {
    globalThis.gc?.();
    samples.step.push(core(coreModule, text, 1));
    samples.batched.push(core(coreModule, text, 32));
    samples.peer.push(peer(text));
  }
  rows.push({
    size: text.length,
    step: median(samples.step),
    batched: median(samples.batched),
    peer: median(samples.peer),
  });
}
console.log(`arguments streamed in ${DELTA}-byte deltas, µs per delta (median of ${reps}):`);
console.log('  bytes      runtime, a step per delta   runtime, 32 deltas a step   partial-json (re-parse each prefix)');
for (const r of rows) {
  console.log(
    `  ${String(r.size).padEnd(9)}  ${fmtNum(r.step, 2).padStart(12)}             ${fmtNum(r.batched, 2).padStart(12)}             ${fmtNum(r.peer, 2).padStart(12)}`,
  );
}
const [first, , lastRow] = rows;
console.log(
  `  flatness (per delta at ${lastRow.size} B / at ${first.size} B): runtime step ${fmtNum(lastRow.step / first.step, 2)}, runtime 32 ${fmtNum(lastRow.batched / first.batched, 2)}, partial-json ${fmtNum(lastRow.peer / first.peer, 2)}`,
);
