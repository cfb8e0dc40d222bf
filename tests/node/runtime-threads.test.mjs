// Several threads on one module, and threads that outlive their page: concurrent
// runtimes and openThread() siblings (shared tools, separate threads, each
// disposable), and thread.export() -> JSON -> createRuntime({thread}) restoring
// messages, state, pending approvals, and never running a call twice.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRuntime } from 'agui-client-tools';
import { TEXT_REPLY, replies } from '../support/scenarios.mjs';
import {
  T,
  tool,
  startServer,
  requestsOf,
  open,
  record,
  nextChange,
  toolCalls,
  toolMessages,
  resultOf,
  assertEveryCallAnsweredOnce,
  assertErrorResult,
  assertAguiError,
  lastText,
  deferred,
  within,
} from './helpers.mjs';

const server = await startServer(after);
const roundTrip = (exported) => JSON.parse(JSON.stringify(exported));

const weatherTools = (log = []) => [
  tool('get_weather', async ({ city }) => (log.push(city), `${city}: sunny`)),
  tool('get_time', async () => '09:00'),
  tool('get_location', async () => ({ city: 'Paris' })),
];

test('several runtimes on one module run their turns at once, each on its own thread', T, async (t) => {
  const [a, b, c] = await Promise.all(
    ['one_tool', 'parallel', 'multi_round'].map((s) => open(t, { url: server.url(s), tools: weatherTools() })),
  );
  assert.equal(new Set([a.threadId, b.threadId, c.threadId]).size, 3);
  const results = await Promise.all([a.send('one'), b.send('parallel'), c.send('multi')]);
  assert.deepEqual(results, [{ reason: 'done' }, { reason: 'done' }, { reason: 'done' }]);
  assert.equal(toolMessages(a.messages).length, 1);
  assert.equal(toolMessages(b.messages).length, 3);
  assert.equal(toolMessages(c.messages).length, 2);
  for (const rt of [a, b, c]) {
    assertEveryCallAnsweredOnce(rt.messages);
    for (const r of requestsOf(server, rt)) assert.equal(r.error, null);
  }
  // Disposing one leaves the others working.
  a.dispose();
  assertAguiError(() => a.messages, 'invalid_state');
  assert.deepEqual(await b.send('again'), { reason: 'done' });
});

test('openThread(): a sibling thread sharing the tools and their toggles, with its own messages', T, async (t) => {
  const log = [];
  const main = await open(t, { url: server.url('one_tool'), tools: weatherTools(log) });
  const side = main.openThread({ url: server.url('parallel') });
  t.after(() => side.dispose());
  assert.notEqual(side.threadId, main.threadId);
  const named = main.openThread({ threadId: 'my-thread' });
  t.after(() => named.dispose());
  assert.equal(named.threadId, 'my-thread');

  // Tools are shared: registered or toggled on one, seen on the other.
  main.tools.register(tool('delete_file', () => 'gone', { requiresApproval: true }));
  assert.ok(side.tools.list().some((x) => x.name === 'delete_file'));
  const sideChanges = record(side);
  side.tools.setEnabled('get_time', false);
  assert.ok(!main.tools.advertise().some((x) => x.name === 'get_time'));
  assert.equal(sideChanges.of('tools_changed').length, 1);
  side.tools.setEnabled('get_time', true);

  const [r1, r2] = await Promise.all([main.send('paris'), side.send('three calls')]);
  assert.deepEqual([r1, r2], [{ reason: 'done' }, { reason: 'done' }]);
  assert.equal(toolMessages(main.messages).length, 1);
  assert.equal(toolMessages(side.messages).length, 3);
  assert.ok(!main.messages.some((m) => side.messages.some((n) => n.id === m.id)), 'no message is shared');
  assert.deepEqual(log.sort(), ['Paris', 'Paris', 'Tokyo']);

  // Each is disposable on its own; the sibling keeps the shared tools alive.
  main.dispose();
  assert.deepEqual(
    side.tools.advertise().map((x) => x.name),
    ['get_weather', 'get_time', 'get_location', 'delete_file'],
  );
  assert.deepEqual(await side.send('again'), { reason: 'done' });
  side.dispose();
  assertAguiError(() => side.send('x'), 'invalid_state');
  assert.equal(named.tools.list().length, 4, 'the last sibling still holds the tools');
});

