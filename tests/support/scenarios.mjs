// The catalogue of agent behaviours the package's node and browser tests run
// against (through agui-server.mjs). Each scenario is an async generator
// `(input, api)` that decides what to do from the RunAgentInput alone -
// messages, tools, resume, state - as a real agent would; the only memory
// across runs is api.thread (a per-threadId checkpoint, used by interrupts).
// Ids come from api.id(), unique per run, so repeating a scenario on one
// thread never repeats a toolCallId. Tool names, arguments and reply texts
// below are part of the contract with the package tests; change them together.
import { contentText } from './agui-server.mjs';

/** JSON Schemas of every client tool a scenario calls; the arguments sent validate against them. */
export const TOOL_SCHEMAS = {
  get_weather: {
    type: 'object',
    properties: { city: { type: 'string' }, attempt: { type: 'integer', minimum: 1 } },
    required: ['city'],
    additionalProperties: false,
  },
  get_location: {
    type: 'object',
    properties: { precision: { enum: ['city', 'exact'] } },
    required: ['precision'],
    additionalProperties: false,
  },
  get_time: {
    type: 'object',
    properties: { timezone: { type: 'string' } },
    required: ['timezone'],
    additionalProperties: false,
  },
  delete_file: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
    additionalProperties: false,
  },
  read_clipboard: { type: 'object', properties: {}, additionalProperties: false },
};

// Non-ASCII on purpose: chunked delivery must not break UTF-8 sequences.
export const TEXT_DELTAS = ['Hello', ', wor', 'ld! ', 'Grüße ☀️'];
export const TEXT_REPLY = TEXT_DELTAS.join('');
export const SLOW_DELTAS = 20;
export const SLOW_DELTA_MS = 100;
export const SSE_VARIANTS_TEXT = 'CRLF, multi-line and LF.';
export const INTERRUPT_RESPONSE_SCHEMA = {
  type: 'object',
  properties: { confirm: { type: 'boolean' } },
  required: ['confirm'],
};

/** "<content>" plus " (error: <error>)" when the tool message carries one: how replies quote a result. */
export function describeResult(toolMessage) {
  if (!toolMessage) return '(no result)';
  const text = contentText(toolMessage.content);
  return toolMessage.error ? `${text} (error: ${toolMessage.error})` : text;
}

/** approved | rejected | error, read from a delete_file tool message the way the approval scenario reads it. */
export function approvalStatus(toolMessage) {
  const error = toolMessage?.error ?? '';
  if (/reject|denied|declin/i.test(`${error} ${contentText(toolMessage?.content)}`)) return 'rejected';
  return error ? 'error' : 'approved';
}

/** The replies, so tests compare against the same text the scenarios produce. */
export const replies = {
  unavailable: (tool) => `I cannot do that: the ${tool} tool is not available.`,
  weather: (result) => `The weather tool said: ${describeResult(result)}`,
  multiRound: (loc, weather) => `Location: ${describeResult(loc)}. Weather: ${describeResult(weather)}.`,
  parallel: (a, b, c) => `Paris: ${describeResult(a)}; Tokyo: ${describeResult(b)}; time: ${describeResult(c)}`,
  twoCities: (a, b) => `Paris: ${describeResult(a)}; Berlin: ${describeResult(b)}`,
  approval: (result) => `delete_file ${approvalStatus(result)}: ${describeResult(result)}`,
  disabled: (advertised, result) =>
    `read_clipboard (advertised: ${advertised ? 'yes' : 'no'}) answered: ${describeResult(result)}`,
  resumed: (id, entry) =>
    `Interrupt ${id} ${entry.status}${entry.payload === undefined ? '' : ` with ${JSON.stringify(entry.payload)}`}.`,
  serverTool: (docs, weather) => `Docs: ${describeResult(docs)}. Weather: ${describeResult(weather)}.`,
  counter: (n) => `count is now ${n}`,
};

// ---- building blocks -------------------------------------------------------

