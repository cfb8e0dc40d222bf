// createRuntime({persist}): the thread kept in a store and brought back from it, through the
// public API. The store here is a plain object (the adapter interface a page writes for any
// store); what it holds is read back by a second runtime, as a reload would. Write-ahead: a
// handler starts only once the store holds its call as running, so a "crash" at any point after
// never runs it twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  T,
  open,
  record,
  nextChange,
  deferred,
  scriptedFetch,
  callEvents,
  toolMessages,
  assertEveryCallAnsweredOnce,
  assertErrorResult,
  within,
  mapStore,
  storedCallStatus,
} from './helpers.mjs';

const URL_ = 'http://agent.test/run';
const reply = (text) => [{ type: 'TEXT_MESSAGE_CHUNK', messageId: `m-${text}`, role: 'assistant', delta: text }];

test('a turn is kept in the store, and a new runtime on the same thread has every message', T, async (t) => {
  const store = mapStore();
  const { fetch } = scriptedFetch((input, n) => (n === 0 ? callEvents('c1', 'probe', { a: 1 }) : reply('done')));
  const probe = { name: 'probe', description: 'p', parameters: { type: 'object' }, handler: () => 'ok' };
  const first = await open(t, { url: URL_, fetch, tools: [probe], persist: store, threadId: 'th-1' });
  assert.equal((await first.send('go')).reason, 'done');
  // The last write lands (its delay is a timer: a loaded machine may take a while).
  for (let waited = 0; store.records.get('th-1')?.messages.length !== first.messages.length; waited += 10) {
    assert.ok(waited < 5000, 'the last write landed within 5 s');
    await new Promise((r) => setTimeout(r, 10));
  }
  const second = await open(t, { url: URL_, fetch, tools: [probe], persist: store, threadId: 'th-1' });
  assert.deepEqual(second.messages, first.messages);
  assert.ok(store.saves >= 3, `written at each point that matters (${store.saves})`);
});

test('write-ahead: the handler starts only once the store holds its call as running', T, async (t) => {
  const store = mapStore();
  const seenAtStart = [];
  const handlerRan = deferred();
  const probe = {
    name: 'probe',
    description: 'p',
    parameters: { type: 'object' },
    handler: (args, ctx) => {
      seenAtStart.push(storedCallStatus(store, 'th-2', ctx.toolCallId));
      handlerRan.resolve();
      return new Promise(() => {}); // never settles: the page "crashes" while it runs
    },
  };
  const { fetch } = scriptedFetch((input, n) => (n === 0 ? callEvents('c1', 'probe') : reply('after')));
  const first = await open(t, { url: URL_, fetch, tools: [probe], persist: store, threadId: 'th-2' });
  first.send('go');
  await handlerRan.promise;
  assert.deepEqual(seenAtStart, ['running'], 'durable before the handler started');

  // A reload: a new runtime from the store. The call is closed as one that may have completed,
  // its handler is not run again, and the turn goes on with the closed call.
  const runs = [];
  const again = { ...probe, handler: () => runs.push('ran again') };
  const second = await open(t, { url: URL_, fetch, tools: [again], persist: store, threadId: 'th-2' });
  await nextChange(second, 'turn_ended');
  assert.deepEqual(runs, []);
  assertEveryCallAnsweredOnce(second.messages);
  assertErrorResult(toolMessages(second.messages)[0], /may have completed/);
});

test('an approval pending at a reload comes back pending, and runs once when approved', T, async (t) => {
  const store = mapStore();
  const runs = [];
  const del = {
    name: 'delete_file',
    description: 'd',
    parameters: { type: 'object' },
    requiresApproval: true,
    handler: () => runs.push('deleted') && 'ok',
  };
  const { fetch } = scriptedFetch((input, n) => (n === 0 ? callEvents('c1', 'delete_file') : reply('deleted')));
  const first = await open(t, { url: URL_, fetch, tools: [del], persist: store, threadId: 'th-3' });
  const asked = nextChange(first, 'approval_requested');
  first.send('delete');
  await asked;
  await new Promise((r) => setTimeout(r, 20));
  first.dispose(); // the tab goes away (dispose writes the thread as it is: the approval stays pending)

  const second = await open(t, { url: URL_, fetch, tools: [del], persist: store, threadId: 'th-3' });
  assert.deepEqual(
    second.approvals.pending().map((a) => a.toolCallId),
    ['c1'],
  );
  second.approvals.approve('c1');
  assert.equal((await second.resumed).reason, 'done');
  assert.deepEqual(runs, ['deleted']);
  assertEveryCallAnsweredOnce(second.messages);
});

