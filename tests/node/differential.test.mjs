// The differential test: each corpus stream (tests/fixtures/streams/NAME.sse, the
// exact bytes @ag-ui/encoder wrote) is fed through a runtime by a fake fetch, in
// small chunks, and runtime.messages / runtime.state are compared with what
// @ag-ui/client 1.0.0 made of the same events (NAME.expected.json) as JSON text:
// the same members in the same order, as JSON.stringify writes them. The runtime is seeded with the corpus input through the public API: the
// prior messages and state as an exported thread, the last input message via send().
//
// DIFFERENCES: every deliberate difference from @ag-ui/client, with its reason.
// Everything not listed here must be equal. Each entry is applied (and checked to
// apply) below, so an entry that stops being true fails the test.
//
// | stream(s)   | difference                                                   | reason |
// |-------------|--------------------------------------------------------------|--------|
// | all         | a non-fatal problem `run_id_mismatch` at each RUN_STARTED    | the runtime posts its own runId; the corpus bytes say "run-1" (and "run-2") and are fed unchanged, so the mismatch is reported and the run applied |
// |             | (event 0; two_runs also event 5); the events are applied     |        |
// | several     | the runtime reports as problems what @ag-ui/client warns     | same observations, a different channel (see PROBLEMS) |
// |             | about or drops silently (PROBLEMS below lists each stream's) |        |
// | tool_calls  | pending call tc3 (get_time, not a tool of this client) gets  | "every tool call gets exactly one answer": the core closes a pendingToolCallIds call it cannot run, so the next request is one a provider accepts; @ag-ui/client leaves the call to the app. The follow-up run is then posted (answered here with an empty run) |
// |             | an error tool message ({"error": "tool 'get_time' is not     |        |
// |             | available in this client"}) right after its assistant message|        |
// | tool_results_parts, | old1 (tc-1), open in the seeded thread, is closed on  | "no request goes out with an open call" (docs/round-loop.md): the call gets an error tool message after its assistant message when the thread is imported, so the posted input carries it; that closure is provisional, so the stream's late TOOL_CALL_RESULT takes its place: the thread then equals the reference's |
// | tool_call_  | import with {"error": "no result was received from the       |        |
// | replayed    | agent ..."}; the stream's result then replaces it            |        |
// | messages_snapshot_rules | the snapshot's answer to s1 (ckpt-7) takes the place of the streamed one (uuid-1), right after its call | "one answer per call, right after it" (docs/ordering.md): the reference drops uuid-1 and appends ckpt-7 after the assistant's text, a thread OpenAI-style providers refuse |
// | subagents   | the run ends on an interrupt, so the turn stays open: the    | an interrupt waits for the user; compared at the `interrupts` change, and the pending interrupts are compared with @ag-ui/client's |
// |             | thread is compared when the interrupt is raised              |        |
// | messages_   | a message a MESSAGES_SNAPSHOT carried, and an interrupt,     | "nothing is reordered": @ag-ui/client's event pipeline rebuilds each snapshot |
// | snapshot_*, | keep the member order the server sent (the reference's copy | message and interrupt in its schema's member order; checked equal but for     |
// | subagents   | is equal up to order)                                        | order, then compared as sent                                                  |
// | (inputs)    | activity messages of the seeded thread are not sent back in  | they are UI-only, as the reference client's own input building does; checked on the request the runtime posted |
// |             | RunAgentInput.messages                                       |        |
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRuntime } from 'agui-client-tools';
import { CORPUS_DIR, corpusNames, loadCorpus } from '../support/validate-corpus.mjs';
import { streamedResponse, normalizeIds, sseOf } from './helpers.mjs';

/** Problem codes (in order) the runtime reports on each stream, besides the leading run_id_mismatch. */
const PROBLEMS = {
  activity: ['unknown_message'], // ACTIVITY_DELTA for 'nope': @ag-ui/client drops it silently
  reasoning: ['unknown_message'], // REASONING_ENCRYPTED_VALUE for 'unknown': @ag-ui/client ignores it silently
  state_patch_error: ['patch_failed', 'patch_failed'], // @ag-ui/client: two "Failed to apply state patch" warnings
  tool_calls: ['parent_not_assistant'], // @ag-ui/client: "parentMessageId 'u1' matches a 'user' message" warning
  // 'ghost': appended by both, silently by @ag-ui/client
  tool_results_parts: ['unknown_tool_call'],
  // the call re-sent (twice): a no-op for both, silent in @ag-ui/client
  tool_call_replayed: ['duplicate_tool_call', 'already_ended', 'duplicate_tool_call', 'already_ended'],
  messages_snapshot_rules: ['patch_failed'], // @ag-ui/client: "Failed to apply activity patch"

  two_runs: ['run_id_mismatch'], // the second RUN_STARTED (run-2) of the same response
};

