// A third-party AG-UI server for the node tests: CopilotKit's runtime (the v2
// CopilotRuntime with a BuiltInAgent, its default in-memory runner) served on
// loopback, its model the AI SDK's scripted MockLanguageModelV3. Nobody on this
// project wrote the server; only the model's script is ours.
import './no-telemetry.mjs';
import { createServer } from 'node:http';
import { CopilotRuntime, BuiltInAgent, defineTool } from '@copilotkit/runtime/v2';
import { createCopilotNodeListener } from '@copilotkit/runtime/v2/node';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';

const BASE_PATH = '/api/copilotkit';

/**
 * The tools the agent itself owns: `lookup_docs` runs on the server; calling
 * `confirm_delete` pauses the run with an AG-UI interrupt (CopilotKit's
 * `interrupt: true` tool) whose resume payload becomes the call's result.
 */
const SERVER_TOOLS = [
  defineTool({
    name: 'lookup_docs',
    description: 'Searches the documentation (runs on the server).',
    parameters: z.object({ topic: z.string() }),
    execute: async ({ topic }) => ({ topic, pages: [`${topic}.md`] }),
  }),
  defineTool({
    name: 'confirm_delete',
    description: 'Asks the user to confirm a deletion.',
    parameters: z.object({ path: z.string() }),
    interrupt: true,
    interruptReason: 'confirmation',
    interruptMessage: 'Delete this file?',
  }),
];

/**
 * Starts the server. `script(prompt)` is the model: it reads the prompt the AI
 * SDK built (LanguageModelV3Prompt) and answers `{text}` or `{calls: [{name,
 * args}]}`, with `delayMs` to take that long. Every prompt the model saw is kept in `prompts`, in order.
 */
export async function startCopilotKit(script) {
  const prompts = [];
  const model = new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      prompts.push(prompt);
      return { stream: streamOf(prompt, script(prompt)) };
    },
  });
  // maxSteps > 1: a server tool's result goes back to the model within the run.
  const agent = new BuiltInAgent({ model, tools: SERVER_TOOLS, maxSteps: 4 });
  const runtime = new CopilotRuntime({ agents: { default: agent } });
  const listener = createCopilotNodeListener({ runtime, basePath: BASE_PATH });
  const server = createServer(listener);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${BASE_PATH}/agent/default/run`,
    prompts,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The model's reply as the LanguageModelV3 stream parts a provider would send. */
function streamOf(prompt, reply) {
  const parts = [{ type: 'stream-start', warnings: [] }];
  if (reply.text !== undefined) {
    // Id "0", as providers number their parts: CopilotKit then gives the
    // message a fresh id (a fixed id would name one message in every run).
    parts.push({ type: 'text-start', id: '0' });
    // Two deltas, so the text arrives as a stream and not in one piece.
    const half = Math.ceil(reply.text.length / 2);
    parts.push({ type: 'text-delta', id: '0', delta: reply.text.slice(0, half) });
    parts.push({ type: 'text-delta', id: '0', delta: reply.text.slice(half) });
    parts.push({ type: 'text-end', id: '0' });
  }
  // Call ids count the calls already in the prompt: unique within a thread,
  // and the same on every run of the same script.
  const before = countToolCalls(prompt);
  (reply.calls ?? []).forEach(({ name, args }, i) => {
    parts.push({
      type: 'tool-call',
      toolCallId: `call-${before + i + 1}`,
      toolName: name,
      input: JSON.stringify(args),
    });
  });
  const finishReason = reply.calls?.length ? 'tool-calls' : 'stop';
  parts.push({ type: 'finish', finishReason: { unified: finishReason, raw: finishReason }, usage: USAGE });
  // `delayMs`: the model takes that long before it finishes (a run still going
  // when the client leaves it).
  const finish = parts.pop();
  return new ReadableStream({
    async start(controller) {
      for (const part of parts) controller.enqueue(part);
      if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      controller.enqueue(finish);
      controller.close();
    },
  });
}

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

function countToolCalls(prompt) {
  return prompt
    .filter((m) => m.role === 'assistant' && Array.isArray(m.content))
    .reduce((n, m) => n + m.content.filter((p) => p.type === 'tool-call').length, 0);
}
