// Approvals and interrupts against the real test server: a call that needs approval
// waits for approvals.approve()/reject() (or approvalTimeoutMs); request_user_approval
// answers with a decision; AG-UI interrupts are answered with resume entries that
// must match their responseSchema, cancelled, or expire by their expiresAt.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { browserTools, AguiError } from 'agui-client-tools';
import { scenarios, replies, describeResult, INTERRUPT_RESPONSE_SCHEMA } from '../support/scenarios.mjs';
import {
  T,
  tool,
  startServer,
  requestsOf,
  open,
  record,
  nextChange,
  toolCalls,
  toolMessages,
  resultOf,
  assertEveryCallAnsweredOnce,
  assertErrorResult,
  assertAguiError,
  lastText,
  sleep,
  scriptedFetch,
  callEvents,
} from './helpers.mjs';

// The catalogue plus three scenarios of this file's own, built on the catalogue's.
const extra = {
  // The model asks for the user's go-ahead with request_user_approval, then quotes the decision.
  async *ask_approval(input, api) {
    const done = api.calls.find((c) => c.name === 'request_user_approval');
    if (done) {
      const messageId = api.id('msg');
      yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
      yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: `decision: ${describeResult(done.result)}` };
      yield { type: 'TEXT_MESSAGE_END', messageId };
      return;
    }
    const toolCallId = api.id('call');
    yield { type: 'TOOL_CALL_START', toolCallId, toolCallName: 'request_user_approval' };
    yield {
      type: 'TOOL_CALL_ARGS',
      toolCallId,
      delta: JSON.stringify({ action: 'delete /tmp/x', details: 'cannot be undone' }),
    };
    yield { type: 'TOOL_CALL_END', toolCallId };
  },
  // The catalogue's interrupt, with an expiresAt `offsetMs` from now (from forwardedProps).
  async *interrupt_expiring(input, api) {
    const offset = input.forwardedProps?.expiresInMs ?? -1000;
    for await (const event of scenarios.interrupt(input, api)) {
      if (event.type === 'RUN_FINISHED' && event.outcome?.type === 'interrupt') {
        for (const i of event.outcome.interrupts) i.expiresAt = new Date(Date.now() + offset).toISOString();
      }
      yield event;
    }
  },
};
const server = await startServer(after, { scenarios: { ...scenarios, ...extra } });

function deleteFile(calls, extraFlags = { requiresApproval: true }) {
  return tool('delete_file', ({ path }) => (calls.push(path), { deleted: path }), {
    confirm: 'Delete this file?',
    summary: 'Delete a file',
    ...extraFlags,
  });
}

test('approval approved: the call waits for approve(), then runs once and the turn continues', T, async (t) => {
  const calls = [];
  const rt = await open(t, { url: server.url('approval'), tools: [deleteFile(calls)] });
  const changes = record(rt);
  const requested = nextChange(rt, 'approval_requested');
  const turn = rt.send('delete /tmp/x');
  const { approval } = await requested;
  const [call] = toolCalls(rt.messages);
  assert.deepEqual(approval, {
    toolCallId: call.id,
    threadId: rt.threadId,
    name: 'delete_file',
    args: { path: '/tmp/x' },
    summary: 'Delete a file',
    confirm: 'Delete this file?',
    destructive: false,
  });
  await sleep(20);
  assert.deepEqual(calls, [], 'the handler waits for the decision');
  const status = rt.status;
  assert.equal(status.phase, 'awaiting');
  assert.deepEqual(status.pendingApprovals, [approval]);
  assert.deepEqual(rt.approvals.pending(), [approval]);
  assert.equal(requestsOf(server, rt).length, 1, 'nothing is sent while the approval is pending');

  rt.approvals.approve(approval.toolCallId);
  assert.deepEqual(await turn, { reason: 'done' });
  assert.deepEqual(calls, ['/tmp/x']);
  const messages = rt.messages;
  const result = resultOf(messages, call.id);
  assert.equal(result.content, '{"deleted":"/tmp/x"}');
  assert.equal(lastText(messages), replies.approval(result));
  assert.match(lastText(messages), /^delete_file approved/);
  assert.deepEqual(
    changes.of('tool_call_status').map((s) => s.status),
    ['streaming', 'ready', 'pending_approval', 'running', 'done'],
  );
  assert.deepEqual(rt.approvals.pending(), []);
  // Deciding twice is refused and changes nothing.
  const n = messages.length;
  assert.throws(
    () => rt.approvals.approve(approval.toolCallId),
    (e) => e instanceof AguiError && ['unknown_tool_call', 'already_answered'].includes(e.code),
  );
  assert.equal(rt.messages.length, n);
});

