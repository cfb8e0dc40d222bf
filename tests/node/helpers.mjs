// Shared helpers for the package's node tests (runtime*, conformance*, differential*,
// package*, mirror*): tool definitions built from the scenario catalogue's schemas,
// change recorders, waits with a deadline, and checks every turn must pass.
import assert from 'node:assert/strict';
import { createRuntime, AguiError } from 'agui-client-tools';
import { startAguiServer } from '../support/agui-server.mjs';
import { TOOL_SCHEMAS } from '../support/scenarios.mjs';

export { TOOL_SCHEMAS };

/** A modest per-test timeout: the whole suite runs in well under a minute. */
export const T = { timeout: 10_000 };

/** A client tool for one of the catalogue's tools, with its schema from TOOL_SCHEMAS. */
export function tool(name, handler, extra = {}) {
  return { name, description: `the ${name} tool`, parameters: TOOL_SCHEMAS[name], handler, ...extra };
}

/** Starts the test AG-UI server and closes it when the test file ends. */
export async function startServer(after, options) {
  const server = await startAguiServer(options);
  after(() => server.close());
  return server;
}

/** The requests the test server received from `runtime`'s thread, in order. */
export const requestsOf = (server, runtime) => server.requests.filter((r) => r.input?.threadId === runtime.threadId);

/** createRuntime() whose runtime is disposed when test `t` ends. */
export async function open(t, options) {
  const runtime = await createRuntime(options);
  t.after(() => runtime.dispose());
  return runtime;
}

/** Records every change a runtime reports. */
export function record(runtime) {
  const changes = [];
  const stop = runtime.subscribe((c) => changes.push(c));
  return {
    changes,
    stop,
    of: (kind) => changes.filter((c) => c.kind === kind),
    problems: () => changes.filter((c) => c.kind === 'problem'),
  };
}

/** Resolves with the first change matching `pred` (from now on); rejects after timeoutMs. */
export function nextChange(runtime, pred, { timeoutMs = 4000, label = 'change' } = {}) {
  const match = typeof pred === 'string' ? (c) => c.kind === pred : pred;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no ${typeof pred === 'string' ? pred : label} within ${timeoutMs} ms`));
    }, timeoutMs);
    const unsubscribe = runtime.subscribe((c) => {
      if (!match(c)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(c);
    });
  });
}

/** Rejects if `promise` has not settled within ms. */
export function within(promise, ms, what = 'promise') {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
    }),
  ]);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((a, b) => {
    resolve = a;
    reject = b;
  });
  return { promise, resolve, reject };
}

/** The tool calls of the thread, in thread order: [{id, name, args (undefined if not JSON), message}]. */
export function toolCalls(messages) {
  return messages.flatMap((m) =>
    m.role === 'assistant'
      ? (m.toolCalls ?? []).map((c) => ({
          id: c.id,
          name: c.function.name,
          args: parseArgs(c.function.arguments),
          message: m,
        }))
      : [],
  );
}

function parseArgs(text) {
  try {
    return JSON.parse(text || '{}');
  } catch {
    return undefined; // the model sent arguments that are not JSON
  }
}

export const toolMessages = (messages) => messages.filter((m) => m.role === 'tool');

/** The tool message answering `toolCallId` (asserts there is exactly one). */
export function resultOf(messages, toolCallId) {
  const found = messages.filter((m) => m.role === 'tool' && m.toolCallId === toolCallId);
  assert.equal(found.length, 1, `exactly one tool message answers ${toolCallId}, found ${found.length}`);
  return found[0];
}

/** The rule providers enforce: every call has exactly one result, and no result answers nothing. */
export function assertEveryCallAnsweredOnce(messages) {
  const calls = new Set(toolCalls(messages).map((c) => c.id));
  const answers = new Map();
  for (const m of toolMessages(messages)) {
    assert.ok(calls.has(m.toolCallId), `tool message ${m.id} answers unknown call ${m.toolCallId}`);
    assert.ok(!answers.has(m.toolCallId), `call ${m.toolCallId} has two results`);
    answers.set(m.toolCallId, m);
  }
  for (const id of calls) assert.ok(answers.has(id), `call ${id} has no result`);
}

/** A tool message with an error: content is {"error": message} and `error` is set. */
export function assertErrorResult(message, pattern) {
  assert.equal(typeof message.error, 'string', `tool message ${message.id} has an error field`);
  const content = JSON.parse(message.content);
  assert.equal(typeof content.error, 'string', 'content is {"error": ...}');
  if (pattern) {
    assert.match(message.error, pattern);
    assert.match(content.error, pattern);
  }
  return content;
}

/** The assistant text of the last message (what the scenario replied). */
export function lastText(messages) {
  const last = messages.at(-1);
  assert.equal(last.role, 'assistant', 'the thread ends with an assistant message');
  return last.content;
}

/**
 * Replaces every id (message ids, toolCallIds) by its order of first appearance,
 * so two runtimes' threads (whose generated ids differ) compare equal when they
 * have the same shape. Ids embedded in texts are replaced too; `extraIds` (say,
 * the runIds a runtime sent, which server-made ids embed) are named first.
 */
export function normalizeIds(messages, extraIds = []) {
  const ids = new Map();
  const name = (id) => {
    if (!ids.has(id)) ids.set(id, `#${ids.size + 1}`);
    return ids.get(id);
  };
  for (const id of extraIds) name(id);
  for (const m of messages) {
    name(m.id);
    for (const c of m.toolCalls ?? []) name(c.id);
    if (m.toolCallId) name(m.toolCallId);
  }
  const sorted = [...ids.keys()].sort((a, b) => b.length - a.length);
  const swap = (text) => sorted.reduce((s, id) => s.split(id).join(ids.get(id)), text);
  return JSON.parse(swap(JSON.stringify(messages)));
}

