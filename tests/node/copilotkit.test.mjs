// The package against a server nobody on this project wrote: CopilotKit's runtime
// (v2 CopilotRuntime + BuiltInAgent, tests/third-party/copilotkit/) on loopback,
// its model the AI SDK's scripted mock. Every request the client sends is checked
// against @ag-ui/core's RunAgentInputSchema and for calls left without an answer.
// What was found when these disagreed: docs/third-party.md.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import {
  T,
  open,
  record,
  nextChange,
  toolCalls,
  toolMessages,
  resultOf,
  assertEveryCallAnsweredOnce,
  assertErrorResult,
  lastText,
  sleep,
  within,
} from './helpers.mjs';

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

const weather = ({ city }) => {
  if (city === 'Atlantis') throw new Error('no weather service for Atlantis');
  return { city, sky: city === 'Paris' ? 'sunny' : 'rain' };
};

/** The client's tools; get_weather's handler is `handler` (records its calls). */
function clientTools(handler = weather) {
  return [
    {
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      handler,
    },
    {
      name: 'read_clipboard',
      description: 'Reads the clipboard.',
      parameters: { type: 'object', properties: {} },
      handler: () => 'secret',
      defaultEnabled: false,
    },
    {
      name: 'tick',
      description: 'Counts.',
      parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      handler: ({ n }) => ({ n }),
    },
  ];
}

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

/**
 * Every request is a valid RunAgentInput by @ag-ui/core's own schema, and none
 * goes out with a tool call that has no tool message (a provider rejects that
 * thread: the AI SDK throws MissingToolResultsError), calls a resume answers aside.
 */
function assertRequestsValid(requests) {
  assert.ok(requests.length > 0, 'the client sent at least one request');
  for (const input of requests) {
    const parsed = RunAgentInputSchema.safeParse(input);
    assert.ok(parsed.success, `run ${input.runId} is a valid RunAgentInput: ${parsed.error?.message}`);
    const answered = new Set(toolMessages(input.messages).map((m) => m.toolCallId));
    const deferred = deferredByInterrupt(input);
    const open = toolCalls(input.messages).filter((c) => !answered.has(c.id) && !deferred.has(c.id));
    assert.deepEqual(
      open.map((c) => `${c.name} ${c.id}`),
      [],
      `run ${input.runId} leaves no call unanswered`,
    );
  }
}

const toolNames = (input) => input.tools.map((x) => x.name);

// --- scenarios --------------------------------------------------------------------------------

test('a client tool call runs its handler, and the follow-up run carries its result to the model', T, async (t) => {
  const seen = [];
  const { runtime, requests } = await openOnCopilotKit(t, {
    tools: clientTools((args, ctx) => (seen.push([args, ctx.toolCallId]), weather(args))),
  });
  assert.deepEqual(await runtime.send('What is the weather in Paris?'), { reason: 'done' });

  const [call] = toolCalls(runtime.messages);
  assert.deepEqual(seen, [[{ city: 'Paris' }, call.id]], 'the handler ran once, with the arguments the model wrote');
  assert.equal(resultOf(runtime.messages, call.id).content, '{"city":"Paris","sky":"sunny"}');
  assert.equal(lastText(runtime.messages), 'results: {"city":"Paris","sky":"sunny"}', 'the model read the result');
  assert.equal(requests.length, 2, 'the first run and one follow-up');
  assert.deepEqual(toolNames(requests[0]), ['get_weather', 'tick'], 'enabled tools advertised, the opt-in one not');
  assert.deepEqual(toolNames(requests[1]), ['get_weather', 'tick'], 'and re-advertised on the follow-up');
  assertEveryCallAnsweredOnce(runtime.messages);
  assertRequestsValid(requests);
});

