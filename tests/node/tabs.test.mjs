// Tabs on one thread, in node: runtimes in fake tabs of one origin (tests/support/fake-tabs.mjs:
// Web Locks, BroadcastChannel, focus, a crash), sharing one store with a `scope`. The rules of
// docs/persistence.md#tabs that need no real browser: a refused lock or channel leaves the
// runtime alone; focus moved during a hand-over still moves charge; the tab taking over from a
// crashed one keeps what it showed; a follower's send() knows whether its message arrived when
// charge moves; what does not fit on the channel is ignored. tests/browser/tabs.test.mjs tries
// the same in Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRuntime, memoryStore } from 'agui-client-tools';
import { T, record, nextChange, within, sleep, scriptedFetch, sseOf, callEvents, watchEscapes } from './helpers.mjs';
import { FakeOrigin } from '../support/fake-tabs.mjs';

const URL_ = 'http://agent.test/run';
const reply = (text) => [{ type: 'TEXT_MESSAGE_CHUNK', messageId: `m-${text}`, role: 'assistant', delta: text }];

/** A store every fake tab of the origin sees (it has a scope), and a thread id of its own. */
let threadNo = 0;
function shared() {
  return { store: { ...memoryStore(), scope: 'test' }, threadId: `tabs-${threadNo++}` };
}

/** createRuntime() in `tab`, on `store`'s view from that tab; disposed when the test ends. */
async function openIn(t, tab, { store, threadId }, options = {}) {
  const { fetch } = options.fetch ? options : scriptedFetch(() => reply('hi'));
  const runtime = await tab.enter(() =>
    createRuntime({ url: URL_, fetch, persist: tab.view(store), threadId, ...options }),
  );
  const log = record(runtime);
  t.after(() => runtime.dispose());
  return { runtime, log };
}

/** Resolves once `runtime.role` is `role`; rejects after 3 s. */
async function until(runtime, role, what = `role ${role}`) {
  for (let waited = 0; runtime.role !== role; waited += 10) {
    if (waited > 3000) throw new Error(`${what} within 3 s (it is ${runtime.role})`);
    await sleep(10);
  }
}

