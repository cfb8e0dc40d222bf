// Faults against the real test server: aborts (mid-stream, mid-handler), dispose()
// mid-turn, HTTP and stream failures, malformed events, and refused API calls. In
// every case the turn ends with a clear result, the thread keeps what it had, and
// a refused call changes nothing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRuntime, AguiError, ERROR_CODES } from 'agui-client-tools';
import { TEXT_REPLY } from '../support/scenarios.mjs';
import {
  T,
  tool,
  startServer,
  requestsOf,
  open,
  record,
  nextChange,
  toolMessages,
  assertEveryCallAnsweredOnce,
  assertErrorResult,
  assertAguiError,
  lastText,
  routedFetch,
  sleep,
  deferred,
  within,
} from './helpers.mjs';

const server = await startServer(after);

/** A runtime on `scenario` that already holds one finished 'text' turn (restored from an export). */
async function withHistory(t, scenario, options = {}) {
  const first = await open(t, { url: server.url('text') });
  await first.send('hello');
  const exported = JSON.parse(JSON.stringify(first.thread.export()));
  first.dispose();
  const rt = await open(t, { url: server.url(scenario), thread: exported, ...options });
  return { rt, history: exported.messages };
}

test('abort mid-stream: the fetch is cancelled, the turn ends aborted, the partial text stays', T, async (t) => {
  const rt = await open(t, { url: server.url('slow') });
  const abortsBefore = server.aborted;
  const firstDelta = nextChange(rt, 'text_appended');
  const turn = rt.send('talk slowly');
  const delta = await firstDelta;
  rt.abort('user pressed stop');
  const result = await turn;
  assert.deepEqual(result, { reason: 'aborted', message: 'user pressed stop' });
  await server.waitForAborts(abortsBefore + 1);
  assert.equal(requestsOf(server, rt).at(-1).aborted, true, 'the server saw the client hang up');
  const last = rt.messages.at(-1);
  assert.equal(last.id, delta.messageId);
  assert.equal(last.content, 'word1 ');
  assert.equal(rt.status.phase, 'idle');
  await sleep(150);
  assert.equal(rt.messages.at(-1).content, 'word1 ', 'nothing is applied after the abort');
  assert.equal(requestsOf(server, rt).length, 1);
});

test('abort while the stream is stalled (no bytes at all for a while)', T, async (t) => {
  const rt = await open(t, { url: server.url('stall') });
  const abortsBefore = server.aborted;
  const delta = nextChange(rt, 'text_appended');
  const turn = rt.send('think');
  await delta;
  rt.abort();
  assert.equal((await turn).reason, 'aborted');
  await server.waitForAborts(abortsBefore + 1);
  assert.equal(lastText(rt.messages), 'Thinking');
});

test(
  'abort mid-handler: ctx.signal aborts, the late result is ignored, the call gets a cancelled error result',
  T,
  async (t) => {
    const routes = routedFetch(server, 'one_tool');
    const handlerStarted = deferred();
    const lateDone = deferred();
    let signal;
    const rt = await open(t, {
      url: server.url('one_tool'),
      fetch: routes.fetch,
      tools: [
        tool('get_weather', (args, ctx) => {
          signal = ctx.signal;
          handlerStarted.resolve();
          return new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () =>
              setTimeout(() => (resolve('late result'), lateDone.resolve()), 10),
            );
          });
        }),
      ],
    });
    const turn = rt.send('weather?');
    await handlerStarted.promise;
    assert.deepEqual(rt.status.running.length, 1);
    rt.abort();
    const result = await turn;
    assert.equal(result.reason, 'aborted');
    assert.equal(signal.aborted, true);
    await lateDone.promise;
    await sleep(10);
    const messages = rt.messages;
    assertEveryCallAnsweredOnce(messages);
    const [message] = toolMessages(messages);
    assertErrorResult(message, /^cancelled: /);
    assert.ok(!message.content.includes('late result'));
    assert.equal(requestsOf(server, rt).length, 1, 'the late result did not start a run');
    // The thread the abort left is one a provider accepts.
    routes.use('text');
    assert.deepEqual(await rt.send('hello again'), { reason: 'done' });
    for (const r of requestsOf(server, rt)) assert.equal(r.error, null);
  },
);

