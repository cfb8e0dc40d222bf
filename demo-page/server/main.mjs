// The demo AG-UI agent server: POST /agent (SSE), GET /api/health and the page's static files.
//
// node:http and nothing else: three routes do not need a framework, and every byte on the wire
// (status codes, SSE framing, content types) stays visible here, which is the point of a demo
// that tests a protocol client.
import { EventType } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { createServer } from 'node:http';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRunContext } from './stream.mjs';
import { createServerTools } from './tools.mjs';
import { createPlannerBrain } from './planner.mjs';
import { brainFromEnv } from './openai-brain.mjs';
import { serveStatic } from './static.mjs';

const MAX_BODY_BYTES = 4 * 1024 * 1024;

function sendJson(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(value));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(Object.assign(new Error(`request body over ${MAX_BODY_BYTES} bytes`), { status: 413 }));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// Just what the brains rely on; the client is trusted to send AG-UI, but a malformed request
// deserves a 400 that names the field rather than a crash halfway through a stream.
function checkRunInput(input) {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return 'body must be a RunAgentInput object';
  if (typeof input.threadId !== 'string' || !input.threadId) return 'threadId must be a non-empty string';
  if (typeof input.runId !== 'string' || !input.runId) return 'runId must be a non-empty string';
  if (!Array.isArray(input.messages)) return 'messages must be an array';
  const bad = input.messages.findIndex((m) => typeof m !== 'object' || m === null || typeof m.role !== 'string');
  if (bad >= 0) return `messages[${bad}] must be an object with a role`;
  if (input.tools !== undefined && !Array.isArray(input.tools)) return 'tools must be an array';
  if (input.resume !== undefined && !Array.isArray(input.resume)) return 'resume must be an array';
  return null;
}

// The page may be served by a dev server on another loopback port: allow loopback origins only,
// so an arbitrary website the user visits cannot drive the local agent.
function allowOrigin(req, res) {
  const origin = req.headers.origin;
  if (origin && /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.test(origin)) {
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'origin');
    res.setHeader('access-control-allow-headers', 'content-type, accept');
    res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
  }
}

async function handleRun(req, res, { brain, tools, delayMs, argsDelayMs }) {
  let input;
  try {
    input = JSON.parse(await readBody(req));
  } catch (err) {
    return sendJson(res, err.status ?? 400, { error: err.status ? err.message : `body is not JSON: ${err.message}` });
  }
  const problem = checkRunInput(input);
  if (problem) return sendJson(res, 400, { error: problem });

  // Always SSE, even if the client would accept protobuf: the runtime under test reads SSE.
  const encoder = new EventEncoder();
  res.writeHead(200, {
    'content-type': encoder.getContentType(),
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no', // keep proxies from holding deltas back
  });
  const abort = new AbortController();
  res.on('close', () => abort.abort()); // the client went away: brains stop at their next step
  const send = (event) => res.write(encoder.encodeSSE(event));
  const { threadId, runId } = input;
  const ctx = createRunContext({ input, send, signal: abort.signal, delayMs, argsDelayMs, tools });

  // The server owns the run's frame, so every run starts with RUN_STARTED and ends with exactly
  // one RUN_FINISHED or RUN_ERROR whatever the brain does, including throwing.
  send({ type: EventType.RUN_STARTED, threadId, runId });
  try {
    const outcome = (await brain.run(input, ctx)) ?? { type: 'success' };
    if (outcome.error)
      ctx.emit({ type: EventType.RUN_ERROR, message: outcome.error.message, code: outcome.error.code });
    else ctx.emit({ type: EventType.RUN_FINISHED, threadId, runId, outcome });
  } catch (err) {
    if (!abort.signal.aborted) console.error(`run ${runId} failed:`, err);
    // fetch() hides the reason ("fetch failed") in err.cause; a code must be a string to validate.
    const message = `${err?.message ?? err}${err?.cause?.message ? `: ${err.cause.message}` : ''}`;
    ctx.emit({ type: EventType.RUN_ERROR, message, code: typeof err?.code === 'string' ? err.code : 'AGENT_ERROR' });
  }
  res.end();
}

export function chooseBrain(env = process.env) {
  return brainFromEnv(env) ?? createPlannerBrain();
}

// Starts the server; resolves once it listens. port 0 picks a free port (tests).
export async function startDemoServer({
  port = Number(process.env.PORT ?? 8787),
  host = '127.0.0.1',
  staticRoot = [],
  brain = chooseBrain(),
  dbPath,
  delayMs = 0,
  argsDelayMs = 0,
} = {}) {
  const tools = createServerTools(dbPath ? { dbPath } : {});
  const roots = (Array.isArray(staticRoot) ? staticRoot : [staticRoot]).filter(Boolean);
  const server = createServer(async (req, res) => {
    try {
      allowOrigin(req, res);
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'OPTIONS') return res.writeHead(204).end();
      if (path === '/agent') {
        if (req.method !== 'POST') return sendJson(res, 405, { error: 'POST a RunAgentInput to /agent' });
        return await handleRun(req, res, { brain, tools, delayMs, argsDelayMs });
      }
      if (path === '/api/health') {
        return sendJson(res, 200, {
          ok: true,
          brain: brain.name,
          permits: tools.permitCount,
          serverTools: tools.definitions.map(({ name, description }) => ({ name, description })),
        });
      }
      if (req.method === 'GET' || req.method === 'HEAD') return await serveStatic(req, res, roots);
      return sendJson(res, 405, { error: `${req.method} is not supported here` });
    } catch (err) {
      console.error('request failed:', err);
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.destroy();
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const url = `http://${host}:${address.port}`;
  return {
    server,
    url,
    port: address.port,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await tools.close();
    },
  };
}

// `node server/main.mjs [staticRoot...]`: serves demo-page/dist then demo-page/public by default.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const fromArgs = process.argv.slice(2);
  const defaults = ['../dist', '../public'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  const staticRoot = (fromArgs.length ? fromArgs : defaults).filter((p) => existsSync(p));
  const brain = chooseBrain();
  const { url, close } = await startDemoServer({
    staticRoot,
    brain,
    delayMs: Number(process.env.AGUI_DEMO_DELAY_MS ?? 15),
    // Between the small argument deltas of create_chart and create_map, so their cards fill in.
    argsDelayMs: Number(process.env.AGUI_DEMO_ARGS_DELAY_MS ?? 10),
  });
  // A signal skips "exit" handlers unless handled: close properly so the query child is killed.
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => close().finally(() => process.exit(0)));
  console.log(`agui-client-tools demo agent (${brain.name} brain) at ${url}/  (POST ${url}/agent)`);
  if (!staticRoot.length)
    console.log('no static root found (build the page into demo-page/dist); serving the agent only');
}
