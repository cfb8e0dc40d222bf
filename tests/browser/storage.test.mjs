// indexedDbStore() (js-shim/src/storage.js, as the package ships it) in a real page of Debian's Chromium: the
// module served as plain ES modules (as tests/browser/plain-module.test.mjs does), its
// records read and written beside it with the raw IndexedDB API, in the format
// docs/persistence.md documents. Each test uses its own database name.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './chromium.mjs';
import { servePlainPage } from './plain-page.mjs';

// The page: the store module, and raw IndexedDB helpers that bypass it.
const page = `<!doctype html><meta charset="utf-8"><title>storage</title>
<script type="module">
  import * as storage from '/dist/index.js';
  const request = (r) => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
  // (At the version it is at; a new database at version 1, with "threads" only: what version 1 of the store made.)
  const openRaw = (name, version) => {
    const r = version === undefined ? indexedDB.open(name) : indexedDB.open(name, version);
    r.onupgradeneeded = () => r.result.objectStoreNames.contains('threads') || r.result.createObjectStore('threads');
    return request(r);
  };
  const inTx = async (name, mode, fn, objectStore = 'threads') => {
    const db = await openRaw(name);
    try {
      return await request(fn(db.transaction(objectStore, mode).objectStore(objectStore)));
    } finally {
      db.close();
    }
  };
  window.raw = {
    put: (name, key, value) => inTx(name, 'readwrite', (s) => s.put(value, key)),
    get: (name, key) => inTx(name, 'readonly', (s) => s.get(key)),
    putChange: (name, key, value) => inTx(name, 'readwrite', (s) => s.put(value, key), 'changes'),
    changes: (name) => inTx(name, 'readonly', (s) => s.getAll(), 'changes'),
    openAt: async (name, version) => (await openRaw(name, version)).close(),
  };
  // A promise's outcome as plain data, to hand back to the test.
  window.outcome = (promise) => promise.then(
    (value) => ({ value: value === undefined ? 'undefined' : value }),
    (e) => ({ error: { name: e.name, code: e.code, message: e.message } }),
  );
  window.storage = storage;
  window.ready = true;
</script>`;

// One browser context (one profile's storage) for the whole file, set up at load.
const url = await servePlainPage('storage.html', page);
const browser = await launchChromium();
after(() => browser.close());
const context = await browser.newContext();

async function openPage() {
  const tab = await context.newPage();
  const errors = [];
  tab.on('pageerror', (e) => errors.push(String(e)));
  await tab.goto(url);
  await tab.waitForFunction(() => window.ready === true, null, { timeout: 10_000 });
  assert.deepEqual(errors, []);
  return tab;
}

const snapshot = (threadId, count = 1) => ({
  format: 'agui-client-tools/thread',
  version: 1,
  threadId,
  messages: Array.from({ length: count }, (_, i) => ({ id: `m${i}`, role: 'user', content: `hi ${i}` })),
  state: { z: 1, a: { y: [1, 2], b: null } },
  zeta: 'last key first',
  alpha: 'kept after zeta',
});

test('save then load gives the snapshot back, keys in their order; a record in the documented format loads', async () => {
  const tab = await openPage();
  const out = await tab.evaluate(async (saved) => {
    const store = window.storage.indexedDbStore({ name: 'round-trip' });
    await store.save('t1', saved);
    const loaded = await store.load('t1');
    const raw = await window.raw.get('round-trip', 't1');
    await window.raw.put('round-trip', 'by-hand', { format: 1, threadId: 'by-hand', updatedAt: 5, snapshot: { a: 1 } });
    return { text: JSON.stringify(loaded), raw, byHand: await store.load('by-hand'), absent: await store.load('no') };
  }, snapshot('t1'));
  assert.equal(out.text, JSON.stringify(snapshot('t1')), 'same JSON text: same keys in the same order');
  assert.deepEqual(Object.keys(out.raw), ['format', 'threadId', 'updatedAt', 'snapshot']);
  assert.equal(out.raw.format, 1);
  assert.equal(out.raw.threadId, 't1');
  assert.ok(Math.abs(out.raw.updatedAt - Date.now()) < 60_000, `updatedAt is a time in ms: ${out.raw.updatedAt}`);
  assert.deepEqual(out.byHand, { a: 1 });
  assert.equal(out.absent, null);
  await tab.close();
});

