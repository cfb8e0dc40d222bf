// Protocol conformance of what the runtime sends: every RunAgentInput it POSTs over a
// representative set of scenarios (tool rounds, errors, approvals, interrupts with
// resume, state, snapshots, every event type sent back, restored threads) is
// validated here with @ag-ui/core's own RunAgentInputSchema. The server runs with
// strictInput off so it records instead of refusing: this file is the judge.
// (RunAgentInputSchema is exported by '@ag-ui/core/schemas', not by '@ag-ui/core'.)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import * as core from '@ag-ui/core';
import { browserTools } from 'agui-client-tools';
import { T, tool, startServer, open, nextChange, toolMessages, assertEveryCallAnsweredOnce } from './helpers.mjs';

const server = await startServer(after, { strictInput: false });

const tools = () => [
  tool('get_weather', ({ city }) => {
    if (city === 'Tokyo') throw new Error('Tokyo is offline');
    return { city, sky: 'sunny', temps: [21, 23] };
  }),
  tool('get_time', () => '09:00'),
  tool('get_location', () => ({ city: 'Paris' })),
  tool('delete_file', ({ path }) => ({ deleted: path }), {
    destructive: true,
    confirm: 'Delete it?',
    category: 'files',
  }),
  tool('read_clipboard', () => 'never', { defaultEnabled: false }),
  { ...browserTools.requestUserApproval, defaultEnabled: true },
  browserTools.copyToClipboard,
];

// name -> how to drive one turn (or more) of that scenario on a fresh runtime.
const drives = {
  text: (rt) => rt.send('hello'),
  one_tool: (rt) => rt.send('weather?'),
  one_tool_chunks: (rt) => rt.send('weather?'),
  multi_round: (rt) => rt.send('where and weather?'),
  parallel: (rt) => rt.send('three calls, one fails'),
  pending_ids: (rt) => rt.send('two cities'),
  pending_unknown: (rt) => rt.send('weather'),
  loop_forever: (rt) => rt.send('loop to the cap'),
  loop_same_args: (rt) => rt.send('runaway'),
  disabled_tool: (rt) => rt.send('clipboard'),
  server_tool: (rt) => rt.send('docs'),
  snapshot_replay: (rt) => rt.send('replay'),
  state_counter: async (rt) => (await rt.send('count'), rt.send('count again')),
  every_event: async (rt) => (await rt.send('everything'), rt.send('everything again')),
  malformed: (rt) => rt.send('bad events'),
  sse_variants: (rt) => rt.send('variants'),
  run_error: async (rt) => (await rt.send('fail'), rt.send('fail again')),
  truncated: async (rt) => (await rt.send('cut'), rt.send('cut again')),
  async approval(rt) {
    let requested = nextChange(rt, 'approval_requested');
    const first = rt.send('delete');
    rt.approvals.approve((await requested).approval.toolCallId);
    await first;
    requested = nextChange(rt, 'approval_requested');
    const second = rt.send('delete again');
    rt.approvals.reject((await requested).approval.toolCallId, 'no');
    return second;
  },
  async interrupt(rt) {
    let raised = nextChange(rt, 'interrupts');
    const first = rt.send('clean');
    await raised;
    rt.interrupts.resolve('int-1', { confirm: true });
    await first;
    raised = nextChange(rt, 'interrupts');
    const second = rt.send('clean again');
    await raised;
    rt.interrupts.cancel('int-2', 'not now');
    return second;
  },
  async slow(rt) {
    const delta = nextChange(rt, 'text_appended');
    const turn = rt.send('slow');
    await delta;
    rt.abort('stop');
    return turn;
  },
  // Messages as arrays: system and developer messages, user content parts, a name.
  messages_array: (rt) =>
    rt.send([
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: 'Use metric units.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }], name: 'alice' },
    ]),
};

