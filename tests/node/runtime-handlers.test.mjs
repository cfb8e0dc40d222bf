// Handlers against the real test server: whatever a handler does (returns any
// value, throws anything, hangs past its timeout, returns what JSON cannot encode)
// the call gets exactly one tool message the model can read, and the turn goes on.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { contentParts } from 'agui-client-tools';
import { replies } from '../support/scenarios.mjs';
import {
  T,
  tool,
  startServer,
  requestsOf,
  open,
  record,
  toolMessages,
  assertEveryCallAnsweredOnce,
  assertErrorResult,
  lastText,
  sleep,
  deferred,
} from './helpers.mjs';

const server = await startServer(after);

/** One one_tool turn with `handler` as get_weather; returns {rt, result, message (the tool message)}. */
async function oneTool(t, handler, { tool: extra, ...options } = {}) {
  const rt = await open(t, { url: server.url('one_tool'), tools: [tool('get_weather', handler, extra)], ...options });
  const result = await rt.send('weather in Paris?');
  const messages = rt.messages;
  assertEveryCallAnsweredOnce(messages);
  const [message] = toolMessages(messages);
  // The model saw the result: the scenario quotes it back.
  assert.equal(lastText(messages), replies.weather(message));
  for (const r of requestsOf(server, rt)) assert.equal(r.error, null, 'the server accepted the thread');
  return { rt, result, message };
}

test('a thrown Error becomes an error result with its message', T, async (t) => {
  const { result, message } = await oneTool(t, () => {
    throw new Error('weather service down');
  });
  assert.deepEqual(result, { reason: 'done' });
  assert.deepEqual(JSON.parse(message.content), { error: 'weather service down' });
  assert.equal(message.error, 'weather service down');
});

test('a rejected promise (async handler) becomes an error result too', T, async (t) => {
  const { message } = await oneTool(t, async () => {
    await sleep(5);
    throw new TypeError('bad things');
  });
  assertErrorResult(message, /^bad things$/);
});

test('a thrown string is the error text as is', T, async (t) => {
  const { message } = await oneTool(t, () => {
    throw 'no such city'; // eslint-disable-line no-throw-literal
  });
  assert.deepEqual(JSON.parse(message.content), { error: 'no such city' });
  assert.equal(message.error, 'no such city');
});

test('a thrown object is the error text as JSON', T, async (t) => {
  const { message } = await oneTool(t, () => {
    throw { code: 503, why: 'maintenance' }; // eslint-disable-line no-throw-literal
  });
  const content = assertErrorResult(message);
  assert.deepEqual(JSON.parse(content.error), { code: 503, why: 'maintenance' });
});

test('a thrown undefined (and null) still becomes a readable error result', T, async (t) => {
  const { message } = await oneTool(t, () => {
    throw undefined; // eslint-disable-line no-throw-literal
  });
  assertErrorResult(message, /threw undefined/);
  const { message: m2 } = await oneTool(t, () => Promise.reject(null)); // eslint-disable-line prefer-promise-reject-errors
  assertErrorResult(m2, /threw null/);
});

test('return values: a string as is, undefined as "", null and numbers and objects as JSON', T, async (t) => {
  const cases = [
    ['sunny', 'sunny'],
    [undefined, ''],
    [null, 'null'],
    [42, '42'],
    [false, 'false'],
    [{ sky: 'sunny', temps: [21, 23], nested: { ok: true } }, '{"sky":"sunny","temps":[21,23],"nested":{"ok":true}}'],
    [['a', 1], '["a",1]'],
    ['', ''],
  ];
  for (const [value, content] of cases) {
    const { message, result } = await oneTool(t, async () => value);
    assert.deepEqual(result, { reason: 'done' });
    assert.equal(message.content, content, `result ${JSON.stringify(value)}`);
    assert.equal(message.error, undefined);
  }
});