test('save resolves once the write is durable: a new page, after the first closed, reads it back', async () => {
  const first = await openPage();
  const seen = await first.evaluate(
    async (saved) => {
      // Watch the store's transactions: the options it asks for, and whether 'complete' fired.
      const transactions = [];
      const real = IDBDatabase.prototype.transaction;
      IDBDatabase.prototype.transaction = function (names, mode, options) {
        const tx = real.call(this, names, mode, options);
        const seen = { mode, options, complete: false };
        tx.addEventListener('complete', () => (seen.complete = true));
        transactions.push(seen);
        return tx;
      };
      try {
        await window.storage.indexedDbStore({ name: 'durable' }).save('t-durable', saved);
      } finally {
        IDBDatabase.prototype.transaction = real;
      }
      const whenResolved = structuredClone(transactions);
      // Another connection, opened right after save() resolved, sees the record.
      return { whenResolved, record: (await window.raw.get('durable', 't-durable'))?.snapshot };
    },
    snapshot('t-durable', 3),
  );
  assert.deepEqual(
    seen.whenResolved,
    [{ mode: 'readwrite', options: { durability: 'strict' }, complete: true }],
    "save() resolved after its one readwrite transaction's complete event, asking for strict durability",
  );
  assert.deepEqual(seen.record, snapshot('t-durable', 3));
  await first.close();
  const second = await openPage();
  const loaded = await second.evaluate(() => window.storage.indexedDbStore({ name: 'durable' }).load('t-durable'));
  assert.deepEqual(loaded, snapshot('t-durable', 3));
  await second.close();
});

test('list gives every thread newest first with its message count; delete removes one, absent or not', async () => {
  const tab = await openPage();
  const out = await tab.evaluate(
    async (snaps) => {
      const store = window.storage.indexedDbStore({ name: 'listing' });
      for (const s of snaps) await store.save(s.threadId, s);
      const before = await store.list();
      await store.save('a', snaps[0]);
      const resaved = await store.list();
      await store.delete('b');
      const deleteAbsent = await window.outcome(store.delete('never-saved'));
      return { before, resaved, after: await store.list(), b: await store.load('b'), deleteAbsent };
    },
    [snapshot('a', 1), snapshot('b', 2), snapshot('c', 3)],
  );
  const rows = (list) => list.map((r) => [r.threadId, r.messages]);
  assert.deepEqual(rows(out.before), [
    ['c', 3],
    ['b', 2],
    ['a', 1],
  ]);
  assert.ok(out.before[0].updatedAt > out.before[1].updatedAt && out.before[1].updatedAt > out.before[2].updatedAt);
  assert.deepEqual(rows(out.resaved), [
    ['a', 1],
    ['c', 3],
    ['b', 2],
  ]);
  assert.deepEqual(rows(out.after), [
    ['a', 1],
    ['c', 3],
  ]);
  assert.equal(out.b, null);
  assert.deepEqual(out.deleteAbsent, { value: 'undefined' });
  await tab.close();
});

