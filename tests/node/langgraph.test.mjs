// The package against a LangGraph stack nobody on this project wrote: a LangGraph JS
// graph on the LangGraph API's in-memory server behind @ag-ui/langgraph's
// LangGraphAgent (tests/third-party/langgraph/, its model scripted in script.mjs there),
// with the bridge's default settings (an interrupt is a CUSTOM on_interrupt and a plain
// RUN_FINISHED; its answer goes in forwardedProps.command.resume) and with
// `emitInterruptOutcome: true` (AG-UI 1.0 interrupt outcomes and resume entries).
// Every request is checked against @ag-ui/core's RunAgentInputSchema and for calls
// left without an answer. What was found: docs/third-party.md.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  open,
  record,
  nextChange,
  toolCalls,
  toolMessages,
  resultOf,
  assertEveryCallAnsweredOnce,
  lastText,
  mapStore,
  sleep,
} from './helpers.mjs';
import { basicScenarios, clientTools, assertRequestsValid as assertValid } from './basic-scenarios.mjs';

const { startLangGraph } = await import('../third-party/langgraph/server.mjs');
const server = await startLangGraph(); // started and warmed once for the file
after(() => server.close());

/** Per test: a LangGraph run takes ~0.3 s (its workers poll for runs), the endless caller seven of them. */
const T = { timeout: 20_000 };

// --- the client side --------------------------------------------------------------------------

/**
 * A runtime on the bridge (`mode`: 'default' or 'outcome') whose fetch keeps every
 * RunAgentInput it sends, and every interrupt it was shown (id -> toolCallId).
 * The thread id is a UUID: the LangGraph API takes no other.
 */
async function openOnLangGraph(t, { mode = 'default', ...options } = {}) {
  const requests = [];
  const fetch = (url, init) => {
    requests.push(JSON.parse(init.body));
    return globalThis.fetch(url, init);
  };
  const runtime = await open(t, {
    url: server.url(mode),
    fetch,
    tools: clientTools(),
    threadId: randomUUID(),
    ...options,
  });
  return { runtime, requests, ...watch(runtime) };
}

/** What a page watches: each change, and the interrupts it was shown (id -> the call it pauses). */
function watch(runtime) {
  const changes = record(runtime);
  const interruptCalls = new Map();
  runtime.subscribe(
    (c) => c.kind === 'interrupts' && c.interrupts.forEach((i) => interruptCalls.set(i.id, i.toolCallId)),
  );
  return { changes, interruptCalls };
}

/**
 * Every request valid, every call answered but those an interrupt defers to the resume
 * the request carries (`interruptCalls`: interrupt id -> toolCallId).
 */
const assertRequestsValid = (requests, interruptCalls = new Map()) =>
  assertValid(requests, (input) => new Set((input.resume ?? []).map((r) => interruptCalls.get(r.interruptId))));

/** Each tool message sits right after the assistant message holding its call. */
function assertAnswersFollowTheirCalls(messages, label = 'the thread') {
  const at = (id) => messages.findIndex((m) => m.id === id);
  const owner = new Map(toolCalls(messages).map((c) => [c.id, c.message.id]));
  for (const m of toolMessages(messages)) {
    const after = messages.slice(at(owner.get(m.toolCallId)) + 1, at(m.id));
    assert.ok(
      after.every((x) => x.role === 'tool'),
      `in ${label}, the answer to ${m.toolCallId} follows its call, not: ${after.map((x) => x.role).join(', ')}`,
    );
  }
}

/**
 * A client's error result as the thread holds it after the run: its content is
 * {"error": text}, and `error` is set; the bridge's closing MESSAGES_SNAPSHOT sends the
 * message back with `error: "error"` for the text (LangChain keeps only a status).
 */
function assertErrorAnswer(message, pattern) {
  assert.equal(typeof message.error, 'string', `tool message ${message.id} has an error field`);
  const { error } = JSON.parse(message.content);
  assert.match(error, pattern);
  return error;
}

/** The text of the thread's last assistant reply. */
const replyText = (messages) => messages.findLast((m) => m.role === 'assistant' && m.content)?.content;

/** The status the page was last told for `toolCallId`. */
const lastStatus = (changes, toolCallId) =>
  changes
    .of('tool_call_status')
    .filter((c) => c.toolCallId === toolCallId)
    .at(-1)?.status;

// --- the six basic scenarios ----------------------------------------------------------------

basicScenarios({ T, openOn: openOnLangGraph, errorOf: assertErrorAnswer });

// --- issue 33 item 4: a server tool's answer keeps its place --------------------------------

