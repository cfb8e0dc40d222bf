// The generative-UI middlewares as a server would run them: a scripted AG-UI agent
// (an @ag-ui/client AbstractAgent whose run() plays a script), wrapped with
// agent.use(A2UIMiddleware, MCPAppsMiddleware), its events encoded as SSE with
// @ag-ui/encoder on loopback; and a small MCP server (@modelcontextprotocol/sdk,
// streamable HTTP) with one tool that has a UI resource, for MCP Apps.
// Nobody on this project wrote the middlewares; only the script is ours.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { AbstractAgent, EventType } from '@ag-ui/client';
import { EventEncoder } from '@ag-ui/encoder';
import { A2UIMiddleware } from '@ag-ui/a2ui-middleware';
import { MCPAppsMiddleware } from '@ag-ui/mcp-apps-middleware';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Observable } from 'rxjs';

export const UI_RESOURCE = 'ui://weather/card.html';
export const UI_HTML = '<!doctype html><p>weather card</p>';

async function readBody(req) {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

/** An MCP server with `show_weather`, whose `_meta.ui.resourceUri` names a UI resource. */
export async function startMcpServer() {
  const build = () => {
    const mcp = new McpServer({ name: 'weather-app', version: '1.0.0' });
    mcp.registerTool(
      'show_weather',
      {
        description: 'Shows the weather as a card.',
        inputSchema: {},
        _meta: { ui: { resourceUri: UI_RESOURCE } },
      },
      async () => ({ content: [{ type: 'text', text: 'Paris: sunny' }] }),
    );
    mcp.registerResource('card', UI_RESOURCE, { mimeType: 'text/html;profile=mcp-app' }, async () => ({
      contents: [{ uri: UI_RESOURCE, mimeType: 'text/html;profile=mcp-app', text: UI_HTML }],
    }));
    return mcp;
  };
  const server = createServer(async (req, res) => {
    // Stateless: a server and a transport per request, as the SDK's examples do.
    const mcp = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      mcp.close();
    });
    await mcp.connect(transport);
    const text = req.method === 'POST' ? await readBody(req) : '';
    await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => server.close() };
}

/** An agent whose run() plays `script(input)`: an array of events (RUN_STARTED added, and RUN_FINISHED unless it ends with one). */
class ScriptedAgent extends AbstractAgent {
  constructor(script) {
    super();
    this.script = script;
  }
  run(input) {
    return new Observable((out) => {
      out.next({ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId });
      const events = this.script(input);
      for (const event of events) out.next(event);
      if (events.at(-1)?.type !== EventType.RUN_FINISHED)
        out.next({ type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId });
      out.complete();
    });
  }
}

/**
 * The agent behind both middlewares, on loopback. `requests`: every RunAgentInput as the client
 * sent it; `seen`: as the scripted agent got it (after the middlewares).
 */
export async function startGenuiServer(script, { mcpUrl }) {
  const requests = [];
  const seen = [];
  const agent = new ScriptedAgent((input) => (seen.push(input), script(input)));
  agent.use(
    new A2UIMiddleware({ injectA2UITool: true }),
    new MCPAppsMiddleware({ mcpServers: [{ type: 'http', url: mcpUrl }] }),
  );
  // The chain as AbstractAgent.runAgent() builds it (first middleware outermost), served raw.
  const chain = agent.middlewares.reduceRight(
    (next, middleware) => ({
      run: (input) => middleware.run(input, next),
      get messages() {
        return next.messages;
      },
      get state() {
        return next.state;
      },
    }),
    agent,
  );
  const encoder = new EventEncoder();
  const server = createServer(async (req, res) => {
    const input = JSON.parse(await readBody(req));
    requests.push(input);
    agent.messages = input.messages;
    agent.state = input.state;
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    chain.run(input).subscribe({
      next: (event) => res.write(encoder.encode(event)),
      error: (e) => res.end(encoder.encode({ type: EventType.RUN_ERROR, message: String(e) })),
      complete: () => res.end(),
    });
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}/agent`, requests, seen, close: () => server.close(), id: randomUUID };
}
