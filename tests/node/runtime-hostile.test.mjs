// The package under hostile input through its public API only (issue 19): handlers
// that throw what cannot be printed, lone surrogates, runtimes never disposed or
// never finished being built, a fetch that ignores its abort signal, interrupts
// that arrive expired, and bad arguments to every public method. Each case ends
// with a named result, and nothing escapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createRuntime, AguiError, init } from 'agui-client-tools';
// Unit tests of core.js's internal surrogate helpers (not exported by the package) read src/.
import { wellFormed, wellFormedJson, replaceLoneSurrogates } from '../../js-shim/src/core.js';
import {
  T,
  open,
  record,
  nextChange,
  within,
  sleep,
  deferred,
  resultOf,
  assertErrorResult,
  assertAguiError,
  assertEveryCallAnsweredOnce,
  scriptedFetch,
  callEvents,
  watchEscapes,
  sseOf,
} from './helpers.mjs';
import { seededRandom } from '../support/random.mjs';

const core = await init(); // the module the package's runtimes share
const heapInUse = () => core.heapInUse();
const URL_ = 'http://agent.test/run';
const reply = (text) => [
  { type: 'TEXT_MESSAGE_START', messageId: 'reply', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'reply', delta: text },
  { type: 'TEXT_MESSAGE_END', messageId: 'reply' },
];
/** A model that calls `probe` once, then answers with text. */
const callsProbeOnce = (input, n) => (n === 0 ? callEvents('call-1', 'probe') : reply('ok'));
const probe = (handler, extra = {}) => ({
  name: 'probe',
  description: 'a probe',
  parameters: { type: 'object' },
  handler,
  ...extra,
});

const isoIn = (ms) => new Date(Date.now() + ms).toISOString();
/** A first run that ends on these interrupts, then a text reply. */
const interrupting = (interrupts) => (input, n) =>
  n === 0
    ? [
        { type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId },
        {
          type: 'RUN_FINISHED',
          threadId: input.threadId,
          runId: input.runId,
          outcome: { type: 'interrupt', interrupts: interrupts() },
        },
      ]
    : reply('resumed');

/** One turn in which the model calls `probe` once: the turn's result, the call's tool message, the requests. */
async function oneCall(t, handler, extra = {}) {
  const scripted = scriptedFetch(callsProbeOnce);
  const rt = await open(t, {
    url: URL_,
    fetch: scripted.fetch,
    tools: [probe(handler, { timeoutMs: 5000, ...extra })],
  });
  const result = await within(rt.send('go'), 2000, 'the turn');
  return { rt, result, message: resultOf(rt.messages, 'call-1'), requests: scripted.requests };
}

// ----------------------------------------------------------- 1. undescribable throws

const undescribable = () => ({
  toString() {
    throw new Error('no toString');
  },
  toJSON() {
    throw new Error('no toJSON');
  },
});
const trapsThrow = () =>
  new Proxy(
    {},
    Object.fromEntries(
      ['get', 'has', 'ownKeys', 'getPrototypeOf', 'getOwnPropertyDescriptor'].map((trap) => [
        trap,
        () => {
          throw new Error(`${trap} trap`);
        },
      ]),
    ),
  );

for (const [what, make] of [
  ['an object whose toString and toJSON throw', undescribable],
  ['a Proxy whose traps throw', trapsThrow],
]) {
  for (const [how, handler] of [
    [
      'throws',
      () => {
        throw make();
      },
    ],
    ['rejects with', () => Promise.reject(make())],
  ]) {
    test(`a handler that ${how} ${what} gets an error result at once, and nothing escapes`, T, async (t) => {
      const escapes = watchEscapes();
      t.after(escapes.stop);
      const { result, message, requests } = await oneCall(t, handler);
      assert.deepEqual(result, { reason: 'done' });
      assertErrorResult(message, /threw a value that cannot be described/);
      assert.equal(requests.length, 2, 'the follow-up run went out');
      await sleep(20);
      assert.deepEqual(escapes.escaped, [], 'no uncaught exception, no unhandled rejection');
    });
  }
}

test(
  'a handler whose result has a toJSON that throws a Proxy whose traps throw gets an error result, and nothing escapes',
  T,
  async (t) => {
    const escapes = watchEscapes();
    t.after(escapes.stop);
    const { message } = await oneCall(t, async () => ({
      toJSON() {
        throw trapsThrow();
      },
    }));
    assertErrorResult(message, /cannot be encoded as JSON/);
    await sleep(20);
    assert.deepEqual(escapes.escaped, []);
  },
);

