// The package against a server nobody on this project wrote: CopilotKit's runtime
// (v2 CopilotRuntime + BuiltInAgent, tests/third-party/copilotkit/) on loopback,
// its model the AI SDK's scripted mock. Every request the client sends is checked
// against @ag-ui/core's RunAgentInputSchema and for calls left without an answer.
// What was found when these disagreed: docs/third-party.md.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  T,
  open,
  record,
  nextChange,
  toolCalls,
  resultOf,
  assertEveryCallAnsweredOnce,
  assertErrorResult,
  lastText,
  sleep,
  within,
} from './helpers.mjs';
import { basicScenarios, clientTools, assertRequestsValid as assertValid } from './basic-scenarios.mjs';

// --- the model's script: a pure function of the prompt the AI SDK built -------------------

/** The text of a prompt message (user content is an array of parts). */
const textOf = (m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join(''));

/** A tool result as the model reads it: the JSON value, or the text. */
function outputOf(part) {
  const { output } = part;
  return output.type === 'json' || output.type === 'error-json' ? JSON.stringify(output.value) : String(output.value);
}

/**
 * The model. The last user message names the scenario; what came after it in the
 * prompt (tool calls and their results) says how far the turn has gone.
 */
function script(prompt) {
  const lastUser = prompt.findLastIndex((m) => m.role === 'user');
  const ask = textOf(prompt[lastUser]);
  const results = prompt
    .slice(lastUser + 1)
    .filter((m) => m.role === 'tool')
    .flatMap((m) => m.content);
  const reply = (calls) => (results.length ? { text: `results: ${results.map(outputOf).join(' | ')}` } : { calls });
  if (ask.includes('weather in Paris')) return reply([{ name: 'get_weather', args: { city: 'Paris' } }]);
  if (ask.includes('two cities')) {
    return reply([
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_weather', args: { city: 'Tokyo' } },
    ]);
  }
  if (ask.includes('clipboard')) return reply([{ name: 'read_clipboard', args: {} }]);
  if (ask.includes('Atlantis')) return reply([{ name: 'get_weather', args: { city: 'Atlantis' } }]);
  if (ask.includes('docs and weather')) {
    return reply([
      { name: 'lookup_docs', args: { topic: 'tools' } },
      { name: 'get_weather', args: { city: 'Paris' } },
    ]);
  }
  if (ask.includes('delete')) return reply([{ name: 'confirm_delete', args: { path: '/tmp/old.log' } }]);
  if (ask.includes('slowly')) return { text: 'an answer that took its time', delayMs: 1500 };
  if (ask.includes('dashboard')) return reply([{ name: 'open_dashboard', args: { panel: 'sales' } }]);
  // The endless caller: a new tick every round (new arguments, so the runaway guard stays out of it).
  if (ask.includes('tick forever')) return { calls: [{ name: 'tick', args: { n: results.length + 1 } }] };
  return { text: `echo: ${ask}` };
}

const { startCopilotKit } = await import('../third-party/copilotkit/server.mjs').catch((e) => {
  throw new Error(`CopilotKit is not installed: run \`npm ci\` in tests/third-party/copilotkit (${e.message})`);
});
const server = await startCopilotKit(script);
after(() => server.close());

// --- the client side --------------------------------------------------------------------------

/**
 * A runtime on the CopilotKit server whose fetch keeps every RunAgentInput it
 * sends (parsed from the body, as the server will read it).
 */
async function openOnCopilotKit(t, options = {}) {
  const requests = [];
  const fetch = (url, init) => {
    requests.push(JSON.parse(init.body));
    return globalThis.fetch(url, init);
  };
  const runtime = await open(t, { url: server.url, fetch, tools: clientTools(), ...options });
  return { runtime, requests };
}

/** Tool call ids an interrupt holds open until its resume (the one exception to "every call answered"). */
const deferredByInterrupt = (input) => new Set((input.resume ?? []).map((r) => r.interruptId));

/** Every request valid, every call answered but those a resume answers aside. */
const assertRequestsValid = (requests) => assertValid(requests, deferredByInterrupt);

// --- scenarios --------------------------------------------------------------------------------

basicScenarios({ T, openOn: openOnCopilotKit, errorOf: (m, pattern) => assertErrorResult(m, pattern).error });

