// Optional brain: any OpenAI-compatible chat-completions endpoint, streamed and translated to AG-UI.
//
// Enabled when AGUI_DEMO_OPENAI_BASE_URL, AGUI_DEMO_OPENAI_API_KEY and AGUI_DEMO_OPENAI_MODEL are
// all set. Server tools run here and the model is called again with their results; when the model
// calls a client tool the run ends with pendingToolCallIds, and the client answers in a follow-up.
import { EventType } from '@ag-ui/core';
import { emitToolResult, streamText } from './stream.mjs';

export const SYSTEM_PROMPT = `You are the agui-client-tools demo agent. You answer questions about a SQLite database of building permits in an Austin-like city.
Call get_database_schema before writing SQL, then execute_query with one read-only SELECT (aggregate in SQL: at most 200 rows come back).
Show results with create_chart (an Apache ECharts option object) or create_map (center [lat, lon] and a GeoJSON FeatureCollection), then summarise the numbers in a sentence or two.
Other tools run in the user's browser (location, clipboard, approval): use them when the user asks for what they give. Never modify data.`;

export function brainFromEnv(env = process.env) {
  const baseUrl = env.AGUI_DEMO_OPENAI_BASE_URL;
  const apiKey = env.AGUI_DEMO_OPENAI_API_KEY;
  const model = env.AGUI_DEMO_OPENAI_MODEL;
  return baseUrl && apiKey && model ? createOpenAIBrain({ baseUrl, apiKey, model }) : null;
}

const textOf = (content) =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .filter((p) => p?.type === 'text')
          .map((p) => p.text)
          .join('\n')
      : '';

// AG-UI messages -> chat-completions messages. Activity and reasoning messages are UI-side
// records, not conversation, so they are dropped. Every assistant tool call gets exactly one
// tool message after it: providers reject a thread with an unanswered call.
export function toOpenAIMessages(messages, systemPrompt) {
  const out = [{ role: 'system', content: systemPrompt }];
  const answered = new Set(messages.filter((m) => m?.role === 'tool').map((m) => m.toolCallId));
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer') out.push({ role: 'system', content: textOf(m.content) });
    else if (m.role === 'user') out.push({ role: 'user', content: textOf(m.content) });
    else if (m.role === 'assistant') {
      const calls = (m.toolCalls ?? []).map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.function.name, arguments: c.function.arguments || '{}' },
      }));
      out.push({
        role: 'assistant',
        content: textOf(m.content) || null,
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      for (const c of calls)
        if (!answered.has(c.id))
          out.push({
            role: 'tool',
            tool_call_id: c.id,
            content: JSON.stringify({ error: 'no result was recorded for this call' }),
          });
    } else if (m.role === 'tool') {
      const content = textOf(m.content);
      out.push({
        role: 'tool',
        tool_call_id: m.toolCallId,
        content: m.error && !content.includes(m.error) ? JSON.stringify({ error: m.error, content }) : content,
      });
    }
  }
  // A client that sent two answers for one call (a replay): keep the first, as providers
  // reject a second tool message for the same call.
  const seen = new Set();
  return out.filter((m) => m.role !== 'tool' || (!seen.has(m.tool_call_id) && seen.add(m.tool_call_id)));
}

const toOpenAITool = (t) => ({
  type: 'function',
  function: {
    name: t.name,
    description: t.description ?? '',
    parameters: t.parameters ?? { type: 'object', properties: {} },
  },
});

// The `data:` payloads of an SSE response body, one per event.
async function* sseData(body) {
  const decoder = new TextDecoder();
  let buffer = '';
  let data = [];
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (data.length) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
  }
  if (buffer.startsWith('data:')) data.push(buffer.slice(5).replace(/^ /, ''));
  if (data.length) yield data.join('\n');
}