/** A streamed assistant text message; returns its messageId. */
export function* say(api, deltas, extra = {}) {
  const messageId = api.id('msg');
  yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant', ...extra };
  for (const delta of [].concat(deltas)) yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta };
  yield { type: 'TEXT_MESSAGE_END', messageId };
  return messageId;
}

/** A client tool call, arguments streamed in `pieces` deltas; returns its toolCallId. */
export function* callTool(api, toolCallName, args, { parentMessageId, pieces = 3 } = {}) {
  const toolCallId = api.id('call');
  yield { type: 'TOOL_CALL_START', toolCallId, toolCallName, ...(parentMessageId && { parentMessageId }) };
  for (const delta of split(JSON.stringify(args), pieces)) yield { type: 'TOOL_CALL_ARGS', toolCallId, delta };
  yield { type: 'TOOL_CALL_END', toolCallId };
  return toolCallId;
}

function split(text, pieces) {
  const size = Math.ceil(text.length / Math.min(pieces, text.length));
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Like a model: it can only call what the client advertised in input.tools. */
function* unlessAdvertised(api, ...tools) {
  const missing = tools.filter((t) => !api.advertised.has(t));
  if (missing.length) yield* say(api, replies.unavailable(missing.join(', ')));
  return missing.length > 0;
}

const named = (api, name) => api.calls.filter((c) => c.name === name);

// ---- the catalogue -------------------------------------------------------------

async function* text(input, api) {
  yield* say(api, TEXT_DELTAS);
}

async function* one_tool(input, api) {
  const [done] = named(api, 'get_weather');
  if (done) return yield* say(api, ['The weather tool said: ', describeResult(done.result)]);
  if (yield* unlessAdvertised(api, 'get_weather')) return;
  const parentMessageId = yield* say(api, ['Let me check ', 'the weather in Paris.']);
  yield* callTool(api, 'get_weather', { city: 'Paris' }, { parentMessageId });
}

// one_tool spelled with chunk events (ids only on the first chunk of each stream).
async function* one_tool_chunks(input, api) {
  const [done] = named(api, 'get_weather');
  const messageId = api.id('msg');
  if (done) {
    yield { type: 'TEXT_MESSAGE_CHUNK', messageId, role: 'assistant', delta: 'The weather tool said: ' };
    yield { type: 'TEXT_MESSAGE_CHUNK', delta: describeResult(done.result) };
    return;
  }
  if (yield* unlessAdvertised(api, 'get_weather')) return;
  yield { type: 'TEXT_MESSAGE_CHUNK', messageId, role: 'assistant', delta: 'Let me check ' };
  yield { type: 'TEXT_MESSAGE_CHUNK', delta: 'the weather in Paris.' };
  const toolCallId = api.id('call');
  yield {
    type: 'TOOL_CALL_CHUNK',
    toolCallId,
    toolCallName: 'get_weather',
    parentMessageId: messageId,
    delta: '{"city":',
  };
  yield { type: 'TOOL_CALL_CHUNK', delta: '"Paris"}' };
}

// Three runs: get_location, then get_weather, then text.
async function* multi_round(input, api) {
  const [loc] = named(api, 'get_location');
  const [weather] = named(api, 'get_weather');
  if (!loc)
    return (
      (yield* unlessAdvertised(api, 'get_location')) || (yield* callTool(api, 'get_location', { precision: 'city' }))
    );
  if (!weather)
    return (yield* unlessAdvertised(api, 'get_weather')) || (yield* callTool(api, 'get_weather', { city: 'Paris' }));
  yield* say(api, replies.multiRound(loc.result, weather.result));
}

// Three calls in one run, starts/args/ends interleaved and ended out of order.
async function* parallel(input, api) {
  if (api.calls.length) {
    const [a, b] = named(api, 'get_weather');
    const [c] = named(api, 'get_time');
    return yield* say(api, replies.parallel(a?.result, b?.result, c?.result));
  }
  if (yield* unlessAdvertised(api, 'get_weather', 'get_time')) return;
  const parentMessageId = api.id('msg'); // no text: the calls alone make the assistant message
  const calls = [
    ['get_weather', { city: 'Paris' }],
    ['get_weather', { city: 'Tokyo' }],
    ['get_time', { timezone: 'Asia/Tokyo' }],
  ].map(([name, args]) => ({ id: api.id('call'), name, parts: split(JSON.stringify(args), 2) }));
  const [a, b, c] = calls;
  const start = (x) => ({ type: 'TOOL_CALL_START', toolCallId: x.id, toolCallName: x.name, parentMessageId });
  const args = (x, i) => ({ type: 'TOOL_CALL_ARGS', toolCallId: x.id, delta: x.parts[i] });
  const end = (x) => ({ type: 'TOOL_CALL_END', toolCallId: x.id });
  yield* [
    start(a),
    start(b),
    args(a, 0),
    start(c),
    args(b, 0),
    args(c, 0),
    args(a, 1),
    args(b, 1),
    args(c, 1),
    end(b),
    end(a),
    end(c),
  ];
}

// Two calls, named in RUN_FINISHED.outcome.pendingToolCallIds.
async function* pending_ids(input, api) {
  if (api.calls.length) {
    const [a, b] = named(api, 'get_weather');
    return yield* say(api, replies.twoCities(a?.result, b?.result));
  }
  if (yield* unlessAdvertised(api, 'get_weather')) return;
  const parentMessageId = yield* say(api, 'Checking two cities.');
  const a = yield* callTool(api, 'get_weather', { city: 'Paris' }, { parentMessageId });
  const b = yield* callTool(api, 'get_weather', { city: 'Berlin' }, { parentMessageId });
  yield api.runFinished({ outcome: { type: 'success', pendingToolCallIds: [a, b] } });
}

// One client call, plus a pending id the client never saw (a call the backend runs elsewhere).
async function* pending_unknown(input, api) {
  const [done] = named(api, 'get_weather');
  if (done) return yield* say(api, replies.weather(done.result));
  if (yield* unlessAdvertised(api, 'get_weather')) return;
  const a = yield* callTool(api, 'get_weather', { city: 'Paris' });
  yield api.runFinished({ outcome: { type: 'success', pendingToolCallIds: [a, api.id('server-call')] } });
}

// Never satisfied: a new call every run, arguments differ per round (attempt = round + 1).
async function* loop_forever(input, api) {
  if (yield* unlessAdvertised(api, 'get_weather')) return;
  yield* callTool(api, 'get_weather', { city: 'Paris', attempt: api.round + 1 });
}

// Never satisfied, and always the identical call: what a runaway guard looks for.
async function* loop_same_args(input, api) {
  if (yield* unlessAdvertised(api, 'get_weather')) return;
  yield* callTool(api, 'get_weather', { city: 'Paris' });
}

async function* approval(input, api) {
  const [done] = named(api, 'delete_file');
  if (done) return yield* say(api, replies.approval(done.result));
  if (yield* unlessAdvertised(api, 'delete_file')) return;
  const parentMessageId = yield* say(api, 'I will delete /tmp/x.');
  yield* callTool(api, 'delete_file', { path: '/tmp/x' }, { parentMessageId });
}

// First run pauses on interrupt int-1 (int-2... on later turns of the same thread);
// the next run must answer it in input.resume.
async function* interrupt(input, api) {
  const t = api.thread;
  const stale = api.resume.find((r) => r.interruptId !== t.pendingInterrupt);
  if (stale) return yield api.runError(`resume names unknown interrupt ${stale.interruptId}`, 'unknown_interrupt');
  if (t.pendingInterrupt) {
    const id = t.pendingInterrupt;
    const answer = api.resume.find((r) => r.interruptId === id);
    if (!answer) return yield api.runError(`interrupt ${id} not answered`, 'interrupt_unanswered');
    if (answer.status === 'resolved' && typeof answer.payload?.confirm !== 'boolean') {
      return yield api.runError(`resume payload for ${id} does not match its responseSchema`, 'invalid_resume');
    }
    delete t.pendingInterrupt;
    return yield* say(api, replies.resumed(id, answer));
  }
  t.interruptCount = (t.interruptCount ?? 0) + 1;
  t.pendingInterrupt = `int-${t.interruptCount}`;
  yield* say(api, ['I need your confirmation ', 'before I continue.']);
  yield api.runFinished({
    outcome: {
      type: 'interrupt',
      interrupts: [
        {
          id: t.pendingInterrupt,
          reason: 'confirmation',
          message: 'Delete every file in /tmp/x?',
          responseSchema: INTERRUPT_RESPONSE_SCHEMA,
        },
      ],
    },
  });
}

// The model names a tool whatever input.tools says (models do).
async function* disabled_tool(input, api) {
  const [done] = named(api, 'read_clipboard');
  if (done) return yield* say(api, replies.disabled(api.advertised.has('read_clipboard'), done.result));
  yield* callTool(api, 'read_clipboard', {});
}

// A call the backend ran itself (with TOOL_CALL_RESULT) next to a client call:
// only get_weather is the client's to run; the server result must stay in the thread.
async function* server_tool(input, api) {
  const [docs] = named(api, 'search_docs');
  const [weather] = named(api, 'get_weather');
  if (weather) return yield* say(api, replies.serverTool(docs?.result, weather.result));
  if (yield* unlessAdvertised(api, 'get_weather')) return;
  const s = yield* callTool(api, 'search_docs', { query: 'AG-UI' });
  yield {
    type: 'TOOL_CALL_RESULT',
    messageId: api.id('tool'),
    toolCallId: s,
    content: 'AG-UI is an event protocol.',
    role: 'tool',
  };
  yield* callTool(api, 'get_weather', { city: 'Paris' });
}

// A call to a tool of the agent's own, and the run finishes without its result (as CopilotKit's runtime does
// for a tool it finds unavailable). Its next turn answers in text - if the thread it gets is one a provider takes.
async function* unanswered_server_tool(input, api) {
  if (api.calls.length === 0 && api.round === 0 && input.messages.some((m) => m.role === 'assistant')) {
    return yield* say(api, TEXT_DELTAS);
  }
  const parentMessageId = yield* say(api, 'Let me search the docs.');
  yield* callTool(api, 'search_docs', { query: 'AG-UI' }, { parentMessageId });
}

// one_tool, but the follow-up run opens with a MESSAGES_SNAPSHOT of the whole
// thread (call and result included): the call must not run a second time.
async function* snapshot_replay(input, api) {
  const [done] = named(api, 'get_weather');
  if (!done) return yield* one_tool(input, api);
  yield { type: 'MESSAGES_SNAPSHOT', messages: input.messages };
  yield* say(api, replies.weather(done.result));
}

// Reads the state the client sends back; snapshot on first sight, delta after.
async function* state_counter(input, api) {
  const st = input.state;
  const isObj = st !== null && typeof st === 'object' && !Array.isArray(st);
  if (isObj && typeof st.count === 'number') {
    yield { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/count', value: st.count + 1 }] };
    return yield* say(api, replies.counter(st.count + 1));
  }
  yield { type: 'STATE_SNAPSHOT', snapshot: { ...(isObj ? st : {}), count: 1 } };
  yield* say(api, replies.counter(1));
}

// A state with integers a JavaScript number cannot hold (past 2^53, the int64 and
// uint64 bounds), written as raw JSON text; a client call then has the tab send
// that state back in the follow-up run, where the request's text shows whether
// it came back exactly.
/**
 * An agent that calls the page's `probe` tool once a run, after a few paced text deltas (so a page
 * can be cut mid-stream), until `rounds` calls have answers (whatever they say: a call closed as
 * "may have completed" is answered too); then it says it is done. The reload and the tabs chaos
 * tests drive it.
 */
export function probeRounds(rounds) {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  return async function* (input, api) {
    const answered = input.messages.filter((m) => m.role === 'tool').length;
    if (answered >= rounds) return yield* say(api, [`done after ${answered} calls`]);
    for (const delta of ['Round ', `${answered}: `, 'asking ', 'the page.']) {
      await sleep(15);
      yield* say(api, [delta]);
    }
    await sleep(15);
    yield* callTool(api, 'probe', { round: answered });
  };
}

export const EXACT_STATE_TEXT = '{"big":9007199254740993,"max":18446744073709551615,"min":-9223372036854775808}';
async function* exact_numbers(input, api) {
  const [done] = named(api, 'get_time');
  if (done) return yield* say(api, ['The time tool said: ', describeResult(done.result)]);
  yield api.runStarted();
  await api.raw(`data: {"type":"STATE_SNAPSHOT","snapshot":${EXACT_STATE_TEXT}}\n\n`);
  yield* callTool(api, 'get_time', { timezone: 'UTC' });
}

async function* http500(input, api) {
  api.status(500, 'boom');
}

async function* not_sse(input, api) {
  api.contentType('application/json');
  await api.raw(JSON.stringify({ message: 'this endpoint does not stream' }));
  api.end();
}

async function* truncated(input, api) {
  const messageId = api.id('msg');
  yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
  yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: 'This reply is cut ' };
  yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: 'off mid-' };
  await api.cut();
}

