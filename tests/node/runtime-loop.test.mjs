// The tool loop against the real test AG-UI server: rounds, parallel calls kept in
// call order, pendingToolCallIds, the round cap and the runaway guard, toggled and
// disabled tools, streaming changes, and SSE framing/chunking variants.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { browserTools } from 'agui-client-tools';
import { TEXT_REPLY, TEXT_DELTAS, SSE_VARIANTS_TEXT, EXACT_STATE_TEXT, replies } from '../support/scenarios.mjs';
import {
  T,
  tool,
  startServer,
  requestsOf,
  open,
  record,
  toolCalls,
  toolMessages,
  resultOf,
  assertEveryCallAnsweredOnce,
  assertErrorResult,
  lastText,
  normalizeIds,
  routedFetch,
  sleep,
} from './helpers.mjs';

const server = await startServer(after);

function assertServerAccepted(runtime) {
  for (const r of requestsOf(server, runtime)) {
    assert.equal(r.inputIssues, null, `request ${r.input?.runId} is a valid RunAgentInput`);
    assert.equal(r.error, null, `the server accepted the thread of ${r.input?.runId}`);
  }
}

test(
  'multi-round: get_location, then get_weather, then the reply; each round re-advertises the tools',
  T,
  async (t) => {
    const seen = [];
    const rt = await open(t, {
      url: server.url('multi_round'),
      tools: [
        tool(
          'get_location',
          (args, ctx) => (seen.push(['get_location', args, ctx.toolCallId]), { city: 'Paris', country: 'FR' }),
        ),
        tool(
          'get_weather',
          (args, ctx) => (seen.push(['get_weather', args, ctx.toolCallId]), { city: args.city, sky: 'sunny' }),
        ),
      ],
    });
    const result = await rt.send('Where am I and what is the weather?');
    assert.deepEqual(result, { reason: 'done' });
    assert.deepEqual(
      seen.map(([n, a]) => [n, a]),
      [
        ['get_location', { precision: 'city' }],
        ['get_weather', { city: 'Paris' }],
      ],
    );

    const messages = rt.messages;
    assertEveryCallAnsweredOnce(messages);
    const calls = toolCalls(messages);
    assert.deepEqual(
      calls.map((c) => c.id),
      seen.map(([, , id]) => id),
      'ctx.toolCallId is the call id',
    );
    const loc = resultOf(messages, calls[0].id);
    const weather = resultOf(messages, calls[1].id);
    assert.equal(loc.content, '{"city":"Paris","country":"FR"}');
    assert.equal(weather.error, undefined);
    assert.equal(lastText(messages), replies.multiRound(loc, weather));

    const runs = requestsOf(server, rt);
    assert.equal(runs.length, 3, 'a first run and two follow-up runs');
    for (const r of runs)
      assert.deepEqual(
        r.input.tools.map((x) => x.name),
        ['get_location', 'get_weather'],
      );
    assert.equal(new Set(runs.map((r) => r.input.runId)).size, 3, 'a fresh runId per run');
    assert.ok(runs[1].input.messages.some((m) => m.role === 'tool' && m.toolCallId === calls[0].id));
    assertServerAccepted(rt);
    assert.equal(rt.status.phase, 'idle');
    assert.deepEqual(rt.lastInput, runs[2].input, 'lastInput is the last RunAgentInput sent');
  },
);

