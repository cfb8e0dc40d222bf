// The six basic scenarios, run alike against each server nobody here wrote
// (copilotkit.test.mjs, langgraph.test.mjs): the client's tools, the check every
// request must pass, and the scenarios themselves. Each server's model is scripted to
// answer the same prompts the same way (`results: ...` once the calls are answered).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { toolCalls, toolMessages, resultOf, assertEveryCallAnsweredOnce, lastText } from './helpers.mjs';

export const weather = ({ city }) => {
  if (city === 'Atlantis') throw new Error('no weather service for Atlantis');
  return { city, sky: city === 'Paris' ? 'sunny' : 'rain' };
};

/** The client's tools; get_weather's handler is `handler` (a test may record its calls). */
export function clientTools(handler = weather) {
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
 * Every request is a valid RunAgentInput by @ag-ui/core's own schema, and none goes out
 * with a tool call that has no tool message (a provider rejects that thread: the AI SDK
 * throws MissingToolResultsError), but for the calls `deferred(input)` names: those an
 * interrupt holds open until the resume the request carries.
 */
export function assertRequestsValid(requests, deferred = () => new Set()) {
  assert.ok(requests.length > 0, 'the client sent at least one request');
  for (const input of requests) {
    const parsed = RunAgentInputSchema.safeParse(input);
    assert.ok(parsed.success, `run ${input.runId} is a valid RunAgentInput: ${parsed.error?.message}`);
    const answered = new Set(toolMessages(input.messages).map((m) => m.toolCallId));
    const aside = deferred(input);
    const open = toolCalls(input.messages).filter((c) => !answered.has(c.id) && !aside.has(c.id));
    assert.deepEqual(
      open.map((c) => `${c.name} ${c.id}`),
      [],
      `run ${input.runId} leaves no call unanswered`,
    );
  }
}

export const toolNames = (input) => input.tools.map((x) => x.name);

/**
 * Registers the six scenarios. `openOn(t, options)` opens a runtime on the server with
 * `clientTools()` unless `options.tools` says otherwise, and resolves to
 * `{runtime, requests}`; `errorOf(message, pattern)` checks a client's error result as
 * the server hands it back and returns its text.
 */
export function basicScenarios({ T, openOn, errorOf }) {
  test('a client tool call runs its handler, and the follow-up run carries its result to the model', T, async (t) => {
    const seen = [];
    const { runtime, requests } = await openOn(t, {
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
    const { runtime, requests } = await openOn(t);
    assert.deepEqual(await runtime.send('Compare two cities'), { reason: 'done' });

    const calls = toolCalls(runtime.messages);
    assert.deepEqual(
      calls.map((c) => c.args.city),
      ['Paris', 'Tokyo'],
    );
    assert.equal(calls[0].message, calls[1].message, 'both calls on one assistant message');
    assert.deepEqual(
      toolMessages(requests[1].messages).map((m) => m.toolCallId),
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
    const { runtime, requests } = await openOn(t, { tools });
    assert.deepEqual(await runtime.send('Read my clipboard'), { reason: 'done' });

    assert.equal(ran, false, 'the disabled handler never ran');
    assert.ok(!toolNames(requests[0]).includes('read_clipboard'), 'never advertised');
    const [call] = toolCalls(runtime.messages);
    const error = errorOf(resultOf(runtime.messages, call.id), /read_clipboard/);
    assert.ok(lastText(runtime.messages).includes(error), 'the model read the error');
    assertRequestsValid(requests);
  });

  test('a throwing handler becomes an error result the model reads, and the turn still ends done', T, async (t) => {
    const { runtime, requests } = await openOn(t);
    assert.deepEqual(await runtime.send('Weather in Atlantis?'), { reason: 'done' });

    const [call] = toolCalls(runtime.messages);
    errorOf(resultOf(runtime.messages, call.id), /no weather service for Atlantis/);
    assert.match(lastText(runtime.messages), /no weather service for Atlantis/);
    assertRequestsValid(requests);
  });

  test(
    'an endless caller stops at the round cap with every call answered, and the thread takes another turn',
    T,
    async (t) => {
      const { runtime, requests } = await openOn(t);
      const turn = await runtime.send('tick forever');
      assert.equal(turn.reason, 'round_limit');
      assert.equal(requests.length, 6, 'the first run and maxRounds (5) follow-ups');

      const calls = toolCalls(runtime.messages);
      assert.deepEqual(
        calls.map((c) => c.args.n),
        [1, 2, 3, 4, 5, 6],
      );
      assertEveryCallAnsweredOnce(runtime.messages);
      errorOf(resultOf(runtime.messages, calls[5].id), /round limit/);

      // The closed calls keep the thread valid: the server's model accepts the next turn.
      assert.deepEqual(await runtime.send('hello again'), { reason: 'done' });
      assert.equal(lastText(runtime.messages), 'echo: hello again');
      assertRequestsValid(requests);
    },
  );

  test('a server tool beside a client tool: the server answers its own, the client runs only its own', T, async (t) => {
    const { runtime, requests } = await openOn(t);
    assert.deepEqual(await runtime.send('Look up docs and weather'), { reason: 'done' });

    const [docs, weatherCall] = toolCalls(runtime.messages);
    assert.equal(docs.name, 'lookup_docs');
    assert.equal(resultOf(runtime.messages, docs.id).content, '{"topic":"tools","pages":["tools.md"]}', "the server's");
    assert.equal(resultOf(runtime.messages, weatherCall.id).content, '{"city":"Paris","sky":"sunny"}', "the client's");
    assert.equal(requests.length, 2);
    assert.equal(
      lastText(runtime.messages),
      'results: {"topic":"tools","pages":["tools.md"]} | {"city":"Paris","sky":"sunny"}',
    );
    assertEveryCallAnsweredOnce(runtime.messages);
    assertRequestsValid(requests);
  });
}