// One streamed completion, translated as it arrives. Text, reasoning and tool calls of one
// completion share one assistant messageId, so the client folds them into one message.
async function streamCompletion(ctx, { url, apiKey, model, messages, tools, fetchImpl }) {
  const response = await fetchImpl(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ model, messages, stream: true, ...(tools.length ? { tools } : {}) }),
    signal: ctx.signal,
  });
  if (!response.ok) {
    const detail = (await response.text().catch(() => '')).slice(0, 500);
    throw Object.assign(new Error(`model endpoint answered HTTP ${response.status}: ${detail}`), {
      code: 'MODEL_HTTP_ERROR',
    });
  }
  const messageId = ctx.newId('msg');
  let text = null; // accumulated content, null while no TEXT_MESSAGE is open
  let content = '';
  let reasoning = null; // {spanId, id} while a reasoning span is open
  const calls = []; // by the index the provider keys deltas with
  const closeReasoning = () => {
    if (!reasoning) return;
    ctx.emit({ type: EventType.REASONING_MESSAGE_END, messageId: reasoning.id });
    ctx.emit({ type: EventType.REASONING_END, messageId: reasoning.spanId });
    reasoning = null;
  };
  const closeText = () => {
    if (text === null) return;
    ctx.emit({ type: EventType.TEXT_MESSAGE_END, messageId });
    text = null;
  };
  const startCall = (call) => {
    closeReasoning();
    closeText();
    call.id ??= ctx.newId('call');
    ctx.emit({
      type: EventType.TOOL_CALL_START,
      toolCallId: call.id,
      toolCallName: call.name,
      parentMessageId: messageId,
    });
    if (call.arguments) ctx.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: call.arguments });
    call.started = true;
  };

  for await (const data of sseData(response.body)) {
    if (data === '[DONE]') break;
    let chunk;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw Object.assign(new Error(`model endpoint sent a chunk that is not JSON: ${data.slice(0, 200)}`), {
        code: 'MODEL_BAD_CHUNK',
      });
    }
    if (chunk.error)
      throw Object.assign(new Error(`model endpoint error: ${chunk.error.message ?? JSON.stringify(chunk.error)}`), {
        code: 'MODEL_ERROR',
      });
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) continue;
    // Reasoning as DeepSeek, vLLM and others stream it; OpenAI itself sends none.
    const thought = delta.reasoning_content ?? delta.reasoning;
    if (typeof thought === 'string' && thought) {
      if (!reasoning) {
        reasoning = { spanId: ctx.newId('reasoning'), id: ctx.newId('thought') };
        ctx.emit({ type: EventType.REASONING_START, messageId: reasoning.spanId });
        ctx.emit({ type: EventType.REASONING_MESSAGE_START, messageId: reasoning.id, role: 'reasoning' });
      }
      ctx.emit({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: reasoning.id, delta: thought });
    }
    if (typeof delta.content === 'string' && delta.content) {
      closeReasoning();
      if (text === null) {
        ctx.emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
        text = '';
      }
      content += delta.content;
      ctx.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: delta.content });
    }
    for (const d of delta.tool_calls ?? []) {
      const call = (calls[d.index ?? 0] ??= { id: undefined, name: '', arguments: '', started: false });
      if (d.id) call.id = d.id;
      if (d.function?.name) call.name += d.function.name;
      const piece = d.function?.arguments ?? '';
      if (call.started) {
        call.arguments += piece;
        if (piece) ctx.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: piece });
      } else {
        call.arguments += piece; // held until id and name are known, then sent in one delta
        if (call.id && call.name) startCall(call);
      }
    }
  }
  closeReasoning();
  closeText();
  const toolCalls = calls.filter(Boolean);
  for (const call of toolCalls) {
    if (!call.started) startCall(call);
    ctx.emit({ type: EventType.TOOL_CALL_END, toolCallId: call.id });
  }
  return { content, toolCalls };
}

export function createOpenAIBrain({
  baseUrl,
  apiKey,
  model,
  fetchImpl = globalThis.fetch,
  maxModelCalls = 8,
  systemPrompt = SYSTEM_PROMPT,
}) {
  const url = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
  async function run(input, ctx) {
    const context = (input.context ?? []).map((c) => `${c.description}: ${c.value}`).join('\n');
    const messages = toOpenAIMessages(
      input.messages,
      context ? `${systemPrompt}\n\nContext from the app:\n${context}` : systemPrompt,
    );
    // Client tools are exactly what the client advertised this run; a toggled-off tool is absent.
    const clientTools = (input.tools ?? []).filter((t) => t?.name && !ctx.tools.has(t.name));
    const clientNames = new Set(clientTools.map((t) => t.name));
    const tools = [...ctx.tools.definitions, ...clientTools].map(toOpenAITool);

    for (let call = 0; call < maxModelCalls; call++) {
      const turn = await streamCompletion(ctx, { url, apiKey, model, messages, tools, fetchImpl });
      if (turn.toolCalls.length === 0) return { type: 'success' };
      messages.push({
        role: 'assistant',
        content: turn.content || null,
        tool_calls: turn.toolCalls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments || '{}' },
        })),
      });
      const pending = [];
      for (const c of turn.toolCalls) {
        if (clientNames.has(c.name)) {
          pending.push(c.id);
          continue;
        }
        let outcome;
        try {
          const args = c.arguments.trim() ? JSON.parse(c.arguments) : {};
          // A name that is neither ours nor advertised (a disabled client tool the model
          // remembers) is answered here with an error, never forwarded to the client.
          outcome = ctx.tools.has(c.name)
            ? await ctx.tools.call(c.name, args)
            : { result: { error: `no tool named ${c.name} is available` } };
        } catch (err) {
          outcome = { result: { error: `arguments are not valid JSON: ${err.message}` } };
        }
        emitToolResult(ctx, c.id, outcome.result, outcome.activity);
        messages.push({ role: 'tool', tool_call_id: c.id, content: JSON.stringify(outcome.result) });
      }
      if (pending.length) return { type: 'success', pendingToolCallIds: pending };
    }
    await streamText(ctx, `I stopped after ${maxModelCalls} model calls in one run.`);
    return { type: 'success' };
  }
  return { name: `openai:${model}`, run };
}
