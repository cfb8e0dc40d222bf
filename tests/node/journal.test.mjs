// The journal's change records (issue 22 §1): what a store holds after each write, its last export
// with the change records folded in (applyChange), is the thread's export at that moment, key order
// included. Checked after every event of every corpus stream against the raw core, and through the
// runtime over multi-round turns with results placed mid-thread; plus compaction and a failed append.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { applyChange, memoryStore } from 'agui-client-tools';
// The raw embind classes are internal (not exported by the package): the corpus check reads src/core.js.
import { feedBytes, loadCore } from '../../js-shim/src/core.js';
import { T, open, scriptedFetch, callEvents, assertEveryCallAnsweredOnce } from './helpers.mjs';

const CORPUS = new URL('../fixtures/streams/', import.meta.url);
const core = await loadCore({ wasm: fs.readFileSync(new URL('../../js-shim/dist/agui_core.wasm', import.meta.url)) });

/** Equal as JSON text, key order included (deepEqual first, for a readable diff). */
function sameText(actual, expected, where) {
  assert.deepEqual(actual, expected, where);
  assert.equal(JSON.stringify(actual), JSON.stringify(expected), `${where}: key order`);
}

test('after every event of every corpus stream, the export folded with the changes is the export', () => {
  const names = fs.readdirSync(CORPUS).filter((f) => f.endsWith('.sse'));
  assert.ok(names.length >= 10, `the corpus has its streams (${names.length})`);
  let records = 0;
  let wholes = 0;
  for (const file of names) {
    const name = path.basename(file, '.sse');
    const { input } = JSON.parse(fs.readFileSync(new URL(`${name}.json`, CORPUS), 'utf8'));
    const events = fs.readFileSync(new URL(file, CORPUS), 'utf8').split(/(?<=\n\n)/);
    const registry = new core.Registry();
    const driver = new core.Driver(registry, input.threadId);
    try {
      const thread = { format: 'agui-client-tools/thread', version: 1, threadId: input.threadId };
      Object.assign(thread, { messages: input.messages.slice(0, -1), state: input.state ?? {} });
      assert.equal(JSON.parse(driver.open(JSON.stringify({ options: {}, export: thread }), 0)).ok, true, name);
      let stored = JSON.parse(driver.exportJournal(true));
      const check = (where) => {
        // A change, or the export itself when most messages changed.
        const written = JSON.parse(driver.exportJournal(false));
        stored = written.format === 'agui-client-tools/thread' ? written : applyChange(stored, written);
        wholes += written === stored ? 1 : 0;
        sameText(stored, JSON.parse(driver.exportThread()), `${name}, ${where}`);
        records += 1;
      };
      const { run } = JSON.parse(driver.send(JSON.stringify([input.messages.at(-1)]), '{}'));
      check('after send');
      events.forEach((event, i) => {
        feedBytes(driver, run.runId, event);
        check(`after event ${i}`);
      });
      driver.endOfStream(run.runId, 0);
      check('after the end of the stream');
    } finally {
      driver.delete();
      registry.delete();
    }
  }
  assert.ok(records > 200, `records checked: ${records}`);
  assert.ok(wholes < records / 4, `mostly change records (${wholes} exports of ${records})`);
});

test('a change that does not fit the thread is refused, naming what is wrong', () => {
  const base = { format: 'agui-client-tools/thread', version: 1, messages: [{ id: 'a' }], state: {} };
  const change = (messages) => ({ format: 'agui-client-tools/thread-change', version: 1, messages });
  assert.throws(() => applyChange(base, { format: 'x' }), /not a change record/);
  assert.throws(
    () => applyChange(base, change({ from: 2, count: 2, edited: [], tail: [] })),
    /do not fit the thread's 1/,
  );
  assert.throws(() => applyChange(base, change({ from: 1, count: 3, edited: [], tail: [{}] })), /count 3/);
  assert.throws(() => applyChange(base, change({ from: 0, count: 0, edited: [[0, {}]], tail: [] })), /edits message 0/);
  const grown = applyChange(base, change({ from: 1, count: 2, edited: [[0, { id: 'a', x: 1 }]], tail: [{ id: 'b' }] }));
  assert.deepEqual(grown.messages, [{ id: 'a', x: 1 }, { id: 'b' }]);
  assert.deepEqual(base.messages, [{ id: 'a' }], 'the export given is not changed');
});

/** memoryStore() that checks, at each write, that what it then holds is the runtime's export. */
function checkingStore(runtimeOf, { failAppend } = {}) {
  const inner = memoryStore();
  const counts = { save: 0, append: 0, checked: 0 };
  const checked = (method) => async (threadId, value) => {
    let expected = null; // the thread as the write was taken (none once the runtime is disposed)
    try {
      expected = runtimeOf()?.thread.export();
    } catch {}
    if (method === 'append' && failAppend?.(counts)) throw new Error('disk full (scripted)');
    await inner[method](threadId, value);
    counts[method] += 1;
    if (!expected) return;
    sameText(await inner.load(threadId), expected, `after ${method} ${counts[method]}`);
    counts.checked += 1;
  };
  return {
    counts,
    load: inner.load,
    list: inner.list,
    delete: inner.delete,
    save: checked('save'),
    append: checked('append'),
  };
}

