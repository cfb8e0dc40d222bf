// Faults that take volume or time, against the real loopback server: a stream
// that goes quiet, bytes that are not UTF-8, 100 MB of text deltas, a handler
// that throws after an abort, a runtime disposed mid-turn (the wasm heap goes
// back to what it was), and 10,000 tool rounds in a row (the heap stays flat).
// The heap figure is the core's bytes in live allocations (heapInUse), not the
// size of its memory, which WebAssembly can only grow.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRuntime, init } from 'agui-client-tools';
import { scenarios as catalogue, say, callTool } from '../support/scenarios.mjs';
import {
  tool,
  startServer,
  open,
  record,
  nextChange,
  toolMessages,
  assertEveryCallAnsweredOnce,
  lastText,
  deferred,
  within,
  sleep,
} from './helpers.mjs';

const MB = 1024 * 1024;
const DELTA = 'x'.repeat(64 * 1024 - 1) + '\n'; // 64 KiB per TEXT_MESSAGE_CONTENT

const scenarios = {
  ...catalogue,
  /** Comments every 100 ms for 600 ms (a keep-alive), then the reply. */
  async *keepalive(input, api) {
    const messageId = api.id('msg');
    yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
    for (let i = 0; i < 6; i += 1) {
      await api.delay(100);
      await api.raw(': keep-alive\n\n');
    }
    yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: 'still here' };
    yield { type: 'TEXT_MESSAGE_END', messageId };
  },
  /** One text event whose delta holds bytes that are not UTF-8, then a clean one. */
  async *not_utf8(input, api) {
    const messageId = api.id('msg');
    yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
    const head = `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"${messageId}","delta":"a`;
    await api.raw(Buffer.concat([Buffer.from(head), Buffer.from([0xff, 0xc3, 0x28]), Buffer.from('b"}\n\n')]));
    yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: ' then clean' };
    yield { type: 'TEXT_MESSAGE_END', messageId };
  },
  /** 100 MB of text deltas in one message (1,600 events of 64 KiB), then a short one. */
  async *flood(input, api) {
    const messageId = api.id('msg');
    yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
    for (let sent = 0; sent < 100 * MB; sent += DELTA.length)
      yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: DELTA };
    yield { type: 'TEXT_MESSAGE_END', messageId };
    yield* say(api, 'after the flood');
  },
  /** Calls get_time until the turn holds 5 results, then answers: 5 rounds per turn. */
  *rounds(input, api) {
    if (api.round >= 5) return yield* say(api, `done after ${api.round} rounds`);
    yield* callTool(api, 'get_time', { timezone: `UTC+${api.round}` }, { pieces: 1 });
  },
};

const server = await startServer(after, { scenarios });
const core = await init(); // the module the package's runtimes share
const heapInUse = () => core.heapInUse();

test(
  'a stream that sends nothing for idleTimeoutMs ends the turn with a run_error naming the limit; the text stays',
  { timeout: 10_000 },
  async (t) => {
    const rt = await open(t, { url: server.url('stall'), idleTimeoutMs: 300 });
    const abortsBefore = server.aborted;
    const started = performance.now();
    const result = await within(rt.send('think'), 5000, 'the turn');
    assert.equal(result.reason, 'run_error');
    assert.equal(result.code, 'transport');
    assert.match(result.message, /sent nothing for 300 ms \(idleTimeoutMs\)/);
    assert.ok(result.message.includes(server.url('stall')), result.message);
    assert.ok(performance.now() - started >= 290, 'not before the limit');
    await server.waitForAborts(abortsBefore + 1); // the request was cancelled, not left open
    assert.equal(lastText(rt.messages), 'Thinking');
    assert.equal(rt.messages[0].content, 'think', 'the thread keeps the user message');
    assert.equal(rt.status.phase, 'idle');
  },
);

test(
  'keep-alive comments count as activity: a slow stream under idleTimeoutMs is not cut',
  { timeout: 10_000 },
  async (t) => {
    const rt = await open(t, { url: server.url('keepalive'), idleTimeoutMs: 300 });
    assert.deepEqual(await rt.send('wait for it'), { reason: 'done' });
    assert.equal(lastText(rt.messages), 'still here');
  },
);

test('idleTimeoutMs must be a number of milliseconds', { timeout: 10_000 }, async () => {
  for (const idleTimeoutMs of [-1, 'soon', Number.NaN]) {
    await assert.rejects(createRuntime({ url: server.url('text'), idleTimeoutMs }), (e) => {
      assert.equal(e.code, 'invalid_argument');
      assert.match(e.message, /idleTimeoutMs must be a number of milliseconds/);
      return true;
    });
  }
});

test(
  'bytes that are not UTF-8 are decoded with U+FFFD as EventSource does, reported, and nothing else is lost',
  { timeout: 10_000 },
  async (t) => {
    const rt = await open(t, { url: server.url('not_utf8') });
    const seen = record(rt);
    assert.deepEqual(await rt.send('hi'), { reason: 'done' });
    assert.equal(lastText(rt.messages), 'a\uFFFD\uFFFD(b then clean');
    const problems = seen.problems();
    assert.equal(problems.length, 1, JSON.stringify(problems));
    assert.equal(problems[0].code, 'invalid_utf8');
    assert.equal(problems[0].fatal, false);
    assert.match(problems[0].message, /2 stretches replaced with U\+FFFD/);
    assert.equal(problems[0].index, 2, 'the index of the event that held them');
  },
);

