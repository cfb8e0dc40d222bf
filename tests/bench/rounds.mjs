// Bench section 3 (and the tool-round half of 4): the time from the last chunk of a run (RUN_FINISHED) to the
// follow-up request reaching fetch, with no-op handlers, for 1 and 10 parallel calls; beside a pure-JS floor; and
// for 2,000 to 16,000 calls in one run, per call, to show the round's work is linear (`node tests/bench/rounds.mjs`
// runs that part alone).
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { createRuntime } from 'agui-client-tools'; // the package as it ships (dist/, minified)
import '../../js-shim/src/node.js'; // the node loader for src/core.js, whose internals the raw-core rows read
import { feedBytes, heapText, loadCore } from '../../js-shim/src/core.js';
import {
  gc,
  median,
  NOOP,
  noopRegistry,
  nowArgs,
  parts,
  quantile,
  scriptedRun,
  splitBeforeLastEvent,
  streamResponse,
} from './common.mjs';
import { readBody } from './baselines.mjs';

const URL_ = 'http://bench.invalid/agent';

/**
 * One runtime per turn: the first run calls `calls` tools; the follow-up run answers with text. Records, per turn,
 * the µs from enqueueing the first response's last chunk (which holds RUN_FINISHED) to fetch() being called with
 * the follow-up. Returns the samples (µs).
 */