// ------------------------------------------------------------- 2. lone surrogates

const LONE = [
  ['a lone high surrogate mid-string', 'A\ud800BCD', 'A\ufffdBCD'],
  ['a lone low surrogate', 'a\udc00b', 'a\ufffdb'],
  ['a trailing high surrogate', 'xy\ud800', 'xy\ufffd'],
  ['a leading low surrogate', '\udc00z', '\ufffdz'],
  ['a reversed pair', '\udc00\ud800', '\ufffd\ufffd'],
  ['a lone one beside a valid pair', '\ud83d\ude00\ud800!', '\u{1f600}\ufffd!'],
];

for (const [what, sent, kept] of LONE) {
  test(
    `a string result with ${what} reaches the thread and the request with U+FFFD in its place, nothing else changed`,
    T,
    async (t) => {
      const { message, requests } = await oneCall(t, () => sent);
      assert.equal(message.content, kept);
      assert.equal(requests[1].messages.find((m) => m.role === 'tool').content, kept);
    },
  );
}

test('a thrown Error message with a lone surrogate keeps every other character', T, async (t) => {
  const { message } = await oneCall(t, () => {
    throw new Error('bad A\ud800BCD');
  });
  assertErrorResult(message);
  assert.match(message.error, /bad A\ufffdBCD/);
});

test('an approvals.reject() reason with a lone surrogate keeps every other character', T, async (t) => {
  const scripted = scriptedFetch(callsProbeOnce);
  const rt = await open(t, {
    url: URL_,
    fetch: scripted.fetch,
    tools: [probe(() => 'ran', { requiresApproval: true })],
  });
  const requested = nextChange(rt, 'approval_requested');
  const turn = rt.send('go');
  const { approval } = await requested;
  rt.approvals.reject(approval.toolCallId, 'no A\ud800BCD');
  await within(turn, 2000, 'the turn');
  const message = resultOf(rt.messages, 'call-1');
  assert.match(message.error, /no A\ufffdBCD/);
  assert.match(scripted.requests[1].messages.find((m) => m.role === 'tool').error, /no A\ufffdBCD/);
});

test('an abort() reason with a lone surrogate ends the turn with U+FFFD in its place', T, async (t) => {
  const started = deferred();
  const scripted = scriptedFetch(callsProbeOnce);
  const rt = await open(t, {
    url: URL_,
    fetch: scripted.fetch,
    tools: [probe(() => (started.resolve(), new Promise(() => {})))],
  });
  const turn = rt.send('go');
  await started.promise;
  rt.abort('stop \udc00 now');
  assert.equal((await turn).message, 'stop \ufffd now');
});

test(
  'an object result with a lone surrogate in a value and a key keeps every other character, U+FFFD in its place',
  T,
  async (t) => {
    const { message, requests } = await oneCall(t, () => ({ ['k\udc00']: 'A\ud800BCD', list: ['\ud83d\ude00\ud800'] }));
    const expected = JSON.stringify({ ['k\ufffd']: 'A\ufffdBCD', list: ['\u{1f600}\ufffd'] });
    assert.equal(message.content, expected);
    assert.equal(requests[1].messages.find((m) => m.role === 'tool').content, expected);
  },
);

test('text that only looks like a surrogate escape (a backslash, then ud800) is never changed', T, async (t) => {
  const literal = '\\ud800 and \\\\ud800';
  const asText = await oneCall(t, () => literal);
  assert.equal(asText.message.content, literal);
  const asJson = await oneCall(t, () => ({ literal }));
  assert.equal(JSON.parse(asJson.message.content).literal, literal);
});

test('send() with a lone surrogate in the text or in a message sends U+FFFD in its place', T, async (t) => {
  const scripted = scriptedFetch(() => reply('ok'));
  const rt = await open(t, { url: URL_, fetch: scripted.fetch });
  assert.deepEqual(await rt.send('A\ud800BCD'), { reason: 'done' });
  assert.deepEqual(await rt.send([{ role: 'user', content: 'x\udc00y' }]), { reason: 'done' });
  const users = rt.messages.filter((m) => m.role === 'user').map((m) => m.content);
  assert.deepEqual(users, ['A\ufffdBCD', 'x\ufffdy']);
  assert.deepEqual(
    scripted.requests[1].messages.filter((m) => m.role === 'user').map((m) => m.content),
    users,
  );
});