async function* slow(input, api) {
  const messageId = api.id('msg');
  yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
  for (let i = 1; i <= SLOW_DELTAS; i++) {
    await api.delay(SLOW_DELTA_MS);
    yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: `word${i} ` };
  }
  yield { type: 'TEXT_MESSAGE_END', messageId };
}

async function* stall(input, api) {
  const messageId = api.id('msg');
  yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
  yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: 'Thinking' };
  await api.stall();
}

// Fails mid-message, the way a provider error arrives: the text message is never ended.
async function* run_error(input, api) {
  const messageId = api.id('msg');
  yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
  yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: 'Working on it' };
  yield api.runError('model overloaded', 'overloaded');
}

// Deliberately bad input between good events: invalid JSON, an unknown event
// type, an event missing required fields, content for a message nobody opened.
async function* malformed(input, api) {
  const messageId = api.id('msg');
  yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' };
  yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: 'before ' };
  await api.raw('data: {not json}\n\n');
  yield { type: 'NOT_A_REAL_EVENT', value: 1 };
  await api.raw('data: {"type":"TEXT_MESSAGE_CONTENT"}\n\n');
  yield { type: 'TEXT_MESSAGE_CONTENT', messageId: 'nobody-opened-this', delta: 'lost' };
  yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: 'after' };
  yield { type: 'TEXT_MESSAGE_END', messageId };
}