test('a record written by a newer version is refused by load and by save, and left as it was', async () => {
  const tab = await openPage();
  const newer = { format: 2, threadId: 't-new', updatedAt: 1, snapshot: { fromTheFuture: true } };
  const out = await tab.evaluate(async (record) => {
    await window.raw.put('newer', 't-new', record);
    const store = window.storage.indexedDbStore({ name: 'newer' });
    const load = await window.outcome(store.load('t-new'));
    const save = await window.outcome(store.save('t-new', { messages: [] }));
    return { load, save, list: await store.list(), after: await window.raw.get('newer', 't-new') };
  }, newer);
  const where = (method) =>
    `indexedDbStore("newer").${method}(): thread "t-new" (record threads["t-new"]) ` +
    'was written by a newer version (format 2; this version reads format 1)';
  assert.deepEqual(out.load.error, {
    name: 'AguiError',
    code: 'storage_failed',
    message: `${where('load')}; it is left as it is`,
  });
  assert.deepEqual(out.save.error, {
    name: 'AguiError',
    code: 'storage_failed',
    message: `${where('save')}; it is not overwritten`,
  });
  assert.deepEqual(out.after, newer, 'the newer record is untouched');
  assert.deepEqual(out.list, [{ threadId: 't-new', updatedAt: 1, messages: 0 }], 'list still shows it');
  await tab.close();
});

test('delete refuses a record, or a change record, written by a newer version, and leaves it as it was', async () => {
  const tab = await openPage();
  const newer = { format: 2, threadId: 't-new', updatedAt: 1, snapshot: { fromTheFuture: true } };
  const out = await tab.evaluate(
    async ({ record, saved }) => {
      await window.raw.put('newer-delete', 't-new', record);
      const store = window.storage.indexedDbStore({ name: 'newer-delete' });
      const deleted = await window.outcome(store.delete('t-new'));
      await store.save('t', saved);
      const change = { format: 9, threadId: 't', seq: 1, change: {} };
      await window.raw.putChange('newer-delete', ['t', 1], change);
      const deletedChange = await window.outcome(store.delete('t'));
      return {
        deleted: deleted.error,
        deletedChange: deletedChange.error,
        after: await window.raw.get('newer-delete', 't-new'),
        changes: await window.raw.changes('newer-delete'),
        kept: await window.raw.get('newer-delete', 't'),
      };
    },
    { record: newer, saved: snapshot('t') },
  );
  assert.deepEqual(out.deleted, {
    name: 'AguiError',
    code: 'storage_failed',
    message:
      'indexedDbStore("newer-delete").delete(): thread "t-new" (record threads["t-new"]) was written by a newer ' +
      'version (format 2; this version reads format 1); it is not deleted',
  });
  assert.equal(
    out.deletedChange.message,
    'indexedDbStore("newer-delete").delete(): thread "t" (record threads["t"]) has a change record ' +
      'changes[["t", 1]] written by a newer version; it is not deleted',
  );
  assert.deepEqual(out.after, newer, 'the newer record is untouched');
  assert.equal(out.changes.length, 1, 'the newer change record is untouched');
  assert.deepEqual(out.kept.snapshot, snapshot('t'), 'and so is the record it follows');
  await tab.close();
});

test('a corrupted record is refused by load, naming what is wrong, and save replaces it', async () => {
  const tab = await openPage();
  const out = await tab.evaluate(async (replacement) => {
    const put = (key, value) => window.raw.put('corrupt', key, value);
    await put('not-object', 'garbage text');
    await put('no-snapshot', { format: 1, threadId: 'no-snapshot', updatedAt: 1 });
    await put('wrong-thread', { format: 1, threadId: 'someone-else', updatedAt: 1, snapshot: {} });
    await put('bad-format', { format: 'one', threadId: 'bad-format', updatedAt: 1, snapshot: {} });
    const store = window.storage.indexedDbStore({ name: 'corrupt' });
    const loads = {};
    for (const key of ['not-object', 'no-snapshot', 'wrong-thread', 'bad-format'])
      loads[key] = (await window.outcome(store.load(key))).error;
    const save = await window.outcome(store.save('not-object', replacement));
    return { loads, save, reloaded: await store.load('not-object') };
  }, snapshot('not-object'));
  const prefix = (id) => `indexedDbStore("corrupt").load(): thread "${id}" (record threads["${id}"]) is corrupted: `;
  const expected = {
    'not-object': 'it is a string, not an object',
    'no-snapshot': 'it has no snapshot object (snapshot is missing)',
    'wrong-thread': 'it names thread "someone-else", not the key it is stored under',
    'bad-format': 'its format is "one", not 1',
  };
  for (const [id, what] of Object.entries(expected)) {
    assert.equal(out.loads[id].code, 'storage_failed', id);
    assert.equal(out.loads[id].message, `${prefix(id)}${what}; save() replaces it`);
  }
  assert.deepEqual(out.save, { value: 'undefined' }, 'save over garbage is allowed');
  assert.deepEqual(out.reloaded, snapshot('not-object'));
  await tab.close();
});