test('dispose() mid-stream resolves the turn as aborted; the runtime refuses every later call', T, async (t) => {
  const rt = await createRuntime({ url: server.url('slow') });
  const abortsBefore = server.aborted;
  const delta = nextChange(rt, 'text_appended');
  const turn = rt.send('talk');
  await delta;
  rt.dispose();
  const result = await within(turn, 2000, 'the turn');
  assert.equal(result.reason, 'aborted');
  await server.waitForAborts(abortsBefore + 1);
  assertAguiError(() => rt.send('more'), 'invalid_state', /disposed/);
  assertAguiError(() => rt.messages, 'invalid_state');
  assertAguiError(() => rt.state, 'invalid_state');
  assertAguiError(() => rt.status, 'invalid_state');
  assertAguiError(() => rt.tools.list(), 'invalid_state');
  assertAguiError(() => rt.tools.register(tool('get_time', () => 1)), 'invalid_state');
  assertAguiError(() => rt.tools.setEnabled('x', true), 'invalid_state');
  assertAguiError(() => rt.thread.export(), 'invalid_state');
  assertAguiError(() => rt.approvals.pending(), 'invalid_state');
  assertAguiError(() => rt.openThread(), 'invalid_state');
  rt.dispose(); // twice is fine
  rt.abort(); // and so is abort after dispose
});

test('dispose() refuses approvals and interrupts with invalid_state too', T, async () => {
  const rt = await createRuntime({ url: server.url('text') });
  rt.dispose();
  assertAguiError(() => rt.approvals.approve('call-1'), 'invalid_state');
  assertAguiError(() => rt.approvals.reject('call-1', 'no'), 'invalid_state');
  assertAguiError(() => rt.interrupts.resolve('int-1', { confirm: true }), 'invalid_state');
  assertAguiError(() => rt.interrupts.cancel('int-1'), 'invalid_state');
});

test('dispose() mid-handler aborts the handler and resolves the turn as aborted', T, async (t) => {
  const started = deferred();
  let signal;
  const rt = await createRuntime({
    url: server.url('one_tool'),
    defaultTimeoutMs: 1000, // the handler below ignores its signal; see the next test
    tools: [tool('get_weather', (a, ctx) => ((signal = ctx.signal), started.resolve(), new Promise(() => {})))],
  });
  const turn = rt.send('weather?');
  await started.promise;
  rt.dispose();
  assert.equal((await within(turn, 2000, 'the turn')).reason, 'aborted');
  assert.equal(signal.aborted, true);
});

test('dispose() / abort() leave no handler timer behind (a node process can exit)', T, async () => {
  const timers = () => process.getActiveResourcesInfo().filter((x) => x === 'Timeout').length;
  const started = deferred();
  const rt = await createRuntime({
    url: server.url('one_tool'),
    defaultTimeoutMs: 1500, // long enough to see, short enough not to hold the suite
    tools: [tool('get_weather', () => (started.resolve(), new Promise(() => {})))],
  });
  const baseline = timers();
  const turn = rt.send('weather?');
  await started.promise;
  rt.dispose();
  await turn;
  await sleep(50);
  assert.ok(timers() <= baseline, `active timers: ${timers()} after dispose, ${baseline} before the turn`);
});

test('HTTP 500: run_error naming the URL and the status; the thread keeps what it had', T, async (t) => {
  const { rt, history } = await withHistory(t, 'http500');
  const result = await rt.send('again');
  assert.equal(result.reason, 'run_error');
  assert.equal(result.code, 'transport');
  assert.ok(result.message.includes(server.url('http500')), result.message);
  assert.match(result.message, /HTTP 500/);
  assert.match(result.message, /boom/);
  const messages = rt.messages;
  assert.deepEqual(messages.slice(0, history.length), history);
  assert.equal(messages.length, history.length + 1, 'plus the user message that was sent');
  assert.equal(messages.at(-1).content, 'again');
  assert.equal(rt.status.phase, 'idle');
});

test('not_sse: run_error naming the content type it got', T, async (t) => {
  const { rt, history } = await withHistory(t, 'not_sse');
  const result = await rt.send('again');
  assert.equal(result.reason, 'run_error');
  assert.equal(result.code, 'transport');
  assert.ok(result.message.includes(server.url('not_sse')));
  assert.match(result.message, /content type 'application\/json', not text\/event-stream/);
  assert.deepEqual(rt.messages.slice(0, history.length), history);
});

