// The embind boundary as the shim uses it: every step carries the changes it
// made (one call and one JSON.parse per step), a refusal carries none and
// loses none, and a step that changed nothing has no "changes" member.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
// The raw embind classes are internal (not exported by the package): this file reads src/core.js.
import { feedBytes, loadCore } from '../../js-shim/src/core.js';

const core = await loadCore({ wasm: fs.readFileSync(new URL('../../js-shim/dist/agui_core.wasm', import.meta.url)) });
const sse = (...events) => new TextEncoder().encode(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));
const kinds = (step) => (step.changes ?? []).map((c) => c.kind);

function opened() {
  const registry = new core.Registry();
  JSON.parse(
    registry.add(JSON.stringify({ name: 'noop', description: 'does nothing', parameters: { type: 'object' } })),
  );
  const driver = new core.Driver(registry, 't1');
  assert.equal(JSON.parse(driver.open(JSON.stringify({ options: {} }), Date.now())).ok, true);
  return { registry, driver, close: () => (driver.delete(), registry.delete()) };
}

test('a step carries the changes it made, and nothing is left behind for takeChanges', () => {
  const { driver, close } = opened();
  const sent = JSON.parse(driver.send(JSON.stringify('hello'), '{}'));
  assert.ok(sent.run?.runId, 'the step still says what to do');
  assert.deepEqual(kinds(sent), ['message_added', 'turn_started', 'round_started']);
  assert.equal(sent.changes[0].message.content, 'hello');
  assert.equal(driver.takeChanges(), '[]');

  const runId = sent.run.runId;
  const fed = feedBytes(
    driver,
    runId,
    sse(
      { type: 'RUN_STARTED', threadId: 't1', runId },
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'noop' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      { type: 'RUN_FINISHED', threadId: 't1', runId },
    ),
  );
  assert.deepEqual(kinds(fed), [
    'run_started',
    'message_added',
    'tool_call_added',
    'tool_call_status',
    'tool_call_args',
    'tool_call_partial',
    'tool_call_ended',
    'tool_call_status',
    'run_finished',
  ]);
  assert.deepEqual(Object.keys(fed), ['changes'], 'a feed step says nothing else');

  const ended = JSON.parse(driver.endOfStream(runId, Date.now()));
  assert.equal(ended.execute[0].toolCallId, 'c1');
  assert.deepEqual(kinds(ended), ['tool_call_status']);
  assert.equal(ended.changes[0].status, 'running');
  assert.equal(driver.takeChanges(), '[]');
  close();
});

test('a refusal carries no changes and loses none; a step that changed nothing has no "changes"', () => {
  const { driver, close } = opened();
  const { run } = JSON.parse(driver.send(JSON.stringify('hello'), '{}'));
  const refused = JSON.parse(driver.submitResult('nope', JSON.stringify('x')));
  assert.equal(refused.error.code, 'unknown_tool_call');
  assert.equal(refused.changes, undefined);

  const quiet = feedBytes(driver, run.runId, new TextEncoder().encode(': keep-alive\n\n'));
  assert.deepEqual(quiet, {}, 'a comment changes nothing');

  const stale = feedBytes(driver, 'not-this-run', sse({ type: 'RUN_STARTED', threadId: 't1', runId: 'x' }));
  assert.deepEqual(stale, { stale: true });

  const fed = feedBytes(driver, run.runId, sse({ type: 'RUN_STARTED', threadId: 't1', runId: run.runId }));
  assert.deepEqual(kinds(fed), ['run_started'], 'the next step brings exactly its own');
  close();
});

test('feed: a chunk larger than the whole heap crosses intact, and the step is read after the heap grew under it', () => {
  const { driver, close } = opened();
  const { run } = JSON.parse(driver.send(JSON.stringify('hello'), '{}'));
  const heapBytes = () => driver.inputBuffer(0).buffer.byteLength;
  const before = heapBytes();
  const delta = (i) => `part ${i}: ünïcødé ✓ 🙂; `;
  const count = Math.ceil((1.5 * before) / 90);
  const bytes = sse(
    { type: 'RUN_STARTED', threadId: 't1', runId: run.runId },
    { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
    ...Array.from({ length: count }, (_, i) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: delta(i) })),
  );
  assert.ok(bytes.length > before, `the chunk (${bytes.length} bytes) is larger than the heap was (${before})`);
  const fed = feedBytes(driver, run.runId, bytes);
  assert.ok(heapBytes() > before, 'the heap grew while the chunk was written and applied');
  const appended = fed.changes.filter((c) => c.kind === 'text_appended');
  assert.equal(appended.length, count);
  const expected = Array.from({ length: count }, (_, i) => delta(i)).join('');
  assert.equal(appended.map((c) => c.delta).join(''), expected);
  assert.equal(JSON.parse(driver.messages()).at(-1).content, expected);
  // Text goes in as UTF-8, as a body's bytes do.
  assert.deepEqual(feedBytes(driver, run.runId, ': keep-alive ✓\n\n'), {});
  close();
});

test('feed: a chunk that cannot fit in the heap is an error that names its size, and the driver goes on', () => {
  const { driver, close } = opened();
  const { run } = JSON.parse(driver.send(JSON.stringify('hello'), '{}'));
  const huge = 2 ** 31; // past the module's 2 GB memory limit
  assert.equal(driver.inputBuffer(huge), null, 'no C++ exception reaches JS');
  assert.throws(
    () => feedBytes(driver, run.runId, { length: huge }),
    /a chunk of 2147483648 bytes does not fit in the wasm heap/,
  );
  const fed = feedBytes(driver, run.runId, sse({ type: 'RUN_STARTED', threadId: 't1', runId: run.runId }));
  assert.deepEqual(kinds(fed), ['run_started']);
  close();
});