test('quota exceeded on save (simulated: put throws a QuotaExceededError) rejects naming it, nothing written', async () => {
  const tab = await openPage();
  const out = await tab.evaluate(
    async (snaps) => {
      const store = window.storage.indexedDbStore({ name: 'quota' });
      await store.save('t-quota', snaps[0]);
      // Simulated: a full disk cannot be arranged here, so IDBObjectStore.put throws what Chromium throws then.
      const realPut = IDBObjectStore.prototype.put;
      IDBObjectStore.prototype.put = function () {
        throw new DOMException('Simulated: the quota has been exceeded.', 'QuotaExceededError');
      };
      let save;
      try {
        save = await window.outcome(store.save('t-quota', snaps[1]));
      } finally {
        IDBObjectStore.prototype.put = realPut;
      }
      return { save, kept: await store.load('t-quota') };
    },
    [snapshot('t-quota', 1), snapshot('t-quota', 9)],
  );
  assert.deepEqual(out.save.error, {
    name: 'AguiError',
    code: 'storage_failed',
    message:
      'indexedDbStore("quota").save(): thread "t-quota" (record threads["t-quota"]) could not be written: ' +
      'the storage quota is exceeded (QuotaExceededError: Simulated: the quota has been exceeded.); ' +
      'the stored record is unchanged',
  });
  assert.deepEqual(out.kept, snapshot('t-quota', 1), 'the transaction aborted: the old snapshot is still there');
  await tab.close();
});

