// Bench sections 1 and 2: the same generated SSE bytes applied by (a) this runtime, (b) @ag-ui/client's HttpAgent,
// (c) the smallest JS reducer, (d) JSON.parse alone, side by side in one process; events/s, ratios and flatness.
import assert from 'node:assert/strict';
import { HttpAgent } from '@ag-ui/client';
import { createRuntime } from 'agui-client-tools'; // the package as it ships (dist/, minified)
import '../../js-shim/src/node.js'; // the node loader for src/core.js, whose internals the raw-core rows read
import { feedBytes, loadCore } from '../../js-shim/src/core.js';
import { makeStream } from './generate.mjs';
import { MiniThread, readBody, sseSplitter } from './baselines.mjs';
import { gc, median, nowArgs, streamFetch } from './common.mjs';

const URL_ = 'http://bench.invalid/agent';
const THREAD = 'bench-thread';

/** (a): send() to its resolution; every change reaches a subscriber. Returns {ms, changes, runtime} (not disposed). */
export async function runRuntime(fetch, { keep = false, options = {} } = {}) {
  const runtime = await createRuntime({ url: URL_, fetch, threadId: THREAD, ...options });
  const kinds = new Map();
  let changes = 0;
  runtime.subscribe((change) => {
    changes += 1;
    kinds.set(change.kind, (kinds.get(change.kind) ?? 0) + 1);
  });
  gc();
  const t0 = performance.now();
  const result = await runtime.send('Summarise the permits.');
  const ms = performance.now() - t0;
  assert.equal(result.reason, 'done', `runtime turn ended ${JSON.stringify(result)}`);
  if (!keep) runtime.dispose();
  return { ms, changes, kinds, runtime: keep ? runtime : null };
}

/** (b): HttpAgent.runAgent over the same bytes (its subscriber counts events). */
export async function runReference(fetch, { keep = false } = {}) {
  const agent = new HttpAgent({ url: URL_, fetch, threadId: THREAD });
  let events = 0;
  gc();
  const t0 = performance.now();
  await agent.runAgent({ runId: 'bench-run' }, { onEvent: () => void (events += 1) });
  const ms = performance.now() - t0;
  return { ms, events, agent: keep ? agent : null };
}

/** (c): line splitter + MiniThread, changes to a listener. */
export async function runMini(fetch) {
  let changes = 0;
  const thread = new MiniThread(() => void (changes += 1));
  const splitter = sseSplitter((data) => thread.applyData(data));
  gc();
  const t0 = performance.now();
  const response = await fetch(URL_, {
    method: 'POST',
    body: JSON.stringify({ threadId: THREAD, runId: 'bench-run' }),
  });
  await readBody(response, (bytes) => splitter.push(bytes));
  splitter.end();
  const ms = performance.now() - t0;
  return { ms, changes, thread };
}

/** (d): line splitter + JSON.parse of each event's data, nothing else. */
export async function runParseOnly(fetch) {
  let events = 0;
  let sink = 0;
  const splitter = sseSplitter((data) => {
    const e = JSON.parse(data);
    sink += e.type.length;
    events += 1;
  });
  gc();
  const t0 = performance.now();
  const response = await fetch(URL_, {
    method: 'POST',
    body: JSON.stringify({ threadId: THREAD, runId: 'bench-run' }),
  });
  await readBody(response, (bytes) => splitter.push(bytes));
  splitter.end();
  const ms = performance.now() - t0;
  return { ms, events, sink };
}

/** (e) context: reading the Response body through the same fake fetch, nothing else. */
export async function runReadOnly(fetch) {
  let bytes = 0;
  gc();
  const t0 = performance.now();
  const response = await fetch(URL_, {
    method: 'POST',
    body: JSON.stringify({ threadId: THREAD, runId: 'bench-run' }),
  });
  await readBody(response, (b) => void (bytes += b.length));
  return { ms: performance.now() - t0, bytes };
}

/**
 * (a-core) context: the core alone through the raw embind Driver, as runtime.js drives it (feed each chunk, drain and
 * JSON.parse the changes) but without fetch, streams or subscribers: the share of (a) spent in the core.
 */
export async function runCore(stream) {
  const core = await loadCore();
  const registry = new core.Registry();
  const driver = new core.Driver(registry, THREAD);
  let changes = 0;
  gc();
  const t0 = performance.now();
  JSON.parse(driver.open(JSON.stringify({ options: {} }), ...nowArgs(core)));
  const step = JSON.parse(driver.send(JSON.stringify('Summarise the permits.'), '{}'));
  changes += step.changes?.length ?? 0;
  const runId = step.run.runId;
  const [head, tail] = stream.frame(THREAD, runId);
  for (const bytes of [head, ...stream.chunks, tail]) {
    changes += feedBytes(driver, runId, bytes).changes?.length ?? 0;
  }
  const done = JSON.parse(driver.endOfStream(runId, ...nowArgs(core)));
  changes += done.changes?.length ?? 0;
  const ms = performance.now() - t0;
  driver.delete();
  registry.delete();
  assert.ok(done.done, 'core turn ended');
  return { ms, changes };
}

const withoutUser = (messages) => messages.filter((m) => m.role !== 'user');

/**
 * Checks, once per size and outside the timings, that the four paths agree: the runtime's messages and state equal
 * the mini reducer's and the reference client's, and the subscriber saw one change per applied event.
 */
