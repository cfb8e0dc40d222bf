// Bench section 6 (run in a fresh child process, so the wasm heap starts at its initial size): wasm heap after 10
// vs 10,000 tool rounds, on one long-lived runtime and with a runtime opened and disposed per turn.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { createRuntime } from 'agui-client-tools'; // the package as it ships (dist/, minified)
import '../../js-shim/src/node.js'; // the node loader for src/core.js, whose loadCore the raw rows use
import { loadCore } from '../../js-shim/src/core.js';
import { scriptedRun, streamResponse } from './common.mjs';

const ROUNDS_PER_TURN = 5; // the default maxRounds: the 5th follow-up answers with text, so the cap never bites
const CHECKPOINTS = [10, 100, 1000, 2000, 5000, 10000];

/**
 * A fetch for the tool loop: a run whose request ends with the user message or with fewer than ROUNDS_PER_TURN tool
 * results in this turn calls one tool (tiny arguments, varied so the runaway guard stays quiet); otherwise it
 * answers with text. `seen` records the size of each request.
 */
function loopFetch(seen) {
  let n = 0;
  return async (url, init) => {
    const input = JSON.parse(init.body);
    seen.requestBytes = init.body.length;
    seen.messages = input.messages.length;
    let results = 0;
    for (let i = input.messages.length - 1; i >= 0 && input.messages[i].role !== 'user'; i -= 1) {
      if (input.messages[i].role === 'tool') results += 1;
    }
    n += 1;
    const calls = results < ROUNDS_PER_TURN ? 1 : 0;
    return streamResponse([scriptedRun(input.threadId, input.runId, { calls, args: () => ({ i: n }) })]);
  };
}

const noop = {
  name: 'noop',
  description: 'returns a small result',
  parameters: { type: 'object', properties: { i: { type: 'integer' } } },
};

async function run(mode, rounds, budgetMs) {
  const core = await loadCore();
  const heap = () => core.HEAP8.buffer.byteLength;
  const seen = { requestBytes: 0, messages: 0 };
  const fetch = loopFetch(seen);
  let done = 0;
  const handler = (args) => ({ ok: true, i: args.i });
  const open = () => createRuntime({ url: 'http://bench.invalid/agent', fetch, tools: [{ ...noop, handler }] });
  let runtime = mode === 'long' ? await open() : null;
  const initialHeap = heap();
  const points = [];
  const growth = [initialHeap];
  const t0 = performance.now();
  let stoppedAt = null;
  let turnNo = 0;
  while (done < rounds) {
    if (mode === 'fresh') runtime = await open();
    let executed = 0;
    const stop = runtime.subscribe((c) => {
      if (c.kind === 'tool_call_status' && c.status === 'running') executed += 1;
    });
    const result = await runtime.send(`turn ${turnNo}`);
    turnNo += 1;
    stop();
    assert.equal(result.reason, 'done', JSON.stringify(result));
    assert.equal(executed, ROUNDS_PER_TURN);
    if (mode === 'fresh') runtime.dispose();
    done += executed;
    if (heap() !== growth[growth.length - 1]) growth.push(heap());
    if (CHECKPOINTS.includes(done)) {
      globalThis.gc?.();
      points.push({
        rounds: done,
        heap: heap(),
        jsHeapUsed: process.memoryUsage().heapUsed,
        threadMessages: seen.messages,
        requestBytes: seen.requestBytes,
        elapsedMs: performance.now() - t0,
      });
    }
    if (performance.now() - t0 > budgetMs && done >= 10) {
      stoppedAt = done;
      points.push({
        rounds: done,
        heap: heap(),
        jsHeapUsed: process.memoryUsage().heapUsed,
        threadMessages: seen.messages,
        requestBytes: seen.requestBytes,
        elapsedMs: performance.now() - t0,
      });
      break;
    }
  }
  if (mode === 'long') runtime.dispose();
  return {
    mode,
    targetRounds: rounds,
    rounds: done,
    stoppedAt,
    budgetMs,
    initialHeap,
    growth,
    points,
    elapsedMs: performance.now() - t0,
  };
}

if (process.argv[2] === '--child') {
  const [mode, rounds, budget] = process.argv.slice(3);
  console.log(JSON.stringify(await run(mode, Number(rounds), Number(budget))));
  process.exit(0);
}

/** Runs each mode in its own fresh node process (a fresh wasm heap). */
export function memoryBench({ rounds = 10000, longBudgetMs = 60000, freshBudgetMs = 120000 } = {}) {
  const self = fileURLToPath(import.meta.url);
  const go = (mode, budget) =>
    JSON.parse(
      execFileSync(process.execPath, ['--expose-gc', self, '--child', mode, String(rounds), String(budget)], {
        encoding: 'utf8',
        maxBuffer: 1 << 24,
      })
        .trim()
        .split('\n')
        .pop(),
    );
  return { fresh: go('fresh', freshBudgetMs), long: go('long', longBudgetMs) };
}