test('runtime[Symbol.dispose] works with `using`-style disposal', T, async () => {
  const rt = await createRuntime({ url: server.url('text') });
  await rt.send('hi');
  rt[Symbol.dispose]();
  assertAguiError(() => rt.messages, 'invalid_state');
});

test(
  'export -> JSON -> createRuntime({thread}) restores threadId, messages and state; the thread goes on',
  T,
  async (t) => {
    const a = await open(t, { url: server.url('state_counter') });
    await a.send('count');
    await a.send('count');
    assert.deepEqual(a.state, { count: 2 });
    const exported = a.thread.export();
    assert.equal(exported.format, 'agui-client-tools/thread');
    assert.equal(exported.version, 1);
    const text = JSON.stringify(exported);
    a.dispose();

    const b = await open(t, { url: server.url('state_counter'), thread: JSON.parse(text) });
    assert.equal(b.threadId, exported.threadId);
    assert.deepEqual(b.messages, exported.messages);
    assert.deepEqual(b.state, { count: 2 });
    assert.equal(b.status.phase, 'idle');
    assert.equal(b.resumed, undefined, 'nothing to resume');
    assert.deepEqual(await b.send('count'), { reason: 'done' });
    assert.deepEqual(b.state, { count: 3 });
    assert.equal(lastText(b.messages), replies.counter(3));
    const last = server.requests.at(-1).input;
    assert.equal(last.threadId, exported.threadId);
    assert.deepEqual(last.messages.slice(0, exported.messages.length), exported.messages);
  },
);

test('export of a thread with tool calls restores them answered; nothing runs again', T, async (t) => {
  let runs = 0;
  const a = await open(t, { url: server.url('one_tool'), tools: [tool('get_weather', () => (runs++, 'sunny'))] });
  await a.send('weather?');
  const exported = roundTrip(a.thread.export());
  a.dispose();
  const b = await open(t, {
    url: server.url('one_tool'),
    thread: exported,
    tools: [tool('get_weather', () => (runs++, 'sunny'))],
  });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(runs, 1);
  assert.deepEqual(b.messages, exported.messages);
  assert.equal(b.status.phase, 'idle');
});

test('a pending approval comes back pending; approved on the restored runtime, the turn continues', T, async (t) => {
  const ran = [];
  const deleteFile = () =>
    tool('delete_file', ({ path }) => (ran.push(path), { deleted: path }), { requiresApproval: true });
  const a = await open(t, { url: server.url('approval'), tools: [deleteFile()] });
  const requested = nextChange(a, 'approval_requested');
  const firstTurn = a.send('delete /tmp/x');
  const { approval } = await requested;
  const exported = roundTrip(a.thread.export());
  a.dispose(); // the page goes away
  assert.equal((await firstTurn).reason, 'aborted');

  const b = await open(t, { url: server.url('approval'), thread: exported, tools: [deleteFile()] });
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(b.threadId, a.threadId);
  assert.equal(b.status.phase, 'awaiting');
  assert.deepEqual(
    b.approvals.pending().map((p) => [p.toolCallId, p.name, p.args]),
    [[approval.toolCallId, 'delete_file', { path: '/tmp/x' }]],
  );
  assert.ok(b.resumed instanceof Promise, 'runtime.resumed is the turn it continues');
  assert.deepEqual(ran, []);

  b.approvals.approve(approval.toolCallId);
  assert.deepEqual(await within(b.resumed, 3000, 'the resumed turn'), { reason: 'done' });
  assert.deepEqual(ran, ['/tmp/x'], 'the handler ran once, on the restored runtime');
  const messages = b.messages;
  assertEveryCallAnsweredOnce(messages);
  assert.equal(lastText(messages), replies.approval(resultOf(messages, approval.toolCallId)));
  for (const r of requestsOf(server, b)) assert.equal(r.error, null, 'the server accepted the resumed thread');
});