const probe = (handler = () => 'ok') => ({
  name: 'probe',
  description: 'p',
  parameters: { type: 'object' },
  handler,
});

test(
  'through the runtime: five-round turns, results placed before later messages, each write checked',
  T,
  async (t) => {
    let runtime = null;
    const store = checkingStore(() => runtime);
    // Each round: a call, then a text message after it (so its result goes mid-thread), and state.
    const { fetch } = scriptedFetch((input, n) =>
      n % 6 === 5
        ? [{ type: 'TEXT_MESSAGE_CHUNK', messageId: `m${n}`, role: 'assistant', delta: 'done' }]
        : [
            ...callEvents(`c${n}`, 'probe', { n }),
            { type: 'TEXT_MESSAGE_CHUNK', messageId: `after${n}`, role: 'assistant', delta: `after ${n}` },
            { type: 'STATE_DELTA', delta: [{ op: 'add', path: `/r${n}`, value: n }] },
          ],
    );
    runtime = await open(t, { url: 'http://agent.test/run', fetch, tools: [probe()], persist: store, threadId: 'j-1' });
    for (let turn = 0; turn < 3; turn += 1) assert.equal((await runtime.send(`go ${turn}`)).reason, 'done');
    runtime.dispose();
    await new Promise((r) => setTimeout(r, 20)); // its last write lands
    assert.ok(store.counts.append > 20, `appended (${JSON.stringify(store.counts)})`);
    assert.ok(store.counts.save < store.counts.append / 4, `mostly appended (${JSON.stringify(store.counts)})`);
    const reloaded = await open(t, {
      url: 'http://agent.test/run',
      fetch,
      tools: [probe()],
      persist: store,
      threadId: 'j-1',
    });
    assertEveryCallAnsweredOnce(reloaded.messages);
    assert.equal(reloaded.messages.filter((m) => m.role === 'tool').length, 15);
    assert.equal(reloaded.state.r4, 4);
  },
);

test(
  'the changes are compacted into a new export once they outgrow it, and a failed append is followed by one',
  T,
  async (t) => {
    let runtime = null;
    const store = checkingStore(() => runtime, { failAppend: (c) => c.append === 7 && !c.failed && (c.failed = true) });
    const big = 'x'.repeat(4000);
    const { fetch } = scriptedFetch((input, n) => [
      { type: 'TEXT_MESSAGE_CHUNK', messageId: `m${n}`, role: 'assistant', delta: `${n} ${big}` },
    ]);
    const failures = [];
    runtime = await open(t, { url: 'http://agent.test/run', fetch, persist: store, threadId: 'j-2' });
    runtime.subscribe((c) => c.kind === 'storage_failed' && failures.push(c.message));
    for (let turn = 0; turn < 40; turn += 1) await runtime.send(`turn ${turn}`);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(failures.length, 1, 'the failed append is told once');
    assert.match(failures[0], /disk full \(scripted\)/);
    // 40 turns of 4 KB: 64 KB of changes since the first export, then more than the export each time.
    assert.ok(store.counts.save >= 3, `compacted (${JSON.stringify(store.counts)})`);
    assert.ok(store.counts.append > store.counts.save * 5, `mostly appends (${JSON.stringify(store.counts)})`);
    const { messages } = await store.load('j-2');
    assert.equal(messages.length, 80, 'every message is kept');
  },
);

test('a turn on a long thread appends what it changed, not the thread', T, async (t) => {
  const sizes = [];
  const inner = memoryStore();
  const store = {
    ...inner,
    append: (id, change) => (sizes.push(JSON.stringify(change).length), inner.append(id, change)),
  };
  const filler = Array.from({ length: 300 }, (_, i) => ({
    type: 'TEXT_MESSAGE_CHUNK',
    messageId: `f${i}`,
    role: 'assistant',
    delta: `filler ${i} `.repeat(20),
  }));
  const { fetch } = scriptedFetch((input, n) =>
    n === 0
      ? filler
      : n === 1
        ? callEvents('c1', 'probe', { n })
        : [{ type: 'TEXT_MESSAGE_CHUNK', messageId: `m${n}`, role: 'assistant', delta: 'ok' }],
  );
  const runtime = await open(t, {
    url: 'http://agent.test/run',
    fetch,
    tools: [probe()],
    persist: store,
    threadId: 'j-3',
  });
  await runtime.send('fill');
  const thread = JSON.stringify(runtime.thread.export()).length;
  sizes.length = 0;
  assert.equal((await runtime.send('one tool round')).reason, 'done');
  assert.ok(sizes.length >= 3, `a turn with a tool round appends at each step (${sizes.length})`);
  const most = Math.max(...sizes);
  t.diagnostic(`change records: ${sizes.join(', ')} bytes; the thread: ${thread}`);
  assert.ok(most < 2000, `each change record is small (${sizes.join(', ')} bytes; the thread is ${thread})`);
});