test('an interrupts.resolve() payload with a lone surrogate resumes with U+FFFD in its place', T, async (t) => {
  const scripted = scriptedFetch(interrupting(() => [{ id: 'int-1', reason: 'confirmation' }]));
  const rt = await open(t, { url: URL_, fetch: scripted.fetch });
  const raised = nextChange(rt, 'interrupts');
  const turn = rt.send('go');
  await raised;
  rt.interrupts.resolve('int-1', { note: 'a\ud800b' });
  assert.deepEqual(await within(turn, 2000, 'the turn'), { reason: 'done' });
  assert.deepEqual(scripted.requests[1].resume[0].payload, { note: 'a\ufffdb' });
});

test('the fallback for String.prototype.toWellFormed (node 18 lacks it) answers as toWellFormed does', () => {
  const alphabet = ['a', 'é', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00', '\u{1f600}', '\ufffd'];
  const random = seededRandom(7);
  const below = (n) => Math.floor(random() * n);
  const cases = LONE.map(([, s]) => s);
  for (let i = 0; i < 2000; i += 1) {
    let s = '';
    for (let n = below(8); n > 0; n -= 1) s += alphabet[below(alphabet.length)];
    cases.push(s);
  }
  for (const s of cases) {
    assert.equal(replaceLoneSurrogates(s), s.toWellFormed(), JSON.stringify(s));
    assert.equal(wellFormed(s), s.toWellFormed(), JSON.stringify(s));
  }
});

test('in JSON text, each lone-surrogate escape becomes U+FFFD, as if the string had been well-formed before JSON.stringify', () => {
  const alphabet = ['a', '\\', 'u', 'd', '8', '0', 'D', '\ud800', '\udc00', '\ud83d', '\ude00', '"'];
  const random = seededRandom(11);
  const below = (n) => Math.floor(random() * n);
  for (let i = 0; i < 5000; i += 1) {
    let s = '';
    for (let n = below(10); n > 0; n -= 1) s += alphabet[below(alphabet.length)];
    const value = { [s]: [s, { s }] };
    const wellFormedValue = { [s.toWellFormed()]: [s.toWellFormed(), { s: s.toWellFormed() }] };
    assert.equal(wellFormedJson(JSON.stringify(value)), JSON.stringify(wellFormedValue), JSON.stringify(s));
  }
});

// --------------------------------------------- 3. the FinalizationRegistry safety net

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

/** Collects until the heap in use is back to `target` (the registry's callbacks run in later tasks). */
async function collectUntil(target, rounds = 100) {
  for (let i = 0; i < rounds && heapInUse() !== target; i += 1) {
    gc();
    await sleep(10);
  }
  return heapInUse();
}

/**
 * A runtime that ran one tool turn and was never disposed, with a thread opened
 * from it, and a handler that refers to the runtime (as a page's handlers do).
 */
async function dropOne() {
  const scripted = scriptedFetch(callsProbeOnce);
  const rt = await createRuntime({ url: URL_, fetch: scripted.fetch });
  rt.tools.register(probe(() => rt.threadId));
  assert.deepEqual(await rt.send('go'), { reason: 'done' });
  rt.openThread().subscribe(() => rt.status);
}

test('runtimes dropped without dispose() give their wasm heap back once collected', { timeout: 30_000 }, async () => {
  await dropOne(); // whatever the first use allocates for good
  const before = await collectUntil(-1, 20); // (-1: never reached, so 20 full rounds)
  for (let i = 0; i < 50; i += 1) await dropOne();
  assert.ok(heapInUse() > before, 'the dropped runtimes held memory');
  assert.equal(await collectUntil(before), before, 'heap in use after collection');
});

// ------------------------------------------------- 4. a failed createRuntime({tools})

test('a createRuntime({tools}) refused for one definition frees everything it took', T, async () => {
  const tools = [probe(() => 1), { name: 'bad name!', description: 'x', handler: () => 2 }];
  const attempt = () =>
    assert.rejects(createRuntime({ url: URL_, fetch: scriptedFetch(callsProbeOnce).fetch, tools }), {
      code: 'invalid_tool',
    });
  await attempt();
  const before = heapInUse();
  for (let i = 0; i < 50; i += 1) await attempt();
  assert.equal(heapInUse(), before);
});

// ----------------------------------------- 7. a fetch that ignores its abort signal

/** A Response whose body sends `first` then nothing, ignores every abort signal, and notes its cancel(). */
function stuckResponse(first) {
  const cancelled = deferred();
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
    },
    pull() {
      return new Promise(() => {}); // never more
    },
    cancel: (reason) => cancelled.resolve(reason ?? 'cancelled'),
  });
  return {
    response: new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    cancelled: cancelled.promise,
  };
}