test('truncated: the socket dies mid-event; run_error, and the text that arrived stays', T, async (t) => {
  const { rt, history } = await withHistory(t, 'truncated');
  const result = await rt.send('again');
  assert.equal(result.reason, 'run_error');
  assert.equal(result.code, 'transport');
  assert.ok(result.message.includes(server.url('truncated')), result.message);
  assert.match(result.message, /broke off/);
  const messages = rt.messages;
  assert.deepEqual(messages.slice(0, history.length), history);
  assert.equal(lastText(messages), 'This reply is cut off mid-');
});

test("run_error: the agent's RUN_ERROR ends the turn with its message and code", T, async (t) => {
  const { rt, history } = await withHistory(t, 'run_error');
  const changes = record(rt);
  const result = await rt.send('again');
  assert.deepEqual(result, { reason: 'run_error', message: 'model overloaded', code: 'overloaded' });
  assert.deepEqual(changes.of('run_error'), [{ kind: 'run_error', message: 'model overloaded', code: 'overloaded' }]);
  const messages = rt.messages;
  assert.deepEqual(messages.slice(0, history.length), history);
  assert.equal(lastText(messages), 'Working on it');
});

test('a run error while a client call is outstanding closes the call (no unanswered call is left)', T, async (t) => {
  // The first run streams the call and then the socket is cut: the call must be closed.
  const scenariosServer = await startServer(after, {
    scenarios: {
      async *call_then_cut(input, api) {
        const toolCallId = api.id('call');
        yield { type: 'TOOL_CALL_START', toolCallId, toolCallName: 'get_weather' };
        yield { type: 'TOOL_CALL_ARGS', toolCallId, delta: '{"city":"Paris"}' };
        yield { type: 'TOOL_CALL_END', toolCallId };
        await api.cut();
      },
    },
  });
  let runs = 0;
  const rt = await open(t, {
    url: scenariosServer.url('call_then_cut'),
    tools: [tool('get_weather', () => (runs++, 'sunny'))],
  });
  const result = await rt.send('weather?');
  assert.equal(result.reason, 'run_error');
  assert.equal(runs, 0, 'nothing runs from a run that failed');
  const messages = rt.messages;
  assertEveryCallAnsweredOnce(messages);
  assertErrorResult(toolMessages(messages)[0], /the run failed before this call could run/);
});

test('an unreachable agent: run_error naming the URL', T, async (t) => {
  const rt = await open(t, { url: 'http://127.0.0.1:9/agent' });
  const result = await rt.send('anyone?');
  assert.equal(result.reason, 'run_error');
  assert.equal(result.code, 'transport');
  assert.match(result.message, /could not reach the agent at http:\/\/127\.0\.0\.1:9\/agent/);
});

test(
  'a body chunk the wasm heap cannot hold: run_error naming its size; the thread keeps what it had',
  T,
  async (t) => {
    // A fetch of the page's own that hands over a 2 GiB chunk, past the module's memory limit.
    const huge = { byteLength: 2 ** 31, length: 2 ** 31 };
    const fetch = async () =>
      new Response(new ReadableStream({ start: (c) => (c.enqueue(huge), c.close()) }), {
        headers: { 'content-type': 'text/event-stream' },
      });
    const { rt, history } = await withHistory(t, 'text', { fetch });
    const result = await rt.send('one more');
    assert.equal(result.reason, 'run_error');
    assert.equal(result.code, 'transport');
    assert.match(result.message, /broke off: a chunk of 2147483648 bytes does not fit in the wasm heap/);
    assert.deepEqual(rt.messages.slice(0, history.length), history, 'every message it had');
    assert.equal(rt.messages.at(-1).content, 'one more');
  },
);

test(
  'malformed events: each problem is reported as a {kind: "problem"} change; the good events are kept',
  T,
  async (t) => {
    const rt = await open(t, { url: server.url('malformed') });
    const changes = record(rt);
    assert.deepEqual(await rt.send('go'), { reason: 'done' });
    const problems = changes.problems();
    assert.deepEqual(
      problems.map((p) => p.code),
      ['invalid_json', 'unknown_event', 'missing_field', 'unknown_message'],
    );
    for (const p of problems) {
      assert.equal(p.kind, 'problem');
      assert.equal(p.fatal, false);
      assert.equal(typeof p.index, 'number');
      assert.equal(typeof p.eventType, 'string');
      assert.ok(p.message.length > 10);
    }
    assert.match(problems[0].message, /not valid JSON/);
    assert.equal(problems[1].eventType, 'NOT_A_REAL_EVENT');
    assert.match(problems[2].message, /messageId/);
    assert.match(problems[3].message, /nobody-opened-this/);
    assert.equal(lastText(rt.messages), 'before after');
    assert.equal(rt.messages.length, 2);
  },
);