async function verify(stream, fetch) {
  const a = await runRuntime(fetch, { keep: true });
  const c = await runMini(fetch);
  const b = await runReference(fetch, { keep: true });
  const d = await runParseOnly(fetch);
  const { counts } = stream;
  const k = (kind) => a.kinds.get(kind) ?? 0;
  const problems = [];
  if (k('problem')) problems.push(`${k('problem')} problem changes`);
  if (k('text_appended') !== counts.deltas) problems.push(`text_appended ${k('text_appended')} != ${counts.deltas}`);
  if (k('tool_call_args') !== counts.args) problems.push(`tool_call_args ${k('tool_call_args')} != ${counts.args}`);
  if (k('tool_result') !== counts.results) problems.push(`tool_result ${k('tool_result')} != ${counts.results}`);
  if (k('state_patched') !== counts.stateDeltas)
    problems.push(`state_patched ${k('state_patched')} != ${counts.stateDeltas}`);
  if (d.events !== counts.events) problems.push(`(d) parsed ${d.events} events, expected ${counts.events}`);
  if (b.events !== counts.events) problems.push(`(b) saw ${b.events} events, expected ${counts.events}`);
  const messages = a.runtime.messages;
  const state = a.runtime.state;
  a.runtime.dispose();
  try {
    assert.deepStrictEqual(c.thread.messages, withoutUser(messages));
    assert.deepStrictEqual(c.thread.state, state);
  } catch (e) {
    problems.push(`(c) differs from (a): ${e.message.slice(0, 300)}`);
  }
  try {
    assert.deepStrictEqual(withoutUser(b.agent.messages), withoutUser(messages));
    assert.deepStrictEqual(b.agent.state, state);
  } catch (e) {
    problems.push(`(b) differs from (a): ${e.message.slice(0, 300)}`);
  }
  if (problems.length)
    throw new Error(`stream bench: paths disagree at ${counts.events} events:\n  ${problems.join('\n  ')}`);
  return { changes: a.changes, messages: messages.length };
}

/**
 * Runs the stream sizes; each repetition interleaves a, c, d, e (and b while it has repetitions left), so drift hits
 * every path alike. Returns per size: medians (ms), events/s, ratios.
 */
export async function streamBench({
  sizes = [1400, 5600, 22000],
  reps = 7,
  refReps = { 1400: 7, 5600: 5, 22000: 3 },
  warmups = 3,
} = {}) {
  // The first turn of the process runs on V8's baseline wasm code (Liftoff); hot functions tier up to TurboFan in the
  // background. Record that cold turn, then warm up on the largest stream so the sizes are measured on the steady
  // state; the repetitions then cycle through the sizes, so any drift left hits every size alike.
  const streams = sizes.map((target) => {
    const stream = makeStream(target, 1);
    return { target, stream, fetch: streamFetch(stream), times: { a: [], b: [], c: [], d: [], e: [], core: [] } };
  });
  const cold = await runRuntime(streams[0].fetch);
  const warmFetch = streamFetch(makeStream(sizes[sizes.length - 1], 2));
  for (let i = 0; i < warmups; i += 1) {
    await runRuntime(warmFetch);
    await runCore(makeStream(sizes[0], 3));
    await runMini(warmFetch);
    await runParseOnly(warmFetch);
  }
  await runReference(streams[0].fetch);
  for (const s of streams) Object.assign(s, await verify(s.stream, s.fetch));
  for (let r = 0; r < reps; r += 1) {
    for (const s of streams) {
      const { times, fetch, stream } = s;
      times.a.push((await runRuntime(fetch)).ms);
      times.c.push((await runMini(fetch)).ms);
      times.d.push((await runParseOnly(fetch)).ms);
      times.e.push((await runReadOnly(fetch)).ms);
      times.core.push((await runCore(stream)).ms);
      if (r < (refReps[s.target] ?? 3)) times.b.push((await runReference(fetch)).ms);
    }
  }
  const out = streams.map(({ target, stream, times, changes, messages }) => {
    const events = stream.counts.events;
    const med = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
    return {
      targetEvents: target,
      events,
      bytes: stream.bytes + stream.frame(THREAD, 'bench-run').reduce((n, p) => n + p.length, 0),
      chunks: stream.chunks.length + 2,
      counts: stream.counts,
      changesDelivered: changes,
      threadMessages: messages,
      reps: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, v.length])),
      samplesMs: times,
      medianMs: med,
      eventsPerSec: Object.fromEntries(Object.entries(med).map(([k, v]) => [k, (events / v) * 1000])),
      usPerEvent: Object.fromEntries(Object.entries(med).map(([k, v]) => [k, (v * 1000) / events])),
      ratios: { a_b: med.b / med.a, a_c: med.c / med.a, a_d: med.d / med.a, coreShare: med.core / med.a },
    };
  });
  const first = out[0];
  const last = out[out.length - 1];
  const flat = (k) => last.usPerEvent[k] / first.usPerEvent[k];
  return {
    cold: { events: first.events, ms: cold.ms, eventsPerSec: (first.events / cold.ms) * 1000 },
    warmups,
    sizes: out,
    flatness: {
      a: flat('a'),
      b: flat('b'),
      c: flat('c'),
      d: flat('d'),
      core: flat('core'),
      from: first.events,
      to: last.events,
    },
  };
}