/** A Response that streams `events` (framed by RUN_STARTED) and then stays open. */
function hangingRun(input, events) {
  const { threadId, runId } = input;
  const text = sseOf([{ type: 'RUN_STARTED', threadId, runId }, ...events]);
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

test('two tabs on one thread: one in charge, the other follows it and its send is carried out there', T, async (t) => {
  const origin = new FakeOrigin();
  const thread = shared();
  const a = await openIn(t, origin.tab(), thread);
  const b = await openIn(t, origin.tab(), thread);
  assert.equal(a.runtime.role, 'leader');
  assert.equal(b.runtime.role, 'follower');
  assert.equal((await b.runtime.send('go')).reason, 'done');
  assert.deepEqual(b.runtime.messages, a.runtime.messages);
  assert.equal(a.runtime.messages.length, 2);
});

test("a follower's send() options and request() are carried out by the tab in charge", T, async (t) => {
  const origin = new FakeOrigin();
  const thread = shared();
  const { fetch, requests } = scriptedFetch((input) =>
    input.runId.startsWith('request-')
      ? [{ type: 'RUN_FINISHED', threadId: input.threadId, runId: input.runId, result: { read: true } }]
      : reply('hi'),
  );
  const a = await openIn(t, origin.tab(), thread, { fetch });
  const b = await openIn(t, origin.tab(), thread, { fetch });
  assert.equal(b.runtime.role, 'follower');
  assert.equal((await b.runtime.send([], { forwardedProps: { action: 1 } })).reason, 'done');
  assert.deepEqual(requests.at(-1).forwardedProps, { action: 1 });
  assert.deepEqual(await b.runtime.request({ forwardedProps: { read: 'x' } }), { result: { read: true } });
  assert.deepEqual(requests.at(-1).forwardedProps, { read: 'x' });
  assert.equal(requests.length, 2, 'each sent once, by the tab in charge');
  assert.deepEqual(b.runtime.messages, a.runtime.messages);
});

// ------------------------------------------------------------ item 4: refusals

test(
  'a lock request refused (an opaque origin) leaves the runtime alone with the reason, and send() settles',
  T,
  async (t) => {
    const origin = new FakeOrigin();
    origin.refuse = new DOMException('Access to the Locks API is denied in this context.', 'SecurityError');
    const thread = shared();
    const { runtime, log } = await openIn(t, origin.tab(), thread);
    assert.equal(runtime.role, 'alone');
    await sleep(5);
    const roles = log.of('role_changed');
    assert.equal(roles.length, 1);
    assert.equal(roles[0].role, 'alone');
    assert.match(roles[0].reason, /not coordinated with other tabs: Web Locks refused: .*SecurityError|denied/);
    assert.equal((await within(runtime.send('go'), 2000, 'send()')).reason, 'done');
    assert.equal(runtime.messages.length, 2);
    // It keeps the thread in the store as a single tab does.
    for (let waited = 0; (await thread.store.load(thread.threadId))?.messages.length !== 2; waited += 10) {
      assert.ok(waited < 2000, 'the thread was written');
      await sleep(10);
    }
  },
);

test('a BroadcastChannel that throws leaves the runtime alone with the reason, and send() settles', T, async (t) => {
  const origin = new FakeOrigin();
  const tab = origin.tab();
  tab.BroadcastChannel = class {
    constructor() {
      throw new DOMException('The operation is insecure.', 'SecurityError');
    }
  };
  const { runtime, log } = await openIn(t, tab, shared());
  assert.equal(runtime.role, 'alone');
  await sleep(5);
  assert.match(log.of('role_changed')[0]?.reason ?? '', /BroadcastChannel refused: .*insecure/);
  assert.equal((await within(runtime.send('go'), 2000, 'send()')).reason, 'done');
});

// ------------------------------------------------------------ item 3: a store that is behind

test(
  'a tab whose store is behind keeps charge when another is focused, and hands over once a write lands',
  { timeout: 15_000 },
  async (t) => {
    const origin = new FakeOrigin();
    const thread = shared();
    const [tabA, tabB] = [origin.tab(), origin.tab()];
    // A's writes fail while `failing` is set (its quota is full, say); B's do not matter here.
    let failing = false;
    const failingStore = { ...thread.store };
    for (const method of ['save', 'append'])
      failingStore[method] = async (...args) => {
        if (failing) throw new Error('QuotaExceededError (the test)');
        return thread.store[method](...args);
      };
    let runs = 0;
    const probe = {
      name: 'probe',
      description: 'p',
      parameters: { type: 'object' },
      requiresApproval: true,
      handler: () => `ran ${++runs}`,
    };
    const { fetch } = scriptedFetch((input, n) => (n === 0 ? callEvents('c1', 'probe') : reply('done')));
    const a = await openIn(t, tabA, { ...thread, store: failingStore }, { fetch, tools: [probe] });
    const b = await openIn(t, tabB, thread, { fetch, tools: [probe] });
    const asked = nextChange(a.runtime, 'approval_requested');
    const turn = a.runtime.send('go');
    await asked;
    // The store holds the call as waiting for approval; from now on A's writes fail.
    const storedStatus = async () => (await thread.store.load(thread.threadId))?.calls?.[0]?.status;
    for (let waited = 0; (await storedStatus()) !== 'pending_approval'; waited += 10) {
      assert.ok(waited < 2000, 'the approval was stored');
      await sleep(10);
    }
    failing = true;
    a.runtime.approvals.approve('c1');
    // Write-ahead: the call's start cannot be made durable, so it does not run, and the follow-up
    // is not sent (docs/persistence.md); A's thread now holds the "not run" answer, its store does not.
    assert.equal((await turn).reason, 'run_error');
    assert.equal(runs, 0);
    assert.ok(a.log.of('storage_failed').length >= 1, 'A said its store failed');
    const turnMessages = a.runtime.messages;
    // The user goes to B: A's store is behind, so A keeps charge; B shows the whole turn.
    tabB.focus();
    await sleep(300);
    assert.equal(a.runtime.role, 'leader', 'A keeps charge while its store is behind');
    assert.equal(b.runtime.role, 'follower');
    assert.deepEqual(b.runtime.messages, turnMessages);
    // The store works again: within HANDOVER_MS a write lands, and B takes charge with every message.
    failing = false;
    await within(
      nextChange(b.runtime, (c) => c.kind === 'role_changed' && c.role === 'leader'),
      5000,
      'B taking charge',
    );
    await sleep(50);
    for (const { runtime } of [a, b]) {
      assert.deepEqual(runtime.messages, turnMessages, 'no message lost');
      assert.deepEqual(runtime.approvals.pending(), [], 'no approval came back');
    }
    assert.equal(runs, 0, 'the call answered "not run" never ran, in either tab');
    assert.equal((await b.runtime.send('again')).reason, 'done');
    assert.equal(runs, 0);
  },
);

// ------------------------------------------------------------ item 11: tabs as a user meets them

test('a tab focused while charge is being handed over to another still takes charge', T, async (t) => {
  const origin = new FakeOrigin();
  const thread = shared();
  // The store takes a while to load (as IndexedDB may): the tab taking charge is not in charge yet
  // when the other tab's wish reaches it.
  const load = thread.store.load;
  thread.store.load = async (id) => (await sleep(50), load(id));
  const [tabA, tabB] = [origin.tab(), origin.tab()];
  const a = await openIn(t, tabA, thread);
  const b = await openIn(t, tabB, thread);
  assert.equal(a.runtime.role, 'leader');
  // The user goes to B: A hands over. The moment A has stepped down, before B is in charge, the user
  // comes back to A.
  const steppedDown = nextChange(a.runtime, (c) => c.kind === 'role_changed' && c.role === 'follower');
  tabB.focus();
  await steppedDown;
  tabA.focus();
  await nextChange(b.runtime, (c) => c.kind === 'role_changed' && c.role === 'leader');
  await within(
    nextChange(a.runtime, (c) => c.kind === 'role_changed' && c.role === 'leader'),
    3000,
    'A, which has the focus, taking charge back',
  );
  await until(b.runtime, 'follower');
});

test('the tab taking over from a crashed one keeps the messages it showed that the store lacks', T, async (t) => {
  const origin = new FakeOrigin();
  const thread = shared();
  const [tabA, tabB] = [origin.tab(), origin.tab()];
  const streaming = [
    { type: 'TEXT_MESSAGE_START', messageId: 'm-live', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-live', delta: 'streamed in the last second' },
  ];
  const { fetch } = scriptedFetch((input) => hangingRun(input, streaming));
  const a = await openIn(t, tabA, thread, { fetch });
  const b = await openIn(t, tabB, thread, { fetch });
  a.runtime.send('go');
  // B shows the streamed message (the store has it only at the next write, within a second).
  for (let waited = 0; !b.runtime.messages.some((m) => m.id === 'm-live' && m.content); waited += 5) {
    assert.ok(waited < 2000, 'B shows the streamed message');
    await sleep(5);
  }
  const shown = b.runtime.messages;
  assert.ok(!(await thread.store.load(thread.threadId)).messages.some((m) => m.id === 'm-live'));
  tabA.crash();
  await until(b.runtime, 'leader');
  assert.deepEqual(b.log.of('storage_failed'), [], 'nothing B showed was lost');
  assert.deepEqual(
    b.runtime.messages.map((m) => [m.id, m.content]),
    shown.map((m) => [m.id, m.content]),
    'every message B showed is still there',
  );
});

test('the tab taking over keeps the result it showed of a call the store still holds as running', T, async (t) => {
  const origin = new FakeOrigin();
  const thread = shared();
  // Writes land 30 ms after they are made (as IndexedDB's may), so a crash can fall in between.
  for (const method of ['save', 'append']) {
    const write = thread.store[method];
    thread.store[method] = async (...args) => (await sleep(30), write(...args));
  }
  const [tabA, tabB] = [origin.tab(), origin.tab()];
  let runs = 0;
  const probe = { name: 'probe', description: 'p', parameters: { type: 'object' }, handler: () => `ran ${++runs}` };
  const { fetch } = scriptedFetch((input, n) => (n === 0 ? callEvents('c1', 'probe') : hangingRun(input, [])));
  const a = await openIn(t, tabA, thread, { fetch, tools: [probe] });
  const b = await openIn(t, tabB, thread, { fetch, tools: [probe] });
  a.runtime.send('go');
  const shown = await nextChange(b.runtime, (c) => c.kind === 'tool_result');
  tabA.crash(); // before the write holding the result lands: the store has the call as running
  assert.equal((await thread.store.load(thread.threadId)).calls?.[0]?.status, 'running');
  await until(b.runtime, 'leader');
  await sleep(50);
  const answers = b.runtime.messages.filter((m) => m.role === 'tool');
  assert.equal(answers.length, 1);
  assert.equal(answers[0].content, shown.message.content, 'the result B showed, not "may have completed"');
  assert.equal(runs, 1);
  assert.deepEqual(b.log.of('storage_failed'), []);
});

test('a follower whose send reached the thread before charge moved gets its outcome, not a refusal', T, async (t) => {
  const origin = new FakeOrigin();
  const thread = shared();
  const [tabA, tabB] = [origin.tab(), origin.tab()];
  const { fetch } = scriptedFetch((input) => hangingRun(input, []));
  const a = await openIn(t, tabA, thread, { fetch });
  const b = await openIn(t, tabB, thread, { fetch });
  const sent = b.runtime.send('go');
  await nextChange(b.runtime, (c) => c.kind === 'round_started'); // (A carries the turn out)
  tabA.crash(); // mid-turn: B takes charge; the run A had posted is gone
  const outcome = await within(sent, 3000, 'the follower send()');
  assert.equal(b.runtime.role, 'leader');
  assert.equal(outcome.reason, 'aborted');
  assert.match(outcome.message, /reached the thread/);
  assert.equal(b.runtime.messages.filter((m) => m.role === 'user').length, 1);
  void a;
});

test('a follower whose send never reached the tab in charge is told it was not sent', T, async (t) => {
  const origin = new FakeOrigin();
  const thread = shared();
  const [tabA, tabB] = [origin.tab(), origin.tab()];
  const a = await openIn(t, tabA, thread);
  const b = await openIn(t, tabB, thread);
  tabA.crash();
  const sent = b.runtime.send('go'); // (B does not know yet: its command goes to a tab that is gone)
  await assert.rejects(within(sent, 3000, 'the follower send()'), (e) => {
    assert.equal(e.code, 'invalid_state');
    assert.match(e.message, /was not sent/);
    return true;
  });
  assert.equal(b.runtime.messages.filter((m) => m.role === 'user').length, 0);
  void a;
});

// ------------------------------------------------------------ item 12: channel hygiene

test('messages that do not fit on the channel are ignored, said once, and break neither tab', T, async (t) => {
  const escapes = watchEscapes();
  t.after(() => escapes.stop());
  const warned = [];
  const warn = console.warn;
  console.warn = (...args) => warned.push(args.join(' '));
  t.after(() => (console.warn = warn));
  const origin = new FakeOrigin();
  const thread = shared();
  const a = await openIn(t, origin.tab(), thread);
  const b = await openIn(t, origin.tab(), thread);
  const [name] = origin.channelNames();
  const junk = [
    null,
    'hello',
    { type: 'step' },
    { type: 'step', from: 'x', changes: [null], view: { status: 5 } },
    { type: 'step', from: 'x', to: 'nobody', changes: [], view: { status: '{}', messages: '{' } },
    { type: 'command', from: 'x', id: 'c1', op: 'constructor', args: [] },
    { type: 'command', from: 'x', id: 'c2', op: 'toString', args: [] },
    { type: 'command', from: 'x', id: 'c3', op: 'send' },
    { type: 'reply', from: 'x', id: 5 },
    { type: 'leader' },
    { type: 'handover', from: 'x' },
    { type: 'want', from: 'a tab that does not exist' },
  ];
  for (const message of junk) origin.inject(name, message);
  // A step that fits the shape, addressed to every follower, with a message list that is no list.
  origin.inject(name, { type: 'step', from: 'x', changes: [], view: { status: '{}', messages: '5' } });
  await sleep(50);
  assert.deepEqual(escapes.escaped, []);
  assert.equal(a.runtime.role, 'leader', 'a want from a tab it does not know hands nothing over');
  assert.equal(b.runtime.role, 'follower');
  assert.deepEqual(b.runtime.messages, a.runtime.messages, "the follower's messages still read");
  assert.equal((await b.runtime.send('go')).reason, 'done', 'and the tabs still work together');
  assert.deepEqual(b.runtime.messages, a.runtime.messages);
  assert.deepEqual(
    a.log.of('role_changed').map((c) => c.role),
    ['leader'],
  );
  assert.equal(warned.filter((w) => /ignored/.test(w)).length, 2, 'each runtime says so once');
});

test(
  'a tab in charge that handed over to a tab that never takes it takes charge back',
  { timeout: 10_000 },
  async (t) => {
    const origin = new FakeOrigin();
    const thread = shared();
    const a = await openIn(t, origin.tab(), thread);
    const [name] = origin.channelNames();
    // A follower that says hello and asks for charge, then is gone without a word.
    origin.inject(name, { type: 'hello', from: 'ghost' });
    origin.inject(name, { type: 'want', from: 'ghost' });
    await nextChange(a.runtime, (c) => c.kind === 'role_changed' && c.role === 'follower');
    await nextChange(a.runtime, (c) => c.kind === 'role_changed' && c.role === 'leader', { timeoutMs: 4000 });
    assert.equal((await a.runtime.send('go')).reason, 'done');
  },
);