test(
  'the request body is the JSON the core wrote: integers JavaScript cannot hold go back to the agent exactly',
  T,
  async (t) => {
    const rt = await open(t, { url: server.url('exact_numbers'), tools: [tool('get_time', () => '12:00')] });
    const seen = record(rt);
    assert.deepEqual(await rt.send('what time is it?'), { reason: 'done' });
    const requests = seen.of('request');
    const runs = requestsOf(server, rt);
    assert.equal(runs.length, 2, 'the first run and the follow-up with the result');
    assert.ok(
      runs[1].body.includes(`"state":${EXACT_STATE_TEXT}`),
      `the state went back as it came: ${runs[1].body.slice(0, 400)}`,
    );
    // Parsed only when asked, once, and equal to what was sent.
    assert.equal(rt.lastInput, rt.lastInput, 'lastInput is parsed once');
    assert.deepEqual(rt.lastInput, JSON.parse(runs[1].body));
    assert.equal(requests.length, 2);
    assert.deepEqual(
      requests.map((c) => c.input.runId),
      runs.map((r) => r.input.runId),
      "each 'request' change carries its own input",
    );
    assert.equal(requests[1].input, rt.lastInput);
  },
);

test(
  'parallel: three calls run at once; results stay in call order though handlers finish in reverse',
  T,
  async (t) => {
    const started = [];
    const finished = [];
    const slowFirst = (delay, value) => async (args, ctx) => {
      started.push(ctx.toolCallId);
      await sleep(delay);
      finished.push(ctx.toolCallId);
      return value(args);
    };
    const rt = await open(t, {
      url: server.url('parallel'),
      tools: [
        // Paris is called first and answers last: delays by argument.
        tool('get_weather', async (args, ctx) =>
          slowFirst(args.city === 'Paris' ? 120 : 60, (a) => `${a.city}: sunny`)(args, ctx),
        ),
        tool(
          'get_time',
          slowFirst(0, () => '09:00'),
        ),
      ],
    });
    const changes = record(rt);
    assert.deepEqual(await rt.send('Weather in Paris and Tokyo, and the time?'), { reason: 'done' });

    const messages = rt.messages;
    const calls = toolCalls(messages);
    assert.deepEqual(
      calls.map((c) => [c.name, c.args]),
      [
        ['get_weather', { city: 'Paris' }],
        ['get_weather', { city: 'Tokyo' }],
        ['get_time', { timezone: 'Asia/Tokyo' }],
      ],
    );
    assert.equal(new Set(calls.map((c) => c.message.id)).size, 1, 'the three calls share one assistant message');
    assert.deepEqual(
      started,
      calls.map((c) => c.id),
      'started in call order',
    );
    assert.deepEqual(finished, [calls[2].id, calls[1].id, calls[0].id], 'finished in reverse');
    // The tool messages follow the call order, not the finishing order.
    assert.deepEqual(
      toolMessages(messages).map((m) => m.toolCallId),
      calls.map((c) => c.id),
    );
    const [a, b, c] = calls.map((x) => resultOf(messages, x.id));
    assert.deepEqual([a.content, b.content, c.content], ['Paris: sunny', 'Tokyo: sunny', '09:00']);
    assert.equal(lastText(messages), replies.parallel(a, b, c));
    // All three ran concurrently: every one had started before the first finished.
    const statuses = changes.of('tool_call_status');
    const firstDone = statuses.findIndex((s) => s.status === 'done');
    assert.equal(statuses.slice(0, firstDone).filter((s) => s.status === 'running').length, 3);
    const results = changes.of('tool_result').map((r) => r.message.toolCallId);
    assert.deepEqual(
      results,
      calls.map((x) => x.id),
      'tool_result changes arrive in call order',
    );
    assert.equal(requestsOf(server, rt).length, 2);
    assertServerAccepted(rt);
  },
);

test('pendingToolCallIds: both named calls run', T, async (t) => {
  const cities = [];
  const rt = await open(t, {
    url: server.url('pending_ids'),
    tools: [tool('get_weather', ({ city }) => (cities.push(city), `${city} ok`))],
  });
  assert.deepEqual(await rt.send('two cities'), { reason: 'done' });
  assert.deepEqual(cities, ['Paris', 'Berlin']);
  const messages = rt.messages;
  const [a, b] = toolCalls(messages).map((c) => resultOf(messages, c.id));
  assert.equal(lastText(messages), replies.twoCities(a, b));
  assertServerAccepted(rt);
});