test(
  'idleTimeoutMs ends the run itself when a custom fetch body ignores the abort signal, and cancels the reader',
  T,
  async (t) => {
    let stuck;
    const scripted = scriptedFetch((input, n) => {
      if (n > 0) return reply('second turn');
      stuck = stuckResponse(sseOf([{ type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId }]));
      return stuck.response;
    });
    const rt = await open(t, { url: URL_, fetch: scripted.fetch, idleTimeoutMs: 150 });
    const result = await within(rt.send('hello'), 2000, 'the turn');
    assert.equal(result.reason, 'run_error');
    assert.match(result.message, /sent nothing for 150 ms \(idleTimeoutMs\)/);
    await within(stuck.cancelled, 1000, 'the reader cancel');
    assert.equal(rt.status.phase, 'idle');
    assert.deepEqual(await within(rt.send('again'), 2000, 'the next turn'), { reason: 'done' });
  },
);

test('idleTimeoutMs ends the run when a custom fetch never answers and ignores the abort signal', T, async (t) => {
  const rt = await open(t, { url: URL_, fetch: () => new Promise(() => {}), idleTimeoutMs: 150 });
  const result = await within(rt.send('hello'), 2000, 'the turn');
  assert.equal(result.reason, 'run_error');
  assert.match(result.message, /idleTimeoutMs/);
});

test('abort() cancels the reader of a custom fetch body that ignores the abort signal', T, async (t) => {
  let stuck;
  const scripted = scriptedFetch((input) => {
    stuck = stuckResponse(sseOf([{ type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId }]));
    return stuck.response;
  });
  const rt = await open(t, { url: URL_, fetch: scripted.fetch, idleTimeoutMs: 0 });
  const started = nextChange(rt, 'run_started');
  const turn = rt.send('hello');
  await started;
  rt.abort('user pressed stop');
  assert.deepEqual(await within(turn, 1000, 'the turn'), { reason: 'aborted', message: 'user pressed stop' });
  await within(stuck.cancelled, 1000, 'the reader cancel');
});

// ---------------------------------------------------------------- 8. expired interrupts

test('an interrupt that arrives past its expiresAt is cancelled before the page sees it pending', T, async (t) => {
  const scripted = scriptedFetch(
    interrupting(() => [
      { id: 'int-old', reason: 'confirmation', expiresAt: isoIn(-60_000) },
      { id: 'int-new', reason: 'confirmation', expiresAt: isoIn(60_000) },
    ]),
  );
  const rt = await open(t, { url: URL_, fetch: scripted.fetch });
  const seenPending = new Set();
  const listed = [];
  rt.subscribe((change) => {
    for (const i of rt.status.pendingInterrupts) seenPending.add(i.id);
    if (change.kind === 'interrupts') {
      listed.push(...change.interrupts.map((i) => i.id));
      assertAguiError(() => rt.interrupts.resolve('int-old', { ok: true }), 'unknown_interrupt');
      rt.interrupts.resolve('int-new', { ok: true });
    }
  });
  assert.deepEqual(await within(rt.send('go'), 2000, 'the turn'), { reason: 'done' });
  assert.deepEqual(listed, ['int-new'], 'the interrupts change lists only the live one');
  assert.deepEqual([...seenPending], ['int-new'], 'status never listed the expired one as pending');
  const resume = scripted.requests[1].resume;
  assert.deepEqual(
    resume.map((r) => [r.interruptId, r.status]),
    [
      ['int-old', 'cancelled'],
      ['int-new', 'resolved'],
    ],
  );
  assert.match(resume[0].payload.reason, /expired at/);
});