test('a store that fails to save: one storage_failed change, and the turn goes on in memory', T, async (t) => {
  const store = mapStore({ failSave: new Error('disk full') });
  const { fetch } = scriptedFetch((input, n) => (n === 0 ? callEvents('c1', 'probe') : reply('done')));
  const probe = { name: 'probe', description: 'p', parameters: { type: 'object' }, handler: () => 'ok' };
  const runtime = await open(t, { url: URL_, fetch, tools: [probe], persist: store, threadId: 'th-4' });
  const log = record(runtime);
  assert.equal((await runtime.send('go')).reason, 'done');
  const failed = log.of('storage_failed');
  assert.equal(failed.length, 1, 'told once, not at every write');
  assert.equal(failed[0].threadId, 'th-4');
  assert.match(failed[0].message, /saving thread 'th-4' failed: disk full/);
  assertEveryCallAnsweredOnce(runtime.messages);
  assert.equal(toolMessages(runtime.messages)[0].content, 'ok', 'the handler ran: memory goes on');
});

test('a record that cannot be read is reported, never written over, and the runtime works in memory', T, async (t) => {
  const store = mapStore({ failLoad: new Error("record 'th-5' was written by a newer version (format 2)") });
  const { fetch } = scriptedFetch(() => reply('hello'));
  const runtime = await open(t, { url: URL_, fetch, persist: store, threadId: 'th-5' });
  const failed = nextChange(runtime, 'storage_failed');
  assert.match((await failed).message, /loading thread 'th-5' failed: .*newer version \(format 2\)/);
  assert.equal((await runtime.send('hi')).reason, 'done');
  assert.equal(store.saves, 0, 'nothing written over the record it could not read');
});

test('persist must be a store', async () => {
  const { createRuntime, AguiError } = await import('agui-client-tools');
  await assert.rejects(
    createRuntime({ url: URL_, persist: { load() {} } }),
    (e) =>
      e instanceof AguiError &&
      e.code === 'invalid_argument' &&
      /options\.persist must be a thread store/.test(e.message),
  );
});

test('two runtimes of one page on one stored thread: the second says so and works in memory', T, async (t) => {
  const store = mapStore();
  const { fetch } = scriptedFetch(() => reply('hello'));
  const first = await open(t, { url: URL_, fetch, persist: store, threadId: 'th-6' });
  const second = await open(t, { url: URL_, fetch, persist: store, threadId: 'th-6' });
  const failed = await nextChange(second, 'storage_failed');
  assert.match(failed.message, /thread 'th-6' is already kept in this store by another runtime of this page/);
  assert.equal((await second.send('hi')).reason, 'done', 'it works in memory');
  assert.equal((await first.send('hi')).reason, 'done');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(store.records.get('th-6').messages.length, first.messages.length, 'the store holds the first one');
  const kept = first.messages;
  first.dispose();
  await new Promise((r) => setTimeout(r, 20));
  const third = await open(t, { url: URL_, fetch, persist: store, threadId: 'th-6' });
  const log = record(third);
  assert.deepEqual(third.messages, kept, 'once the first is disposed, the thread is kept by the next');
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(log.of('storage_failed'), []);
});