/** What the runtime adds or drops, applied to @ag-ui/client's expected messages. */
const ADJUST = {
  tool_calls(expected, actual) {
    // The runtime's answer to tc3, right after the assistant message holding tc3.
    const answer = actual.find((m) => m.role === 'tool' && m.toolCallId === 'tc3');
    assert.ok(answer, 'tool_calls: tc3 was answered');
    sameText(
      { ...answer, id: '(generated)' },
      {
        id: '(generated)',
        toolCallId: 'tc3',
        role: 'tool',
        content: `{"error":"tool 'get_time' is not available in this client"}`,
        error: "tool 'get_time' is not available in this client",
      },
    );
    const at = expected.findIndex((m) => m.toolCalls?.some((c) => c.id === 'tc3'));
    return [...expected.slice(0, at + 1), answer, ...expected.slice(at + 1)];
  },
};
/**
 * The snapshot difference (DIFFERENCES above): an expected message that equals,
 * up to member order, the one the stream's last MESSAGES_SNAPSHOT carried with
 * its id is expected as the snapshot sent it.
 */
function withSnapshotOrder(expected, events) {
  const sent = new Map();
  for (const e of events) if (e.type === 'MESSAGES_SNAPSHOT') for (const m of e.messages) sent.set(m.id, m);
  return expected.map((m) => {
    const wire = sent.get(m.id);
    if (!wire) return m;
    try {
      assert.deepEqual(m, wire);
      return wire;
    } catch {
      return m; // changed after the snapshot: compared as the reference holds it
    }
  });
}

/** The error the runtime gave call `id` of tool `name` on import (open in the seeded thread), in `messages`. */
function closedOnImport(messages, id, name) {
  const answer = messages.find((m) => m.role === 'tool' && m.toolCallId === id);
  assert.ok(answer, `${id} was answered`);
  const error = `no result was received from the agent for tool '${name}' (call '${id}'); the client closed the call with this error before sending the thread on`;
  sameText(
    { ...answer, id: '(generated)' },
    { id: '(generated)', toolCallId: id, role: 'tool', content: JSON.stringify({ error }), error },
  );
  return answer;
}
/** `messages` with `answer` put where a result for a call of message `holder` goes: after it and its tool messages. */
function placedAfter(messages, holder, answer) {
  let at = messages.findIndex((m) => m.id === holder) + 1;
  while (at < messages.length && messages[at].role === 'tool') at += 1;
  return [...messages.slice(0, at), answer, ...messages.slice(at)];
}
/** The snapshot's answer to s1 (ckpt-7) in the place of the streamed one, right after its call (DIFFERENCES). */
ADJUST.messages_snapshot_rules = (expected) => {
  const answer = expected.find((m) => m.id === 'ckpt-7');
  return placedAfter(
    expected.filter((m) => m !== answer),
    'a1',
    answer,
  );
};

/** What the runtime posts instead of the corpus input's messages. */
const POSTED = {
  tool_results_parts: (inputMessages, posted) =>
    placedAfter(inputMessages, 'a0', closedOnImport(posted, 'old1', 'get_weather')),
  tool_call_replayed: (inputMessages, posted) =>
    placedAfter(inputMessages, 'msg-1', closedOnImport(posted, 'tc-1', 'openPolicyException')),
};
/** Follow-up runs the runtime posts after the corpus run. */
const FOLLOW_UPS = { tool_calls: 1 };

const CHUNK_SIZES = [1, 3, 16, 4096];

/** Equal as JSON text, key order included (deepEqual first, for a readable diff of values). */
function sameText(actual, expected, where) {
  assert.deepEqual(actual, expected, where);
  assert.equal(JSON.stringify(actual), JSON.stringify(expected), `${where}: key order`);
}