test('pendingToolCallIds naming an unknown id: reported, ignored, the known call runs', T, async (t) => {
  let runs = 0;
  const rt = await open(t, {
    url: server.url('pending_unknown'),
    tools: [tool('get_weather', () => (runs++, 'sunny'))],
  });
  const changes = record(rt);
  assert.deepEqual(await rt.send('weather'), { reason: 'done' });
  assert.equal(runs, 1);
  const unknown = changes.problems().filter((p) => p.code === 'unknown_pending_call');
  assert.equal(unknown.length, 1);
  assert.equal(unknown[0].fatal, false);
  assert.match(unknown[0].message, /server-call/);
  const messages = rt.messages;
  assertEveryCallAnsweredOnce(messages);
  assert.equal(toolMessages(messages).length, 1, 'no result invented for the server-side id');
  assert.equal(lastText(messages), replies.weather(toolMessages(messages)[0]));
  assertServerAccepted(rt);
});

test(
  'round cap: loop_forever runs the handler exactly 5 times, ends with round_limit, leaves no call unanswered',
  T,
  async (t) => {
    const attempts = [];
    const routes = routedFetch(server, 'loop_forever');
    const rt = await open(t, {
      url: server.url('loop_forever'),
      fetch: routes.fetch,
      tools: [tool('get_weather', ({ attempt }) => (attempts.push(attempt), 'still raining'))],
    });
    const changes = record(rt);
    const result = await rt.send('loop');
    assert.equal(result.reason, 'round_limit');
    assert.match(result.message, /round limit \(5\)/);
    assert.deepEqual(attempts, [1, 2, 3, 4, 5], 'exactly five handler executions');
    const messages = rt.messages;
    assertEveryCallAnsweredOnce(messages);
    const calls = toolCalls(messages);
    assert.equal(calls.length, 6, 'the sixth call was made by the model but not run');
    assertErrorResult(resultOf(messages, calls[5].id), /round limit reached.*at most 5 rounds/);
    assert.equal(requestsOf(server, rt).length, 6, 'the first run and five follow-ups');
    // The cap is the turn's end, said once by turn_ended (naming the calls it closed), not a stream problem.
    assert.deepEqual(changes.problems(), [], 'no problem: the stream broke no rule');
    const ended = changes.of('turn_ended');
    assert.equal(ended.length, 1);
    assert.equal(ended[0].reason, 'round_limit');
    assert.deepEqual(ended[0].closedCalls, [calls[5].id]);
    assert.match(ended[0].message, /round limit \(5\): 1 call closed/);
    // The thread is still one a provider accepts: the next turn goes through.
    routes.use('text');
    assert.deepEqual(await rt.send('and now?'), { reason: 'done' });
    assert.equal(lastText(rt.messages), TEXT_REPLY);
    assertServerAccepted(rt);
  },
);

test(
  'a call the agent never answered is closed with an error result before the next request, and the page is told',
  T,
  async (t) => {
    const rt = await open(t, { url: server.url('unanswered_server_tool'), tools: [tool('get_weather', () => 'rain')] });
    assert.deepEqual(await rt.send('search'), { reason: 'done' });
    const [call] = toolCalls(rt.messages);
    assert.equal(call.name, 'search_docs');
    const changes = record(rt);
    // The second turn goes out with the call answered (the server checks what a provider checks) and succeeds.
    assert.deepEqual(await rt.send('and now?'), { reason: 'done' });
    assert.equal(lastText(rt.messages), TEXT_REPLY);
    assertServerAccepted(rt);
    const messages = rt.messages;
    assertEveryCallAnsweredOnce(messages);
    const result = resultOf(messages, call.id);
    assertErrorResult(
      result,
      new RegExp(`no result was received from the agent for tool 'search_docs' \\(call '${call.id}'\\)`),
    );
    const holder = messages.findIndex((m) => m.toolCalls?.some((c) => c.id === call.id));
    assert.equal(messages.indexOf(result), holder + 1, 'right after the assistant message holding the call');
    const status = changes.of('tool_call_status').find((c) => c.toolCallId === call.id);
    assert.equal(status?.status, 'error');
    assert.ok(
      changes.of('tool_result').some((c) => c.message.toolCallId === call.id),
      'a tool_result change',
    );
  },
);