test('a database that cannot be opened (at a newer version) makes load, save and list reject, saying so', async () => {
  const tab = await openPage();
  const out = await tab.evaluate(async () => {
    await window.raw.openAt('too-new', 3);
    const store = window.storage.indexedDbStore({ name: 'too-new' });
    return {
      load: (await window.outcome(store.load('t'))).error,
      save: (await window.outcome(store.save('t', { messages: [] }))).error,
      list: (await window.outcome(store.list())).error,
    };
  });
  const cause = /the database cannot be opened: it is at a newer version than 2 \(VersionError: /;
  assert.match(out.load.message, /^indexedDbStore\("too-new"\)\.load\(\): thread "t" \(record threads\["t"\]\) cannot/);
  assert.match(out.save.message, /^indexedDbStore\("too-new"\)\.save\(\): thread "t" /);
  assert.match(out.list.message, /^indexedDbStore\("too-new"\)\.list\(\): the threads records cannot be reached: /);
  for (const error of [out.load, out.save, out.list]) {
    assert.equal(error.code, 'storage_failed');
    assert.match(error.message, cause);
  }
  await tab.close();
});

// A change record as the runtime appends it (journal.js): the messages from `from` on, and edits before.
const change = (from, tail, edited = []) => ({
  format: 'agui-client-tools/thread-change',
  version: 1,
  messages: { from, count: from + tail.length, edited, tail },
  round: from,
});

test('append adds a change record that load folds in and list counts; save compacts them; delete removes them', async () => {
  const tab = await openPage();
  const more = { id: 'm1', role: 'assistant', content: 'more' };
  const out = await tab.evaluate(
    async ({ saved, changes }) => {
      const store = window.storage.indexedDbStore({ name: 'changes' });
      const early = await window.outcome(store.append('t', changes[0]));
      await store.save('t', saved);
      for (const c of changes) await store.append('t', c);
      const raw = await window.raw.changes('changes');
      const folded = await store.load('t');
      const list = await store.list();
      await store.save('t', folded);
      const compacted = (await window.raw.changes('changes')).length;
      await store.append('t', changes[0]);
      await store.delete('t');
      return { early, raw, folded, list, compacted, left: (await window.raw.changes('changes')).length };
    },
    {
      saved: snapshot('t'),
      changes: [change(1, [more]), change(2, [], [[0, { id: 'm0', role: 'user', content: 'edited' }]])],
    },
  );
  assert.equal(
    out.early.error.message,
    'indexedDbStore("changes").append(): thread "t" (record threads["t"]) has no record to append to: save() it first',
  );
  assert.deepEqual(
    out.raw.map((r) => [r.threadId, r.seq, r.messages, Object.keys(r)]),
    [
      ['t', 1, 2, ['format', 'threadId', 'seq', 'updatedAt', 'messages', 'change']],
      ['t', 2, 2, ['format', 'threadId', 'seq', 'updatedAt', 'messages', 'change']],
    ],
  );
  const expected = { ...snapshot('t'), round: 2 }; // (the last change's fields win)
  expected.messages = [{ id: 'm0', role: 'user', content: 'edited' }, more];
  assert.equal(JSON.stringify(out.folded), JSON.stringify(expected), 'folded, keys in their order');
  assert.deepEqual(
    out.list.map((r) => [r.threadId, r.messages]),
    [['t', 2]],
    "the count is the last change's",
  );
  assert.equal(out.compacted, 0, 'save() replaces the changes');
  assert.equal(out.left, 0, 'delete() removes the changes');
  await tab.close();
});

test('a corrupted change record is refused by load, naming it, and save replaces it', async () => {
  const tab = await openPage();
  const out = await tab.evaluate(
    async ({ saved, bad, good }) => {
      const store = window.storage.indexedDbStore({ name: 'bad-change' });
      await store.save('t', saved);
      await window.raw.putChange('bad-change', ['t', 1], { format: 1, threadId: 't', seq: 1, change: bad });
      const load = await window.outcome(store.load('t'));
      await window.raw.putChange('bad-change', ['t', 1], { format: 9, threadId: 't', seq: 1, change: good });
      const newer = await window.outcome(store.load('t'));
      await store.save('t', saved);
      return { load: load.error, newer: newer.error, reloaded: await store.load('t') };
    },
    { saved: snapshot('t'), bad: change(5, []), good: change(1, []) },
  );
  assert.equal(out.load.code, 'storage_failed');
  assert.equal(
    out.load.message,
    'indexedDbStore("bad-change").load(): thread "t" (record threads["t"]) has a corrupted change record ' +
      `changes[["t", 1]]: its messages do not fit the thread's 1 (from 5, count 5); save() replaces it`,
  );
  assert.match(
    out.newer.message,
    /has a change record changes\[\["t", 1\]\] written by a newer version; it is left as it is$/,
  );
  assert.deepEqual(out.reloaded, snapshot('t'));
  await tab.close();
});

test('two stores on different database names do not see each other', async () => {
  const tab = await openPage();
  const out = await tab.evaluate(
    async (snaps) => {
      const one = window.storage.indexedDbStore({ name: 'app-one' });
      const two = window.storage.indexedDbStore({ name: 'app-two' });
      await one.save('shared-id', snaps[0]);
      const twoBefore = { load: await two.load('shared-id'), list: await two.list() };
      await two.save('shared-id', snaps[1]);
      await two.delete('shared-id');
      return { twoBefore, one: await one.load('shared-id'), oneList: (await one.list()).map((r) => r.threadId) };
    },
    [snapshot('shared-id', 1), snapshot('shared-id', 2)],
  );
  assert.deepEqual(out.twoBefore, { load: null, list: [] });
  assert.deepEqual(out.one, snapshot('shared-id', 1), "the other store's save and delete left it alone");
  assert.deepEqual(out.oneList, ['shared-id']);
  await tab.close();
});