test('limits.maxEventBytes: an oversized event stops the run cleanly with a fatal problem', T, async (t) => {
  const rt = await open(t, { url: server.url('text'), limits: { maxEventBytes: 40 } });
  const changes = record(rt);
  const result = await rt.send('hello');
  assert.equal(result.reason, 'run_error');
  assert.equal(result.code, 'protocol');
  const fatal = changes.problems().filter((p) => p.fatal);
  assert.equal(fatal.length, 1);
  assert.equal(fatal[0].code, 'limit_exceeded');
  assert.equal(rt.messages[0].content, 'hello', 'the thread keeps the user message');
});

test('bad calls to the API throw AguiError with the right code and change nothing', T, async (t) => {
  const rt = await open(t, { url: server.url('text'), tools: [tool('get_weather', () => 'sunny')] });
  await rt.send('hello');
  const before = { list: rt.tools.list(), advertise: rt.tools.advertise(), messages: rt.messages, status: rt.status };
  const unchanged = (what) => {
    assert.deepEqual(rt.tools.list(), before.list, `${what}: tools unchanged`);
    assert.deepEqual(rt.tools.advertise(), before.advertise, `${what}: advertised tools unchanged`);
    assert.deepEqual(rt.messages, before.messages, `${what}: messages unchanged`);
    assert.deepEqual(rt.status, before.status, `${what}: status unchanged`);
  };
  const cases = [
    ['register: bad name', () => rt.tools.register(tool('bad name!', () => 1)), 'invalid_tool', /bad name!/],
    [
      'register: name too long',
      () => rt.tools.register({ ...tool('get_time', () => 1), name: 'x'.repeat(65) }),
      'invalid_tool',
    ],
    [
      'register: missing handler',
      () => rt.tools.register({ name: 'get_time', description: 'time' }),
      'invalid_tool',
      /get_time.*handler/,
    ],
    [
      'register: handler not a function',
      () => rt.tools.register({ name: 'get_time', description: 't', handler: 'x' }),
      'invalid_tool',
    ],
    ['register: not an object', () => rt.tools.register(null), 'invalid_tool'],
    ['register: duplicate', () => rt.tools.register(tool('get_weather', () => 2)), 'duplicate_tool', /get_weather/],
    [
      'register: parameters not an object schema',
      () => rt.tools.register({ ...tool('get_time', () => 1), parameters: { type: 'string' } }),
      null,
    ],
    [
      'register: unserialisable definition',
      () => rt.tools.register({ ...tool('get_time', () => 1), category: 1n }),
      'invalid_tool',
    ],
    ['setEnabled: unknown tool', () => rt.tools.setEnabled('nope', false), 'unknown_tool', /nope/],
    ['unregister: unknown tool', () => rt.tools.unregister('nope'), 'unknown_tool', /nope/],
    ['send(undefined)', () => rt.send(undefined), 'invalid_argument'],
    ['send(123)', () => rt.send(123), 'invalid_argument'],
    ['send([])', () => rt.send([]), 'invalid_argument'],
    ['send([{role}])', () => rt.send([{ role: 'user' }]), 'invalid_argument', /role.*content/],
    [
      'send(a duplicate message id)',
      () => rt.send([{ id: before.messages[0].id, role: 'user', content: 'x' }]),
      'invalid_argument',
      /already in the thread/,
    ],
    ['subscribe(not a function)', () => rt.subscribe('nope'), 'invalid_argument'],
    ['approve(unknown)', () => rt.approvals.approve('nope'), 'unknown_tool_call'],
    ['reject(unknown)', () => rt.approvals.reject('nope'), 'unknown_tool_call'],
    ['interrupts.resolve(unknown)', () => rt.interrupts.resolve('nope', {}), 'unknown_interrupt'],
    ['interrupts.cancel(unknown)', () => rt.interrupts.cancel('nope'), 'unknown_interrupt'],
  ];
  for (const [what, fn, code, pattern] of cases) {
    let thrown;
    try {
      fn();
    } catch (e) {
      thrown = e;
    }
    assert.ok(
      thrown instanceof AguiError,
      `${what}: throws an AguiError (got ${thrown?.constructor?.name}: ${thrown?.message})`,
    );
    assert.ok(ERROR_CODES.includes(thrown.code), `${what}: a known code`);
    if (code) assert.equal(thrown.code, code, `${what}: ${thrown.message}`);
    if (pattern) assert.match(thrown.message, pattern, what);
    unchanged(what);
  }
  // After all that, the runtime still works.
  assert.deepEqual(await rt.send('still there?'), { reason: 'done' });
});

