// A real AG-UI 1.0 agent server for tests: node:http on loopback, one POST per
// run, RunAgentInput in, Server-Sent Events out (encoded by @ag-ui/encoder).
// Scenarios (see scenarios.mjs) are async generators that read the input the
// way an agent would and yield plain event objects; `api` adds transport
// faults (HTTP errors, cuts, stalls, raw bytes, tiny chunks) so the client is
// tested against the wire, not against a mock of its own parser.
import http from 'node:http';
import { EventEncoder } from '@ag-ui/encoder';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { seededRandom } from './random.mjs';

const MAX_BODY_BYTES = 8 * 1024 * 1024;
// Written by cut(): the start of an event that never completes.
export const CUT_PARTIAL = 'data: {"type":"TEXT_MES';

/**
 * Start the server on 127.0.0.1, port 0.
 * @param {object} [options]
 * @param {Record<string, Function>} [options.scenarios] name -> scenario; defaults to the catalogue.
 * @param {string} [options.defaultScenario] used for POST /agent (no name).
 * @param {boolean} [options.strictInput=true] answer 422 when the body is not a valid RunAgentInput.
 * @param {boolean} [options.checkThread=true] end the run with RUN_ERROR when the thread has a tool
 *   call without a result, two results for one call, or a result for no call (providers reject these).
 */