test('resolve() after expiresAt, before the expiry timer fired, cancels the interrupt instead', T, async (t) => {
  const expiresAt = isoIn(100);
  const scripted = scriptedFetch(interrupting(() => [{ id: 'int-soon', reason: 'confirmation', expiresAt }]));
  const rt = await open(t, { url: URL_, fetch: scripted.fetch });
  const changes = record(rt);
  const raised = nextChange(rt, 'interrupts');
  const turn = rt.send('go');
  await raised;
  assert.equal(rt.interrupts.pending().length, 1, 'pending before it expires');
  while (Date.now() <= Date.parse(expiresAt) + 20); // past it, with no task in between for the timer
  rt.interrupts.resolve('int-soon', { ok: true });
  assert.deepEqual(await within(turn, 2000, 'the turn'), { reason: 'done' });
  assert.deepEqual(
    changes.of('interrupt_answered').map((c) => c.status),
    ['cancelled'],
  );
  const [entry] = scripted.requests[1].resume;
  assert.equal(entry.status, 'cancelled');
  assert.match(entry.payload.reason, /expired at/);
});

test(
  'an imported thread whose interrupt expired meanwhile never shows it pending, and resumes with it cancelled',
  T,
  async (t) => {
    const expiresAt = isoIn(800);
    const scripted = scriptedFetch(interrupting(() => [{ id: 'int-soon', reason: 'confirmation', expiresAt }]));
    const first = await open(t, { url: URL_, fetch: scripted.fetch });
    const raised = nextChange(first, 'interrupts');
    first.send('go');
    await raised;
    const exported = first.thread.export();
    first.dispose();
    await sleep(Date.parse(expiresAt) - Date.now() + 20);
    const rt = await open(t, { url: URL_, fetch: scripted.fetch, thread: exported });
    assert.deepEqual(rt.interrupts.pending(), [], 'not pending right after the import');
    const changes = record(rt);
    assert.deepEqual(await within(rt.resumed, 2000, 'the resumed turn'), { reason: 'done' });
    assert.deepEqual(changes.of('interrupts'), []);
    assert.deepEqual(
      changes.of('interrupt_answered').map((c) => [c.interruptId, c.status]),
      [['int-soon', 'cancelled']],
    );
    const [entry] = scripted.requests.at(-1).resume;
    assert.deepEqual([entry.interruptId, entry.status], ['int-soon', 'cancelled']);
    assert.match(entry.payload.reason, /expired at/);
  },
);

// ---------------------------------------------------------- 9. bad arguments, named

const throwsOnString = () => ({
  toString() {
    throw new TypeError('no string for you');
  },
});
const circular = () => {
  const a = [{ role: 'user', content: 'hi' }];
  a[0].self = a;
  return a;
};

const BAD_CALLS = [
  ['send() with a BigInt', (rt) => rt.send(10n), /send\(\).*textOrMessages.*BigInt/],
  [
    'send() with a BigInt inside a message',
    (rt) => rt.send([{ role: 'user', content: 'hi', n: 1n }]),
    /send\(\).*textOrMessages/,
  ],
  ['send() with circular messages', (rt) => rt.send(circular()), /send\(\).*textOrMessages.*circular/],
  [
    'interrupts.resolve() with a BigInt payload',
    (rt) => rt.interrupts.resolve('int-1', 10n),
    /interrupts\.resolve\(\).*payload/,
  ],
  [
    'interrupts.resolve() with an id whose toString throws',
    (rt) => rt.interrupts.resolve(throwsOnString(), {}),
    /interrupts\.resolve\(\).*interruptId.*no string for you/,
  ],
  [
    'interrupts.cancel() with a reason whose toString throws',
    (rt) => rt.interrupts.cancel('int-1', throwsOnString()),
    /interrupts\.cancel\(\).*reason/,
  ],
  [
    'approvals.approve() with an id whose toString throws',
    (rt) => rt.approvals.approve(throwsOnString()),
    /approvals\.approve\(\).*toolCallId/,
  ],
  [
    'approvals.reject() with a reason whose toString throws',
    (rt) => rt.approvals.reject('call-1', throwsOnString()),
    /approvals\.reject\(\).*reason/,
  ],
  [
    'tools.unregister() with a name whose toString throws',
    (rt) => rt.tools.unregister(throwsOnString()),
    /tools\.unregister\(\).*name/,
  ],
  [
    'tools.setEnabled() with a name whose toString throws',
    (rt) => rt.tools.setEnabled(throwsOnString(), true),
    /tools\.setEnabled\(\).*name/,
  ],
  ['abort() with a reason whose toString throws', (rt) => rt.abort(throwsOnString()), /abort\(\).*reason/],
  [
    'openThread() with a threadId whose toString throws',
    (rt) => rt.openThread({ threadId: throwsOnString() }),
    /openThread\(\).*options\.threadId/,
  ],
  ['openThread() with null options', (rt) => rt.openThread(null), /openThread\(\) takes an options object/],
  [
    'openThread() with forwardedProps holding a BigInt',
    (rt) => rt.openThread({ forwardedProps: 1n }),
    /openThread\(\).*options\.forwardedProps/,
  ],
];