test(
  'every RunAgentInput the runtime sends validates against @ag-ui/core RunAgentInputSchema',
  { timeout: 30_000 },
  async (t) => {
    assert.equal(core.RunAgentInputSchema, undefined, "the schema lives in '@ag-ui/core/schemas' in 1.0.0");
    const perScenario = new Map();
    for (const [name, drive] of Object.entries(drives)) {
      const scenario = name === 'messages_array' ? 'one_tool' : name;
      const rt = await open(t, {
        url: server.url(scenario),
        tools: tools(),
        context: [{ description: 'units', value: 'metric' }],
        forwardedProps: { locale: 'fr-FR', nested: { a: [1, 2] } },
        approvalTimeoutMs: 2000,
      });
      const before = server.requests.length;
      await drive(rt);
      assertEveryCallAnsweredOnce(rt.messages);
      perScenario.set(name, server.requests.slice(before));
      // A restored copy of the thread sends a valid input too.
      if (['every_event', 'parallel', 'approval'].includes(name)) {
        const copy = rt.openThread({ thread: JSON.parse(JSON.stringify(rt.thread.export())), url: server.url('text') });
        t.after(() => copy.dispose());
        await copy.send('after restore');
        perScenario.get(name).push(server.requests.at(-1));
      }
    }

    // stampSchemaExtensions: the x-* keywords stay valid JSON Schema inside Tool.parameters.
    const stamped = await open(t, { url: server.url('text'), tools: tools(), stampSchemaExtensions: true });
    await stamped.send('hello');
    perScenario.set('stamped_tools', [server.requests.at(-1)]);
    const stampedTool = server.requests.at(-1).input.tools.find((x) => x.name === 'delete_file');
    assert.equal(stampedTool.parameters['x-destructive'], true);

    let checked = 0;
    const problems = [];
    for (const [name, requests] of perScenario) {
      assert.ok(requests.length > 0, `${name}: at least one request`);
      for (const r of requests) {
        const parsed = RunAgentInputSchema.safeParse(r.input);
        checked++;
        if (!parsed.success) {
          problems.push(
            `${name} ${r.input?.runId}: ${parsed.error.issues.map((i) => `${i.path.join('/')}: ${i.message}`).join('; ')}`,
          );
          continue;
        }
        // Nothing the schema does not know: parsing (which strips unknown keys) changes nothing.
        assert.deepEqual(parsed.data, r.input, `${name} ${r.input.runId}: no keys outside the schema`);
        assert.equal(r.inputIssues, null, `${name}: the server's own check agrees`);
        if (name !== 'stamped_tools')
          assert.deepEqual(r.input.context, [{ description: 'units', value: 'metric' }], `${name}: context`);
        assert.ok(!r.input.messages.some((m) => m.role === 'activity'), 'activity messages are UI-only, never sent');
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(checked >= 45, `checked ${checked} inputs`);
    t.diagnostic(`${checked} RunAgentInputs from ${perScenario.size} scenarios validated`);

    // Spot checks of the shapes that matter most to a provider.
    const [first] = perScenario.get('text');
    assert.deepEqual(first.input.forwardedProps, { locale: 'fr-FR', nested: { a: [1, 2] } });
    assert.deepEqual(first.input.state, {});
    assert.deepEqual(
      first.input.tools.map((x) => x.name),
      ['get_weather', 'get_time', 'get_location', 'delete_file', 'request_user_approval'],
    );
    for (const x of first.input.tools) {
      assert.equal(typeof x.description, 'string');
      assert.equal(x.parameters.type, 'object');
    }
    const resumes = perScenario
      .get('interrupt')
      .map((r) => r.input.resume)
      .filter(Boolean);
    assert.deepEqual(resumes, [
      [{ interruptId: 'int-1', status: 'resolved', payload: { confirm: true } }],
      [{ interruptId: 'int-2', status: 'cancelled', payload: { reason: 'not now' } }],
    ]);
    const failed = toolMessages(perScenario.get('parallel')[1].input.messages);
    assert.equal(failed.length, 3);
    assert.equal(failed[1].error, 'Tokyo is offline', 'ToolMessage.error carries the failure');
    const again = perScenario.get('every_event')[1].input.messages;
    assert.ok(
      again.some((m) => m.role === 'reasoning' && m.encryptedValue),
      'reasoning with encryptedValue is sent back',
    );
    assert.ok(
      again.some((m) => m.role === 'tool' && Array.isArray(m.content)),
      'content-part tool results are sent back',
    );
    const parts = perScenario.get('messages_array')[0].input.messages;
    assert.deepEqual(
      parts.map((m) => m.role),
      ['system', 'developer', 'user'],
    );
  },
);

test('a follow-up run answers every call of the round and re-advertises the enabled tools', T, async (t) => {
  const rt = await open(t, { url: server.url('parallel'), tools: tools() });
  const before = server.requests.length;
  await rt.send('go');
  const [firstRun, followUp] = server.requests.slice(before).map((r) => r.input);
  assert.deepEqual(followUp.tools, firstRun.tools);
  assert.deepEqual(followUp.tools, rt.tools.advertise());
  assert.equal(followUp.threadId, firstRun.threadId);
  assert.notEqual(followUp.runId, firstRun.runId);
  assert.deepEqual(
    followUp.messages.slice(0, firstRun.messages.length),
    firstRun.messages,
    'history is sent unchanged',
  );
  assert.equal(toolMessages(followUp.messages).length, 3);
});
