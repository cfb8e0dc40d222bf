// Thread stores in node (js-shim/src/storage.js, as the package ships it): memoryStore()'s copies, order and
// deletion, its refusals of bad arguments, and indexedDbStore() refusing at once where
// there is no IndexedDB. The IndexedDB store itself is tested in Chromium
// (tests/browser/storage.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryStore, indexedDbStore, applyChange, AguiError, ERROR_CODES } from 'agui-client-tools';

const snapshot = (threadId, count = 1) => ({
  format: 'agui-client-tools/thread',
  version: 1,
  threadId,
  messages: Array.from({ length: count }, (_, i) => ({ id: `m${i}`, role: 'user', content: `hello ${i}` })),
  state: { z: 1, a: { nested: [1, 2] } },
});

test('memoryStore keeps a copy: mutating the saved or the loaded snapshot changes nothing stored', async () => {
  const store = memoryStore();
  const saved = snapshot('t1');
  await store.save('t1', saved);
  saved.messages.push({ id: 'late', role: 'user', content: 'after save' });
  saved.state.a.nested.push(3);
  const loaded = await store.load('t1');
  assert.deepEqual(loaded, snapshot('t1'));
  loaded.messages.length = 0;
  loaded.state.z = 'changed';
  assert.deepEqual(await store.load('t1'), snapshot('t1'));
  assert.notEqual(await store.load('t1'), await store.load('t1'), 'each load is its own copy');
});

test('memoryStore keeps the snapshot key order and loads null for a thread never saved', async () => {
  const store = memoryStore();
  const saved = { threadId: 't', state: { z: 1, a: 2, m: 3 }, messages: [], b: 1, a: 2 };
  await store.save('t', saved);
  assert.equal(JSON.stringify(await store.load('t')), JSON.stringify(saved));
  assert.equal(await store.load('never'), null);
});

test('memoryStore lists threads newest first with their message counts, saves in one millisecond included', async () => {
  const store = memoryStore();
  await store.save('a', snapshot('a', 1));
  await store.save('b', snapshot('b', 2));
  await store.save('c', snapshot('c', 3));
  let rows = await store.list();
  assert.deepEqual(
    rows.map((r) => [r.threadId, r.messages]),
    [
      ['c', 3],
      ['b', 2],
      ['a', 1],
    ],
  );
  assert.ok(rows.every((r) => typeof r.updatedAt === 'number' && r.updatedAt > 0));
  assert.ok(rows[0].updatedAt > rows[1].updatedAt && rows[1].updatedAt > rows[2].updatedAt, 'strictly newer');
  await store.save('a', snapshot('a', 4));
  rows = await store.list();
  assert.deepEqual(
    rows.map((r) => [r.threadId, r.messages]),
    [
      ['a', 4],
      ['c', 3],
      ['b', 2],
    ],
    'a saved again is the newest',
  );
});

test('memoryStore delete removes the thread, and deleting one that is absent is no error', async () => {
  const store = memoryStore();
  await store.save('a', snapshot('a'));
  await store.save('b', snapshot('b'));
  await store.delete('a');
  assert.equal(await store.load('a'), null);
  assert.deepEqual(
    (await store.list()).map((r) => r.threadId),
    ['b'],
  );
  await store.delete('a');
  await store.delete('never-saved');
  assert.deepEqual(await store.load('b'), snapshot('b'));
});

test('memoryStore refuses a snapshot that is not an object, an empty threadId, and what cannot be copied', async () => {
  const store = memoryStore();
  const refused = (code, pattern) => (e) => e instanceof AguiError && e.code === code && pattern.test(e.message);
  await assert.rejects(
    store.save('t', null),
    refused('invalid_argument', /memoryStore\(\)\.save\(\): thread "t": the snapshot must be an object.*not null/),
  );
  await assert.rejects(store.save('t', [1]), refused('invalid_argument', /not an array/));
  await assert.rejects(
    store.load(''),
    refused('invalid_argument', /memoryStore\(\)\.load\(\): threadId must be a non-empty string/),
  );
  await assert.rejects(
    store.delete(42),
    refused('invalid_argument', /threadId must be a non-empty string, not a number/),
  );
  await assert.rejects(
    store.save('t', { messages: [], handler: () => 1 }),
    refused('invalid_argument', /thread "t": the snapshot cannot be copied/),
  );
  assert.equal(await store.load('t'), null, 'nothing was stored by the refused saves');
});

test('indexedDbStore() throws at once in node, naming the store and the missing IndexedDB', () => {
  assert.equal(globalThis.indexedDB, undefined, 'this test needs a node without an indexedDB global');
  assert.throws(
    () => indexedDbStore({ name: 'my-app' }),
    (e) =>
      e instanceof AguiError &&
      e.code === 'storage_failed' &&
      ERROR_CODES.includes(e.code) &&
      /^indexedDbStore\("my-app"\): IndexedDB is not available here/.test(e.message) &&
      /memoryStore\(\)/.test(e.message),
  );
  assert.throws(() => indexedDbStore(), /indexedDbStore\("agui-client-tools"\): IndexedDB is not available/);
});

test('the browser entry exports the same stores as the node entry (one shared chunk)', async () => {
  const browser = await import('../../js-shim/dist/index.js');
  assert.equal(browser.memoryStore, memoryStore);
  assert.equal(browser.indexedDbStore, indexedDbStore);
});

// ------------------------------------------------------------ folding change records (applyChange)

const change = (messages) => ({ format: 'agui-client-tools/thread-change', version: 1, messages });

test('applyChange refuses a negative from, which would drop messages from the end', () => {
  const base = snapshot('t', 2);
  assert.throws(
    () => applyChange(base, change({ from: -1, count: 0, edited: [], tail: [{ id: 'x', role: 'user' }] })),
    /its messages do not fit the thread's 2 \(from -1, count 0\)/,
  );
});

test('applyChange folds a tail of 200,000 messages (no stack overflow), and a store loads it', async () => {
  const tail = Array.from({ length: 200_000 }, (_, i) => ({ id: `n${i}`, role: 'user', content: 'x' }));
  const folded = applyChange(snapshot('t', 1), change({ from: 1, count: 200_001, edited: [], tail }));
  assert.equal(folded.messages.length, 200_001);
  assert.equal(folded.messages[200_000].id, 'n199999');
  const store = memoryStore();
  await store.save('t', snapshot('t', 1));
  await store.append('t', change({ from: 1, count: 200_001, edited: [], tail }));
  assert.equal((await store.load('t')).messages.length, 200_001);
});
