// Arguments as they stream, through the public API: the core hands out how each
// call's value grew, the shim replays it onto one live value per call. Whatever
// the split, every partial is a prefix-closed view of the final arguments, the
// last one is the arguments themselves, and the value is grown in place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, record, scriptedFetch, sseOf } from './helpers.mjs';
import { seededRandom } from '../support/random.mjs';

const URL_ = 'http://agent.test/run';
const ARGS_TEXT =
  '{"title":"Grüße ☀️ \\"q\\" \\ud83d\\ude00","__proto__":{"polluted":true},"rows":[' +
  '{"x":1,"y":-2.5e3,"tags":["a","b"]},{"x":2,"y":null,"ok":true,"none":[]},{"x":3,"deep":[[{}]]}],"end":false}';

/** A response that sends each event as its own chunk (so each is its own step). */
function eventByEvent(input, events) {
  const all = [{ type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId }, ...events];
  all.push({ type: 'RUN_FINISHED', threadId: input.threadId, runId: input.runId });
  const body = new ReadableStream({
    pull(controller) {
      const next = all.shift();
      if (next) controller.enqueue(new TextEncoder().encode(sseOf([next])));
      else controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

/** The events of a call whose arguments arrive in random pieces of 1..max bytes, each piece its own event. */
function splitCall(random, text, max) {
  const events = [{ type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'chart' }];
  for (let i = 0; i < text.length;) {
    const n = 1 + Math.floor(random() * max);
    events.push({ type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: text.slice(i, i + n) });
    i += n;
  }
  events.push({ type: 'TOOL_CALL_END', toolCallId: 'c1' });
  return events;
}

/** Whether `part` is what a prefix of the text of `whole` implies: each string a prefix, each list a prefix. */
function subsumed(part, whole) {
  if (typeof part === 'string') return typeof whole === 'string' && whole.startsWith(part);
  if (Array.isArray(part)) return Array.isArray(whole) && part.every((v, i) => subsumed(v, whole[i]));
  if (part && typeof part === 'object') {
    const keys = Object.keys(part);
    const wholeKeys = whole && typeof whole === 'object' ? Object.keys(whole) : [];
    return keys.every((k, i) => wholeKeys[i] === k && subsumed(part[k], whole[k]));
  }
  return Object.is(part, whole);
}

const chart = { name: 'chart', description: 'draws', parameters: { type: 'object' }, handler: () => 'drawn' };

for (const seed of [1, 2, 3]) {
  test(`streamed arguments (seed ${seed}): each partial is a prefix of the final value, grown in place`, async (t) => {
    const random = seededRandom(seed);
    const { fetch } = scriptedFetch((input, n) =>
      n === 0
        ? eventByEvent(input, splitCall(random, ARGS_TEXT, 4))
        : [{ type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'ok' }],
    );
    const runtime = await open(t, { url: URL_, fetch, tools: [chart] });
    const seen = [];
    const live = new Set();
    runtime.subscribe((c) => {
      if (c.kind !== 'tool_call_partial') return;
      live.add(c.args);
      seen.push(JSON.stringify(c.args));
    });
    const log = record(runtime);
    const result = await runtime.send('draw');
    assert.equal(result.reason, 'done', JSON.stringify(result));
    const final = JSON.parse(ARGS_TEXT);
    assert.ok(seen.length > 10, `several partials (${seen.length})`);
    for (const text of seen) assert.ok(subsumed(JSON.parse(text), final), `${text} is a prefix of the arguments`);
    assert.equal(seen.at(-1), JSON.stringify(final), 'the last partial is the arguments, keys in order');
    assert.equal(live.size, 1, 'one live value, grown in place');
    const [args] = live;
    assert.equal(Object.getPrototypeOf(args), Object.prototype, '"__proto__" stayed a member');
    assert.deepEqual(Object.keys(args), ['title', '__proto__', 'rows', 'end']);
    const kinds = log.changes.map((c) => c.kind);
    assert.ok(kinds.lastIndexOf('tool_call_partial') < kinds.indexOf('tool_call_ended'));
    assert.equal(log.of('tool_call_partial').filter((c) => c.invalid).length, 0);
  });
}

test('arguments that stop being JSON are reported once, and the value stops where they did', async (t) => {
  const { fetch } = scriptedFetch((input, n) =>
    n === 0
      ? [
          { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'chart' },
          { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"title":"Ro' },
          { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: 'me", x' },
          { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: ': 1}' },
          { type: 'TOOL_CALL_END', toolCallId: 'c1' },
        ]
      : [{ type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'ok' }],
  );
  const runtime = await open(t, { url: URL_, fetch, tools: [chart] });
  const log = record(runtime);
  await runtime.send('draw');
  const invalid = log.of('tool_call_partial').filter((c) => c.invalid);
  assert.equal(invalid.length, 1);
  assert.match(invalid[0].invalid, /expected a member name in quotes at byte \d+/);
  assert.deepEqual(invalid[0].args, { title: 'Rome' });
  const status = log
    .of('tool_call_status')
    .filter((c) => c.toolCallId === 'c1')
    .map((c) => c.status);
  assert.deepEqual(status, ['streaming', 'ready', 'error'], 'the final arguments are refused as before');
});