test(
  '100 MB of text deltas: the default maxMessageBytes stops the run at 16 MiB and keeps the text so far',
  { timeout: 60_000 },
  async (t) => {
    const rt = await open(t, { url: server.url('flood') });
    const seen = record(rt);
    const abortsBefore = server.aborted;
    const result = await rt.send('talk forever');
    assert.equal(result.reason, 'run_error');
    assert.match(result.message, /16777216 bytes \(maxMessageBytes\); the run is stopped/);
    const [problem] = seen.problems();
    assert.equal(problem.code, 'limit_exceeded');
    assert.equal(problem.fatal, true);
    await server.waitForAborts(abortsBefore + 1); // the client stopped reading: the rest was never sent
    const text = lastText(rt.messages);
    assert.equal(text.length, 256 * DELTA.length, '256 whole deltas (16 MiB) were kept');
    assert.ok(text === DELTA.repeat(256), 'the text kept is exactly what was sent');
    assert.equal(rt.messages[0].content, 'talk forever');
  },
);

test(
  '100 MB of text deltas with the limit raised: all of it arrives, intact, and the run goes on',
  { timeout: 120_000 },
  async (t) => {
    const rt = await open(t, { url: server.url('flood'), limits: { maxMessageBytes: 128 * MB } });
    let appended = 0;
    let deltas = 0;
    rt.subscribe((c) => {
      if (c.kind === 'text_appended') {
        appended += c.delta.length;
        deltas += 1;
      }
    });
    assert.deepEqual(await rt.send('talk forever'), { reason: 'done' });
    assert.equal(deltas, 1601);
    assert.equal(appended, 100 * MB + 'after the flood'.length, 'every delta reached the subscriber');
    const messages = rt.messages;
    assert.equal(messages.length, 3, 'the user message, the flood, the reply');
    assert.equal(messages[1].content.length, 100 * MB);
    assert.ok(messages[1].content === DELTA.repeat(1600), 'byte for byte');
    assert.equal(messages[2].content, 'after the flood');
  },
);

test(
  'a handler that throws after the abort changes nothing: the call keeps its cancelled result',
  { timeout: 10_000 },
  async (t) => {
    const started = deferred();
    const threw = deferred();
    const rt = await open(t, {
      url: server.url('rounds'),
      tools: [
        tool('get_time', (args, ctx) => {
          started.resolve();
          return new Promise((_, reject) => {
            ctx.signal.addEventListener('abort', () =>
              setTimeout(() => (reject(new Error('too late')), threw.resolve()), 10),
            );
          });
        }),
      ],
    });
    const turn = rt.send('time?');
    await started.promise;
    rt.abort('stop');
    assert.equal((await turn).reason, 'aborted');
    await threw.promise;
    await sleep(20);
    const [message] = toolMessages(rt.messages);
    assert.match(message.content, /cancelled/);
    assert.doesNotMatch(message.content, /too late/);
    assertEveryCallAnsweredOnce(rt.messages);
    assert.equal(rt.status.phase, 'idle');
  },
);

// A turn of the 'rounds' scenario on a runtime of its own, disposed at the end.
async function oneTurn(options = {}) {
  const rt = await createRuntime({
    url: server.url('rounds'),
    tools: [tool('get_time', (a) => a.timezone)],
    ...options,
  });
  try {
    const result = await rt.send('go');
    assert.deepEqual(result, { reason: 'done' });
    return rt.messages.length;
  } finally {
    rt.dispose();
  }
}

test(
  'dispose() mid-turn frees what the turn held: the wasm heap in use returns to its size before the turn',
  { timeout: 30_000 },
  async () => {
    await oneTurn(); // the first turn ever makes the core's lasting allocations (schema caches, statics)
    const stages = ['streaming', 'running', 'approval'];
    for (const stage of stages) {
      const before = heapInUse();
      for (let i = 0; i < 5; i += 1) {
        const handlerStarted = deferred();
        const rt = await createRuntime({
          url: server.url(stage === 'streaming' ? 'slow' : 'rounds'),
          tools: [
            tool(
              'get_time',
              () => (handlerStarted.resolve(), new Promise(() => {})),
              stage === 'approval' ? { requiresApproval: true } : {},
            ),
          ],
        });
        const turn = rt.send('go');
        if (stage === 'streaming') await nextChange(rt, 'text_appended');
        else if (stage === 'running') await handlerStarted.promise;
        else await nextChange(rt, 'approval_requested');
        assert.ok(heapInUse() > before, `${stage}: the live turn holds memory`);
        rt.dispose();
        assert.equal((await within(turn, 2000, 'the turn')).reason, 'aborted');
      }
      assert.equal(heapInUse(), before, `${stage}: heap in use after 5 turns disposed mid-way`);
    }
  },
);

test('10,000 tool rounds in a row (2,000 turns of 5) leave the wasm heap flat', { timeout: 300_000 }, async () => {
  await oneTurn();
  const checkpoints = new Map();
  let rounds = 0;
  for (let turn = 0; rounds < 10_000; turn += 1) {
    const messages = await oneTurn();
    assert.equal(messages, 1 + 5 * 2 + 1, 'user, 5 x (call, result), reply');
    rounds += 5;
    if (rounds === 100 || rounds === 1000 || rounds === 10_000) checkpoints.set(rounds, heapInUse());
  }
  const at = Object.fromEntries(checkpoints);
  assert.equal(at[10000], at[100], `heap in use by rounds: ${JSON.stringify(at)}`);
});
