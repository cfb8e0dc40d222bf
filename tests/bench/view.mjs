// Bench section 3, the thread view's row: one turn of N calls on one assistant message (2,000 to 16,000, streamed in
// 4 KB chunks; maxCallsPerRound 64, so 64 handlers run and the rest get error results; a text follow-up), send() to
// resolution, through the runtime alone and through the runtime + createThreadView (what every React hook reads),
// interleaved. A flat figure per call is a view linear in the calls on one message, as the runtime is
// (`node tests/bench/view.mjs` runs this part alone, ~1 min).
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { createRuntime, createThreadView } from 'agui-client-tools'; // the package as it ships (dist/, minified)
import { gc, median, NOOP, parts, scriptedRun, streamResponse } from './common.mjs';

const CHUNK = 4096;

/** One turn of `calls` calls; the ms from send() to its resolution, less the time the fake server spent writing SSE. */
async function turn(calls, withView) {
  let writingMs = 0;
  const fetch = async (_url, init) => {
    const t0 = performance.now();
    const input = JSON.parse(init.body);
    const followUp = input.messages[input.messages.length - 1].role === 'tool';
    const bytes = scriptedRun(input.threadId, input.runId, followUp ? {} : { calls });
    const response = streamResponse(parts(bytes, Math.ceil(bytes.length / CHUNK)));
    writingMs += performance.now() - t0;
    return response;
  };
  const runtime = await createRuntime({
    url: 'http://bench.invalid/agent',
    fetch,
    tools: [{ ...NOOP, handler: () => 'ok' }],
    repeatLimit: 0,
  });
  gc();
  const t0 = performance.now();
  const view = withView ? createThreadView(runtime) : null;
  const result = await runtime.send('go');
  const ms = performance.now() - t0 - writingMs;
  assert.equal(result.reason, 'done', JSON.stringify(result));
  if (view) {
    // What the view holds is the thread: every call's message in the list, the calls on their message.
    assert.equal(view.messages().length, runtime.messages.length);
    assert.equal(view.message(runtime.messages[1].id).toolCalls.length, calls);
    view.dispose();
  }
  runtime.dispose();
  return ms;
}

export async function viewBench({ sizes = [2000, 4000, 8000, 16000], turns = 5 } = {}) {
  const paths = [
    ['alone', false],
    ['view', true],
  ];
  const samples = new Map(); // `${calls} ${path}` -> ms
  // Warm up at the largest size (the wasm tiers up, the heap grows once), then the sizes and paths in turn.
  for (const [, withView] of paths) await turn(sizes[sizes.length - 1], withView);
  for (let t = 0; t < turns; t += 1) {
    for (const calls of sizes) {
      for (const [key, withView] of paths) {
        const k = `${calls} ${key}`;
        samples.set(k, [...(samples.get(k) ?? []), await turn(calls, withView)]);
      }
    }
  }
  const rows = sizes.map((calls) => {
    const row = { calls };
    for (const [key] of paths) {
      const ms = median(samples.get(`${calls} ${key}`));
      row[key] = { medianMs: ms, perCallUs: (ms * 1000) / calls, n: turns };
    }
    return row;
  });
  const [first, last] = [rows[0], rows[rows.length - 1]];
  const flatness = (key) => last[key].perCallUs / first[key].perCallUs;
  return { rows, from: first.calls, to: last.calls, flatness: { alone: flatness('alone'), view: flatness('view') } };
}

export function printView({ rows, from, to, flatness }, print = console.log) {
  print(
    '   a turn of N calls on one message (4 KB chunks, 64 run, the rest error results), send() to resolution, median:',
  );
  for (const r of rows) {
    const f = (x) => `${(x.medianMs / 1000).toFixed(2)} s = ${x.perCallUs.toFixed(1)} µs/call`;
    print(
      `   ${String(r.calls).padStart(6)} calls: runtime alone ${f(r.alone)};   runtime + createThreadView ${f(r.view)} (view ${(r.view.perCallUs - r.alone.perCallUs).toFixed(1)} µs/call)`,
    );
  }
  print(
    `   flatness (µs/call at ${to} / at ${from}): runtime alone ${flatness.alone.toFixed(2)}, runtime + view ${flatness.view.toFixed(2)}`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (typeof globalThis.gc !== 'function') console.log('(run with node --expose-gc for a collected heap per turn)');
  printView(await viewBench());
}
