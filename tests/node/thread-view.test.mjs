// createThreadView(runtime): the store the React hooks read. Against the real test server: after
// every turn the view agrees with runtime.messages (order, each message, each call's arguments and
// result, a tool message where the core put it); a text delta replaces only its message (the list
// stays the same array) and notifies only that message's listeners; a partial argument makes a
// new call object; status, approvals and interrupts are replaced only when they change; a
// MESSAGES_SNAPSHOT that repeats the thread keeps every object it did not change; a turn of N calls
// on one message costs the view O(N) array work and a status read per call that runs, not per call.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createThreadView } from 'agui-client-tools';
import { T, tool, startServer, open, scriptedFetch } from './helpers.mjs';

const server = await startServer(after);
const weather = (calls) => tool('get_weather', ({ city }) => (calls?.push(city), { city, tempC: 21 }));
const time = tool('get_time', () => '12:00');

async function viewOf(t, scenario, tools, urlOptions) {
  const runtime = await open(t, { url: server.url(scenario, urlOptions), tools });
  const view = createThreadView(runtime);
  t.after(() => view.dispose());
  return { runtime, view };
}

/** Everything the view holds, checked against the runtime's own messages. */
function assertAgrees(view, runtime) {
  const messages = runtime.messages;
  assert.deepEqual(
    view.messages(),
    messages.map(({ id, role }) => ({ id, role })),
    'the list, in thread order',
  );
  for (const m of messages) {
    assert.deepEqual(view.message(m.id), m, `message ${m.id}`);
    for (const call of m.toolCalls ?? []) {
      const v = view.toolCall(call.id);
      assert.equal(v.messageId, m.id);
      assert.equal(v.name, call.function.name);
      assert.equal(v.argsText, call.function.arguments);
      assert.deepEqual(v.args, JSON.parse(call.function.arguments));
      const answer = messages.find((r) => r.role === 'tool' && r.toolCallId === call.id);
      assert.deepEqual(v.result, answer?.content, `the result of ${call.id}`);
    }
  }
}

/** Counts the notifications per key of everything the view holds now and later. */
function countNotifications(view, keys) {
  const counts = new Map();
  const stops = keys.map((key) => view.subscribe(key, () => counts.set(key, (counts.get(key) ?? 0) + 1)));
  return { counts, stop: () => stops.forEach((s) => s()) };
}

test('a text turn: the view agrees with the thread, and a delta replaces only its message', T, async (t) => {
  const { runtime, view } = await viewOf(t, 'text');
  const lists = new Set();
  const texts = [];
  view.subscribe('messages', () => lists.add(view.messages()));
  runtime.subscribe((c) => {
    if (c.kind !== 'text_appended') return;
    const before = view.messages();
    texts.push(view.message(c.messageId).content);
    assert.equal(view.messages(), before, 'a delta leaves the list the same array');
  });
  const answerKeys = [];
  view.subscribe('messages', () => {
    for (const e of view.messages()) if (!answerKeys.includes(e.id)) answerKeys.push(e.id);
  });
  assert.equal((await runtime.send('hi')).reason, 'done');
  assertAgrees(view, runtime);
  assert.equal(lists.size, 2, 'the list was replaced twice: the user message, the answer');
  assert.deepEqual(texts, ['Hello', 'Hello, wor', 'Hello, world! ', 'Hello, world! Grüße ☀️']);

  // Another turn: the first turn's messages are not notified while the second streams.
  const { counts } = countNotifications(view, [...answerKeys.map((id) => `message:${id}`), 'messages']);
  await runtime.send('again');
  for (const id of answerKeys) assert.equal(counts.get(`message:${id}`), undefined, `message ${id} untouched`);
  assert.equal(counts.get('messages'), 2);
  const answer = view.messages().at(-1);
  assert.equal(view.message(answer.id).content, 'Hello, world! Grüße ☀️');
});