test('maxRounds is configurable: 2 follow-up runs; 0 runs no handler at all', T, async (t) => {
  for (const maxRounds of [2, 0]) {
    let runs = 0;
    const rt = await open(t, {
      url: server.url('loop_forever'),
      maxRounds,
      tools: [tool('get_weather', () => (runs++, 'rain'))],
    });
    const result = await rt.send('loop');
    assert.equal(result.reason, 'round_limit');
    assert.match(result.message, new RegExp(`round limit \\(${maxRounds}\\)`));
    assert.equal(runs, maxRounds, `maxRounds ${maxRounds}: handler executions`);
    assert.equal(requestsOf(server, rt).length, maxRounds + 1);
    assertEveryCallAnsweredOnce(rt.messages);
    assertErrorResult(toolMessages(rt.messages).at(-1), new RegExp(`at most ${maxRounds} rounds`));
  }
});

test('runaway guard: the 3rd identical call in a row is refused with an error naming the guard', T, async (t) => {
  let runs = 0;
  const rt = await open(t, {
    url: server.url('loop_same_args'),
    tools: [tool('get_weather', () => (runs++, 'sunny'))],
  });
  const result = await rt.send('same again');
  assert.equal(runs, 2, 'the first two identical calls ran, the rest were refused');
  const messages = rt.messages;
  assertEveryCallAnsweredOnce(messages);
  const results = toolCalls(messages).map((c) => resultOf(messages, c.id));
  assert.equal(results[0].error, undefined);
  assert.equal(results[1].error, undefined);
  const refused = assertErrorResult(results[2], /runaway guard/);
  assert.match(refused.error, /'get_weather' was called 3 times in a row with the same arguments/);
  // The model kept calling: the guard keeps refusing until the round cap ends the turn.
  assert.equal(result.reason, 'round_limit');
  for (const r of results.slice(3, -1)) assertErrorResult(r, /runaway guard/);
  assertServerAccepted(rt);
});

test('repeatLimit: 0 turns the runaway guard off', T, async (t) => {
  let runs = 0;
  const rt = await open(t, {
    url: server.url('loop_same_args'),
    repeatLimit: 0,
    tools: [tool('get_weather', () => (runs++, 'sunny'))],
  });
  assert.equal((await rt.send('same again')).reason, 'round_limit');
  assert.equal(runs, 5);
});