test('approval rejected with a reason: the handler never runs; the model reads the rejection', T, async (t) => {
  const calls = [];
  const rt = await open(t, { url: server.url('approval'), tools: [deleteFile(calls)] });
  const changes = record(rt);
  const requested = nextChange(rt, 'approval_requested');
  const turn = rt.send('delete /tmp/x');
  const { approval } = await requested;
  rt.approvals.reject(approval.toolCallId, 'keep that file');
  assert.equal(changes.of('tool_call_status').at(-1).status, 'denied');
  assert.deepEqual(await turn, { reason: 'done' });
  assert.deepEqual(calls, []);
  const messages = rt.messages;
  assertEveryCallAnsweredOnce(messages);
  const result = toolMessages(messages)[0];
  assertErrorResult(result, /the user rejected this call: keep that file/);
  assert.equal(lastText(messages), replies.approval(result));
  assert.match(lastText(messages), /^delete_file rejected/);
});

test('destructive implies approval, and the approval says so', T, async (t) => {
  const calls = [];
  const rt = await open(t, { url: server.url('approval'), tools: [deleteFile(calls, { destructive: true })] });
  assert.equal(rt.tools.list()[0].needsApproval, true);
  const requested = nextChange(rt, 'approval_requested');
  const turn = rt.send('delete /tmp/x');
  const { approval } = await requested;
  assert.equal(approval.destructive, true);
  rt.approvals.approve(approval.toolCallId);
  assert.deepEqual(await turn, { reason: 'done' });
  assert.deepEqual(calls, ['/tmp/x']);
});

test('approvalTimeoutMs: an approval nobody decides is rejected with the reason', T, async (t) => {
  const calls = [];
  const rt = await open(t, { url: server.url('approval'), approvalTimeoutMs: 50, tools: [deleteFile(calls)] });
  const changes = record(rt);
  const result = await rt.send('delete /tmp/x');
  assert.deepEqual(result, { reason: 'done' });
  assert.deepEqual(calls, []);
  const ended = changes
    .of('tool_call_status')
    .find(
      (c) =>
        c.toolCallId === toolMessages(rt.messages)[0].toolCallId &&
        c.status !== 'streaming' &&
        c.status !== 'ready' &&
        c.status !== 'pending_approval',
    );
  assert.equal(ended.status, 'cancelled', 'no one decided: cancelled by the deadline, not denied');
  const message = toolMessages(rt.messages)[0];
  assertErrorResult(message, /rejected.*approval timed out after 50 ms/);
  assert.match(lastText(rt.messages), /^delete_file rejected/);
});

test('approvals are scoped to their thread: another thread cannot decide them', T, async (t) => {
  const calls = [];
  const rt = await open(t, { url: server.url('approval'), tools: [deleteFile(calls)] });
  const other = rt.openThread();
  t.after(() => other.dispose());
  const requested = nextChange(rt, 'approval_requested');
  const turn = rt.send('delete /tmp/x');
  const { approval } = await requested;
  assertAguiError(() => other.approvals.approve(approval.toolCallId), 'unknown_tool_call');
  assertAguiError(() => other.approvals.reject(approval.toolCallId), 'unknown_tool_call');
  assert.deepEqual(other.approvals.pending(), []);
  assert.equal(rt.approvals.pending().length, 1, 'still pending on its own thread');
  assertAguiError(() => rt.approvals.approve('no-such-call'), 'unknown_tool_call');
  rt.approvals.approve(approval.toolCallId);
  assert.deepEqual(await turn, { reason: 'done' });
  assert.deepEqual(calls, ['/tmp/x']);
});

test(
  'a new message while an approval is pending: the old turn ends aborted, the call is closed, the new turn runs',
  T,
  async (t) => {
    const calls = [];
    const rt = await open(t, { url: server.url('approval'), tools: [deleteFile(calls)] });
    const requested = nextChange(rt, 'approval_requested');
    const first = rt.send('delete /tmp/x');
    await requested;
    const second = rt.send('never mind');
    const r1 = await first;
    assert.equal(r1.reason, 'aborted');
    const approvalAgain = nextChange(rt, 'approval_requested');
    const { approval } = await approvalAgain;
    rt.approvals.reject(approval.toolCallId);
    assert.deepEqual(await second, { reason: 'done' });
    assert.deepEqual(calls, []);
    const messages = rt.messages;
    assertEveryCallAnsweredOnce(messages);
    assertErrorResult(resultOf(messages, toolCalls(messages)[0].id), /cancelled: a new message was sent/);
    for (const r of requestsOf(server, rt)) assert.equal(r.error, null, 'the server accepted every thread');
  },
);

const requestApproval = { ...browserTools.requestUserApproval, defaultEnabled: true };