test(
  'parallel calls: a new call object per partial, final arguments parsed, results placed as the core places them',
  T,
  async (t) => {
    // Written in small segments, so the arguments reach the runtime over several steps.
    const { runtime, view } = await viewOf(t, 'parallel', [weather(), time], { chunked: 16 });
    const seen = new Map(); // toolCallId -> call snapshots, in order
    runtime.subscribe((c) => {
      if (c.kind !== 'tool_call_partial') return;
      const snapshot = view.toolCall(c.toolCallId);
      const list = seen.get(c.toolCallId) ?? [];
      assert.notEqual(snapshot, list.at(-1), 'each partial change makes a new call object');
      assert.equal(snapshot.args, c.args, 'holding the value the change carries');
      seen.set(c.toolCallId, [...list, snapshot]);
    });
    assert.equal((await runtime.send('go')).reason, 'done');
    assertAgrees(view, runtime);
    assert.equal(seen.size, 3, 'every call streamed');
    for (const [id, snapshots] of seen) {
      assert.ok(snapshots.length >= 2, `${id}: its arguments arrived in pieces (${snapshots.length})`);
      assert.equal(view.toolCall(id).state, 'done');
    }
    const [paris] = [...seen.keys()];
    assert.deepEqual(view.toolCall(paris).args, { city: 'Paris' });
  },
);

test('a server call answered in the stream, then a client call: both with their results', T, async (t) => {
  const { runtime, view } = await viewOf(t, 'server_tool', [weather()]);
  assert.equal((await runtime.send('go')).reason, 'done');
  assertAgrees(view, runtime);
  const calls = runtime.messages.flatMap((m) => m.toolCalls ?? []);
  assert.equal(view.toolCall(calls[0].id).result, 'AG-UI is an event protocol.');
});

test(
  'approvals: the pending list is a snapshot replaced when it changes; the call goes pending_approval -> running -> done',
  T,
  async (t) => {
    const destructive = tool('delete_file', () => ({ deleted: true }), { destructive: true });
    const { runtime, view } = await viewOf(t, 'approval', [destructive]);
    const states = [];
    const approvals = [];
    const statuses = [];
    view.subscribe('approvals', () => approvals.push(view.approvals()));
    view.subscribe('status', () => statuses.push(view.status()));
    runtime.subscribe((c) => c.kind === 'tool_call_status' && states.push(view.toolCall(c.toolCallId).state));
    const turn = runtime.send('delete it');
    while (view.approvals().length === 0) await new Promise((r) => setTimeout(r, 5));
    const [pending] = view.approvals();
    assert.equal(pending.name, 'delete_file');
    assert.equal(view.toolCall(pending.toolCallId).state, 'pending_approval');
    runtime.approvals.approve(pending.toolCallId);
    assert.equal((await turn).reason, 'done');
    assertAgrees(view, runtime);
    assert.deepEqual(
      approvals.map((a) => a.length),
      [1, 0],
      'replaced twice: the request, the answer',
    );
    for (const [i, s] of statuses.entries())
      if (i > 0) assert.notDeepEqual(s, statuses[i - 1], 'a status is replaced only by a different one');
    assert.deepEqual(states.slice(-3), ['pending_approval', 'running', 'done']);
  },
);

test(
  'a MESSAGES_SNAPSHOT repeating the thread keeps each unchanged object, and the call keeps its state',
  T,
  async (t) => {
    const calls = [];
    const { runtime, view } = await viewOf(t, 'snapshot_replay', [weather(calls)]);
    let before = null;
    runtime.subscribe((c) => {
      if (c.kind === 'round_started' && c.round === 1)
        before = new Map(view.messages().map((e) => [e.id, view.message(e.id)]));
      if (c.kind !== 'messages_replaced') return;
      for (const [id, m] of before) assert.equal(view.message(id), m, `message ${id} kept its object`);
    });
    assert.equal((await runtime.send('weather')).reason, 'done');
    assert.ok(before, 'the follow-up run came');
    assertAgrees(view, runtime);
    assert.deepEqual(calls, ['Paris'], 'ran once');
    const call = runtime.messages.flatMap((m) => m.toolCalls ?? [])[0];
    assert.equal(view.toolCall(call.id).state, 'done');
  },
);

