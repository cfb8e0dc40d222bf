// A test page served beside the package as plain ES modules (no bundler): `/dist/...`
// is js-shim's built files (what ships), `/<name>` is the page. Cleaned up in after().
import { after } from 'node:test';
import { createServer } from 'node:http';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { serveStatic } = await import(join(root, 'demo-page', 'server', 'static.mjs'));

// `/probe.js`, beside every page: the tool the reload and tab chaos pages run. It tells the test
// when its handler starts (window.ran) and each step (window.step), takes 120 ms, and answers
// reply() (its approval is the page's to give).
const PROBE = `export const probeTool = (reply) => ({
  name: 'probe',
  description: 'counts its runs',
  parameters: { type: 'object' },
  requiresApproval: true,
  handler: async (args, ctx) => {
    window.ran(ctx.toolCallId);
    window.step('handler');
    await new Promise((r) => setTimeout(r, 120));
    window.step('handled');
    return reply();
  },
});
`;

/**
 * What the chaos tests count over a thread's messages: its tool calls, those whose handler started
 * more than once (`runs`: toolCallId -> handler starts, from window.ran) and those without exactly
 * one answer.
 */
export function auditCalls(messages, runs) {
  const calls = messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
  const answers = messages.filter((m) => m.role === 'tool');
  return {
    calls,
    duplicates: calls.filter((c) => (runs.get(c.id) ?? 0) > 1).map((c) => c.id),
    open: calls.filter((c) => answers.filter((a) => a.toolCallId === c.id).length !== 1).map((c) => c.id),
  };
}

/**
 * The tool results the agent received (each tool message of each RunAgentInput in `requests`, as
 * agui-server.mjs records them) that the thread's `messages` do not hold with the same content,
 * and the calls the agent received two different answers for.
 */
export function lostResults(messages, requests) {
  const received = new Map(); // toolCallId -> the contents the agent got for it, as JSON text
  for (const request of requests)
    for (const m of request.input?.messages ?? []) {
      if (m.role !== 'tool') continue;
      if (!received.has(m.toolCallId)) received.set(m.toolCallId, new Set());
      received.get(m.toolCallId).add(JSON.stringify(m.content));
    }
  const kept = new Map(messages.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, JSON.stringify(m.content)]));
  const lost = [];
  for (const [toolCallId, contents] of received)
    for (const content of contents) if (kept.get(toolCallId) !== content) lost.push({ toolCallId, content });
  const contradicted = [...received].filter(([, contents]) => contents.size > 1).map(([id]) => id);
  return { received: received.size, lost, contradicted };
}

/** Serves `html` as `/<name>` (and /probe.js) on a loopback port; resolves to the page's URL. */
export async function servePlainPage(name, html) {
  const dir = await mkdtemp(join(tmpdir(), 'agui-plain-page-'));
  after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, name), html);
  await writeFile(join(dir, 'probe.js'), PROBE);
  const server = createServer((req, res) => serveStatic(req, res, [dir, join(root, 'js-shim')]));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => server.close());
  return `http://127.0.0.1:${server.address().port}/${name}`;
}