test('a result JSON cannot encode (BigInt, a cycle, a function) becomes an error result', T, async (t) => {
  const cycle = { name: 'loop' };
  cycle.self = cycle;
  for (const [what, value] of [
    ['BigInt', { big: 10n }],
    ['cycle', cycle],
    ['function', () => 1],
    ['symbol', Symbol('s')],
  ]) {
    const { message, result } = await oneTool(t, () => value);
    assert.deepEqual(result, { reason: 'done' }, what);
    assertErrorResult(message, /cannot be encoded as JSON/);
  }
});

test(
  'per-tool timeoutMs: the call gets a timeout error, ctx.signal aborts, the late answer is ignored',
  T,
  async (t) => {
    const lateAnswer = deferred();
    let signal;
    const { result, message, rt } = await oneTool(
      t,
      (args, ctx) => {
        signal = ctx.signal;
        return new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            // Answer anyway, a little later: it must be dropped.
            setTimeout(() => {
              resolve('late answer');
              lateAnswer.resolve();
            }, 10);
          });
        });
      },
      { tool: { timeoutMs: 60 }, defaultTimeoutMs: 30_000 },
    );
    assert.deepEqual(result, { reason: 'done' });
    assertErrorResult(message, /timed out after 60 ms/);
    assert.equal(signal.aborted, true, "the handler's ctx.signal was aborted");
    await lateAnswer.promise;
    await sleep(10);
    const contents = toolMessages(rt.messages).map((m) => m.content);
    assert.ok(!contents.some((c) => c.includes('late answer')), 'the late answer never reached the thread');
    assert.equal(toolMessages(rt.messages).length, 1);
    assert.equal(requestsOf(server, rt).length, 2, 'the late answer did not start another run');
  },
);

test(
  'ctx.signal first read after the call ended is already aborted, with the reason (timeout and abort)',
  T,
  async (t) => {
    // The signal is made on first read; a handler that looks only after the call ended must still see why.
    const late = [];
    const readLate = (wait) => async (args, ctx) => {
      await wait;
      late.push({ aborted: ctx.signal.aborted, code: ctx.signal.reason?.code, message: ctx.signal.reason?.message });
    };
    const timedOut = deferred();
    const { message } = await oneTool(t, readLate(timedOut.promise), { tool: { timeoutMs: 30 } });
    assertErrorResult(message, /timed out after 30 ms/);
    timedOut.resolve();
    await sleep(5);
    assert.deepEqual(late, [{ aborted: true, code: 'limit_exceeded', message: 'timed out after 30 ms' }]);

    const gate = deferred();
    const started = deferred();
    const rt = await open(t, {
      url: server.url('one_tool'),
      tools: [tool('get_weather', (args, ctx) => (started.resolve(), readLate(gate.promise)(args, ctx)))],
    });
    const turn = rt.send('weather?');
    await started.promise;
    rt.abort('the user left');
    assert.equal((await turn).reason, 'aborted');
    gate.resolve();
    await sleep(5);
    assert.deepEqual(late[1], { aborted: true, code: 'invalid_state', message: 'the user left' });
  },
);

test('defaultTimeoutMs applies to a tool without its own timeoutMs; a tool timeoutMs overrides it', T, async (t) => {
  const { message } = await oneTool(t, () => new Promise(() => {}), { defaultTimeoutMs: 40 });
  assertErrorResult(message, /timed out after 40 ms/);
  const { message: ok } = await oneTool(t, async () => (await sleep(80), 'slow but fine'), {
    defaultTimeoutMs: 40,
    tool: { timeoutMs: 5000 },
  });
  assert.equal(ok.content, 'slow but fine');
  assert.equal(ok.error, undefined);
});

test('the timeout is reported as a tool_call_status error change', T, async (t) => {
  const rt = await open(t, {
    url: server.url('one_tool'),
    tools: [tool('get_weather', () => new Promise(() => {}), { timeoutMs: 30 })],
  });
  const changes = record(rt);
  await rt.send('weather?');
  const statuses = changes.of('tool_call_status').map((s) => s.status);
  assert.deepEqual(statuses, ['streaming', 'ready', 'running', 'error']);
  assert.match(changes.of('tool_call_status').at(-1).error, /timed out after 30 ms/);
});