test(
  'a view made on a thread already under way reads it whole: answered calls done, unanswered ready',
  T,
  async (t) => {
    const { runtime } = await viewOf(t, 'one_tool', [weather()]);
    await runtime.send('weather');
    const restored = await open(t, { url: server.url('one_tool'), thread: runtime.thread.export() });
    const view = createThreadView(restored);
    t.after(() => view.dispose());
    assertAgrees(view, restored);
    const call = restored.messages.flatMap((m) => m.toolCalls ?? [])[0];
    assert.equal(view.toolCall(call.id).state, 'done');
    assert.equal(view.status().phase, 'idle');
    view.dispose();
    const lists = view.messages();
    await restored.send('again').catch(() => {});
    assert.equal(view.messages(), lists, 'a disposed view follows no more');
  },
);

/**
 * Counts the array elements Array's methods and array iteration (spread, for-of) read or write
 * while `counting()` holds: the work of copying or scanning a list, whatever the code calls.
 */
function countArrayWork(counting) {
  const methods = [
    'map',
    'filter',
    'slice',
    'concat',
    'splice',
    'flat',
    'flatMap',
    'find',
    'findIndex',
    'findLast',
  ].concat(['findLastIndex', 'indexOf', 'lastIndexOf', 'includes', 'some', 'every', 'forEach', 'reduce', 'join']);
  const iterator = Object.getPrototypeOf([][Symbol.iterator]());
  const saved = [...methods.map((name) => [Array.prototype, name]), [iterator, 'next']].map(([o, n]) => [o, n, o[n]]);
  let work = 0;
  for (const [owner, name, original] of saved) {
    owner[name] = function (...args) {
      const result = original.apply(this, args);
      if (counting()) work += name === 'next' ? 1 : this.length + (Array.isArray(result) ? result.length : 0);
      return result;
    };
  }
  return { work: () => work, restore: () => saved.forEach(([owner, name, original]) => (owner[name] = original)) };
}

test(
  'a turn of 400 calls on one message: the view copies no list per call and reads the status only for calls that run',
  T,
  async (t) => {
    const N = 400;
    const { fetch } = scriptedFetch((input, n) => {
      if (n > 0) return [...textEvents('m-answer', 'done')];
      const calls = Array.from({ length: N }, (_, i) => [
        { type: 'TOOL_CALL_START', toolCallId: `c${i}`, toolCallName: 'get_time', parentMessageId: 'm-calls' },
        { type: 'TOOL_CALL_ARGS', toolCallId: `c${i}`, delta: '{}' },
        { type: 'TOOL_CALL_END', toolCallId: `c${i}` },
      ]);
      return [...textEvents('m-calls', 'Let me check.'), ...calls.flat()];
    });
    // 4 calls run; the other 396 get error results (the round's cap).
    const runtime = await open(t, { url: 'http://test.invalid/agent', fetch, tools: [time], maxCallsPerRound: 4 });
    // Work is counted only inside the view's listener, and the status reads it makes there.
    let inView = false;
    let statusReads = 0;
    const status = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(runtime), 'status').get;
    Object.defineProperty(runtime, 'status', { get: () => ((statusReads += inView ? 1 : 0), status.call(runtime)) });
    const subscribe = runtime.subscribe.bind(runtime);
    runtime.subscribe = (listener) =>
      subscribe((change) => {
        inView = true;
        try {
          listener(change);
        } finally {
          inView = false;
        }
      });
    const view = createThreadView(runtime);
    t.after(() => view.dispose());
    const counter = countArrayWork(() => inView);
    let result;
    try {
      result = await runtime.send('go');
    } finally {
      counter.restore();
    }
    assert.equal(result.reason, 'done');
    assertAgrees(view, runtime);
    assert.equal(view.message('m-calls').toolCalls.length, N);
    // Rebuilding the message's calls per call added and ended, and the list per result, is ~N²/2
    // elements each (80,000 for each at 400 calls); linear work is a few elements per call.
    assert.ok(counter.work() <= 4 * N, `array elements the view copied or scanned: ${counter.work()} (<= ${4 * N})`);
    // A status read per call change was ~5 per call (2,000 here), each listing the round's calls in the core.
    assert.ok(statusReads <= 40, `status reads: ${statusReads} (<= 40: the turn's steps and the 4 calls that ran)`);
  },
);

/** A finished assistant text message. */
function textEvents(messageId, text) {
  return [
    { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: text },
    { type: 'TEXT_MESSAGE_END', messageId },
  ];
}
