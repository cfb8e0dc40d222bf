// Tests of the test server itself (tests/support/agui-server.mjs + scenarios.mjs):
// plain fetch and a spec-following SSE reader written here, so the package's
// tests can trust that each scenario sends what it claims, that every event
// validates against @ag-ui/core, and that the fault controls really fault.
// The last block runs @ag-ui/client's HttpAgent against it: a real client agrees.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { EventSchema } from '@ag-ui/core/schemas';
import { EventType } from '@ag-ui/core';
import { HttpAgent } from '@ag-ui/client';
import { startAguiServer, CUT_PARTIAL } from '../support/agui-server.mjs';
import { validateCorpus, corpusNames, loadCorpus, CORPUS_DIR } from '../support/validate-corpus.mjs';
import { referenceApply, encodeSse } from '../support/reference-apply.mjs';
import fs from 'node:fs';
import {
  scenarios,
  TOOL_SCHEMAS,
  TEXT_REPLY,
  SLOW_DELTAS,
  SSE_VARIANTS_TEXT,
  INTERRUPT_RESPONSE_SCHEMA,
  replies,
} from '../support/scenarios.mjs';

const server = await startAguiServer({ defaultScenario: 'text' });
after(() => server.close());

const ALL_TOOLS = Object.entries(TOOL_SCHEMAS).map(([name, parameters]) => ({
  name,
  description: `the ${name} tool`,
  parameters,
}));
let threads = 0;
function newInput(extra = {}) {
  const t = ++threads;
  return {
    threadId: `thread-${t}`,
    runId: `run-${t}-1`,
    messages: [{ id: `user-${t}`, role: 'user', content: 'hi' }],
    tools: ALL_TOOLS,
    context: [],
    state: {},
    forwardedProps: {},
    ...extra,
  };
}

function post(url, input, init = {}) {
  return fetch(url, {
    method: 'POST',
    body: typeof input === 'string' ? input : JSON.stringify(input),
    ...init,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...init.headers },
  });
}

// SSE per the WHATWG spec, small: lines end in CRLF, LF or CR; data lines join
// with "\n"; a blank line dispatches; comments and other fields are skipped.
async function readSse(response, onEvent = () => {}) {
  const events = [];
  const decoder = new TextDecoder();
  let buffer = '';
  let data = null;
  const line = (l) => {
    if (l === '') {
      if (data !== null) {
        let parsed;
        try {
          parsed = JSON.parse(data);
        } catch {
          parsed = { invalidJson: data };
        }
        events.push(parsed);
        onEvent(parsed, events);
      }
      data = null;
      return;
    }
    if (l.startsWith(':')) return;
    const i = l.indexOf(':');
    const field = i < 0 ? l : l.slice(0, i);
    const value = i < 0 ? '' : l.slice(i + 1).replace(/^ /, '');
    if (field === 'data') data = data === null ? value : `${data}\n${value}`;
  };
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let m;
    while ((m = /\r\n|\r|\n/.exec(buffer)) && !(m[0] === '\r' && m.index === buffer.length - 1)) {
      line(buffer.slice(0, m.index));
      buffer = buffer.slice(m.index + m[0].length);
    }
  }
  return events;
}

async function runOnce(name, input, opts) {
  const res = await post(server.url(name, opts), input);
  assert.equal(res.status, 200, `${name}: HTTP ${res.status}`);
  assert.match(res.headers.get('content-type'), /^text\/event-stream/);
  return readSse(res);
}

function assertValid(events, { framed = true, input } = {}) {
  for (const e of events) {
    const r = EventSchema.safeParse(e);
    assert.ok(r.success, `invalid ${e.type}: ${JSON.stringify(e)} ${r.error?.message}`);
  }
  if (!framed) return;
  assert.equal(events[0].type, 'RUN_STARTED');
  if (input) assert.deepEqual([events[0].threadId, events[0].runId], [input.threadId, input.runId]);
  assert.ok(['RUN_FINISHED', 'RUN_ERROR'].includes(events.at(-1).type), `last event ${events.at(-1).type}`);
}

const textOf = (events) =>
  events
    .filter((e) => e.type === 'TEXT_MESSAGE_CONTENT' || e.type === 'TEXT_MESSAGE_CHUNK')
    .map((e) => e.delta ?? '')
    .join('');