test('openThread() with persist opens new threads; a stored one by id is openStoredThread()', T, async (t) => {
  const store = mapStore();
  const { fetch } = scriptedFetch(() => reply('hello'));
  const first = await open(t, { url: URL_, fetch, persist: store, threadId: 'th-7' });
  await first.send('hi');
  await new Promise((r) => setTimeout(r, 20));
  const other = first.openThread();
  t.after(() => other.dispose());
  await other.send('hello there');
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(store.records.has(other.threadId), 'a new thread is kept too');
  assert.throws(
    () => first.openThread({ threadId: 'th-7' }),
    /openThread\(\): a threadId with persist: open a stored thread with openStoredThread\(threadId\), which loads it/,
  );
  assert.equal(store.records.get('th-7').messages.length, first.messages.length, 'nothing written over it');
  // The stored thread reopened beside it, on the same tools (a toggle in one is seen by the other).
  const before = other.messages;
  other.dispose();
  first.tools.register({ name: 'probe', description: 'p', parameters: { type: 'object' }, handler: () => 'ok' });
  const again = await first.openStoredThread(other.threadId);
  t.after(() => again.dispose());
  assert.deepEqual(again.messages, before);
  first.tools.setEnabled('probe', false);
  assert.equal(again.tools.list().find((x) => x.name === 'probe').enabled, false);
  await assert.rejects(
    first.openThread({ persist: undefined }).openStoredThread('x'),
    /openStoredThread\(\): this runtime has no persist store/,
  );
});

test('thread.delete(): gone from the store, and no write in flight brings it back', T, async (t) => {
  const store = mapStore();
  const { fetch } = scriptedFetch(() => reply('hello'));
  const runtime = await open(t, { url: URL_, fetch, persist: store, threadId: 'th-8' });
  await runtime.send('hi'); // its last write is in flight now
  await runtime.thread.delete();
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(store.records.has('th-8'), false);
  assert.throws(() => runtime.messages, /disposed/);
  const memoryOnly = await open(t, { url: URL_, fetch });
  await assert.rejects(memoryOnly.thread.delete(), /thread\.delete\(\): this runtime has no persist store/);
});

test(
  'a save that never settles counts as failed after saveTimeoutMs: told once, and the handlers run',
  T,
  async (t) => {
    const store = { ...mapStore(), save: () => new Promise(() => {}) }; // (hangs: a stuck remote store)
    const { fetch } = scriptedFetch((input, n) => (n === 0 ? callEvents('c1', 'probe') : reply('done')));
    const probe = { name: 'probe', description: 'p', parameters: { type: 'object' }, handler: () => 'ok' };
    const runtime = await open(t, {
      url: URL_,
      fetch,
      tools: [probe],
      persist: store,
      threadId: 'th-hang',
      saveTimeoutMs: 30,
    });
    const log = record(runtime);
    assert.equal((await runtime.send('go')).reason, 'done', 'the turn did not wait on the store forever');
    const failed = log.of('storage_failed');
    assert.equal(failed.length, 1);
    assert.match(
      failed[0].message,
      /saving thread 'th-hang' failed: save\(\) did not settle within 30 ms \(saveTimeoutMs\)/,
    );
    assert.equal(toolMessages(runtime.messages)[0].content, 'ok');
  },
);

test(
  'a store shared by tabs (it has a scope) where tabs cannot be coordinated: said once, and the runtime is alone',
  T,
  async (t) => {
    const store = { ...mapStore(), scope: 'test:shared' };
    const { fetch } = scriptedFetch(() => reply('hi'));
    const runtime = await open(t, { url: URL_, fetch, persist: store, threadId: 'th-alone' });
    const log = record(runtime);
    await runtime.send('go');
    await new Promise((r) => setTimeout(r, 20)); // (it is said in a macrotask, after subscribe())
    assert.equal(runtime.role, 'alone');
    const roles = log.of('role_changed');
    assert.equal(roles.length, 1, 'said once');
    assert.equal(roles[0].role, 'alone');
    assert.equal(roles[0].threadId, 'th-alone');
    // (node 20 has no navigator.locks; a node with Web Locks would lack nothing but BroadcastChannel.)
    assert.match(
      roles[0].reason,
      /^thread 'th-alone' is not coordinated with other tabs: this environment has no (Web Locks API|BroadcastChannel)$/,
    );
    assert.deepEqual(log.of('storage_failed'), []);
  },
);