/** Feeds one corpus stream through a fresh runtime; resolves with what it made of it. */
async function replay(name, chunk) {
  const doc = loadCorpus(name);
  const bytes = fs.readFileSync(path.join(CORPUS_DIR, `${name}.sse`));
  const { input } = doc;
  const posted = [];
  const fetch = async (url, init) => {
    const body = JSON.parse(init.body);
    posted.push(body);
    if (posted.length === 1) return streamedResponse(bytes, { chunk });
    // Follow-up runs: an agent with nothing more to say.
    const ids = { threadId: body.threadId, runId: body.runId };
    return streamedResponse(
      Buffer.from(
        sseOf([
          { type: 'RUN_STARTED', ...ids },
          { type: 'RUN_FINISHED', ...ids },
        ]),
      ),
      { chunk },
    );
  };
  const prior = input.messages.slice(0, -1);
  const rt = await createRuntime({
    url: `http://corpus.invalid/${name}`,
    fetch,
    thread: {
      format: 'agui-client-tools/thread',
      version: 1,
      threadId: input.threadId,
      messages: prior,
      state: input.state ?? {},
    },
  });
  try {
    const problems = [];
    let atInterrupt = null;
    rt.subscribe((c) => {
      if (c.kind === 'problem') problems.push(c);
      if (c.kind === 'interrupts') atInterrupt = { messages: rt.messages, state: rt.state, interrupts: c.interrupts };
    });
    const raised = new Promise((resolve) =>
      rt.subscribe((c) => c.kind === 'interrupts' && resolve({ reason: 'interrupt' })),
    );
    const result = await Promise.race([rt.send([input.messages.at(-1)]), raised]);
    const snapshot = atInterrupt ?? { messages: rt.messages, state: rt.state };
    return { doc, rt: { threadId: rt.threadId }, posted, problems, result, ...snapshot };
  } finally {
    rt.dispose();
  }
}

for (const name of corpusNames()) {
  test(`differential: ${name}`, { timeout: 10_000 }, async (t) => {
    const expected = JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, `${name}.expected.json`), 'utf8'));
    let first;
    for (const chunk of CHUNK_SIZES) {
      const got = await replay(name, chunk);
      const { input } = got.doc;
      const where = `${name} (chunks of ${chunk})`;

      // Seeded through the public API: the request carries the corpus input.
      assert.equal(got.rt.threadId, input.threadId, `${where}: threadId`);
      const sent = input.messages.filter((m) => m.role !== 'activity');
      const wantPosted = POSTED[name] ? POSTED[name](sent, got.posted[0].messages) : sent;
      sameText(got.posted[0].messages, wantPosted, `${where}: the posted messages are the corpus input's`);
      sameText(got.posted[0].state, input.state ?? {}, `${where}: the posted state`);

      // Problems: the runId mismatch first, then this stream's known ones; none fatal.
      assert.deepEqual(
        got.problems.map((p) => p.code),
        ['run_id_mismatch', ...(PROBLEMS[name] ?? [])],
        `${where}: problems`,
      );
      assert.equal(got.problems[0].index, 0);
      assert.match(got.problems[0].message, /run-1/);
      assert.ok(
        got.problems.every((p) => !p.fatal),
        `${where}: no fatal problem`,
      );

      // The thread, against @ag-ui/client's.
      const reference = withSnapshotOrder(expected.messages, got.doc.events);
      const want = ADJUST[name] ? ADJUST[name](reference, got.messages) : reference;
      sameText(got.messages, want, `${where}: messages`);
      sameText(got.state, expected.state, `${where}: state`);

      // The outcome, against what @ag-ui/client's run callbacks saw (the last run's).
      const run = expected.runs.at(-1);
      if (run.outcome === 'cancelled') {
        assert.deepEqual(
          got.result,
          { reason: 'cancelled', message: 'the agent cancelled the run' },
          `${where}: outcome`,
        );
      } else if (run.outcome === 'error') {
        assert.deepEqual(
          got.result,
          { reason: 'run_error', message: run.message, code: run.code },
          `${where}: outcome`,
        );
      } else if (run.outcome === 'interrupt') {
        assert.deepEqual(got.result, { reason: 'interrupt' });
        // Equal to the reference's; in the member order the server sent (DIFFERENCES).
        assert.deepEqual(got.interrupts, run.interrupts, `${where}: interrupts`);
        const sent = got.doc.events.findLast((e) => e.type === 'RUN_FINISHED').outcome.interrupts;
        sameText(got.interrupts, sent, `${where}: interrupts as sent`);
      } else {
        // With the RUN_FINISHED.result @ag-ui/client's callbacks saw, when the run sent one.
        const result = run.result ?? undefined;
        assert.deepEqual(got.result, { reason: 'done', ...(result !== undefined && { result }) }, `${where}: outcome`);
        assert.equal(got.posted.length - 1, FOLLOW_UPS[name] ?? 0, `${where}: follow-up runs`);
      }

      // Chunking changes nothing (ids the runtime generates aside).
      const seen = { m: normalizeIds(got.messages), s: got.state };
      if (first) assert.deepEqual(seen, first, `${where}: same as chunks of ${CHUNK_SIZES[0]}`);
      else first = seen;
    }
    t.diagnostic(`${name}: equal to @ag-ui/client${ADJUST[name] ? ' (after the listed difference)' : ''}`);
  });
}