export async function measureRounds({
  turns,
  warmup = 30,
  calls,
  tools,
  tool = () => 'noop',
  args = (i) => ({ i }),
  messagePerCall = false,
  options = {}, // more createRuntime() options (persist, for the journal's cost)
}) {
  const samples = [];
  let lastChunkAt = 0;
  let followUpAt = 0;
  let turnNo = 0;
  const fetch = async (url, init) => {
    const now = performance.now();
    const input = JSON.parse(init.body);
    const last = input.messages[input.messages.length - 1];
    if (last.role === 'tool') {
      followUpAt = now;
      return streamResponse(parts(scriptedRun(input.threadId, input.runId), 1));
    }
    const bytes = scriptedRun(input.threadId, input.runId, { calls, tool, args, tag: `-${turnNo}`, messagePerCall });
    return streamResponse(splitBeforeLastEvent(bytes), (t) => (lastChunkAt = t));
  };
  for (let t = 0; t < warmup + turns; t += 1) {
    turnNo = t;
    const runtime = await createRuntime({ url: URL_, fetch, tools, repeatLimit: 0, ...options });
    if (t % 50 === 0) gc();
    followUpAt = 0;
    let timer;
    const result = await Promise.race([
      runtime.send('go'),
      new Promise((_, reject) => {
        timer = setTimeout(
          () =>
            reject(new Error(`round bench: a turn did not end within 60 s (status ${JSON.stringify(runtime.status)})`)),
          60_000,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    assert.equal(result.reason, 'done', JSON.stringify(result));
    assert.ok(followUpAt > lastChunkAt, 'the follow-up run was sent');
    if (t >= warmup) samples.push((followUpAt - lastChunkAt) * 1000);
    runtime.dispose();
  }
  return samples;
}

/**
 * The same path without the core: read the body to its end, run the no-op handlers (a microtask each, as
 * runHandler does), JSON.stringify a RunAgentInput of the same messages, call fetch. The JS floor of a round.
 */
export async function measureFloor({ turns, warmup = 30, calls }) {
  const samples = [];
  let lastChunkAt = 0;
  let followUpAt = 0;
  const fetch = async (url, init) => {
    const now = performance.now();
    if (init.followUp) {
      followUpAt = now;
      return null;
    }
    return streamResponse(
      splitBeforeLastEvent(scriptedRun('t', `r-${init.turn}`, { calls })),
      (t) => (lastChunkAt = t),
    );
  };
  const handler = () => 'ok';
  for (let t = 0; t < warmup + turns; t += 1) {
    const response = await fetch(URL_, { turn: t });
    const chunks = [];
    await readBody(response, (b) => chunks.push(b));
    const results = await Promise.all(
      Array.from({ length: calls }, (_, i) => Promise.resolve().then(() => handler({ i }))),
    );
    const messages = [{ id: 'u', role: 'user', content: 'go' }];
    results.forEach((content, i) => messages.push({ id: `tm-${i}`, role: 'tool', toolCallId: `c-${i}`, content }));
    await fetch(URL_, {
      followUp: true,
      body: JSON.stringify({ threadId: 't', runId: `f-${t}`, messages, tools: [], state: {} }),
    });
    if (t >= warmup) samples.push((followUpAt - lastChunkAt) * 1000);
  }
  return samples;
}

/**
 * The core's part of a round, through the raw embind Driver (same module): endOfStream (RUN_FINISHED seen) ->
 * execute step -> submitResult -> follow-up run step, each step (with the changes it carries) JSON.parsed and the request body taken
 * (not parsed: it is posted as it is) as runtime.js does.
 */
export async function measureCoreRounds({ turns, warmup = 30, calls }) {
  const core = await loadCore();
  const registry = noopRegistry(core);
  const samples = [];
  for (let t = 0; t < warmup + turns; t += 1) {
    const driver = new core.Driver(registry, 'bench-thread');
    JSON.parse(driver.open(JSON.stringify({ options: { repeatLimit: 0 } }), ...nowArgs(core)));
    let step = JSON.parse(driver.send(JSON.stringify('go')));
    const runId = step.run.runId;
    const [body, finished] = splitBeforeLastEvent(scriptedRun('bench-thread', runId, { calls }));
    feedBytes(driver, runId, body);
    const t0 = performance.now();
    feedBytes(driver, runId, finished);
    step = JSON.parse(driver.endOfStream(runId, ...nowArgs(core)));
    for (const call of step.execute) {
      step = JSON.parse(driver.submitResult(call.toolCallId, JSON.stringify('ok')));
    }
    const request = heapText(driver.runInput());
    if (t >= warmup) samples.push((performance.now() - t0) * 1000);
    assert.ok(request.length > 0, 'the follow-up request body');
    assert.ok(step.run, 'the follow-up run');
    driver.delete();
  }
  registry.delete();
  return samples;
}

const summary = (samples) => ({
  medianUs: median(samples),
  p10Us: quantile(samples, 0.1),
  p90Us: quantile(samples, 0.9),
  n: samples.length,
});

export async function roundBench({ turns1 = 400, turns10 = 200 } = {}) {
  const noop = [
    {
      ...NOOP,
      handler: () => 'ok',
    },
  ];
  const one = await measureRounds({ turns: turns1, calls: 1, tools: noop });
  const floor1 = await measureFloor({ turns: turns1, calls: 1 });
  const ten = await measureRounds({ turns: turns10, calls: 10, tools: noop });
  const floor10 = await measureFloor({ turns: turns10, calls: 10 });
  const core1 = await measureCoreRounds({ turns: turns1, calls: 1 });
  const core10 = await measureCoreRounds({ turns: turns10, calls: 10 });
  return {
    calls1: summary(one),
    calls10: summary(ten),
    floor1: summary(floor1),
    floor10: summary(floor10),
    core1: summary(core1),
    core10: summary(core10),
  };
}

/**
 * Per-call dispatch including validation, through tool rounds: `perTurn` calls cycling through the set's valid
 * instances, against the real schemas and against permissive ones ({type: object}) with the same arguments; the
 * difference per call is what validation costs on this path.
 */
export async function dispatchBench(set, { turns = 60, perTurn = 40 } = {}) {
  const cases = [];
  for (const s of set) for (const v of s.valid) cases.push({ name: s.name, args: v });
  // Names get a prefix: a set may use a name the registry treats specially (request_user_approval is opt-in and
  // waits for an approval).
  for (const c of cases) c.name = `bench_${c.name}`.slice(0, 64);
  const tools = (permissive) =>
    set.map((s) => ({
      name: `bench_${s.name}`.slice(0, 64),
      description: `bench ${s.name}`,
      parameters: permissive ? { type: 'object' } : s.schema,
      handler: () => 'ok',
    }));
  const tool = (i) => cases[i % cases.length].name;
  const args = (i) => cases[i % cases.length].args;
  const real = [];
  const loose = [];
  // Interleave the two in small blocks so drift hits both.
  const block = 5;
  for (let b = 0; b < Math.ceil(turns / block); b += 1) {
    real.push(
      ...(await measureRounds({
        turns: block,
        warmup: b === 0 ? 10 : 1,
        calls: perTurn,
        tools: tools(false),
        tool,
        args,
      })),
    );
    loose.push(
      ...(await measureRounds({
        turns: block,
        warmup: b === 0 ? 10 : 1,
        calls: perTurn,
        tools: tools(true),
        tool,
        args,
      })),
    );
  }
  const perCallReal = median(real) / perTurn;
  const perCallLoose = median(loose) / perTurn;
  return {
    perTurn,
    turns: real.length,
    perCallUs: perCallReal,
    perCallPermissiveUs: perCallLoose,
    callsPerSec: 1e6 / perCallReal,
    validationShareUs: perCallReal - perCallLoose,
  };
}

/**
 * One run with `n` calls (2,000 to 16,000), on one assistant message and on a message each, with the default
 * maxCallsPerRound (64: the rest get error results): the µs from RUN_FINISHED to the follow-up request, per call.
 * A flat figure per call is a round linear in its calls and messages.
 */
export async function manyCallsBench({ sizes = [2000, 4000, 8000, 16000], turns = 5 } = {}) {
  const noop = [
    {
      ...NOOP,
      handler: () => 'ok',
    },
  ];
  const shapes = [
    ['oneMessage', false],
    ['messagePerCall', true],
  ];
  const samples = new Map(); // `${calls} ${shape}` -> µs
  const turn = (calls, messagePerCall, warmup = 0) =>
    measureRounds({ turns: 1, warmup, calls, tools: noop, messagePerCall });
  // Warm up at the largest size (the wasm tiers up, the heap grows once), then the sizes in turn, so drift hits all.
  for (const [, messagePerCall] of shapes) await turn(sizes[sizes.length - 1], messagePerCall, 1);
  for (let t = 0; t < turns; t += 1) {
    for (const calls of sizes) {
      for (const [key, messagePerCall] of shapes) {
        const k = `${calls} ${key}`;
        samples.set(k, [...(samples.get(k) ?? []), ...(await turn(calls, messagePerCall))]);
      }
    }
  }
  return sizes.map((calls) => {
    const row = { calls };
    for (const [key] of shapes) {
      const xs = samples.get(`${calls} ${key}`);
      row[key] = { medianUs: median(xs), perCallUs: median(xs) / calls, n: xs.length };
    }
    return row;
  });
}

export function printManyCalls(rows, print = console.log) {
  print(
    '   many calls in one run (maxCallsPerRound 64: 64 run, the rest get error results), RUN_FINISHED -> follow-up, median:',
  );
  for (const r of rows) {
    const f = (x) => `${(x.medianUs / 1000).toFixed(1)} ms = ${x.perCallUs.toFixed(2)} µs/call`;
    print(
      `   ${String(r.calls).padStart(6)} calls: on one message ${f(r.oneMessage)};   a message each ${f(r.messagePerCall)}`,
    );
  }
  const [first, last] = [rows[0], rows[rows.length - 1]];
  print(
    `   flatness (µs/call at ${last.calls} / at ${first.calls}): one message ${(last.oneMessage.perCallUs / first.oneMessage.perCallUs).toFixed(2)}, a message each ${(last.messagePerCall.perCallUs / first.messagePerCall.perCallUs).toFixed(2)}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  printManyCalls(await manyCallsBench());
}