test('a store without a scope (this page only) and a runtime without a store say nothing about tabs', T, async (t) => {
  const { fetch } = scriptedFetch(() => reply('hi'));
  for (const options of [{ persist: mapStore(), threadId: 'th-own' }, {}]) {
    const runtime = await open(t, { url: URL_, fetch, ...options });
    const log = record(runtime);
    await runtime.send('go');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(runtime.role, 'alone');
    assert.deepEqual(log.of('role_changed'), []);
  }
});

// ------------------------------------------------------------ the store is the truth (issue 32 §5, §6)

/** Resolves once `store` (memoryStore()) holds `runtime`'s thread as the runtime has it now. */
async function landed(store, runtime) {
  for (let waited = 0; ; waited += 10) {
    const stored = await store.load(runtime.threadId);
    if (JSON.stringify(stored?.messages) === JSON.stringify(runtime.messages)) return stored;
    assert.ok(waited < 5000, 'the last write landed within 5 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test(
  'an older export passed with a store that holds the thread further along is refused: nothing runs again',
  T,
  async (t) => {
    const { createRuntime, AguiError, memoryStore } = await import('agui-client-tools');
    const store = memoryStore();
    const runs = [];
    const del = {
      name: 'delete_file',
      description: 'd',
      parameters: { type: 'object' },
      requiresApproval: true,
      handler: () => runs.push('deleted') && 'ok',
    };
    const { fetch } = scriptedFetch((input, n) => (n === 0 ? callEvents('c1', 'delete_file') : reply('deleted')));
    const first = await open(t, { url: URL_, fetch, tools: [del], persist: store, threadId: 'th-old' });
    const asked = nextChange(first, 'approval_requested');
    first.send('delete');
    await asked;
    const old = JSON.parse(JSON.stringify(first.thread.export())); // taken while the approval is pending
    first.approvals.approve('c1');
    await nextChange(first, 'turn_ended');
    const later = await landed(store, first);
    first.dispose();

    await assert.rejects(
      createRuntime({ url: URL_, fetch, tools: [del], persist: store, thread: old }),
      (e) =>
        e instanceof AguiError &&
        e.code === 'invalid_argument' &&
        e.message.startsWith(
          "createRuntime(): options.thread: memoryStore() (options.persist) already holds thread 'th-old'",
        ) &&
        e.message.includes("open the stored one with createRuntime({ persist, threadId: 'th-old' }) and no thread"),
    );
    await new Promise((r) => setTimeout(r, 30));
    assert.deepEqual(runs, ['deleted'], 'the approved call did not run again');
    assert.deepEqual(await store.load('th-old'), later, 'the store keeps its later messages');

    // The export the store holds itself is simply opened, and so is one the store has not seen.
    const same = await open(t, { url: URL_, fetch, tools: [del], persist: store, thread: later });
    assert.deepEqual(same.messages, later.messages);
    same.dispose();
    const fresh = await open(t, { url: URL_, fetch, persist: store, thread: { ...old, threadId: 'th-unseen' } });
    assert.deepEqual(
      fresh.approvals.pending().map((a) => a.toolCallId),
      ['c1'],
    );
  },
);

// What a store may hold that the core cannot import, each as the store's load() gives it.
const UNIMPORTABLE = [
  ['a load() that resolves {}', () => ({}), /thread import: not an exported thread/],
  [
    'a version-2 export',
    (threadId) => ({ format: 'agui-client-tools/thread', version: 2, threadId, messages: [] }),
    /thread import: unsupported version/,
  ],
];

for (const [what, held, cause] of UNIMPORTABLE) {
  test(
    `${what}: createRuntime() resolves, storage_failed names the store and thread, and the record is left`,
    T,
    async (t) => {
      const store = mapStore();
      store.records.set('th-bad', held('th-bad'));
      const before = structuredClone(store.records.get('th-bad'));
      const { fetch } = scriptedFetch(() => reply('hello'));
      const runtime = await open(t, { url: URL_, fetch, persist: store, threadId: 'th-bad' });
      const failed = await nextChange(runtime, 'storage_failed');
      assert.equal(failed.threadId, 'th-bad');
      assert.match(
        failed.message,
        /^loading thread 'th-bad' failed: options\.persist holds a record for it that cannot be imported \(/,
      );
      assert.match(failed.message, cause);
      assert.match(failed.message, /it is left as it is, and this runtime works in memory$/);
      assert.equal(runtime.threadId, 'th-bad');
      assert.equal((await runtime.send('hi')).reason, 'done', 'it works in memory');
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(store.saves, 0, 'nothing written over the record');
      assert.deepEqual(store.records.get('th-bad'), before);
    },
  );
}

test('a change record that folds but does not import (a tail message without an id) blocks nothing', T, async (t) => {
  const { memoryStore } = await import('agui-client-tools');
  const store = memoryStore();
  const exported = { format: 'agui-client-tools/thread', version: 1, threadId: 'th-fold', messages: [] };
  await store.save('th-fold', exported);
  const tail = [
    { id: 'm0', role: 'user', content: 'kept' },
    { role: 'user', content: 'no id' },
  ];
  const change = {
    format: 'agui-client-tools/thread-change',
    version: 1,
    messages: { from: 0, count: 2, edited: [], tail },
  };
  await store.append('th-fold', change);
  const held = await store.load('th-fold');
  const { fetch } = scriptedFetch(() => reply('hello'));
  const runtime = await open(t, { url: URL_, fetch, persist: store, threadId: 'th-fold' });
  const failed = await nextChange(runtime, 'storage_failed');
  assert.equal(
    failed.message,
    "loading thread 'th-fold' failed: memoryStore() holds a record for it that cannot be imported " +
      "(thread import: message 1 needs a string 'id'); it is left as it is, and this runtime works in memory",
  );
  assert.equal((await runtime.send('hi')).reason, 'done');
  runtime.dispose(); // (its last write would land now: the journal is stopped)
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(await store.load('th-fold'), held, 'the record and its change record are as they were');
});

test('a stored export whose threadId is another thread is corruption: reported, not adopted', T, async (t) => {
  const store = mapStore();
  store.records.set('th-mine', { format: 'agui-client-tools/thread', version: 1, threadId: 'th-theirs', messages: [] });
  const { fetch } = scriptedFetch(() => reply('hello'));
  const runtime = await open(t, { url: URL_, fetch, persist: store, threadId: 'th-mine' });
  const failed = await nextChange(runtime, 'storage_failed');
  assert.equal(runtime.threadId, 'th-mine');
  assert.match(
    failed.message,
    /^loading thread 'th-mine' failed: options\.persist holds for it a record of thread "th-theirs": corrupted, so it is not adopted/,
  );
  assert.equal((await runtime.send('hi')).reason, 'done');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(store.saves, 0);
  assert.equal(store.records.has('th-theirs'), false);
});

test(
  'a load() that never settles counts as failed after saveTimeoutMs: createRuntime() resolves, in memory',
  T,
  async (t) => {
    const store = mapStore();
    store.load = () => new Promise(() => {}); // (hangs: a stuck remote store)
    const { fetch } = scriptedFetch(() => reply('hello'));
    const { createRuntime } = await import('agui-client-tools');
    const opening = createRuntime({ url: URL_, fetch, persist: store, threadId: 'th-stuck', saveTimeoutMs: 30 });
    const runtime = await within(opening, 2000, 'createRuntime()');
    t.after(() => runtime.dispose());
    const failed = await nextChange(runtime, 'storage_failed');
    assert.equal(
      failed.message,
      "loading thread 'th-stuck' failed: options.persist: load() did not settle within 30 ms (saveTimeoutMs)",
    );
    assert.equal((await runtime.send('hi')).reason, 'done');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(store.saves, 0, 'nothing written over what it could not read');
  },
);
