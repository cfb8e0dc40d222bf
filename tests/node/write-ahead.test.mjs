// Write-ahead under faults (issue 32 §1, §2, §7): with a store, a handler starts only once the
// thread that says its call runs is durable, a request goes out only once the thread it carries is
// durable, a page being unloaded stops as a crash would, and disposing leaves the thread as it was.
// The store here fails on demand; a "reload" is a second runtime opened on what it holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  T,
  open,
  record,
  nextChange,
  deferred,
  sleep,
  scriptedFetch,
  callEvents,
  toolMessages,
  assertEveryCallAnsweredOnce,
  assertErrorResult,
  mapStore,
  storedCallStatus,
} from './helpers.mjs';

const URL_ = 'http://agent.test/run';
const reply = (text) => [{ type: 'TEXT_MESSAGE_CHUNK', messageId: `m-${text}`, role: 'assistant', delta: text }];

const DISK_FULL = new Error('disk full');

async function until(what, check, ms = 5000) {
  for (let waited = 0; !check(); waited += 10) {
    assert.ok(waited < ms, `${what} within ${ms} ms`);
    await sleep(10);
  }
}

const counted = (runs, extra = {}) => ({
  name: 'delete_file',
  description: 'deletes a file',
  parameters: { type: 'object' },
  requiresApproval: true,
  handler: (args, ctx) => {
    runs.push(ctx.toolCallId);
    return 'deleted';
  },
  ...extra,
});

// Opens a runtime on `threadId` whose first run calls delete_file (c1), and waits until the store
// holds its approval as pending.
async function pendingApproval(t, store, threadId, tool) {
  const { fetch, requests } = scriptedFetch((input, n) => (n === 0 ? callEvents('c1', 'delete_file') : reply('ok')));
  const runtime = await open(t, { url: URL_, fetch, tools: [tool], persist: store, threadId });
  const log = record(runtime);
  const asked = nextChange(runtime, 'approval_requested');
  const turn = runtime.send('delete it');
  await asked;
  await until('the pending approval is stored', () => storedCallStatus(store, threadId, 'c1') === 'pending_approval');
  return { runtime, log, turn, requests };
}