test('ctx: threadId and toolCallId of the call; args are the validated, parsed arguments', T, async (t) => {
  let seen;
  const { rt } = await oneTool(t, (args, ctx) => {
    seen = { args, threadId: ctx.threadId, toolCallId: ctx.toolCallId, aborted: ctx.signal.aborted };
    return 'ok';
  });
  const [call] = rt.messages.flatMap((m) => m.toolCalls ?? []);
  assert.deepEqual(seen, { args: { city: 'Paris' }, threadId: rt.threadId, toolCallId: call.id, aborted: false });
});

test('limits.maxResultBytes: a result over the limit becomes an error result', T, async (t) => {
  const { message } = await oneTool(t, () => 'x'.repeat(100), { limits: { maxResultBytes: 64 } });
  assertErrorResult(message, /100 bytes, over the limit of 64 \(maxResultBytes\)/);
  const { message: fits } = await oneTool(t, () => 'x'.repeat(64), { limits: { maxResultBytes: 64 } });
  assert.equal(fits.content, 'x'.repeat(64));
});

test('a handler that throws synchronously in one parallel call does not disturb the others', T, async (t) => {
  const rt = await open(t, {
    url: server.url('parallel'),
    tools: [
      tool('get_weather', ({ city }) => {
        if (city === 'Tokyo') throw new Error('Tokyo unavailable');
        return `${city}: sunny`;
      }),
      tool('get_time', async () => '09:00'),
    ],
  });
  assert.deepEqual(await rt.send('go'), { reason: 'done' });
  const [a, b, c] = toolMessages(rt.messages);
  assert.equal(a.content, 'Paris: sunny');
  assertErrorResult(b, /Tokyo unavailable/);
  assert.equal(c.content, '09:00');
  assert.equal(lastText(rt.messages), replies.parallel(a, b, c));
});

test('a timeoutMs over 2^31-1 ms does not time the handler out at once', T, async (t) => {
  const { message } = await oneTool(t, async () => (await sleep(50), 'in time'), { tool: { timeoutMs: 2 ** 31 } });
  assert.equal(message.content, 'in time');
  assert.equal(message.error, undefined);
});

test("contentParts(): the handler's parts go out as the tool message's ContentPart[]", T, async (t) => {
  const parts = [
    { type: 'text', text: 'Sunny, 21 °C' },
    { type: 'image', source: { type: 'data', value: 'iVBORw0KGgo=', mimeType: 'image/png' } },
    { type: 'document', source: { type: 'url', value: 'https://example.com/forecast.pdf' } },
  ];
  const { rt, result, message } = await oneTool(t, () => contentParts(parts));
  assert.equal(result.reason, 'done');
  assert.deepEqual(message.content, parts);
  assert.equal(message.error, undefined);
  const [, followUp] = requestsOf(server, rt);
  assert.deepEqual(followUp.input.messages.find((m) => m.role === 'tool').content, parts);
  assert.equal(followUp.inputIssues, null, 'a valid RunAgentInput (@ag-ui/core)');
});

test('a plain array is a JSON result, never taken for parts: only contentParts() makes parts', T, async (t) => {
  const { message } = await oneTool(t, () => [{ type: 'text', text: 'x' }]);
  assert.equal(message.content, '[{"type":"text","text":"x"}]');
});

test('contentParts() that are not ContentParts give the call an error result that says where', T, async (t) => {
  const { message } = await oneTool(t, () => contentParts([{ type: 'text', text: 'ok' }, { type: 'image' }]));
  assertErrorResult(message, /the handler's content parts are not AG-UI ContentParts/);
  assert.equal(typeof message.content, 'string');
  assert.match(message.content, /\/1/, 'the details name the part');
});