test(
  "an interrupt from a server tool is surfaced, and its resume reaches the model as that call's result",
  T,
  async (t) => {
    const { runtime, requests } = await openOnCopilotKit(t);
    const changes = record(runtime);
    const raised = nextChange(runtime, 'interrupts');
    const turn = runtime.send('Please delete the old log');
    const { interrupts } = await raised;

    const [call] = toolCalls(runtime.messages);
    assert.equal(call.name, 'confirm_delete');
    assert.deepEqual(interrupts, [
      { id: call.id, toolCallId: call.id, reason: 'confirmation', message: 'Delete this file?' },
    ]);
    runtime.interrupts.resolve(call.id, { confirmed: true });
    assert.deepEqual(await turn, { reason: 'done' });

    assert.deepEqual(requests[1].resume, [{ interruptId: call.id, status: 'resolved', payload: { confirmed: true } }]);
    assert.equal(lastText(runtime.messages), 'results: {"confirmed":true}', 'the model read the resume payload');
    assert.deepEqual(
      changes.of('interrupt_answered').map((c) => c.status),
      ['resolved'],
    );
    assertRequestsValid(requests);
  },
);

test("after an interrupt's resume, the next turn on the same thread succeeds", T, async (t) => {
  const { runtime, requests } = await openOnCopilotKit(t);
  const raised = nextChange(runtime, 'interrupts');
  const turn = runtime.send('Please delete the old log');
  const { interrupts } = await raised;
  runtime.interrupts.resolve(interrupts[0].id, { confirmed: true });
  assert.deepEqual(await turn, { reason: 'done' });

  // CopilotKit hands the resume payload to its model as the call's result but
  // sends no TOOL_CALL_RESULT: the call is closed with what the user answered.
  const [call] = toolCalls(runtime.messages);
  assert.equal(resultOf(runtime.messages, call.id).content, '{"confirmed":true}');
  assert.equal(resultOf(runtime.messages, call.id).error, undefined, 'not "no result"');
  assert.deepEqual(await runtime.send('What is the weather in Paris?'), { reason: 'done' });
  assert.equal(resultOf(requests.at(-1).messages, call.id).content, '{"confirmed":true}');
  assert.equal(lastText(runtime.messages), 'results: {"city":"Paris","sky":"sunny"}');
  assertEveryCallAnsweredOnce(runtime.messages);
  assertRequestsValid(requests);
});

test('a send() that supersedes a turn CopilotKit is still running gets its answer', T, async (t) => {
  const { runtime, requests } = await openOnCopilotKit(t);
  const first = runtime.send('Answer slowly, please');
  await sleep(200); // CopilotKit is running the thread now
  assert.equal(requests.length, 1);
  const second = runtime.send('What is the weather in Paris?');
  assert.deepEqual(await first, { reason: 'aborted', message: 'superseded by a new message' });
  // CopilotKit answers a run on a thread it is still running with an empty 200
  // stream: the runtime sends that request again until the thread is free.
  assert.deepEqual(await within(second, 8000, 'the superseding turn'), { reason: 'done' });
  assert.equal(lastText(runtime.messages), 'results: {"city":"Paris","sky":"sunny"}');
  assertEveryCallAnsweredOnce(runtime.messages);
  assertRequestsValid(requests);
});

test(
  'a call to a tool this client lacks is answered with an error before the next request, and the next turn succeeds',
  T,
  async (t) => {
    const { runtime, requests } = await openOnCopilotKit(t);
    // CopilotKit's AI SDK answers the unavailable tool to its own model ("Model tried
    // to call unavailable tool") but sends no TOOL_CALL_RESULT: the call stays open.
    assert.deepEqual(await runtime.send('Open the dashboard'), { reason: 'done' });
    const [call] = toolCalls(runtime.messages);
    assert.equal(call.name, 'open_dashboard');

    // The next turn on the same thread: the model must not meet an unanswered call.
    assert.deepEqual(await runtime.send('What is the weather in Paris?'), { reason: 'done' });
    const messages = runtime.messages;
    const answer = resultOf(messages, call.id);
    assertErrorResult(answer, /open_dashboard/);
    const at = (id) => messages.findIndex((m) => m.id === id);
    assert.equal(at(answer.id), at(call.message.id) + 1, "the answer sits right after the call's assistant message");
    assert.equal(lastText(runtime.messages), 'results: {"city":"Paris","sky":"sunny"}');
    assertEveryCallAnsweredOnce(runtime.messages);
    assertRequestsValid(requests);
  },
);