test(
  'an approval whose running record cannot be saved does not run: the model reads "not run", and a reload runs it once',
  T,
  async (t) => {
    const store = mapStore();
    const runs = [];
    const { runtime, log, turn, requests } = await pendingApproval(t, store, 'wa-1', counted(runs));
    store.failSave = DISK_FULL; // (QuotaExceededError, a save past saveTimeoutMs: any failed write)
    runtime.approvals.approve('c1');
    const ended = await turn;
    assert.deepEqual(runs, [], 'the handler did not start: its start was not durable');
    assertErrorResult(toolMessages(runtime.messages)[0], /^not run: the thread could not be saved \(.*disk full/);
    assert.equal(ended.reason, 'run_error', 'the follow-up carrying it was not sent either');
    assert.match(ended.message, /not sent: the thread could not be saved/);
    assert.equal(requests.length, 1, 'no request went out with what the store lacks');
    assert.equal(log.of('storage_failed').length, 1, 'the user is told, once');
    assert.equal(
      storedCallStatus(store, 'wa-1', 'c1'),
      'pending_approval',
      'the store still holds the call as not run',
    );

    // The reload: the card is back, and approving runs the handler for the first and only time.
    store.failSave = null;
    runtime.dispose();
    const { fetch } = scriptedFetch(() => reply('deleted'));
    const again = await open(t, { url: URL_, fetch, tools: [counted(runs)], persist: store, threadId: 'wa-1' });
    assert.deepEqual(
      again.approvals.pending().map((a) => a.toolCallId),
      ['c1'],
    );
    again.approvals.approve('c1');
    assert.equal((await again.resumed).reason, 'done');
    assert.deepEqual(runs, ['c1'], 'run once in all');
    assertEveryCallAnsweredOnce(again.messages);
  },
);

test('a write that fails once is tried again: the call then runs, once', T, async (t) => {
  const store = mapStore();
  const runs = [];
  const { runtime, turn } = await pendingApproval(t, store, 'wa-2', counted(runs));
  store.failSave = DISK_FULL;
  setTimeout(() => (store.failSave = null), 100); // (the quota freed, the disk back)
  runtime.approvals.approve('c1');
  assert.equal((await turn).reason, 'done');
  assert.deepEqual(runs, ['c1']);
  assert.equal(toolMessages(runtime.messages)[0].content, 'deleted');
  await until('the result is stored', () =>
    (store.records.get('wa-2')?.messages ?? []).some((m) => m.role === 'tool' && m.content === 'deleted'),
  );
});

test('an idempotent tool runs though its start cannot be saved (running it again does no harm)', T, async (t) => {
  const store = mapStore();
  const runs = [];
  const { runtime, turn } = await pendingApproval(t, store, 'wa-3', counted(runs, { idempotent: true }));
  assert.equal(runtime.tools.list()[0].idempotent, true);
  store.failSave = DISK_FULL;
  runtime.approvals.approve('c1');
  await turn;
  assert.deepEqual(runs, ['c1']);
  assert.equal(toolMessages(runtime.messages)[0].content, 'deleted');
});

test('a store that never held the thread: calls run in memory, as without a store', T, async (t) => {
  const store = mapStore();
  store.failSave = DISK_FULL;
  const runs = [];
  const tool = { ...counted(runs), requiresApproval: false };
  const { fetch } = scriptedFetch((input, n) => (n === 0 ? callEvents('c1', 'delete_file') : reply('ok')));
  const runtime = await open(t, { url: URL_, fetch, tools: [tool], persist: store, threadId: 'wa-4' });
  const log = record(runtime);
  assert.equal((await runtime.send('go')).reason, 'done');
  assert.deepEqual(runs, ['c1'], 'nothing in the store could run it again');
  assert.equal(log.of('storage_failed').length, 1);
});

test('the follow-up request goes out only once the results it carries are durable', T, async (t) => {
  const store = mapStore();
  const tool = { ...counted([]), requiresApproval: false };
  const storedAtRequest = [];
  const { fetch } = scriptedFetch((input, n) => {
    const stored = store.records.get('wa-5')?.messages ?? [];
    storedAtRequest.push(stored.length >= input.messages.length ? 'durable' : 'not yet');
    return n === 0 ? callEvents('c1', 'delete_file') : reply('ok');
  });
  const runtime = await open(t, { url: URL_, fetch, tools: [tool], persist: store, threadId: 'wa-5' });
  // Each write lands 30 ms after it begins: slower than the handler and the core.
  const slow = store.save.bind(store);
  store.save = async (id, snapshot) => {
    await sleep(30);
    return slow(id, snapshot);
  };
  assert.equal((await runtime.send('go')).reason, 'done');
  assert.deepEqual(storedAtRequest, ['durable', 'durable'], 'each request carried only what the store held');
});

test(
  'a page being unloaded stops as a crash would: a handler failing as its fetch is torn down is no result, and no request goes out',
  T,
  async (t) => {
    const page = new EventTarget(); // (node has no window: the runtime listens on globalThis.window)
    globalThis.window = page;
    t.after(() => delete globalThis.window);
    const store = mapStore();
    const started = deferred();
    const torn = deferred();
    const weather = {
      name: 'get_weather',
      description: 'fetches the weather',
      parameters: { type: 'object' },
      handler: async () => {
        started.resolve();
        await torn.promise; // its fetch, cancelled by the unload
        throw new TypeError('Failed to fetch');
      },
    };
    const { fetch, requests } = scriptedFetch((input, n) =>
      n === 0 ? callEvents('c1', 'get_weather') : reply('sunny'),
    );
    const runtime = await open(t, { url: URL_, fetch, tools: [weather], persist: store, threadId: 'wa-6' });
    runtime.send('weather?');
    await started.promise;
    page.dispatchEvent(new Event('pagehide'));
    torn.resolve();
    await sleep(50);
    assert.equal(requests.length, 1, 'the page being torn down sent nothing more');
    assert.equal(storedCallStatus(store, 'wa-6', 'c1'), 'running', 'the store holds the call as it was: running');
    assert.equal(toolMessages(runtime.messages).length, 0, '"Failed to fetch" was not taken for a result');

    // The reloaded page answers the call once, as one that may have completed.
    const { fetch: next, requests: sent } = scriptedFetch(() => reply('sunny'));
    const again = await open(t, { url: URL_, fetch: next, tools: [weather], persist: store, threadId: 'wa-6' });
    await nextChange(again, 'turn_ended');
    assertEveryCallAnsweredOnce(again.messages);
    assertErrorResult(toolMessages(again.messages)[0], /may have completed/);
    assert.equal(sent.length, 1, 'one follow-up, from the reloaded page');
  },
);

test('dispose() with a store leaves the thread as it was: a pending approval comes back pending', T, async (t) => {
  const store = mapStore();
  const runs = [];
  const { runtime, turn } = await pendingApproval(t, store, 'wa-7', counted(runs));
  runtime.dispose();
  assert.equal((await turn).reason, 'aborted', 'the send() of this runtime resolves');
  await until('the last write landed', () => storedCallStatus(store, 'wa-7', 'c1') !== undefined);
  await sleep(20);
  assert.equal(storedCallStatus(store, 'wa-7', 'c1'), 'pending_approval', 'not stored as cancelled');
  const { fetch } = scriptedFetch(() => reply('deleted'));
  const again = await open(t, { url: URL_, fetch, tools: [counted(runs)], persist: store, threadId: 'wa-7' });
  assert.deepEqual(
    again.approvals.pending().map((a) => a.toolCallId),
    ['c1'],
  );
  again.approvals.approve('c1');
  assert.equal((await again.resumed).reason, 'done');
  assert.deepEqual(runs, ['c1']);
});