test(
  "a server tool's result stays right after its call in every later request, never after the reply",
  T,
  async (t) => {
    const { runtime, requests } = await openOnLangGraph(t);
    assert.deepEqual(await runtime.send('Look up the docs'), { reason: 'done' });
    assertAnswersFollowTheirCalls(runtime.messages);
    assert.equal(lastText(runtime.messages), 'results: {"topic":"tools","pages":["tools.md"]}');

    assert.deepEqual(await runtime.send('hello again'), { reason: 'done' });
    assert.deepEqual(
      requests[1].messages.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant', 'user'],
      'the next request: the call, its answer, then the reply',
    );
    assertAnswersFollowTheirCalls(requests[1].messages, 'the next request');
    assertEveryCallAnsweredOnce(runtime.messages);
    assertRequestsValid(requests);
  },
);

// --- issue 33 item 1: a call inside interrupt(), with the bridge's default settings ---------
// The run ends with CUSTOM on_interrupt and a plain RUN_FINISHED: the runtime knows of no
// interrupt, so the call is open and the page answers through forwardedProps.command.resume
// on a run with no new message. The server then re-sends the call and its real result.

const BOOKED = '{"to":"Lisbon","booked":true}';

/** Starts the booking turn; resolves with the interrupt's value once the legacy event came. */
async function bookWithLegacyInterrupt(runtime) {
  const raised = nextChange(runtime, (c) => c.kind === 'event' && c.event.name === 'on_interrupt');
  assert.deepEqual(await runtime.send('Book a flight to Lisbon'), { reason: 'done' });
  return JSON.parse((await raised).event.value);
}

/** The resume a page sends on the legacy channel: a run with no new message. */
const legacyResume = (runtime, resume) => runtime.send([], { forwardedProps: { command: { resume } } });

/** After the resume: the server's result is the call's one answer, in its place, the call done. */
function assertServerAnswered(runtime, changes, call, content) {
  const answer = resultOf(runtime.messages, call.id);
  assert.equal(answer.content, content, "the server's result replaced the client's stand-in");
  assert.equal(answer.error, undefined, 'no error left on it');
  assert.equal(lastStatus(changes, call.id), 'done', 'the page was told the call is done');
  assertAnswersFollowTheirCalls(runtime.messages);
  assertEveryCallAnsweredOnce(runtime.messages);
}

/** The next turn's request carries the server's answer, right after its call. */
async function assertNextRequestCarries(runtime, requests, call, content) {
  assert.deepEqual(await runtime.send('hello again'), { reason: 'done' });
  const next = requests.at(-1);
  assert.equal(resultOf(next.messages, call.id).content, content);
  assertAnswersFollowTheirCalls(next.messages, 'the next request');
}

test(
  "default settings: the resume on forwardedProps gets the tool's real result, which replaces the stand-in",
  T,
  async (t) => {
    const { runtime, requests, changes } = await openOnLangGraph(t);
    const value = await bookWithLegacyInterrupt(runtime);
    const [call] = toolCalls(runtime.messages);
    assert.equal(call.name, 'book_flight');
    assert.deepEqual(value, { reason: 'confirmation', message: 'Book the flight to Lisbon?', toolCallId: call.id });

    assert.deepEqual(await legacyResume(runtime, { confirmed: true }), { reason: 'done' });
    assert.deepEqual(requests[1].forwardedProps, { command: { resume: { confirmed: true } } });
    assertServerAnswered(runtime, changes, call, BOOKED);
    assert.equal(replyText(runtime.messages), `results: ${BOOKED}`, 'the model read the real result');
    await assertNextRequestCarries(runtime, requests, call, BOOKED);
    assertRequestsValid(requests);
  },
);

test(
  'default settings: a declined booking (resume {confirmed: false}) is answered by the server in place',
  T,
  async (t) => {
    const { runtime, requests, changes } = await openOnLangGraph(t);
    await bookWithLegacyInterrupt(runtime);
    const [call] = toolCalls(runtime.messages);
    assert.deepEqual(await legacyResume(runtime, { confirmed: false }), { reason: 'done' });
    assertServerAnswered(runtime, changes, call, '{"to":"Lisbon","booked":false}');
    assertRequestsValid(requests);
  },
);

test(
  'default settings: a new message while the interrupt is pending gets it again, and the resume still lands',
  T,
  async (t) => {
    const { runtime, requests, changes } = await openOnLangGraph(t);
    await bookWithLegacyInterrupt(runtime);
    const [call] = toolCalls(runtime.messages);

    // The bridge runs nothing while an interrupt is pending and no resume came: it raises it again.
    const again = nextChange(runtime, (c) => c.kind === 'event' && c.event.name === 'on_interrupt');
    assert.deepEqual(await runtime.send('What is the weather in Paris?'), { reason: 'done' });
    assert.equal(JSON.parse((await again).event.value).toolCallId, call.id);

    assert.deepEqual(await legacyResume(runtime, { confirmed: true }), { reason: 'done' });
    assertServerAnswered(runtime, changes, call, BOOKED);
    assertRequestsValid(requests);
  },
);

