// Key order through the public API: every JSON value keeps its members in the
// order they were registered or received, as JSON.parse then JSON.stringify
// keep them: the tool schema advertised and posted, the arguments a handler
// gets, the state, an interrupt's responseSchema, the thread's messages and
// the export. Compared as JSON text, so a reordering fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T, open, streamedResponse, nextChange, sseOf } from './helpers.mjs';

const THINK_THEN_ANSWER = {
  type: 'object',
  properties: { reasoning: { type: 'string' }, answer: { type: 'string' } },
  required: ['reasoning', 'answer'],
};
const ARGS = { reasoning: 'the sky scatters blue light', answer: 'blue' };
const STATE = { zeta: 1, alpha: { y: 2, b: [{ z: 0, a: 1 }] }, mid: 'm' };
const RESPONSE_SCHEMA = {
  type: 'object',
  properties: { zip: { type: 'string' }, city: { type: 'string' }, agree: { type: 'boolean' } },
};

/** A scripted agent: the first run calls `answer` and sets the state; the second raises an interrupt. */
function scriptedFetch(posted) {
  return async (_url, init) => {
    posted.push(init.body);
    const { threadId, runId } = JSON.parse(init.body);
    const ids = { threadId, runId };
    const events =
      posted.length === 1
        ? [
            { type: 'RUN_STARTED', ...ids },
            { type: 'STATE_SNAPSHOT', snapshot: STATE },
            { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/added', value: { q: 1, c: 2 } }] },
            { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'answer', parentMessageId: 'a1' },
            { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: JSON.stringify(ARGS) },
            { type: 'TOOL_CALL_END', toolCallId: 'c1' },
            { type: 'RUN_FINISHED', ...ids },
          ]
        : [
            { type: 'RUN_STARTED', ...ids },
            {
              type: 'RUN_FINISHED',
              ...ids,
              outcome: {
                type: 'interrupt',
                interrupts: [{ id: 'i1', reason: 'address', responseSchema: RESPONSE_SCHEMA }],
              },
            },
          ];
    return streamedResponse(Buffer.from(sseOf(events)), { chunk: 7 });
  };
}

test(
  'key order: a think-then-answer schema, its arguments, the state and an interrupt schema keep the order sent',
  T,
  async (t) => {
    const posted = [];
    const got = [];
    const rt = await open(t, {
      url: 'http://agent.invalid/run',
      fetch: scriptedFetch(posted),
      tools: [
        {
          name: 'answer',
          description: 'Think, then answer.',
          parameters: THINK_THEN_ANSWER,
          handler: (args) => (got.push(args), { z: 1, a: 2 }),
        },
      ],
    });

    // Advertised as registered.
    assert.equal(JSON.stringify(rt.tools.advertise()[0].parameters), JSON.stringify(THINK_THEN_ANSWER));

    const raised = nextChange(rt, (c) => c.kind === 'interrupts', { label: 'the interrupt' });
    rt.send('Why is the sky blue?');
    const change = await raised;

    // On the wire: the schema as registered, in both requests' text.
    assert.equal(posted.length, 2);
    for (const body of posted) assert.ok(body.includes(JSON.stringify(THINK_THEN_ANSWER)), body);
    assert.ok(posted[0].startsWith('{"threadId":'), 'the keys of a RunAgentInput, as @ag-ui/client sends them');

    // The handler got its arguments in the order the model wrote them.
    assert.equal(JSON.stringify(got), JSON.stringify([ARGS]));

    // The state, patched, in the order received (the follow-up posts it so too).
    const wantState = { ...STATE, added: { q: 1, c: 2 } };
    assert.equal(JSON.stringify(rt.state), JSON.stringify(wantState));
    assert.ok(posted[1].includes(`"state":${JSON.stringify(wantState)}`), posted[1]);

    // The interrupt's form fields in the order the agent listed them.
    assert.equal(JSON.stringify(change.interrupts[0].responseSchema), JSON.stringify(RESPONSE_SCHEMA));
    assert.equal(JSON.stringify(rt.interrupts.pending()[0].responseSchema), JSON.stringify(RESPONSE_SCHEMA));

    // The result the handler returned, and the export, keep theirs.
    const result = rt.messages.find((m) => m.role === 'tool');
    assert.equal(result.content, '{"z":1,"a":2}');
    const exported = rt.thread.export();
    assert.equal(JSON.stringify(exported.state), JSON.stringify(wantState));
    assert.equal(JSON.stringify(exported.messages), JSON.stringify(rt.messages));
    rt.abort();
  },
);

test('key order: a state of 10,000 keys arrives, patches and goes back out in its order', T, async (t) => {
  const big = {};
  for (let i = 9999; i >= 0; i--) big[`k${i}`] = i;
  const posted = [];
  const fetch = async (_url, init) => {
    posted.push(init.body);
    const { threadId, runId } = JSON.parse(init.body);
    const events = [
      { type: 'RUN_STARTED', threadId, runId },
      { type: 'STATE_SNAPSHOT', snapshot: big },
      {
        type: 'STATE_DELTA',
        delta: [
          { op: 'remove', path: '/k5000' },
          { op: 'add', path: '/k5000', value: 'last' },
        ],
      },
      { type: 'RUN_FINISHED', threadId, runId },
    ];
    return streamedResponse(Buffer.from(sseOf(events)), { chunk: 4096 });
  };
  const rt = await open(t, { url: 'http://agent.invalid/run', fetch });
  assert.deepEqual(await rt.send('go'), { reason: 'done' });
  const want = { ...big };
  delete want.k5000;
  want.k5000 = 'last';
  assert.equal(JSON.stringify(rt.state), JSON.stringify(want));
});