test('a disabled tool the model names anyway never runs and gets an error result', T, async (t) => {
  let called = 0;
  const rt = await open(t, {
    url: server.url('disabled_tool'),
    tools: [tool('read_clipboard', () => (called++, 'secret'), { defaultEnabled: false })],
  });
  const changes = record(rt);
  assert.deepEqual(await rt.send('read my clipboard'), { reason: 'done' });
  assert.equal(called, 0, 'the handler was never called');
  assert.deepEqual(requestsOf(server, rt)[0].input.tools, [], 'an opt-in tool is not advertised');
  const messages = rt.messages;
  const [call] = toolCalls(messages);
  const result = resultOf(messages, call.id);
  assertErrorResult(result, /read_clipboard' is disabled in this client; it was not run/);
  assert.equal(lastText(messages), replies.disabled(false, result));
  assert.equal(changes.of('approval_requested').length, 0);
  assertServerAccepted(rt);
});

test('the browser tool read_clipboard ships disabled: named by the model, it never runs either', T, async (t) => {
  let called = 0;
  const rt = await open(t, {
    url: server.url('disabled_tool'),
    tools: [{ ...browserTools.readClipboard, handler: () => (called++, { text: 'x' }) }],
  });
  assert.deepEqual(await rt.send('read my clipboard'), { reason: 'done' });
  assert.equal(called, 0);
  assertErrorResult(toolMessages(rt.messages)[0], /disabled/);
});

test('a tool toggled off is absent from the next request; toggled on, it is back', T, async (t) => {
  let runs = 0;
  const rt = await open(t, {
    url: server.url('one_tool'),
    tools: [tool('get_time', () => '09:00'), tool('get_weather', () => (runs++, 'sunny'))],
  });
  const changes = record(rt);
  assert.deepEqual(await rt.send('weather?'), { reason: 'done' });
  assert.equal(runs, 1);
  const before = server.requests.length;

  rt.tools.setEnabled('get_weather', false);
  assert.equal(changes.of('tools_changed').length, 1);
  assert.deepEqual(
    rt.tools.advertise().map((x) => x.name),
    ['get_time'],
  );
  assert.equal(rt.tools.list().find((x) => x.name === 'get_weather').enabled, false);
  assert.deepEqual(await rt.send('weather again?'), { reason: 'done' });
  const off = server.requests.slice(before);
  assert.equal(off.length, 1, 'nothing to run: one request');
  assert.deepEqual(
    off[0].input.tools.map((x) => x.name),
    ['get_time'],
  );
  assert.equal(lastText(rt.messages), replies.unavailable('get_weather'));
  assert.equal(runs, 1);

  rt.tools.setEnabled('get_weather', true);
  assert.deepEqual(await rt.send('and now?'), { reason: 'done' });
  assert.deepEqual(
    server.requests.at(-1).input.tools.map((x) => x.name),
    ['get_time', 'get_weather'],
  );
  assert.equal(runs, 2);
  assertServerAccepted(rt);
});

test('unregister: the tool is no longer advertised, and a call to it gets an error result', T, async (t) => {
  const rt = await open(t, { url: server.url('one_tool'), tools: [tool('get_weather', () => 'sunny')] });
  rt.tools.unregister('get_weather');
  assert.deepEqual(rt.tools.list(), []);
  assert.deepEqual(await rt.send('weather?'), { reason: 'done' });
  assert.deepEqual(requestsOf(server, rt)[0].input.tools, []);
  assert.equal(lastText(rt.messages), replies.unavailable('get_weather'));
});

test('subscribe: text_appended deltas concatenate to the final text, in order', T, async (t) => {
  const rt = await open(t, { url: server.url('text') });
  const changes = record(rt);
  assert.deepEqual(await rt.send('hello'), { reason: 'done' });
  const assistant = rt.messages.at(-1);
  const deltas = changes
    .of('text_appended')
    .filter((c) => c.messageId === assistant.id)
    .map((c) => c.delta);
  assert.deepEqual(deltas, TEXT_DELTAS);
  assert.equal(deltas.join(''), assistant.content);
  assert.equal(assistant.content, TEXT_REPLY);
  const kinds = changes.changes.map((c) => c.kind);
  for (const kind of [
    'message_added',
    'turn_started',
    'round_started',
    'request',
    'run_started',
    'message_ended',
    'run_finished',
    'turn_ended',
  ]) {
    assert.ok(kinds.includes(kind), `a ${kind} change`);
  }
  assert.ok(kinds.indexOf('turn_started') < kinds.indexOf('run_started'));
  assert.equal(kinds.at(-1), 'turn_ended');
  // Unsubscribing stops the deliveries.
  changes.stop();
  const n = changes.changes.length;
  await rt.send('again');
  assert.equal(changes.changes.length, n);
});

test(
  'sse_variants: comments, event/id/retry fields, data without a space, CRLF and multi-line data parse',
  T,
  async (t) => {
    const rt = await open(t, { url: server.url('sse_variants') });
    const changes = record(rt);
    assert.deepEqual(await rt.send('variants'), { reason: 'done' });
    assert.equal(lastText(rt.messages), SSE_VARIANTS_TEXT);
    assert.deepEqual(changes.problems(), []);
  },
);

test('one_tool_chunks: TOOL_CALL_CHUNK / TEXT_MESSAGE_CHUNK calls run like ordinary ones', T, async (t) => {
  const args = [];
  const rt = await open(t, {
    url: server.url('one_tool_chunks'),
    tools: [tool('get_weather', (a) => (args.push(a), 'sunny'))],
  });
  assert.deepEqual(await rt.send('weather?'), { reason: 'done' });
  assert.deepEqual(args, [{ city: 'Paris' }]);
  const messages = rt.messages;
  assert.equal(lastText(messages), 'The weather tool said: sunny');
  assertEveryCallAnsweredOnce(messages);
  assertServerAccepted(rt);
});

test('server_tool: a call the backend answered itself is left alone; only the client call runs', T, async (t) => {
  const ran = [];
  const rt = await open(t, {
    url: server.url('server_tool'),
    tools: [tool('get_weather', () => (ran.push('get_weather'), 'sunny'))],
  });
  assert.deepEqual(await rt.send('docs and weather'), { reason: 'done' });
  assert.deepEqual(ran, ['get_weather']);
  const messages = rt.messages;
  assertEveryCallAnsweredOnce(messages);
  const [docs, weather] = toolCalls(messages).map((c) => resultOf(messages, c.id));
  assert.equal(docs.content, 'AG-UI is an event protocol.');
  assert.equal(lastText(messages), replies.serverTool(docs, weather));
  assertServerAccepted(rt);
});

test('snapshot_replay: a MESSAGES_SNAPSHOT that replays an answered call does not run it again', T, async (t) => {
  let runs = 0;
  const rt = await open(t, {
    url: server.url('snapshot_replay'),
    tools: [tool('get_weather', () => (runs++, 'sunny'))],
  });
  assert.deepEqual(await rt.send('weather?'), { reason: 'done' });
  assert.equal(runs, 1);
  assert.equal(requestsOf(server, rt).length, 2);
  const messages = rt.messages;
  assertEveryCallAnsweredOnce(messages);
  assert.equal(lastText(messages), replies.weather(toolMessages(messages)[0]));
});

test(
  'state_counter: STATE_SNAPSHOT then STATE_DELTA; the state goes back to the agent on the next run',
  T,
  async (t) => {
    const rt = await open(t, { url: server.url('state_counter') });
    const changes = record(rt);
    await rt.send('count');
    assert.deepEqual(rt.state, { count: 1 });
    await rt.send('count again');
    assert.deepEqual(rt.state, { count: 2 });
    assert.equal(lastText(rt.messages), replies.counter(2));
    const runs = requestsOf(server, rt);
    assert.deepEqual(
      runs.map((r) => r.input.state),
      [{}, { count: 1 }],
    );
    assert.equal(changes.of('state_replaced').length, 1);
    assert.equal(changes.of('state_patched').length, 1);
  },
);

test('chunked server writes (1..3 bytes, UTF-8 split) give the same thread as whole writes', T, async (t) => {
  const tools = () => [
    tool('get_weather', ({ city }) => `${city}: sunny ☀️`),
    tool('get_time', () => '09:00'),
    tool('get_location', () => ({ city: 'Paris' })),
  ];
  for (const scenario of ['text', 'one_tool', 'parallel', 'multi_round', 'every_event', 'sse_variants']) {
    const threads = [];
    for (const chunked of [undefined, 3]) {
      const rt = await open(t, { url: server.url(scenario, { chunked, seed: 7 }), tools: tools() });
      const changes = record(rt);
      assert.deepEqual(await rt.send('go'), { reason: 'done' }, `${scenario} chunked=${chunked}`);
      assert.deepEqual(changes.problems(), [], `${scenario} chunked=${chunked}: no problems`);
      threads.push({
        messages: normalizeIds(
          rt.messages,
          requestsOf(server, rt).map((r) => r.input.runId),
        ),
        state: rt.state,
      });
    }
    assert.deepEqual(threads[1], threads[0], `${scenario}: chunked equals unchunked`);
  }
});

test('limits pass through createRuntime: maxCallsPerRound 1 runs the first call and answers the rest', T, async (t) => {
  let runs = 0;
  const rt = await open(t, {
    url: server.url('parallel'),
    limits: { maxCallsPerRound: 1 },
    tools: [tool('get_weather', ({ city }) => (runs++, `${city}: sunny`)), tool('get_time', () => (runs++, '12:00'))],
  });
  const { reason } = await rt.send('weather in Paris and Tokyo, and the time in Tokyo');
  assert.equal(reason, 'done');
  assert.equal(runs, 1, 'only the first call of the round ran');
  const messages = rt.messages;
  assertEveryCallAnsweredOnce(messages);
  const refused = toolMessages(messages).filter((m) => m.error);
  assert.equal(refused.length, 2);
  for (const m of refused) assert.match(m.error, /maxCallsPerRound/);
  assertServerAccepted(rt);
});

test(
  "send(text, { forwardedProps }): the turn's keys over the runtime's, on each run of that turn only",
  T,
  async (t) => {
    const rt = await open(t, {
      url: server.url('multi_round'),
      forwardedProps: { locale: 'fr-FR', theme: 'dark' },
      tools: [tool('get_location', () => ({ city: 'Paris' })), tool('get_weather', () => ({ sky: 'sunny' }))],
    });
    assert.deepEqual(await rt.send('weather?', { forwardedProps: { theme: 'light', action: { n: 1 } } }), {
      reason: 'done',
    });
    const turn = requestsOf(server, rt);
    assert.equal(turn.length, 3, 'a first run and two follow-ups');
    for (const r of turn) {
      // Shallow, as {...runtime, ...turn}: the runtime's keys keep their place.
      assert.equal(JSON.stringify(r.input.forwardedProps), '{"locale":"fr-FR","theme":"light","action":{"n":1}}');
    }
    await rt.send('again');
    assert.deepEqual(requestsOf(server, rt).at(-3).input.forwardedProps, { locale: 'fr-FR', theme: 'dark' });
    assertServerAccepted(rt);
  },
);

test('send([], { forwardedProps }) runs the thread as it is, with no new message', T, async (t) => {
  const rt = await open(t, { url: server.url('text') });
  await rt.send('hi');
  const before = rt.messages.length;
  assert.deepEqual(await rt.send([], { forwardedProps: { command: { resume: 'yes' } } }), { reason: 'done' });
  const [first, second] = requestsOf(server, rt);
  assert.deepEqual(second.input.messages, rt.messages.slice(0, before), 'the same thread, nothing added');
  assert.deepEqual(second.input.forwardedProps, { command: { resume: 'yes' } });
  assert.deepEqual(first.input.forwardedProps, {});
  assert.throws(() => rt.send([]), { code: 'invalid_argument', message: /no message to send/ });
});

test("send()'s bad options are refused naming the method and the option, and nothing is sent", T, async (t) => {
  const rt = await open(t, { url: server.url('text') });
  assert.throws(() => rt.send('x', { forwardedProps: [1] }), {
    code: 'invalid_argument',
    message: 'send(): options.forwardedProps must be an object',
  });
  assert.throws(() => rt.send('x', { forwardProps: {} }), {
    message: "send(): options: unknown option 'forwardProps'",
  });
  assert.throws(() => rt.send('x', { forwardedProps: { n: 1n } }), { message: /^send\(\): options cannot be encoded/ });
  assert.equal(requestsOf(server, rt).length, 0);
  assert.deepEqual(rt.messages, []);
});