test(
  'default settings: after a reload while the interrupt is pending, the resume replaces the stand-in',
  T,
  async (t) => {
    const store = mapStore();
    const threadId = randomUUID();
    const first = await openOnLangGraph(t, { persist: store, threadId });
    await bookWithLegacyInterrupt(first.runtime);
    const [call] = toolCalls(first.runtime.messages);
    await sleep(20); // the run's end is durable a moment after the turn resolves
    first.runtime.dispose(); // the tab goes away with the interrupt pending

    const second = await openOnLangGraph(t, { persist: store, threadId });
    assert.equal(toolCalls(second.runtime.messages)[0].id, call.id, 'the reloaded thread has the call');
    assert.deepEqual(await legacyResume(second.runtime, { confirmed: true }), { reason: 'done' });
    assertServerAnswered(second.runtime, second.changes, call, BOOKED);
    assertRequestsValid([...first.requests, ...second.requests]);
  },
);

// --- issue 33 item 1 with `emitInterruptOutcome: true`: AG-UI 1.0 interrupts ------------------

/** Starts the booking turn on the outcome endpoint; resolves with the interrupt and the turn. */
async function bookWithInterrupt(runtime) {
  const raised = nextChange(runtime, 'interrupts');
  const turn = runtime.send('Book a flight to Lisbon');
  const [interrupt] = (await raised).interrupts;
  return { interrupt, turn };
}

test(
  'interrupt outcome: surfaced with its call, and the resolved resume gets the real result in place',
  T,
  async (t) => {
    const { runtime, requests, changes, interruptCalls } = await openOnLangGraph(t, { mode: 'outcome' });
    const { interrupt, turn } = await bookWithInterrupt(runtime);
    const [call] = toolCalls(runtime.messages);
    assert.equal(interrupt.toolCallId, call.id, "the interrupt names the tool's call");
    assert.equal(interrupt.reason, 'confirmation');
    assert.equal(interrupt.message, 'Book the flight to Lisbon?');

    runtime.interrupts.resolve(interrupt.id, { confirmed: true });
    assert.deepEqual(await turn, { reason: 'done' });
    assert.deepEqual(requests[1].resume, [
      { interruptId: interrupt.id, status: 'resolved', payload: { confirmed: true } },
    ]);
    assertServerAnswered(runtime, changes, call, BOOKED);
    assert.equal(replyText(runtime.messages), `results: ${BOOKED}`, 'the model read the real result');
    await assertNextRequestCarries(runtime, requests, call, BOOKED);
    assertRequestsValid(requests, interruptCalls);
  },
);

test(
  "interrupt outcome: a cancelled interrupt's call is answered by the server's cancellation result",
  T,
  async (t) => {
    const { runtime, requests, changes, interruptCalls } = await openOnLangGraph(t, { mode: 'outcome' });
    const { interrupt, turn } = await bookWithInterrupt(runtime);
    const [call] = toolCalls(runtime.messages);
    runtime.interrupts.cancel(interrupt.id, 'changed my mind');
    assert.deepEqual(await turn, { reason: 'done' });

    assert.equal(requests[1].resume[0].status, 'cancelled');
    assertServerAnswered(runtime, changes, call, '{"to":"Lisbon","booked":false,"cancelled":true}');
    assertRequestsValid(requests, interruptCalls);
  },
);

test(
  "interrupt outcome: a new message while pending cancels it, and the server's result replaces the closure",
  T,
  async (t) => {
    const { runtime, requests, changes, interruptCalls } = await openOnLangGraph(t, { mode: 'outcome' });
    const { interrupt, turn } = await bookWithInterrupt(runtime);
    const [call] = toolCalls(runtime.messages);

    const next = runtime.send('What is the weather in Paris?');
    await turn;
    assert.equal((await next).reason, 'done');
    const cancelling = requests[1];
    assert.deepEqual(
      cancelling.resume?.map((r) => [r.interruptId, r.status]),
      [[interrupt.id, 'cancelled']],
      'the new message carries the cancellation',
    );
    assertServerAnswered(runtime, changes, call, '{"to":"Lisbon","booked":false,"cancelled":true}');
    assertRequestsValid(requests, interruptCalls);
  },
);

test(
  'interrupt outcome: after a reload while pending, the interrupt is back and its resume lands in place',
  T,
  async (t) => {
    const store = mapStore();
    const threadId = randomUUID();
    const first = await openOnLangGraph(t, { mode: 'outcome', persist: store, threadId });
    const { interrupt } = await bookWithInterrupt(first.runtime);
    const [call] = toolCalls(first.runtime.messages);
    await sleep(20); // the interrupted run's end is durable a moment after it is shown
    first.runtime.dispose();

    const second = await openOnLangGraph(t, { mode: 'outcome', persist: store, threadId });
    assert.deepEqual(
      second.runtime.interrupts.pending().map((i) => [i.id, i.toolCallId]),
      [[interrupt.id, call.id]],
    );
    second.runtime.interrupts.resolve(interrupt.id, { confirmed: true });
    assert.deepEqual(await second.runtime.resumed, { reason: 'done' });
    assertServerAnswered(second.runtime, second.changes, call, BOOKED);
    assertRequestsValid([...first.requests, ...second.requests], first.interruptCalls);
  },
);