export async function startAguiServer({ scenarios, defaultScenario, strictInput = true, checkThread = true } = {}) {
  if (!scenarios) scenarios = (await import('./scenarios.mjs')).scenarios;
  const requests = [];
  // Per-thread memory, as a real agent keeps a checkpoint per threadId (used by interrupts).
  const threads = new Map();
  const state = { aborted: 0, closing: false, waiters: [] };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`agui-server internal error: ${err?.stack ?? err}`);
    });
  });

  async function handle(req, res) {
    res.setHeader('access-control-allow-origin', '*');
    if (req.method === 'OPTIONS') {
      // Browser tests fetch cross-origin; answer the preflight and record nothing.
      res.writeHead(204, {
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '*',
        'access-control-max-age': '600',
      });
      return res.end();
    }
    const url = new URL(req.url, 'http://127.0.0.1');
    const match = /^\/agent(?:\/([^/]+))?\/?$/.exec(url.pathname);
    if (!match) return plain(res, 404, `no route ${url.pathname}; POST /agent/<scenario>`);
    if (req.method !== 'POST') return plain(res, 405, 'POST a RunAgentInput');
    const name = match[1] ? decodeURIComponent(match[1]) : defaultScenario;
    const entry = {
      scenario: name,
      input: null,
      body: null,
      headers: req.headers,
      query: Object.fromEntries(url.searchParams),
      inputIssues: null,
      aborted: false,
      sent: [],
      error: null,
    };
    requests.push(entry);

    let body;
    try {
      body = await readBody(req);
      entry.body = body;
      entry.input = JSON.parse(body);
    } catch (err) {
      entry.error = `bad body: ${err.message}`;
      return plain(res, 400, entry.error);
    }
    const parsed = RunAgentInputSchema.safeParse(entry.input);
    if (!parsed.success) {
      entry.inputIssues = parsed.error.issues.map((i) => `${i.path.join('/') || '(root)'}: ${i.message}`);
      if (strictInput) {
        res.writeHead(422, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: 'invalid RunAgentInput', issues: entry.inputIssues }));
      }
    }
    const scenario = name && scenarios[name];
    if (!scenario)
      return plain(res, 404, `unknown scenario ${JSON.stringify(name)}; known: ${Object.keys(scenarios).join(', ')}`);
    await run(name, scenario, entry, req, res);
  }

  async function run(name, scenario, entry, req, res) {
    const input = entry.input && typeof entry.input === 'object' ? entry.input : {};
    const encoder = new EventEncoder({ accept: req.headers.accept });
    const s = {
      contentType: encoder.getContentType(),
      framed: true,
      started: false,
      open: false,
      ended: false,
      selfClosed: false,
      closed: false,
      chunk: 0,
      rng: null,
      ids: 0,
      closeHooks: [],
    };
    const controller = new AbortController();
    res.socket?.setNoDelay(true);
    res.on('close', () => {
      s.closed = true;
      // Only the client hanging up counts: not our own cut(), not the end of a
      // response we finished, not server.close().
      if (!res.writableFinished && !s.selfClosed && !state.closing) {
        entry.aborted = true;
        state.aborted++;
        state.waiters = state.waiters.filter((w) => !w());
      }
      controller.abort();
      for (const hook of s.closeHooks.splice(0)) hook();
    });
    const onClose = (fn) => (s.closed ? fn() : s.closeHooks.push(fn));
    const query = entry.query;
    if (query.chunked) setChunked(Number(query.chunked), Number(query.seed ?? 1));

    function setChunked(maxBytes, seed = 1) {
      s.chunk = Math.max(1, maxBytes | 0);
      s.rng = seededRandom(seed); // a failing split pattern replays with the same seed
    }
    function flushHeaders() {
      if (res.headersSent) return;
      res.writeHead(200, { 'content-type': s.contentType, 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.flushHeaders();
    }
    async function writeBytes(data) {
      if (s.closed || s.ended) return;
      flushHeaders();
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
      if (!s.chunk) return writeOne(bytes);
      // Random splits (deterministic per seed) that may cut UTF-8 sequences and
      // `data:` prefixes; a tick between writes so they leave as separate segments.
      for (let i = 0; i < bytes.length && !s.closed;) {
        const n = 1 + Math.floor(s.rng() * s.chunk);
        await writeOne(bytes.subarray(i, i + n));
        await new Promise((r) => setImmediate(r));
        i += n;
      }
    }
    function writeOne(bytes) {
      if (s.closed) return;
      if (res.write(bytes)) return;
      return new Promise((r) => {
        res.once('drain', r);
        onClose(r);
      });
    }
    async function emit(event) {
      if (s.closed || s.ended) return;
      if (s.framed && !s.started && event.type !== 'RUN_STARTED') await emit(api.runStarted());
      s.started = true;
      if (event.type === 'RUN_STARTED') s.open = true;
      if (event.type === 'RUN_FINISHED' || event.type === 'RUN_ERROR') s.open = false;
      entry.sent.push(event);
      await writeBytes(encoder.encodeBinary(event));
    }
    function assertNotStarted(what) {
      if (res.headersSent) throw new Error(`api.${what}() must come before the first event or raw byte`);
    }

    const api = {
      input,
      scenario: name,
      threadId: input.threadId,
      runId: input.runId,
      signal: controller.signal,
      /** Memory kept for this threadId across runs (a real agent's checkpoint). */
      thread: threads.get(input.threadId) ?? threads.set(input.threadId, {}).get(input.threadId),
      ...describeThread(input),
      /** A fresh id, unique per run, so a thread that repeats a scenario never repeats an id. */
      id: (prefix) => `${prefix}-${input.runId}-${++s.ids}`,
      runStarted: (extra = {}) => ({ type: 'RUN_STARTED', threadId: input.threadId, runId: input.runId, ...extra }),
      runFinished: (extra = {}) => ({ type: 'RUN_FINISHED', threadId: input.threadId, runId: input.runId, ...extra }),
      runError: (message, code, extra = {}) => ({ type: 'RUN_ERROR', message, ...(code && { code }), ...extra }),
      /** Waits, but returns early when the client goes away. */
      delay: (ms) =>
        new Promise((r) => {
          const t = setTimeout(r, ms);
          onClose(() => {
            clearTimeout(t);
            r();
          });
        }),
      /** Answer with an HTTP status and body instead of a stream. */
      status(code, payload = '', headers = {}) {
        assertNotStarted('status');
        const isText = typeof payload === 'string';
        res.writeHead(code, { 'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json', ...headers });
        res.end(isText ? payload : JSON.stringify(payload));
        s.ended = true;
      },
      /** Content-Type of the 200 response (default: the encoder's, text/event-stream). */
      contentType(ct) {
        assertNotStarted('contentType');
        s.contentType = ct;
      },
      /** Write a partial event, then destroy the socket: the client sees a network error mid-event. */
      cut() {
        return new Promise((resolve) => {
          if (s.closed || s.ended) return resolve();
          flushHeaders();
          s.selfClosed = true;
          s.ended = true;
          res.write(CUT_PARTIAL, () => {
            res.socket?.destroy();
            resolve();
          });
        });
      },
      /** Send headers, then write nothing more until the client aborts or the server closes. */
      stall() {
        flushHeaders();
        return new Promise((r) => onClose(r));
      },
      /** Raw bytes as they are (string or Uint8Array), for malformed or unusual SSE. */
      raw: (data) => writeBytes(data),
      /** From here on, split every write into random pieces of 1..maxBytes bytes. */
      chunked: (maxBytes = 7, seed = 1) => setChunked(maxBytes, seed),
      /** No automatic RUN_STARTED / RUN_FINISHED: the scenario frames the run itself (or not at all). */
      unframed() {
        s.framed = false;
      },
      /** End the response now without a terminal event (a server that just stops). */
      end() {
        s.ended = true;
        flushHeaders();
        res.end();
      },
    };

    if (checkThread) {
      const problem = threadProblem(input);
      if (problem) {
        entry.error = problem.message;
        await emit(api.runStarted());
        await emit(api.runError(problem.message, problem.code));
        return finish();
      }
    }

    try {
      let out = scenario(input, api);
      if (out && typeof out.then === 'function') out = await out;
      if (out && (out[Symbol.asyncIterator] || out[Symbol.iterator])) {
        for await (const event of out) {
          if (s.closed || s.ended) break; // break returns the generator, running its finally blocks
          await emit(event);
        }
      }
    } catch (err) {
      entry.error = `scenario ${name} threw: ${err?.stack ?? err}`;
      if (!res.headersSent) return plain(res, 500, entry.error);
      if (s.open) await emit(api.runError(`scenario ${name} threw: ${err?.message ?? err}`, 'scenario_error'));
    }
    return finish();

    async function finish() {
      if (s.closed || s.ended) return;
      if (s.framed && !s.started) await emit(api.runStarted());
      if (s.framed && s.open) await emit(api.runFinished());
      s.ended = true;
      flushHeaders();
      res.end();
    }
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const base = `http://127.0.0.1:${server.address().port}`;

  return {
    /** http://127.0.0.1:PORT/agent/<name>; options.chunked=N (and seed) splits every write. */
    url(scenarioName, { chunked, seed } = {}) {
      const path = scenarioName ? `/agent/${encodeURIComponent(scenarioName)}` : '/agent';
      const q = new URLSearchParams();
      if (chunked) q.set('chunked', String(chunked));
      if (seed !== undefined) q.set('seed', String(seed));
      return `${base}${path}${q.size ? `?${q}` : ''}`;
    },
    origin: base,
    /** Every POST received, in order: {scenario, input, body (the text), headers, query, inputIssues, aborted, sent, error}. */
    requests,
    threads,
    /** Responses the client closed before the server finished them (a cancelled fetch). */
    get aborted() {
      return state.aborted;
    },
    /** Resolves once `aborted` reaches n; rejects after timeoutMs. */
    waitForAborts(n = 1, timeoutMs = 3000) {
      return new Promise((resolve, reject) => {
        const check = () => (state.aborted >= n ? (clearTimeout(timer), resolve(state.aborted), true) : false);
        const timer = setTimeout(
          () => reject(new Error(`expected ${n} aborted responses, saw ${state.aborted}`)),
          timeoutMs,
        );
        if (!check()) state.waiters.push(check);
      });
    },
    /** Forget recorded requests, abort counts and thread memory (between tests). */
    reset() {
      requests.length = 0;
      threads.clear();
      state.aborted = 0;
    },
    close() {
      state.closing = true;
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a scenario usually wants to know about the conversation so far. */
export function describeThread(input) {
  const messages = Array.isArray(input?.messages) ? input.messages : [];
  let lastUser = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') lastUser = i;
  });
  const turn = messages.slice(lastUser + 1);
  const results = new Map(turn.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m]));
  // Tool calls made since the user last spoke, each with its result if the client sent one.
  const calls = turn
    .filter((m) => m.role === 'assistant')
    .flatMap((m) =>
      (m.toolCalls ?? []).map((c) => ({
        id: c.id,
        name: c.function?.name,
        arguments: c.function?.arguments,
        args: parseArgs(c.function?.arguments),
        result: results.get(c.id),
      })),
    );
  const userContent = lastUser >= 0 ? messages[lastUser].content : undefined;
  return {
    /** Follow-up round: tool messages after the last user message. 0 on a fresh user turn. */
    round: turn.filter((m) => m.role === 'tool').length,
    calls,
    toolResults: [...results.values()],
    lastUserText: contentText(userContent),
    advertised: new Set((input?.tools ?? []).map((t) => t.name)),
    resume: Array.isArray(input?.resume) ? input.resume : [],
  };
}

/** Text of a string or content-part array (tool results may be either). */
export function contentText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .filter((p) => p?.type === 'text')
      .map((p) => p.text)
      .join('');
  return content === undefined ? '' : JSON.stringify(content);
}

// The checks an LLM provider applies to a thread before it accepts a turn.
function threadProblem(input) {
  const calls = new Map();
  for (const m of input.messages ?? [])
    for (const c of m.role === 'assistant' ? (m.toolCalls ?? []) : []) calls.set(c.id, c);
  const answered = new Map();
  for (const m of input.messages ?? []) {
    if (m.role !== 'tool') continue;
    if (!calls.has(m.toolCallId))
      return { code: 'orphan_tool_result', message: `tool message ${m.id} answers unknown tool call ${m.toolCallId}` };
    if (answered.has(m.toolCallId))
      return {
        code: 'duplicate_tool_result',
        message: `tool call ${m.toolCallId} has two results (${answered.get(m.toolCallId)}, ${m.id})`,
      };
    answered.set(m.toolCallId, m.id);
  }
  for (const [id, c] of calls) {
    if (!answered.has(id))
      return { code: 'unanswered_tool_call', message: `tool call ${id} (${c.function?.name}) has no result` };
  }
  return null;
}

function parseArgs(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function plain(res, code, text) {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