test('differential: the corpus is all here (15 streams, each with .sse and .expected.json)', () => {
  const names = corpusNames();
  assert.ok(names.length >= 15, `${names.length} streams`);
  for (const name of names) {
    assert.ok(fs.existsSync(path.join(CORPUS_DIR, `${name}.sse`)), `${name}.sse`);
    assert.ok(fs.existsSync(path.join(CORPUS_DIR, `${name}.expected.json`)), `${name}.expected.json`);
  }
  for (const name of [...Object.keys(PROBLEMS), ...Object.keys(ADJUST), ...Object.keys(POSTED)])
    assert.ok(names.includes(name), `${name} is a corpus stream`);
});

// A JS server that cuts text with slice() splits surrogate pairs between two
// events; @ag-ui/client's strings join the halves, and so does the runtime: in
// the text, the reasoning, the handler's arguments, the partial arguments, the
// thread and the next request.
test('a surrogate pair split across two deltas is one character, as @ag-ui/client makes it', async (t) => {
  const { startAguiServer } = await import('../support/agui-server.mjs');
  const { TOOL_SCHEMAS, SPLIT_PAIR_TEXT, SPLIT_PAIR_CITY } = await import('../support/scenarios.mjs');
  const { HttpAgent } = await import('@ag-ui/client');
  const server = await startAguiServer();
  t.after(() => server.close());
  const tools = [{ name: 'get_weather', description: 'weather', parameters: TOOL_SCHEMAS.get_weather }];

  const reference = new HttpAgent({
    url: server.url('split_pairs'),
    threadId: 'ref-pairs',
    initialMessages: [{ id: 'u1', role: 'user', content: 'hi' }],
  });
  await reference.runAgent({ tools });
  const byRole = (messages, role) => messages.filter((m) => m.role === role);
  const refCall = byRole(reference.messages, 'assistant').flatMap((m) => m.toolCalls ?? [])[0];

  const handled = [];
  const runtime = await createRuntime({
    url: server.url('split_pairs'),
    tools: [{ ...tools[0], handler: (args) => (handled.push(args), '21°C') }],
  });
  t.after(() => runtime.dispose());
  const partials = [];
  runtime.subscribe((c) => c.kind === 'tool_call_partial' && partials.push(structuredClone(c.args)));
  assert.equal((await runtime.send('hi')).reason, 'done');

  assert.deepEqual(handled, [{ city: SPLIT_PAIR_CITY }]);
  assert.deepEqual(partials.at(-1), { city: SPLIT_PAIR_CITY });
  const texts = (messages) => ({
    reasoning: byRole(messages, 'reasoning').map((m) => m.content),
    text: byRole(messages, 'assistant')
      .map((m) => m.content)
      .filter(Boolean)
      .slice(0, 1),
    args: byRole(messages, 'assistant')
      .flatMap((m) => m.toolCalls ?? [])
      .map((c) => c.function.arguments),
  });
  assert.deepEqual(texts(runtime.messages), texts(reference.messages));
  assert.deepEqual(texts(runtime.messages).text, [SPLIT_PAIR_TEXT]);
  assert.equal(refCall.function.arguments, JSON.stringify({ city: SPLIT_PAIR_CITY }));
  // The follow-up request carries the joined characters back.
  const next = server.requests.filter((r) => r.input?.threadId === runtime.threadId)[1].input;
  assert.deepEqual(texts(next.messages), texts(reference.messages));
  assert.ok(!JSON.stringify(runtime.messages).includes('\ufffd'), 'no U+FFFD anywhere in the thread');
});