test('request_user_approval approved: the result is {decision: "approved"}', T, async (t) => {
  const rt = await open(t, { url: server.url('ask_approval'), tools: [requestApproval] });
  const requested = nextChange(rt, 'approval_requested');
  const turn = rt.send('clean up');
  const { approval } = await requested;
  assert.equal(approval.name, 'request_user_approval');
  assert.deepEqual(approval.args, { action: 'delete /tmp/x', details: 'cannot be undone' });
  rt.approvals.approve(approval.toolCallId);
  assert.deepEqual(await turn, { reason: 'done' });
  const result = toolMessages(rt.messages)[0];
  assert.deepEqual(JSON.parse(result.content), { decision: 'approved' });
  assert.equal(result.error, undefined);
  assert.equal(lastText(rt.messages), 'decision: {"decision":"approved"}');
});

test('request_user_approval rejected: the result is {decision: "rejected"}, not an error', T, async (t) => {
  const rt = await open(t, { url: server.url('ask_approval'), tools: [browserTools.requestUserApproval] });
  // Opt-in: off until the page enables it.
  assert.deepEqual(rt.tools.advertise(), []);
  rt.tools.setEnabled('request_user_approval', true);
  assert.deepEqual(
    rt.tools.advertise().map((x) => x.name),
    ['request_user_approval'],
  );
  const requested = nextChange(rt, 'approval_requested');
  const turn = rt.send('clean up');
  const { approval } = await requested;
  const changes = record(rt);
  rt.approvals.reject(approval.toolCallId);
  assert.equal(changes.of('tool_call_status')[0].status, 'denied', 'a rejectedResult answers, and the call is denied');
  assert.deepEqual(await turn, { reason: 'done' });
  const result = toolMessages(rt.messages)[0];
  assert.deepEqual(JSON.parse(result.content), { decision: 'rejected' });
  assert.equal(result.error, undefined, 'a rejection is a decision, not a failure');
  assert.equal(lastText(rt.messages), 'decision: {"decision":"rejected"}');
});

test('request_user_approval rejected with a reason: the decision carries it', T, async (t) => {
  const rt = await open(t, { url: server.url('ask_approval'), tools: [requestApproval] });
  const requested = nextChange(rt, 'approval_requested');
  const turn = rt.send('clean up');
  rt.approvals.reject((await requested).approval.toolCallId, 'not today');
  await turn;
  const result = toolMessages(rt.messages)[0];
  assert.deepEqual(JSON.parse(result.content), { decision: 'rejected', reason: 'not today' });
  assert.equal(result.error, undefined);
});

test('interrupt: surfaced as pending, answered with resume {confirm: true} on the next run', T, async (t) => {
  const rt = await open(t, { url: server.url('interrupt') });
  const changes = record(rt);
  const raised = nextChange(rt, 'interrupts');
  const turn = rt.send('clean /tmp/x');
  const { interrupts } = await raised;
  assert.equal(interrupts.length, 1);
  assert.equal(interrupts[0].id, 'int-1');
  assert.deepEqual(interrupts[0].responseSchema, INTERRUPT_RESPONSE_SCHEMA);
  assert.equal(rt.status.phase, 'awaiting');
  assert.deepEqual(rt.interrupts.pending(), interrupts);
  assert.equal(requestsOf(server, rt).length, 1);

  rt.interrupts.resolve('int-1', { confirm: true });
  assert.deepEqual(await turn, { reason: 'done' });
  const runs = requestsOf(server, rt);
  assert.equal(runs.length, 2);
  assert.equal(runs[0].input.resume, undefined, 'no resume before there is something to answer');
  assert.deepEqual(runs[1].input.resume, [{ interruptId: 'int-1', status: 'resolved', payload: { confirm: true } }]);
  assert.equal(lastText(rt.messages), replies.resumed('int-1', runs[1].input.resume[0]));
  assert.deepEqual(changes.of('interrupt_answered'), [
    { kind: 'interrupt_answered', interruptId: 'int-1', status: 'resolved' },
  ]);
  assert.deepEqual(rt.interrupts.pending(), []);
  assertAguiError(() => rt.interrupts.resolve('int-1', { confirm: true }), 'unknown_interrupt');
});

test('interrupt: a payload that violates responseSchema throws invalid_argument and changes nothing', T, async (t) => {
  const rt = await open(t, { url: server.url('interrupt') });
  const raised = nextChange(rt, 'interrupts');
  const turn = rt.send('clean /tmp/x');
  await raised;
  for (const bad of [{ confirm: 'yes' }, {}, null, 'confirm']) {
    assertAguiError(() => rt.interrupts.resolve('int-1', bad), 'invalid_argument', /int-1.*responseSchema/);
  }
  const e = assertAguiError(() => rt.interrupts.resolve('int-1', { confirm: 1 }), 'invalid_argument');
  assert.match(e.message, /\/confirm/, 'the message names where the payload is wrong');
  assertAguiError(() => rt.interrupts.resolve('int-404', { confirm: true }), 'unknown_interrupt');
  assert.equal(rt.interrupts.pending().length, 1, 'still pending');
  assert.equal(requestsOf(server, rt).length, 1, 'nothing was sent');
  rt.interrupts.resolve('int-1', { confirm: false });
  assert.deepEqual(await turn, { reason: 'done' });
  assert.deepEqual(requestsOf(server, rt)[1].input.resume, [
    { interruptId: 'int-1', status: 'resolved', payload: { confirm: false } },
  ]);
});