test('a pending approval restored with approvalTimeoutMs is rejected when that time runs out', T, async (t) => {
  const deleteFile = () => tool('delete_file', () => 'gone', { requiresApproval: true });
  const a = await open(t, { url: server.url('approval'), tools: [deleteFile()] });
  const requested = nextChange(a, 'approval_requested');
  a.send('delete /tmp/x');
  await requested;
  const exported = roundTrip(a.thread.export());
  a.dispose();
  const b = await open(t, {
    url: server.url('approval'),
    thread: exported,
    approvalTimeoutMs: 40,
    tools: [deleteFile()],
  });
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(await within(b.resumed, 3000, 'the resumed turn'), { reason: 'done' });
  assertErrorResult(toolMessages(b.messages)[0], /approval timed out after 40 ms/);
});

test('a call whose handler was running at export is never run again on import', T, async (t) => {
  const started = deferred();
  let runsA = 0;
  let runsB = 0;
  const a = await open(t, {
    url: server.url('one_tool'),
    tools: [
      tool(
        'get_weather',
        (args, ctx) => (
          runsA++,
          started.resolve(),
          new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('gone'))))
        ),
      ),
    ],
  });
  a.send('weather?');
  await started.promise;
  assert.equal(a.status.running.length, 1);
  const exported = roundTrip(a.thread.export());
  a.dispose();

  const b = await open(t, {
    url: server.url('one_tool'),
    thread: exported,
    tools: [tool('get_weather', () => (runsB++, 'sunny'))],
  });
  await new Promise((r) => setTimeout(r, 0));
  assert.ok(b.resumed, 'the import continues the turn');
  assert.deepEqual(await within(b.resumed, 3000, 'the resumed turn'), { reason: 'done' });
  assert.equal(runsA, 1);
  assert.equal(runsB, 0, 'not run again');
  const messages = b.messages;
  assertEveryCallAnsweredOnce(messages);
  const [call] = toolCalls(messages);
  const result = resultOf(messages, call.id);
  assertErrorResult(result, /may have completed, so it was not run again/);
  assert.equal(lastText(messages), replies.weather(result));
  for (const r of requestsOf(server, b)) assert.equal(r.error, null);
});

test('a subscriber added right after createRuntime({thread}) sees the whole resumed turn', T, async (t) => {
  const started = deferred();
  const a = await open(t, {
    url: server.url('one_tool'),
    tools: [
      tool(
        'get_weather',
        (args, ctx) => (
          started.resolve(),
          new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('gone'))))
        ),
      ),
    ],
  });
  a.send('weather?');
  await started.promise;
  const exported = roundTrip(a.thread.export());
  a.dispose();

  const b = await open(t, {
    url: server.url('one_tool'),
    thread: exported,
    tools: [tool('get_weather', () => 'sunny')],
  });
  const seen = record(b); // the usual pattern: subscribe straight after the await
  assert.deepEqual(await within(b.resumed, 3000, 'the resumed turn'), { reason: 'done' });
  const [call] = toolCalls(b.messages);
  const closed = seen.of('tool_call_status').find((c) => c.toolCallId === call.id);
  assert.ok(closed, 'the closing of the call that was running is delivered');
  assert.equal(closed.status, 'error');
  assert.ok(
    seen.of('tool_result').some((c) => c.message.toolCallId === call.id),
    'its tool result is delivered',
  );
  assert.equal(seen.of('request').length, 1, 'the follow-up request is delivered');
  assert.ok(seen.of('round_started').length >= 1);
});