// Legal SSE framing the encoder never produces: comments, event/id/retry
// fields, `data:` without a space, CRLF line ends, one event over two data lines.
async function* sse_variants(input, api) {
  api.unframed();
  const m = api.id('msg');
  const j = JSON.stringify;
  await api.raw(': a comment line, ignored\n\n');
  await api.raw(`event: message\nid: 1\ndata: ${j(api.runStarted())}\n\n`);
  await api.raw('retry: 1000\n\n');
  await api.raw(`data:${j({ type: 'TEXT_MESSAGE_START', messageId: m, role: 'assistant' })}\n\n`);
  await api.raw(`data: ${j({ type: 'TEXT_MESSAGE_CONTENT', messageId: m, delta: 'CRLF, ' })}\r\n\r\n`);
  await api.raw(`data: {"type":"TEXT_MESSAGE_CONTENT",\ndata: "messageId":${j(m)},"delta":"multi-line "}\n\n`);
  await api.raw(`id: 2\ndata: ${j({ type: 'TEXT_MESSAGE_CONTENT', messageId: m, delta: 'and LF.' })}\n\n`);
  await api.raw(`data: ${j({ type: 'TEXT_MESSAGE_END', messageId: m })}\n\n`);
  await api.raw(`data: ${j(api.runFinished())}\n\n`);
}