/**
 * A fetch that sends every run to the scenario `use()` last chose, on one
 * server: one runtime (one thread) can then meet several scenarios in turn.
 */
export function routedFetch(server, first) {
  let target = first;
  let options;
  return {
    fetch: (_url, init) => globalThis.fetch(server.url(target, options), init),
    use(name, opts) {
      target = name;
      options = opts;
    },
  };
}

/** A Response whose body streams `bytes` in pieces of at most `chunk` bytes, one per pull. */
export function streamedResponse(bytes, { chunk = 5, contentType = 'text/event-stream' } = {}) {
  let i = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (i >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(i, i + chunk)));
      i += chunk;
    },
  });
  return new Response(body, { headers: { 'content-type': contentType } });
}

/** Asserts `fn` throws an AguiError with `code` (and a message matching `pattern`). */
export function assertAguiError(fn, code, pattern) {
  let thrown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown, `expected an AguiError ${code}, nothing was thrown`);
  assert.ok(
    thrown instanceof AguiError,
    `expected an AguiError ${code}, got ${thrown?.constructor?.name}: ${thrown?.message}`,
  );
  assert.equal(thrown.code, code, `code of: ${thrown.message}`);
  if (pattern) assert.match(thrown.message, pattern);
  return thrown;
}

/** One SSE frame per event, as an AG-UI server writes them. */
export const sseOf = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');

/**
 * A fetch that answers each POST from `script(input, n)` (n: 0 for the first
 * request): an array of AG-UI events (framed by RUN_STARTED / RUN_FINISHED
 * unless the script sent its own), or a Response to send as it is. `requests`
 * holds each parsed RunAgentInput.
 */
export function scriptedFetch(script) {
  const requests = [];
  const fetch = async (_url, init) => {
    const input = JSON.parse(init.body);
    requests.push(input);
    const answer = await script(input, requests.length - 1, init);
    if (answer instanceof Response) return answer;
    const { threadId, runId } = input;
    const events = [...answer];
    if (events[0]?.type !== 'RUN_STARTED') events.unshift({ type: 'RUN_STARTED', threadId, runId });
    if (!['RUN_FINISHED', 'RUN_ERROR'].includes(events.at(-1)?.type))
      events.push({ type: 'RUN_FINISHED', threadId, runId });
    return new Response(sseOf(events), { headers: { 'content-type': 'text/event-stream' } });
  };
  return { fetch, requests };
}

/**
 * A store in a Map, copying what it is given (as IndexedDB does); `saves` counts the writes. Each
 * save rejects while `store.failSave` is set, each load while `store.failLoad` is (set them to an
 * Error at any time: a store that fails on demand).
 */
export function mapStore({ failSave = null, failLoad = null } = {}) {
  const records = new Map();
  const store = {
    records,
    saves: 0,
    failSave,
    failLoad,
    async load(threadId) {
      if (store.failLoad) throw store.failLoad;
      return records.has(threadId) ? structuredClone(records.get(threadId)) : null;
    },
    async save(threadId, snapshot) {
      if (store.failSave) throw store.failSave;
      store.saves += 1;
      await new Promise((r) => setTimeout(r, 1)); // durable a moment later, as a real store
      records.set(threadId, structuredClone(snapshot));
    },
    async delete(threadId) {
      records.delete(threadId);
    },
  };
  return store;
}

/** The status the stored thread gives the call (as the export writes it), or undefined. */
export const storedCallStatus = (store, threadId, callId) =>
  store.records.get(threadId)?.calls?.find((c) => c.toolCallId === callId)?.status;

/** The events of one assistant message calling `name` with `args`, under the id `toolCallId`. */
export function callEvents(toolCallId, name, args = {}) {
  return [
    { type: 'TOOL_CALL_START', toolCallId, toolCallName: name },
    { type: 'TOOL_CALL_ARGS', toolCallId, delta: JSON.stringify(args) },
    { type: 'TOOL_CALL_END', toolCallId },
  ];
}

/** Collects what escapes a test (uncaught exceptions, unhandled rejections) until `stop()`. */
export function watchEscapes() {
  const escaped = [];
  const onError = (e) => escaped.push(e);
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
  return {
    escaped,
    stop() {
      process.off('uncaughtException', onError);
      process.off('unhandledRejection', onError);
    },
  };
}