for (const [what, call, pattern] of BAD_CALLS) {
  test(`${what} throws an AguiError naming the argument, and nothing changes`, T, async (t) => {
    const rt = await open(t, { url: URL_, fetch: scriptedFetch(callsProbeOnce).fetch, tools: [probe(() => 1)] });
    const before = JSON.stringify([rt.messages, rt.status, rt.tools.list()]);
    assertAguiError(() => call(rt), 'invalid_argument', pattern);
    assert.equal(JSON.stringify([rt.messages, rt.status, rt.tools.list()]), before);
  });
}

test('tools.register() with a definition whose getters throw answers invalid_tool', T, async (t) => {
  const rt = await open(t, { url: URL_, fetch: scriptedFetch(callsProbeOnce).fetch });
  assertAguiError(() => rt.tools.register(trapsThrow()), 'invalid_tool', /tools\.register\(\)/);
  assert.deepEqual(rt.tools.list(), []);
});

const BAD_OPTIONS = [
  ['forwardedProps holding a BigInt', { forwardedProps: { n: 1n } }, /options\.forwardedProps/],
  ['circular context', { context: circular() }, /options\.context/],
  ['a threadId whose toString throws', { threadId: throwsOnString() }, /options\.threadId/],
  ['limits holding a BigInt', { limits: { maxEventBytes: 10n } }, /options\.limits\.maxEventBytes/],
  ['limits.maxJsonDepth past its bound', { limits: { maxJsonDepth: 1001 } }, /'maxJsonDepth' must be at most 1000/],
  [
    'a thread export holding a BigInt',
    { thread: { format: 'agui-client-tools/thread', version: 1, threadId: 't', messages: [], state: 1n } },
    /options\.thread/,
  ],
];

for (const [what, options, pattern] of BAD_OPTIONS) {
  test(
    `createRuntime() with ${what} rejects with an AguiError naming the option, and frees what it took`,
    T,
    async () => {
      const attempt = () => createRuntime({ url: URL_, fetch: scriptedFetch(callsProbeOnce).fetch, ...options });
      await assert.rejects(
        attempt(),
        (e) => e instanceof AguiError && e.code === 'invalid_argument' && pattern.test(e.message),
      );
      const before = heapInUse();
      await assert.rejects(attempt());
      assert.equal(heapInUse(), before);
    },
  );
}

// ---------------------------------------------------------------------------- Also

test(
  'send() with a tool message for a call that has its answer is refused (already_answered), and nothing changes',
  T,
  async (t) => {
    const rt = await open(t, { url: URL_, fetch: scriptedFetch(callsProbeOnce).fetch, tools: [probe(() => 1)] });
    assert.equal((await rt.send('go')).reason, 'done');
    const [answered] = rt.messages.filter((m) => m.role === 'tool');
    const before = JSON.stringify([rt.messages, rt.status]);
    assertAguiError(
      () => rt.send([{ role: 'tool', toolCallId: answered.toolCallId, content: 'a second answer' }]),
      'already_answered',
      new RegExp(`tool call '${answered.toolCallId}', which already has an answer`),
    );
    assert.equal(JSON.stringify([rt.messages, rt.status]), before);
  },
);