// Every AG-UI 1.0 event type except RUN_ERROR (see run_error), in an order
// @ag-ui/client's verifier accepts. Tool calls here are answered in-stream
// (TOOL_CALL_RESULT), so nothing is left for the client to run.
async function* every_event(input, api) {
  const id = api.id;
  const [r1, rm1, rm2, m1, m2, m3, tc1, tc2, act] = [
    'span',
    'think',
    'think',
    'msg',
    'msg',
    'msg',
    'call',
    'call',
    'act',
  ].map(id);
  yield api.runStarted({ input });
  yield { type: 'MESSAGES_SNAPSHOT', messages: input.messages ?? [] };
  yield { type: 'STEP_STARTED', stepName: 'plan' };
  yield { type: 'REASONING_START', messageId: r1 };
  yield { type: 'REASONING_MESSAGE_START', messageId: rm1, role: 'reasoning' };
  yield { type: 'REASONING_MESSAGE_CONTENT', messageId: rm1, delta: 'The user wants ' };
  yield { type: 'REASONING_MESSAGE_CONTENT', messageId: rm1, delta: 'a demo.' };
  yield { type: 'REASONING_MESSAGE_END', messageId: rm1 };
  yield { type: 'REASONING_MESSAGE_CHUNK', messageId: rm2, delta: 'Chunked ' };
  yield { type: 'REASONING_MESSAGE_CHUNK', delta: 'thought.' };
  yield { type: 'REASONING_END', messageId: r1 };
  yield { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: rm1, encryptedValue: 'enc:reasoning:1' };
  yield { type: 'STEP_FINISHED', stepName: 'plan' };
  yield { type: 'TEXT_MESSAGE_START', messageId: m1, role: 'assistant', metadata: { model: 'demo-1' } };
  yield { type: 'TEXT_MESSAGE_CONTENT', messageId: m1, delta: 'Here is ' };
  yield { type: 'TEXT_MESSAGE_CONTENT', messageId: m1, delta: 'every event.' };
  yield { type: 'TEXT_MESSAGE_END', messageId: m1, metadata: { finishReason: 'stop' } };
  yield { type: 'TOOL_CALL_START', toolCallId: tc1, toolCallName: 'search_docs', parentMessageId: m1 };
  yield { type: 'TOOL_CALL_ARGS', toolCallId: tc1, delta: '{"query":' };
  yield { type: 'TOOL_CALL_ARGS', toolCallId: tc1, delta: '"events"}' };
  yield { type: 'TOOL_CALL_END', toolCallId: tc1 };
  yield { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'tool-call', entityId: tc1, encryptedValue: 'enc:call:1' };
  yield {
    type: 'TOOL_CALL_RESULT',
    messageId: id('tool'),
    toolCallId: tc1,
    content: 'found 31 event types',
    role: 'tool',
  };
  yield {
    type: 'TOOL_CALL_CHUNK',
    toolCallId: tc2,
    toolCallName: 'search_docs',
    parentMessageId: m1,
    delta: '{"query":',
  };
  yield { type: 'TOOL_CALL_CHUNK', delta: '"chunks"}' };
  yield {
    type: 'TOOL_CALL_RESULT',
    messageId: id('tool'),
    toolCallId: tc2,
    content: [{ type: 'text', text: 'chunks are shorthand' }],
  };
  yield { type: 'TEXT_MESSAGE_CHUNK', messageId: m2, role: 'assistant', delta: 'Chunked ' };
  yield { type: 'TEXT_MESSAGE_CHUNK', delta: 'text.' };
  yield { type: 'STATE_SNAPSHOT', snapshot: { progress: 0, items: [] } };
  yield {
    type: 'STATE_DELTA',
    delta: [
      { op: 'replace', path: '/progress', value: 1 },
      { op: 'add', path: '/items/-', value: 'a' },
    ],
  };
  yield { type: 'ACTIVITY_SNAPSHOT', messageId: act, activityType: 'progress', content: { step: 1, of: 3 } };
  yield {
    type: 'ACTIVITY_DELTA',
    messageId: act,
    activityType: 'progress',
    patch: [{ op: 'replace', path: '/step', value: 2 }],
  };
  yield { type: 'RAW', event: { provider: 'demo-llm', kind: 'ping' }, source: 'demo-llm' };
  yield { type: 'CUSTOM', name: 'demo.notice', value: { level: 'info', text: 'custom events pass through' } };
  const sub1 = id('sub');
  const sub2 = id('sub');
  yield { type: 'SUBAGENT_STARTED', subagentRunId: sub1, name: 'researcher', parentToolCallId: tc1 };
  yield { type: 'TEXT_MESSAGE_START', messageId: m3, role: 'assistant', subagentRunId: sub1 };
  yield { type: 'TEXT_MESSAGE_CONTENT', messageId: m3, delta: 'Subagent says hi.', subagentRunId: sub1 };
  yield { type: 'TEXT_MESSAGE_END', messageId: m3, subagentRunId: sub1 };
  yield { type: 'SUBAGENT_FINISHED', subagentRunId: sub1, result: { ok: true }, outcome: { type: 'success' } };
  yield { type: 'SUBAGENT_STARTED', subagentRunId: sub2, name: 'critic' };
  yield { type: 'SUBAGENT_ERROR', subagentRunId: sub2, message: 'critic crashed', code: 'crash' };
  yield api.runFinished({
    result: { summary: 'done' },
    outcome: { type: 'success' },
    usage: [{ provider: 'demo', model: 'demo-1', inputTokens: 10, outputTokens: 20, totalTokens: 30 }],
  });
}