// The client's side of the tool loop, reduced to what follow-up inputs need:
// assistant messages with their tool calls, plus server-sent tool results.
function threadFrom(events) {
  const messages = [];
  const byId = new Map();
  const calls = new Map();
  let lastText, lastCall;
  const assistant = (id) =>
    byId.get(id) ?? (byId.set(id, { id, role: 'assistant' }), messages.push(byId.get(id)), byId.get(id));
  for (const e of events) {
    if (e.type === 'TEXT_MESSAGE_START' || (e.type === 'TEXT_MESSAGE_CHUNK' && e.messageId))
      lastText = assistant(e.messageId);
    if ((e.type === 'TEXT_MESSAGE_CONTENT' || e.type === 'TEXT_MESSAGE_CHUNK') && e.delta) {
      const m = e.messageId ? byId.get(e.messageId) : lastText;
      m.content = (m.content ?? '') + e.delta;
    }
    if (e.type === 'TOOL_CALL_START' || (e.type === 'TOOL_CALL_CHUNK' && e.toolCallId)) {
      const call = { id: e.toolCallId, type: 'function', function: { name: e.toolCallName, arguments: '' } };
      (assistant(e.parentMessageId ?? e.toolCallId).toolCalls ??= []).push(call);
      calls.set(call.id, call);
      lastCall = call;
    }
    if ((e.type === 'TOOL_CALL_ARGS' || e.type === 'TOOL_CALL_CHUNK') && e.delta) {
      (e.toolCallId ? calls.get(e.toolCallId) : lastCall).function.arguments += e.delta;
    }
    if (e.type === 'TOOL_CALL_RESULT')
      messages.push({ id: e.messageId, role: 'tool', toolCallId: e.toolCallId, content: e.content });
  }
  const answered = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId));
  return { messages, pending: [...calls.values()].filter((c) => !answered.has(c.id)) };
}

// Runs a scenario to the end of its tool loop; `answer(call)` gives {content, error?}.
async function converse(name, input, answer, { maxRuns = 6, extra } = {}) {
  const runs = [];
  for (let i = 1; i <= maxRuns; i++) {
    const events = await runOnce(name, input);
    assertValid(events, { input });
    runs.push({ input, events });
    const { messages, pending } = threadFrom(events);
    if (!pending.length || events.at(-1).type === 'RUN_ERROR') break;
    const results = pending.map((c, k) => ({
      id: `tool-${input.runId}-${k}`,
      role: 'tool',
      toolCallId: c.id,
      ...answer(c),
    }));
    input = {
      ...input,
      runId: `${input.threadId}-run-${i + 1}`,
      messages: [...input.messages, ...messages, ...results],
      ...extra,
    };
  }
  return runs;
}

const callsIn = (events) =>
  threadFrom(events).pending.map((c) => ({ name: c.function.name, args: JSON.parse(c.function.arguments), id: c.id }));