test(
  'an export holding a call no one answered imports with the call closed, and a subscriber added right after is told',
  T,
  async (t) => {
    const a = await open(t, { url: server.url('unanswered_server_tool') });
    assert.deepEqual(await a.send('search'), { reason: 'done' });
    const [call] = toolCalls(a.messages);
    const exported = roundTrip(a.thread.export());
    a.dispose();

    const b = await open(t, { url: server.url('unanswered_server_tool'), thread: exported });
    const seen = record(b); // the usual pattern: subscribe straight after the await
    assertErrorResult(resultOf(b.messages, call.id), /no result was received from the agent for tool 'search_docs'/);
    await within(new Promise((resolve) => setTimeout(resolve, 20)), 1000, 'a macrotask');
    assert.equal(
      seen.of('tool_call_status').find((c) => c.toolCallId === call.id)?.status,
      'error',
      'the closing is delivered',
    );
    assert.ok(
      seen.of('tool_result').some((c) => c.message.toolCallId === call.id),
      'its tool result is delivered',
    );
    assert.deepEqual(await b.send('and now?'), { reason: 'done' }, 'the next turn goes through');
    assert.equal(lastText(b.messages), TEXT_REPLY);
    assert.equal(seen.of('tool_result').filter((c) => c.message.toolCallId === call.id).length, 1, 'told once');
  },
);

test('a pending interrupt comes back pending and is answered on the restored runtime', T, async (t) => {
  const a = await open(t, { url: server.url('interrupt') });
  const raised = nextChange(a, 'interrupts');
  a.send('clean');
  await raised;
  const exported = roundTrip(a.thread.export());
  a.dispose();
  const b = await open(t, { url: server.url('interrupt'), thread: exported });
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(
    b.interrupts.pending().map((i) => i.id),
    ['int-1'],
  );
  assertAguiError(() => b.interrupts.resolve('int-1', { confirm: 'no' }), 'invalid_argument', /responseSchema/);
  b.interrupts.resolve('int-1', { confirm: true });
  assert.deepEqual(await within(b.resumed, 3000, 'the resumed turn'), { reason: 'done' });
  assert.equal(lastText(b.messages), replies.resumed('int-1', { status: 'resolved', payload: { confirm: true } }));
});

test('openThread({thread}) restores an export into a sibling', T, async (t) => {
  const a = await open(t, { url: server.url('text') });
  await a.send('hello');
  const exported = roundTrip(a.thread.export());
  const b = a.openThread({ thread: { ...exported, threadId: 'copy-of-a' } });
  t.after(() => b.dispose());
  assert.equal(b.threadId, 'copy-of-a');
  assert.deepEqual(b.messages, exported.messages);
  assert.deepEqual(await b.send('and again'), { reason: 'done' });
  assert.equal(lastText(b.messages), TEXT_REPLY);
  assert.equal(a.messages.length, 2, 'the original is untouched');
});

test(
  'init() and createRuntime({wasm}) take the module bytes explicitly (for bundlers that do not ship the .wasm)',
  T,
  async (t) => {
    const { init } = await import('agui-client-tools');
    const fs = await import('node:fs');
    const bytes = new Uint8Array(fs.readFileSync(new URL('../../js-shim/dist/agui_core.wasm', import.meta.url)));
    const module = await init({ wasm: bytes });
    assert.equal(typeof module.errorCodes, 'function');
    const rt = await open(t, { url: server.url('text'), wasm: bytes.buffer.slice(0) });
    assert.deepEqual(await rt.send('hi'), { reason: 'done' });
    assert.equal(lastText(rt.messages), TEXT_REPLY);
  },
);

test('options.headers reach the agent with every run, beside the content negotiation headers', T, async (t) => {
  const rt = await open(t, {
    url: server.url('one_tool'),
    headers: { authorization: 'Bearer test-token', 'x-app': 'tests' },
    tools: [tool('get_weather', () => 'sunny')],
  });
  await rt.send('weather?');
  const runs = requestsOf(server, rt);
  assert.equal(runs.length, 2);
  for (const r of runs) {
    assert.equal(r.headers.authorization, 'Bearer test-token');
    assert.equal(r.headers['x-app'], 'tests');
    assert.match(r.headers['content-type'], /^application\/json/);
    assert.match(r.headers.accept, /text\/event-stream/);
  }
});

// ------------------------------------------------------------ thread ids and stores as arguments (issue 32 §12)

const lonely = 'th-\ud800-x'; // a lone surrogate: saved under its U+FFFD form, it would never be found again