// A JS agent that cuts its text with slice(): in UTF-16 code units, so a cut may
// fall inside a surrogate pair, and @ag-ui/encoder (JSON.stringify) writes each
// half as a lone escape in its own event. A JS client's strings join them.
export const SPLIT_PAIR_TEXT = 'Zürich 😀, 🌍!';
export const SPLIT_PAIR_CITY = 'Zürich, 😀';
const sliced = (text, size) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, i * size + size));

async function* split_pairs(input, api) {
  const [done] = named(api, 'get_weather');
  if (done) return yield* say(api, sliced(replies.weather(done.result), 2));
  if (yield* unlessAdvertised(api, 'get_weather')) return;
  const reasoningId = api.id('reasoning');
  yield { type: 'REASONING_MESSAGE_START', messageId: reasoningId, role: 'reasoning' };
  for (const delta of sliced(SPLIT_PAIR_TEXT, 2))
    yield { type: 'REASONING_MESSAGE_CONTENT', messageId: reasoningId, delta };
  yield { type: 'REASONING_MESSAGE_END', messageId: reasoningId };
  const parentMessageId = yield* say(api, sliced(SPLIT_PAIR_TEXT, 2));
  const toolCallId = api.id('call');
  yield { type: 'TOOL_CALL_START', toolCallId, toolCallName: 'get_weather', parentMessageId };
  for (const delta of sliced(JSON.stringify({ city: SPLIT_PAIR_CITY }), 2))
    yield { type: 'TOOL_CALL_ARGS', toolCallId, delta };
  yield { type: 'TOOL_CALL_END', toolCallId };
}

export const scenarios = {
  text,
  split_pairs,
  one_tool,
  one_tool_chunks,
  multi_round,
  parallel,
  pending_ids,
  pending_unknown,
  loop_forever,
  loop_same_args,
  approval,
  interrupt,
  disabled_tool,
  server_tool,
  unanswered_server_tool,
  snapshot_replay,
  state_counter,
  exact_numbers,
  http500,
  not_sse,
  truncated,
  slow,
  stall,
  run_error,
  malformed,
  sse_variants,
  every_event,
};