test('a call replayed by the next run, or ended again, keeps its final state and is reported', T, async (t) => {
  const scripted = scriptedFetch((input, n) =>
    n === 0 ? callEvents('c1', 'probe') : [...callEvents('c1', 'probe'), { type: 'TOOL_CALL_END', toolCallId: 'c1' }],
  );
  const rt = await open(t, { url: URL_, fetch: scripted.fetch, tools: [probe(() => 1)] });
  const changes = record(rt);
  assert.equal((await rt.send('go')).reason, 'done');
  const states = changes.of('tool_call_status').map((c) => c.status);
  assert.deepEqual(states, ['streaming', 'ready', 'running', 'done']);
  assert.deepEqual(
    changes.problems().map((p) => p.code),
    ['duplicate_tool_call', 'not_open', 'already_ended', 'already_ended'],
  );
});

test('a content type that only starts with text/event-stream (text/event-stream-foo) is refused', T, async (t) => {
  const scripted = scriptedFetch(
    (input) =>
      new Response(sseOf([{ type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId }]), {
        headers: { 'content-type': 'text/event-stream-foo' },
      }),
  );
  const rt = await open(t, { url: URL_, fetch: scripted.fetch });
  const result = await within(rt.send('hi'), 2000, 'the turn');
  assert.equal(result.reason, 'run_error');
  assert.match(result.message, /content type 'text\/event-stream-foo', not text\/event-stream/);
});

test(
  'a content type with parameters and any case (TEXT/Event-Stream; charset=utf-8) is an event stream',
  T,
  async (t) => {
    const scripted = scriptedFetch((input) => {
      const events = [
        { type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId },
        ...reply('hi'),
        { type: 'RUN_FINISHED', threadId: input.threadId, runId: input.runId },
      ];
      return new Response(sseOf(events), { headers: { 'content-type': ' TEXT/Event-Stream ; charset=utf-8' } });
    });
    const rt = await open(t, { url: URL_, fetch: scripted.fetch });
    assert.deepEqual(await within(rt.send('hi'), 2000, 'the turn'), { reason: 'done' });
  },
);

test(
  'an empty 200 event stream ends the turn with an error saying the server may still be running an earlier run',
  T,
  async (t) => {
    const scripted = scriptedFetch(() => new Response('', { headers: { 'content-type': 'text/event-stream' } }));
    const rt = await open(t, { url: URL_, fetch: scripted.fetch });
    const result = await within(rt.send('hi'), 2000, 'the turn');
    assert.equal(result.reason, 'run_error');
    assert.match(result.message, /empty event stream/);
    assert.match(result.message, /may still be running an earlier run on this thread/);
    assertEveryCallAnsweredOnce(rt.messages);
  },
);

// The server of the first run never answers (it goes on running the thread, as CopilotKit's does).
const hangs = (init) =>
  new Promise((_resolve, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)));
const emptyStream = () => new Response('', { headers: { 'content-type': 'text/event-stream' } });

test('after a superseding send(), an empty answer is sent again until the server answers the run', T, async (t) => {
  const scripted = scriptedFetch((_input, i, init) => (i === 0 ? hangs(init) : i < 3 ? emptyStream() : reply('hi')));
  const rt = await open(t, { url: URL_, fetch: scripted.fetch });
  const first = rt.send('one');
  await sleep(10);
  assert.equal(scripted.requests.length, 1, 'the first request');
  const second = rt.send('two');
  assert.deepEqual(await first, { reason: 'aborted', message: 'superseded by a new message' });
  assert.deepEqual(await within(second, 5000, 'the superseding turn'), { reason: 'done' });
  assert.equal(scripted.requests.length, 4, 'the first run, two empty answers, the third try');
  assert.equal(scripted.requests[3].runId, scripted.requests[1].runId, 'the same request, sent again');
});

test(
  'after abort(), an empty answer on every try ends the turn run_error, saying how often it was sent',
  T,
  async (t) => {
    const scripted = scriptedFetch((_input, i, init) => (i === 0 ? hangs(init) : emptyStream()));
    const rt = await open(t, { url: URL_, fetch: scripted.fetch });
    const first = rt.send('one');
    await sleep(10);
    assert.equal(scripted.requests.length, 1, 'the first request');
    rt.abort();
    assert.equal((await first).reason, 'aborted');
    const result = await within(rt.send('two'), 8000, 'the turn after abort()');
    assert.equal(result.reason, 'run_error');
    assert.match(result.message, /empty event stream .*\(sent 4 times\)/);
    assert.equal(scripted.requests.length, 5);
  },
);