test('createRuntime refuses bad options with invalid_argument', T, async () => {
  const bad = [
    [undefined, /url/],
    [{}, /url/],
    [{ url: server.url('text'), maxRounds: -1 }, /maxRounds/],
    [{ url: server.url('text'), defaultTimeoutMs: 0 }, /defaultTimeoutMs/],
    [{ url: server.url('text'), context: [{ description: 1 }] }, /context/],
    [{ url: server.url('text'), thread: { format: 'something else' } }, /thread import/],
    [
      {
        url: server.url('text'),
        thread: { format: 'agui-client-tools/thread', version: 2, threadId: 't', messages: [] },
      },
      /version/,
    ],
    [
      {
        url: server.url('text'),
        thread: { format: 'agui-client-tools/thread', version: 1, threadId: 't', messages: [{ role: 'user' }] },
      },
      /message 0/,
    ],
  ];
  for (const [options, pattern] of bad) {
    await assert.rejects(createRuntime(options), (e) => {
      assert.ok(
        e instanceof AguiError,
        `${JSON.stringify(options)}: AguiError, got ${e?.constructor?.name}: ${e?.message}`,
      );
      assert.equal(e.code, 'invalid_argument', e.message);
      assert.match(e.message, pattern);
      return true;
    });
  }
});

test('send() with invalid input while a turn is streaming throws and leaves that turn running', T, async (t) => {
  const rt = await open(t, { url: server.url('slow') });
  const delta = nextChange(rt, 'text_appended');
  const turn = rt.send('talk');
  await delta;
  assertAguiError(() => rt.send(123), 'invalid_argument');
  rt.abort('done with this test');
  assert.deepEqual(
    await turn,
    { reason: 'aborted', message: 'done with this test' },
    'the turn was still running until our abort',
  );
});

test(
  'a new valid message mid-stream supersedes the turn: the old one resolves aborted, the new one runs',
  T,
  async (t) => {
    const routes = routedFetch(server, 'slow');
    const rt = await open(t, { url: server.url('slow'), fetch: routes.fetch });
    const delta = nextChange(rt, 'text_appended');
    const first = rt.send('talk');
    await delta;
    routes.use('text');
    const second = rt.send('actually, just say hello');
    assert.equal((await first).reason, 'aborted');
    assert.deepEqual(await second, { reason: 'done' });
    assert.equal(lastText(rt.messages), TEXT_REPLY);
    for (const r of requestsOf(server, rt)) assert.equal(r.error, null);
  },
);

test('a subscriber that throws does not break the turn', T, async (t) => {
  const rt = await open(t, { url: server.url('text') });
  const errors = [];
  const onError = (e) => errors.push(e);
  process.prependListener('uncaughtException', onError);
  t.after(() => process.off('uncaughtException', onError));
  // Keep node:test's own handler from failing the test: swallow only our error.
  const listeners = process.listeners('uncaughtException').filter((l) => l !== onError);
  for (const l of listeners) process.off('uncaughtException', l);
  t.after(() => listeners.forEach((l) => process.on('uncaughtException', l)));
  rt.subscribe(() => {
    throw new Error('subscriber bug');
  });
  const good = record(rt);
  assert.deepEqual(await rt.send('hello'), { reason: 'done' });
  await sleep(0);
  assert.equal(lastText(rt.messages), TEXT_REPLY);
  assert.ok(good.of('turn_ended').length === 1, 'other subscribers still get every change');
  assert.ok(
    errors.length > 0 && errors.every((e) => e.message === 'subscriber bug'),
    'the error is rethrown out of band',
  );
});