test('interrupt cancelled: resume says cancelled, with the reason', T, async (t) => {
  const rt = await open(t, { url: server.url('interrupt') });
  const raised = nextChange(rt, 'interrupts');
  const turn = rt.send('clean /tmp/x');
  await raised;
  rt.interrupts.cancel('int-1', 'changed my mind');
  assert.deepEqual(await turn, { reason: 'done' });
  const resume = requestsOf(server, rt)[1].input.resume;
  assert.deepEqual(resume, [{ interruptId: 'int-1', status: 'cancelled', payload: { reason: 'changed my mind' } }]);
  assert.equal(lastText(rt.messages), replies.resumed('int-1', resume[0]));
});

test('interrupt whose expiresAt is past: cancelled automatically', T, async (t) => {
  const rt = await open(t, { url: server.url('interrupt_expiring'), forwardedProps: { expiresInMs: -60_000 } });
  const changes = record(rt);
  assert.deepEqual(await rt.send('clean /tmp/x'), { reason: 'done' });
  const runs = requestsOf(server, rt);
  assert.equal(runs.length, 2);
  const [entry] = runs[1].input.resume;
  assert.equal(entry.interruptId, 'int-1');
  assert.equal(entry.status, 'cancelled');
  assert.match(entry.payload.reason, /expired at/);
  assert.deepEqual(
    changes.of('interrupt_answered').map((c) => c.status),
    ['cancelled'],
  );
  assert.equal(lastText(rt.messages), replies.resumed('int-1', entry));
});

test('interrupt expiring soon: pending until its expiresAt, then cancelled', T, async (t) => {
  const rt = await open(t, { url: server.url('interrupt_expiring'), forwardedProps: { expiresInMs: 150 } });
  const raised = nextChange(rt, 'interrupts');
  const turn = rt.send('clean /tmp/x');
  await raised;
  assert.equal(rt.interrupts.pending().length, 1, 'pending before it expires');
  assert.deepEqual(await turn, { reason: 'done' });
  assert.equal(requestsOf(server, rt)[1].input.resume[0].status, 'cancelled');
});

test('interrupt expiring in 60 days stays pending (setTimeout cannot wait that long in one go)', T, async (t) => {
  const rt = await open(t, {
    url: server.url('interrupt_expiring'),
    forwardedProps: { expiresInMs: 60 * 24 * 3600 * 1000 },
  });
  const raised = nextChange(rt, 'interrupts');
  rt.send('clean /tmp/x');
  await raised;
  await sleep(100);
  assert.equal(rt.interrupts.pending().length, 1, 'still pending after 100 ms');
  assert.equal(requestsOf(server, rt).length, 1, 'no resume was sent');
});

test('approvalTimeoutMs over 2^31-1 ms does not reject the approval at once', T, async (t) => {
  const calls = [];
  const rt = await open(t, { url: server.url('approval'), approvalTimeoutMs: 2 ** 31, tools: [deleteFile(calls)] });
  const requested = nextChange(rt, 'approval_requested');
  rt.send('delete /tmp/x');
  await requested;
  await sleep(100);
  assert.equal(rt.approvals.pending().length, 1, 'still pending after 100 ms');
});

test(
  'an object rejectedResult gets a non-empty reject reason as its reason key; its own reason answers otherwise',
  T,
  async (t) => {
    const answers = [];
    for (const reason of ['too risky', '']) {
      const { fetch } = scriptedFetch((input, n) =>
        n === 0
          ? callEvents('c1', 'wipe')
          : [{ type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', role: 'assistant', delta: 'ok' }],
      );
      const wipe = {
        name: 'wipe',
        description: 'w',
        parameters: { type: 'object' },
        requiresApproval: true,
        rejectedResult: { decision: 'rejected', reason: 'the user said no' },
        handler: () => 'wiped',
      };
      const rt = await open(t, { url: 'http://agent.test/run', fetch, tools: [wipe] });
      const requested = nextChange(rt, 'approval_requested');
      const turn = rt.send('wipe it');
      await requested;
      rt.approvals.reject('c1', reason);
      assert.equal((await turn).reason, 'done');
      answers.push(JSON.parse(toolMessages(rt.messages)[0].content));
    }
    assert.deepEqual(answers, [
      { decision: 'rejected', reason: 'too risky' },
      { decision: 'rejected', reason: 'the user said no' },
    ]);
  },
);
