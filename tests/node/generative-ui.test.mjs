// The package against the generative-UI middlewares as a server runs them
// (tests/third-party/genui/): @ag-ui/a2ui-middleware and @ag-ui/mcp-apps-middleware
// applied with agent.use() around a scripted agent, with a small MCP server on
// loopback. What was found where they and the runtime disagree: docs/third-party.md.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { EventType } from '@ag-ui/core';
import { T, open, toolCalls, resultOf, assertEveryCallAnsweredOnce, lastText } from './helpers.mjs';

const genui = await import('../third-party/genui/server.mjs').catch((e) => {
  throw new Error(`the middlewares are not installed: run \`npm ci\` in tests/third-party/genui (${e.message})`);
});

const text = (id, delta) => [
  { type: EventType.TEXT_MESSAGE_START, messageId: id, role: 'assistant' },
  { type: EventType.TEXT_MESSAGE_CONTENT, messageId: id, delta },
  { type: EventType.TEXT_MESSAGE_END, messageId: id },
];
const call = (id, name, args) => [
  { type: EventType.TOOL_CALL_START, toolCallId: id, toolCallName: name },
  { type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta: args },
  { type: EventType.TOOL_CALL_END, toolCallId: id },
];
const SURFACE = { surfaceId: 'form', components: [{ id: 'root', component: 'Text', text: 'Book it?' }] };

/** The agent's script: what it was asked last (after the middlewares) says what it does. */
function script(input) {
  const last = input.messages.at(-1);
  if (last?.role === 'tool') return text(`reply-${input.runId}`, `noted: ${last.content}`);
  const ask = last?.content ?? '';
  if (ask.includes('form')) return call(`a2ui-${input.runId}`, 'render_a2ui', JSON.stringify(SURFACE));
  if (ask.includes('weather card')) return call(`mcp-${input.runId}`, 'show_weather', '{}');
  if (ask.includes('result')) {
    const finished = { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId, result: { n: 42 } };
    return [...text(`reply-${input.runId}`, 'here'), finished];
  }
  return text(`reply-${input.runId}`, 'ok');
}

const mcp = await genui.startMcpServer();
const server = await genui.startGenuiServer(script, { mcpUrl: mcp.url });
after(() => (server.close(), mcp.close()));
const requestsOf = (rt) => server.requests.filter((r) => r.threadId === rt.threadId);
const activities = (rt, type) => rt.messages.filter((m) => m.role === 'activity' && m.activityType === type);

test(
  'A2UI: a surface is drawn as an activity, and a user action goes back with per-run forwardedProps',
  T,
  async (t) => {
    const rt = await open(t, { url: server.url });
    assert.equal((await rt.send('show the booking form')).reason, 'done');
    const [surface] = activities(rt, 'a2ui-surface');
    assert.ok(surface, 'an a2ui-surface activity message');
    assert.deepEqual(surface.content.a2ui_operations.at(-1).updateComponents.components, SURFACE.components);
    // The middleware answered its own render_a2ui before RUN_FINISHED: the runtime left it alone.
    const [render] = toolCalls(rt.messages);
    assert.equal(render.name, 'render_a2ui');
    assert.equal(resultOf(rt.messages, render.id).error, undefined);

    const before = rt.messages.length;
    const action = {
      userAction: { name: 'confirm', surfaceId: 'form', sourceComponentId: 'root', context: { ok: true } },
    };
    assert.equal((await rt.send([], { forwardedProps: { a2uiAction: action } })).reason, 'done');
    const sent = requestsOf(rt).at(-1);
    assert.deepEqual(sent.forwardedProps, { a2uiAction: action });
    assert.ok(!sent.messages.some((m) => m.role === 'activity'), 'the surface is UI-only, never sent back');
    // The middleware turned the action into a tool result the agent read; the thread has its reply only.
    assert.match(lastText(rt.messages), /^noted: User performed action "confirm" on surface "form"/);
    assert.equal(rt.messages.length, before + 1);
    assertEveryCallAnsweredOnce(rt.messages);
  },
);

test(
  'MCP Apps: the injected tool is advertised once and not ours; its activity stays and is never sent back; a side request reads the UI resource',
  T,
  async (t) => {
    const rt = await open(t, { url: server.url });
    assert.equal((await rt.send('show me the weather card')).reason, 'done');
    const tools = server.seen.at(-1).tools.map((x) => x.name);
    assert.deepEqual(
      tools.filter((n) => n === 'show_weather'),
      ['show_weather'],
      'advertised once, by the middleware',
    );
    assert.ok(!requestsOf(rt)[0].tools.some((x) => x.name === 'show_weather'), 'the client does not advertise it');
    const [weather] = toolCalls(rt.messages);
    assert.equal(
      resultOf(rt.messages, weather.id).content,
      'Paris: sunny',
      "the MCP server's answer, not an unknown-tool error",
    );
    const [app] = activities(rt, 'mcp-apps');
    assert.equal(app.content.resourceUri, genui.UI_RESOURCE);

    await rt.send('thanks');
    assert.ok(activities(rt, 'mcp-apps').length === 1, 'the activity survives the next turn');
    for (const r of requestsOf(rt)) assert.ok(!r.messages.some((m) => m.role === 'activity'), 'never sent back');

    const messages = JSON.stringify(rt.messages);
    const round = rt.status.round;
    const requests = requestsOf(rt).length;
    const { result } = await rt.request({
      forwardedProps: {
        __proxiedMCPRequest: {
          serverHash: app.content.serverHash,
          method: 'resources/read',
          params: { uri: app.content.resourceUri },
        },
      },
    });
    assert.equal(result.contents[0].text, genui.UI_HTML);
    assert.equal(JSON.stringify(rt.messages), messages, 'the thread is untouched');
    assert.equal(rt.status.round, round);
    assert.equal(rt.status.phase, 'idle');
    assert.deepEqual(requestsOf(rt).at(-1).messages, [], 'a side request carries no messages');
    assert.equal(requestsOf(rt).length, requests + 1);
  },
);

test("every TurnResult carries its last run's RUN_FINISHED.result, through both middlewares", T, async (t) => {
  const rt = await open(t, { url: server.url });
  assert.deepEqual(await rt.send('a result, please'), { reason: 'done', result: { n: 42 } });
  assert.deepEqual(await rt.send('and now nothing'), { reason: 'done' });
});
