// The LangGraph stack as its own process (server.mjs starts it): the LangGraph
// API's in-memory server (what `langgraph dev` runs, without the CLI) with the
// graph of graph.mjs, and @ag-ui/langgraph's LangGraphAgent served as AG-UI
// endpoints on loopback: POST /default (the bridge's default settings) and
// POST /outcome (`emitInterruptOutcome: true`). A process of its own because
// the API's run workers poll forever: nothing would let a test file exit.
// Nobody on this project wrote the server or the bridge; only graph.mjs is ours.
// Reports {url} (or {error}) to its parent over IPC once a warm-up run has
// passed, and exits when the parent goes.
import './quiet.mjs';
import { createServer } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';

const report = (message) => process.send?.(message);
const fail = (what, e) => {
  if (e?.code === 'ERR_MODULE_NOT_FOUND') what += ' (not installed? run `npm ci` in tests/third-party/langgraph)';
  report({ error: `${what}: ${e?.stack ?? e}` });
  process.exit(1);
};

const { startServer } = await import('@langchain/langgraph-api/server').catch((e) =>
  fail('loading @langchain/langgraph-api', e),
);
const { LangGraphAgent } = await import('@ag-ui/langgraph').catch((e) => fail('loading @ag-ui/langgraph', e));
const { EventEncoder } = await import('@ag-ui/encoder').catch((e) => fail('loading @ag-ui/encoder', e));

// The API keeps its threads in memory and flushes them to <cwd>/.langgraph_api: a folder of our own.
const cwd = await mkdtemp(join(tmpdir(), 'agui-langgraph-'));
process.on('exit', () => rmSync(cwd, { recursive: true, force: true }));
const graphPath = fileURLToPath(new URL('./graph.mjs', import.meta.url));
const api = await startServer({
  port: 0,
  host: '127.0.0.1',
  nWorkers: 10, // `langgraph dev`'s default; each polls for new runs
  cwd,
  graphs: { agent: `${graphPath}:graph` },
}).catch((e) => fail('starting the LangGraph API server', e));
const deploymentUrl = `http://${api.host}`;

const agents = {
  default: new LangGraphAgent({ deploymentUrl, graphId: 'agent' }),
  outcome: new LangGraphAgent({ deploymentUrl, graphId: 'agent', emitInterruptOutcome: true }),
};

/** One AG-UI run: a fresh clone of the agent per request (as hosts do), its events as SSE. */
async function serveRun(req, res) {
  const agent = agents[req.url.slice(1)];
  if (req.method !== 'POST' || !agent) return res.writeHead(404).end();
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const encoder = new EventEncoder({ accept: req.headers.accept });
  res.writeHead(200, { 'content-type': encoder.getContentType(), 'cache-control': 'no-cache' });
  agent
    .clone()
    .run(input)
    .subscribe({
      next: (event) => res.write(encoder.encode(event)),
      error: (e) => res.end(encoder.encode({ type: 'RUN_ERROR', message: String(e?.message ?? e) })),
      complete: () => res.end(),
    });
}

const bridge = createServer((req, res) => serveRun(req, res).catch((e) => res.destroy(e)));
await new Promise((resolve) => bridge.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${bridge.address().port}`;

/** One untimed run: the API builds the graph's schema and the bridge finds its assistant on the first run. */
async function warmUp() {
  const threadId = randomUUID(); // the API takes only UUIDs as thread ids
  const input = { threadId, runId: 'warm-up', state: {}, tools: [], context: [], forwardedProps: {} };
  input.messages = [{ id: 'warm-up-1', role: 'user', content: 'hello' }];
  const started = Date.now();
  const text = await (await fetch(`${url}/default`, { method: 'POST', body: JSON.stringify(input) })).text();
  if (!text.includes('"RUN_FINISHED"')) throw new Error(`the warm-up run did not finish:\n${text.slice(-2000)}`);
  return Date.now() - started;
}
const warmUpMs = await warmUp().catch((e) => fail('the warm-up run', e));

async function stop() {
  bridge.close();
  await api.cleanup().catch(() => {});
  process.exit(0);
}
process.on('disconnect', stop);
process.on('SIGTERM', stop);
report({ url, warmUpMs });