test('every entry point refuses a thread id that is not a non-empty, well-formed string, naming it', T, async (t) => {
  const { AguiError, memoryStore } = await import('agui-client-tools');
  const refused = (where, kind) => (e) =>
    e instanceof AguiError &&
    e.code === 'invalid_argument' &&
    e.message === `${where} must be a non-empty string, not ${kind}`;
  const surrogate = (where) => (e) =>
    e instanceof AguiError &&
    e.code === 'invalid_argument' &&
    e.message === `${where} must be well-formed text: "th-\\ud800-x" has a lone surrogate (U+D800) at index 3`;
  const persist = memoryStore();
  const rt = await open(t, { url: server.url('text'), persist });
  for (const [id, kind] of [
    [undefined, 'missing'],
    [null, 'null'],
    [{}, 'an object'],
    ['', 'an empty string'],
    [7, 'a number'],
  ]) {
    await assert.rejects(rt.openStoredThread(id), refused('openStoredThread(): threadId', kind));
    if (id === undefined) continue; // (no threadId: a new thread)
    const where = 'createRuntime(): options.threadId';
    await assert.rejects(createRuntime({ url: server.url('text'), threadId: id }), refused(where, kind));
    await assert.rejects(createRuntime({ url: server.url('text'), threadId: id, persist }), refused(where, kind));
    assertAguiError(() => rt.openThread({ threadId: id, persist: undefined }), 'invalid_argument');
  }
  await assert.rejects(rt.openStoredThread(lonely), surrogate('openStoredThread(): threadId'));
  await assert.rejects(
    createRuntime({ url: server.url('text'), threadId: lonely, persist }),
    surrogate('createRuntime(): options.threadId'),
  );
  assert.throws(
    () => rt.openThread({ threadId: lonely, persist: undefined }),
    surrogate('openThread(): options.threadId'),
  );
  await assert.rejects(persist.save(lonely, { messages: [] }), surrogate('memoryStore().save(): threadId'));
  assert.deepEqual(await persist.list(), [], 'no thread was opened or stored under a refused id');
  // A well-formed pair is an id like any other.
  const paired = await rt.openStoredThread('th-😀');
  t.after(() => paired.dispose());
  assert.equal(paired.threadId, 'th-😀');
});

test(
  'openThread() checks a persist store as createRuntime() does, and refuses an export to import into one',
  T,
  async (t) => {
    const { AguiError, memoryStore } = await import('agui-client-tools');
    const rt = await open(t, { url: server.url('text') });
    for (const [persist, kind] of [
      [{}, 'an object'],
      [5, 'a number'],
      [null, 'null'],
    ]) {
      const thrown = assertAguiError(() => rt.openThread({ persist }), 'invalid_argument');
      assert.equal(
        thrown.message,
        'openThread(): options.persist must be a thread store (an object with load() and save(); ' +
          `see memoryStore(), indexedDbStore()), not ${kind}`,
      );
      await assert.rejects(
        createRuntime({ url: server.url('text'), persist }),
        (e) => e instanceof AguiError && e.message === thrown.message.replace('openThread()', 'createRuntime()'),
      );
    }
    // The store may hold that thread (then it is the truth): openThread() cannot know, being synchronous.
    const exported = rt.thread.export();
    assertAguiError(
      () => rt.openThread({ persist: memoryStore(), thread: exported }),
      'invalid_argument',
      /^openThread\(\): a thread to import with persist: use createRuntime\(\{ persist, thread \}\), which first loads what the store holds for it$/,
    );
  },
);

test(
  'thread.delete() after dispose() rejects with invalid_state, as a promise does, and never throws',
  T,
  async (t) => {
    const { memoryStore } = await import('agui-client-tools');
    const rt = await createRuntime({ url: server.url('text'), persist: memoryStore(), threadId: 'th-gone' });
    rt.dispose();
    let deleting;
    assert.doesNotThrow(() => (deleting = rt.thread.delete()));
    await assert.rejects(deleting, (e) => e.code === 'invalid_state' && /this runtime was disposed/.test(e.message));
    await assert.rejects(rt.openStoredThread('th-gone'), (e) => e.code === 'invalid_state');
  },
);