test('text: streamed deltas, framing, request recorded', async () => {
  const input = newInput();
  const events = await runOnce('text', input);
  assertValid(events, { input });
  assert.ok(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').length > 2);
  assert.equal(textOf(events), TEXT_REPLY);
  const rec = server.requests.at(-1);
  assert.equal(rec.scenario, 'text');
  assert.deepEqual(rec.input, input);
  assert.equal(rec.headers.accept, 'text/event-stream');
  assert.equal(rec.inputIssues, null);
  assert.deepEqual(rec.sent, events);
  // POST /agent runs the default scenario.
  assert.equal(textOf(await readSse(await post(server.url(), newInput()))), TEXT_REPLY);
  assert.equal(server.requests.at(-1).scenario, 'text');
});

test('chunked delivery splits bytes, not meaning', async () => {
  for (const name of ['text', 'every_event', 'one_tool']) {
    const input = newInput({ threadId: 'same', runId: 'same-run' });
    const whole = await runOnce(name, input);
    for (const chunked of [1, 3, 11]) {
      server.threads.clear();
      assert.deepEqual(await runOnce(name, input, { chunked, seed: chunked }), whole, `${name} chunked=${chunked}`);
    }
  }
  // The pieces really arrive as separate reads (loopback would otherwise coalesce them).
  const res = await post(server.url('text', { chunked: 3 }), newInput());
  let reads = 0,
    bytes = 0;
  for await (const c of res.body) {
    reads++;
    bytes += c.length;
  }
  assert.ok(reads >= bytes / 6, `${reads} reads for ${bytes} bytes`);
});

test('one_tool: get_weather {"city":"Paris"} then a reply quoting the result', async () => {
  const runs = await converse('one_tool', newInput(), () => ({ content: '18°C and sunny' }));
  assert.equal(runs.length, 2);
  const [call] = callsIn(runs[0].events);
  assert.deepEqual([call.name, call.args], ['get_weather', { city: 'Paris' }]);
  const start = runs[0].events.find((e) => e.type === 'TOOL_CALL_START');
  assert.equal(start.parentMessageId, runs[0].events.find((e) => e.type === 'TEXT_MESSAGE_START').messageId);
  assert.equal(textOf(runs[1].events), replies.weather({ content: '18°C and sunny' }));
  // With the tool not advertised, the "model" answers instead of calling it.
  const none = await runOnce('one_tool', newInput({ tools: [] }));
  assert.equal(callsIn(none).length, 0);
  assert.equal(textOf(none), replies.unavailable('get_weather'));
});

test('one_tool_chunks: the same call made of TOOL_CALL_CHUNK / TEXT_MESSAGE_CHUNK', async () => {
  const runs = await converse('one_tool_chunks', newInput(), () => ({ content: 'rain' }));
  const types = new Set(runs[0].events.map((e) => e.type));
  assert.ok(types.has('TOOL_CALL_CHUNK') && types.has('TEXT_MESSAGE_CHUNK') && !types.has('TOOL_CALL_START'));
  assert.ok(
    runs[0].events.some((e) => e.type === 'TOOL_CALL_CHUNK' && !e.toolCallId),
    'a continuation chunk has no id',
  );
  assert.deepEqual(
    callsIn(runs[0].events).map((c) => c.args),
    [{ city: 'Paris' }],
  );
  assert.equal(textOf(runs[1].events), replies.weather({ content: 'rain' }));
});

test('multi_round: get_location, get_weather, then text (3 runs)', async () => {
  const runs = await converse('multi_round', newInput(), (c) => ({
    content: c.function.name === 'get_location' ? 'Paris' : 'mild',
  }));
  assert.equal(runs.length, 3);
  assert.deepEqual(
    callsIn(runs[0].events).map((c) => [c.name, c.args]),
    [['get_location', { precision: 'city' }]],
  );
  assert.deepEqual(
    callsIn(runs[1].events).map((c) => [c.name, c.args]),
    [['get_weather', { city: 'Paris' }]],
  );
  assert.equal(textOf(runs[2].events), replies.multiRound({ content: 'Paris' }, { content: 'mild' }));
});

test('parallel: three interleaved calls in one run, answered in call order', async () => {
  const runs = await converse('parallel', newInput(), (c) => ({ content: `r:${c.function.arguments}` }));
  assert.equal(runs.length, 2);
  const calls = callsIn(runs[0].events);
  assert.deepEqual(
    calls.map((c) => [c.name, c.args]),
    [
      ['get_weather', { city: 'Paris' }],
      ['get_weather', { city: 'Tokyo' }],
      ['get_time', { timezone: 'Asia/Tokyo' }],
    ],
  );
  assert.equal(new Set(calls.map((c) => c.id)).size, 3);
  const order = runs[0].events.filter((e) => e.type.startsWith('TOOL_CALL')).map((e) => e.type);
  assert.notDeepEqual(order.slice(0, 3), ['TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_ARGS'], 'interleaved');
  assert.match(textOf(runs[1].events), /^Paris: r:\{"city":"Paris"\}; Tokyo: r:\{"city":"Tokyo"\}; time: r:/);
});

test('pending_ids / pending_unknown: outcome.pendingToolCallIds', async () => {
  const runs = await converse('pending_ids', newInput(), (c) => ({ content: JSON.parse(c.function.arguments).city }));
  const fin = runs[0].events.at(-1);
  assert.deepEqual(
    fin.outcome.pendingToolCallIds,
    callsIn(runs[0].events).map((c) => c.id),
  );
  assert.equal(textOf(runs[1].events), 'Paris: Paris; Berlin: Berlin');
  const u = await converse('pending_unknown', newInput(), () => ({ content: 'ok' }));
  const ids = u[0].events.at(-1).outcome.pendingToolCallIds;
  const known = callsIn(u[0].events).map((c) => c.id);
  assert.equal(ids.length, 2);
  assert.equal(ids[0], known[0]);
  assert.ok(!u[0].events.some((e) => e.toolCallId === ids[1]), 'second id never appears in the stream');
  assert.equal(textOf(u[1].events), replies.weather({ content: 'ok' }));
});

test('loop_forever varies its arguments; loop_same_args repeats them', async () => {
  const a = await converse('loop_forever', newInput(), () => ({ content: 'again' }), { maxRuns: 4 });
  assert.deepEqual(
    a.map((r) => callsIn(r.events)[0].args.attempt),
    [1, 2, 3, 4],
  );
  const b = await converse('loop_same_args', newInput(), () => ({ content: 'again' }), { maxRuns: 4 });
  const calls = b.map((r) => callsIn(r.events)[0]);
  assert.ok(calls.every((c) => JSON.stringify(c.args) === '{"city":"Paris"}'));
  assert.equal(new Set(calls.map((c) => c.id)).size, 4, 'a new toolCallId each run');
});

test('approval: delete_file {"path":"/tmp/x"}; the reply names the outcome', async () => {
  for (const [result, status] of [
    [{ content: 'deleted' }, 'approved'],
    [{ content: '', error: 'rejected by the user' }, 'rejected'],
    [{ content: '', error: 'EACCES' }, 'error'],
  ]) {
    const runs = await converse('approval', newInput(), () => result);
    assert.deepEqual(
      callsIn(runs[0].events).map((c) => [c.name, c.args]),
      [['delete_file', { path: '/tmp/x' }]],
    );
    assert.equal(textOf(runs[1].events), replies.approval(result));
    assert.match(textOf(runs[1].events), new RegExp(`^delete_file ${status}`));
  }
});

test('interrupt: int-1 with responseSchema, answered by resume', async () => {
  const input = newInput();
  const first = await runOnce('interrupt', input);
  assertValid(first, { input });
  const [int] = first.at(-1).outcome.interrupts;
  assert.deepEqual(int, {
    id: 'int-1',
    reason: 'confirmation',
    message: 'Delete every file in /tmp/x?',
    responseSchema: INTERRUPT_RESPONSE_SCHEMA,
  });
  const next = { ...input, runId: 'r2', messages: [...input.messages, ...threadFrom(first).messages] };
  const missing = await runOnce('interrupt', next);
  assert.deepEqual(missing.at(-1), {
    type: 'RUN_ERROR',
    message: 'interrupt int-1 not answered',
    code: 'interrupt_unanswered',
  });
  const resume = [{ interruptId: 'int-1', status: 'resolved', payload: { confirm: true } }];
  const ok = await runOnce('interrupt', { ...next, runId: 'r3', resume });
  assert.equal(textOf(ok), 'Interrupt int-1 resolved with {"confirm":true}.');
  // A stale resume is an error; a new turn raises int-2.
  assert.equal((await runOnce('interrupt', { ...next, runId: 'r4', resume })).at(-1).code, 'unknown_interrupt');
  assert.equal((await runOnce('interrupt', { ...next, runId: 'r5' })).at(-1).outcome.interrupts[0].id, 'int-2');
  const cancel = await runOnce('interrupt', {
    ...next,
    runId: 'r6',
    resume: [{ interruptId: 'int-2', status: 'cancelled' }],
  });
  assert.equal(textOf(cancel), 'Interrupt int-2 cancelled.');
});

test('disabled_tool calls read_clipboard though it was never advertised', async () => {
  const runs = await converse('disabled_tool', newInput({ tools: [] }), () => ({
    content: '',
    error: 'tool read_clipboard is disabled',
  }));
  assert.deepEqual(
    callsIn(runs[0].events).map((c) => [c.name, c.args]),
    [['read_clipboard', {}]],
  );
  assert.equal(
    textOf(runs[1].events),
    'read_clipboard (advertised: no) answered:  (error: tool read_clipboard is disabled)',
  );
});

test('server_tool, snapshot_replay, state_counter', async () => {
  const s = await converse('server_tool', newInput(), () => ({ content: 'warm' }));
  assert.deepEqual(
    callsIn(s[0].events).map((c) => c.name),
    ['get_weather'],
    'search_docs was answered in-stream',
  );
  assert.equal(textOf(s[1].events), 'Docs: AG-UI is an event protocol.. Weather: warm.');
  const r = await converse('snapshot_replay', newInput(), () => ({ content: 'cold' }));
  const snap = r[1].events.find((e) => e.type === 'MESSAGES_SNAPSHOT');
  assert.deepEqual(snap.messages, r[1].input.messages);
  assert.equal(textOf(r[1].events), replies.weather({ content: 'cold' }));
  const c1 = await runOnce('state_counter', newInput({ state: { other: 'x' } }));
  assert.deepEqual(c1.find((e) => e.type === 'STATE_SNAPSHOT').snapshot, { other: 'x', count: 1 });
  const c2 = await runOnce('state_counter', newInput({ state: { other: 'x', count: 1 } }));
  assert.deepEqual(c2.find((e) => e.type === 'STATE_DELTA').delta, [{ op: 'replace', path: '/count', value: 2 }]);
  assert.equal(textOf(c2), replies.counter(2));
});

test('thread checks: unanswered, duplicate and orphan tool results end in RUN_ERROR', async () => {
  const call = { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } };
  const base = newInput();
  const withMessages = (...m) => ({
    ...base,
    messages: [...base.messages, { id: 'a1', role: 'assistant', toolCalls: [call] }, ...m],
  });
  const tool = (id, toolCallId = 'c1') => ({ id, role: 'tool', toolCallId, content: 'x' });
  for (const [input, code] of [
    [withMessages(), 'unanswered_tool_call'],
    [withMessages(tool('t1'), tool('t2')), 'duplicate_tool_result'],
    [withMessages(tool('t1'), tool('t2', 'nope')), 'orphan_tool_result'],
  ]) {
    const events = await runOnce('text', input);
    assertValid(events, { input });
    assert.equal(events.length, 2);
    assert.equal(events[1].code, code);
  }
});