test('two parallel calls both run, and their results go back in call order', T, async (t) => {
  const { runtime, requests } = await openOnCopilotKit(t);
  assert.deepEqual(await runtime.send('Compare two cities'), { reason: 'done' });

  const calls = toolCalls(runtime.messages);
  assert.deepEqual(
    calls.map((c) => c.args.city),
    ['Paris', 'Tokyo'],
  );
  assert.equal(calls[0].message, calls[1].message, 'both calls on one assistant message');
  const followUp = toolMessages(requests[1].messages).map((m) => m.toolCallId);
  assert.deepEqual(
    followUp,
    calls.map((c) => c.id),
    'tool messages in call order',
  );
  assert.equal(lastText(runtime.messages), 'results: {"city":"Paris","sky":"sunny"} | {"city":"Tokyo","sky":"rain"}');
  assertEveryCallAnsweredOnce(runtime.messages);
  assertRequestsValid(requests);
});

test('a disabled tool the model calls anyway never runs: the model reads an error result', T, async (t) => {
  let ran = false;
  const tools = clientTools();
  tools[1] = { ...tools[1], handler: () => ((ran = true), 'secret') };
  const { runtime, requests } = await openOnCopilotKit(t, { tools });
  assert.deepEqual(await runtime.send('Read my clipboard'), { reason: 'done' });

  assert.equal(ran, false, 'the disabled handler never ran');
  assert.ok(!toolNames(requests[0]).includes('read_clipboard'), 'never advertised');
  const [call] = toolCalls(runtime.messages);
  const error = assertErrorResult(resultOf(runtime.messages, call.id), /read_clipboard/);
  assert.ok(lastText(runtime.messages).includes(error.error), 'the model read the error');
  assertRequestsValid(requests);
});

test('a throwing handler becomes an error result the model reads, and the turn still ends done', T, async (t) => {
  const { runtime, requests } = await openOnCopilotKit(t);
  assert.deepEqual(await runtime.send('Weather in Atlantis?'), { reason: 'done' });

  const [call] = toolCalls(runtime.messages);
  assertErrorResult(resultOf(runtime.messages, call.id), /no weather service for Atlantis/);
  assert.match(lastText(runtime.messages), /no weather service for Atlantis/);
  assertRequestsValid(requests);
});

test(
  'an endless caller stops at the round cap with every call answered, and the thread takes another turn',
  T,
  async (t) => {
    const { runtime, requests } = await openOnCopilotKit(t);
    const turn = await runtime.send('tick forever');
    assert.equal(turn.reason, 'round_limit');
    assert.equal(requests.length, 6, 'the first run and maxRounds (5) follow-ups');

    const calls = toolCalls(runtime.messages);
    assert.deepEqual(
      calls.map((c) => c.args.n),
      [1, 2, 3, 4, 5, 6],
    );
    assertEveryCallAnsweredOnce(runtime.messages);
    assertErrorResult(resultOf(runtime.messages, calls[5].id), /round limit/);

    // The closed calls keep the thread valid: CopilotKit's model accepts the next turn.
    assert.deepEqual(await runtime.send('hello again'), { reason: 'done' });
    assert.equal(lastText(runtime.messages), 'echo: hello again');
    assertRequestsValid(requests);
  },
);

test('a server tool beside a client tool: the server answers its own, the client runs only its own', T, async (t) => {
  const { runtime, requests } = await openOnCopilotKit(t);
  assert.deepEqual(await runtime.send('Look up docs and weather'), { reason: 'done' });

  const [docs, weatherCall] = toolCalls(runtime.messages);
  assert.equal(docs.name, 'lookup_docs');
  assert.equal(
    resultOf(runtime.messages, docs.id).content,
    '{"topic":"tools","pages":["tools.md"]}',
    "the server's result",
  );
  assert.equal(resultOf(runtime.messages, weatherCall.id).content, '{"city":"Paris","sky":"sunny"}', "the client's");
  assert.equal(requests.length, 2);
  assert.equal(
    lastText(runtime.messages),
    'results: {"topic":"tools","pages":["tools.md"]} | {"city":"Paris","sky":"sunny"}',
  );
  assertEveryCallAnsweredOnce(runtime.messages);
  assertRequestsValid(requests);
});

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