test('HTTP-level answers: 400, 422, 404, 405, CORS preflight', async () => {
  const count = server.requests.length;
  assert.equal((await post(server.url('text'), '{oops')).status, 400);
  const bad = await post(server.url('text'), { threadId: 1, messages: 'no' });
  assert.equal(bad.status, 422);
  assert.ok((await bad.json()).issues.some((i) => i.startsWith('threadId')));
  assert.deepEqual(server.requests.at(-1).inputIssues.length > 0, true);
  assert.equal((await post(server.url('no_such'), newInput())).status, 404);
  assert.equal((await fetch(server.url('text'))).status, 405);
  const pre = await fetch(server.url('text'), {
    method: 'OPTIONS',
    headers: { 'access-control-request-headers': 'content-type' },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get('access-control-allow-origin'), '*');
  assert.equal(server.requests.length, count + 3, 'POSTs are recorded; the GET and the preflight are not');
});

test('http500, not_sse', async () => {
  const e = await post(server.url('http500'), newInput());
  assert.deepEqual([e.status, await e.text()], [500, 'boom']);
  const j = await post(server.url('not_sse'), newInput());
  assert.equal(j.status, 200);
  assert.equal(j.headers.get('content-type'), 'application/json');
  assert.deepEqual(await j.json(), { message: 'this endpoint does not stream' });
});

test('truncated: events, a partial event, then a dead socket (not counted as an abort)', async () => {
  const before = server.aborted;
  const res = await post(server.url('truncated'), newInput());
  const bytes = [];
  await assert.rejects(async () => {
    for await (const c of res.body) bytes.push(Buffer.from(c));
  });
  const text = Buffer.concat(bytes).toString();
  assert.ok(text.endsWith(CUT_PARTIAL), text);
  assert.match(text, /"delta":"off mid-"/);
  assert.equal(server.aborted, before);
});

test('stall keeps the response open until the client aborts; the abort is counted', async () => {
  const before = server.aborted;
  const ctl = new AbortController();
  const res = await post(server.url('stall'), newInput(), { signal: ctl.signal });
  const seen = [];
  const reading = readSse(res, (e) => seen.push(e)).catch((err) => err);
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(
    seen.map((e) => e.type),
    ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT'],
  );
  ctl.abort();
  assert.equal((await reading).name, 'AbortError');
  await server.waitForAborts(before + 1);
  assert.equal(server.requests.at(-1).aborted, true);
});

test('slow: aborting mid-stream stops the server writing', async () => {
  const before = server.aborted;
  const ctl = new AbortController();
  const res = await post(server.url('slow'), newInput(), { signal: ctl.signal });
  const err = await readSse(res, (e, all) => {
    if (all.length === 4) ctl.abort();
  }).catch((x) => x);
  assert.equal(err.name, 'AbortError');
  await server.waitForAborts(before + 1);
  const rec = server.requests.at(-1);
  await new Promise((r) => setTimeout(r, 250));
  assert.ok(rec.sent.length < SLOW_DELTAS, `sent ${rec.sent.length} events after the abort`);
});

test('run_error, malformed, sse_variants', async () => {
  const e = await runOnce('run_error', newInput());
  assertValid(e);
  assert.deepEqual(e.at(-1), { type: 'RUN_ERROR', message: 'model overloaded', code: 'overloaded' });
  assert.equal(textOf(e), 'Working on it');
  const m = await runOnce('malformed', newInput());
  assert.ok(m.some((x) => x.invalidJson === '{not json}'));
  assert.ok(m.some((x) => x.type === 'NOT_A_REAL_EVENT'));
  assert.equal(m.filter((x) => !EventSchema.safeParse(x).success).length, 3);
  assert.equal(m.at(-1).type, 'RUN_FINISHED');
  const v = await runOnce('sse_variants', newInput());
  assertValid(v);
  assert.equal(textOf(v), SSE_VARIANTS_TEXT);
});

test('every_event: every AG-UI 1.0 event type but RUN_ERROR, all valid', async () => {
  const input = newInput();
  const events = await runOnce('every_event', input);
  assertValid(events, { input });
  const missing = Object.values(EventType).filter((t) => !events.some((e) => e.type === t));
  assert.deepEqual(missing, ['RUN_ERROR']);
  assert.equal(threadFrom(events).pending.length, 0, 'nothing left for the client to run');
  // The corpus copy is this scenario frozen with ids prefix-1, prefix-2, ...
  const frozen = loadCorpus('every_event');
  let n = 0;
  const ids = { threadId: frozen.input.threadId, runId: frozen.input.runId };
  const api = {
    id: (p) => `${p}-${++n}`,
    runStarted: (x) => ({ type: 'RUN_STARTED', ...ids, ...x }),
    runFinished: (x) => ({ type: 'RUN_FINISHED', ...ids, ...x }),
  };
  const replay = [];
  for await (const e of scenarios.every_event(frozen.events[0].input, api)) replay.push(e);
  assert.deepEqual(replay, frozen.events, 'fixtures/streams/every_event.json drifted from the scenario');
});

test('@ag-ui/client HttpAgent consumes the scenarios', async () => {
  const agent = (name) =>
    new HttpAgent({
      url: server.url(name),
      threadId: `ref-${name}-${++threads}`,
      initialMessages: [{ id: `u-${threads}`, role: 'user', content: 'hi' }],
    });
  const t = agent('text');
  await t.runAgent({ tools: ALL_TOOLS });
  assert.equal(t.messages.at(-1).content, TEXT_REPLY);

  const w = agent('one_tool_chunks');
  await w.runAgent({ tools: ALL_TOOLS });
  const call = w.messages.at(-1).toolCalls[0];
  assert.deepEqual([call.function.name, JSON.parse(call.function.arguments)], ['get_weather', { city: 'Paris' }]);
  w.addMessage({ id: 'tm-1', role: 'tool', toolCallId: call.id, content: '20°C' });
  await w.runAgent({ tools: ALL_TOOLS });
  assert.equal(w.messages.at(-1).content, replies.weather({ content: '20°C' }));

  const i = agent('interrupt');
  await i.runAgent({ tools: ALL_TOOLS });
  assert.equal(i.pendingInterrupts[0].id, 'int-1');
  await i.runAgent({
    tools: ALL_TOOLS,
    resume: [{ interruptId: 'int-1', status: 'resolved', payload: { confirm: false } }],
  });
  assert.equal(i.messages.at(-1).content, 'Interrupt int-1 resolved with {"confirm":false}.');

  const all = agent('every_event');
  await all.runAgent({ tools: ALL_TOOLS });
  assert.deepEqual(all.state, { progress: 1, items: ['a'] });
  assert.ok(all.messages.some((m) => m.role === 'activity' && m.content.step === 2));
});

test('stream corpus: valid, and its .expected.json / .sse match @ag-ui/client and @ag-ui/encoder', async () => {
  assert.deepEqual(validateCorpus(), []);
  for (const name of corpusNames()) {
    const doc = loadCorpus(name);
    const expected = JSON.parse(fs.readFileSync(`${CORPUS_DIR}/${name}.expected.json`, 'utf8'));
    assert.deepEqual(
      await referenceApply(doc),
      expected,
      `${name}.expected.json is stale: node support/reference-apply.mjs --write`,
    );
    const sse = fs.readFileSync(`${CORPUS_DIR}/${name}.sse`, 'utf8');
    assert.equal(sse, encodeSse(doc.events), `${name}.sse is stale`);
    assert.deepEqual(await readSse(new Response(sse)), doc.events, `${name}.sse parses back to its events`);
  }
});
