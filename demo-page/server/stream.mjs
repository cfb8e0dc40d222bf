// Helpers that turn a brain's decisions into AG-UI events: streamed text, reasoning, tool calls.
import { EventType } from '@ag-ui/core';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The per-run handle a brain gets. Ids are derived from runId and a counter, so a replayed run
// produces the same ids (handy in tests) and ids from two runs never collide.
// `argsDelayMs` paces the small argument deltas of the tools whose cards draw as they stream.
export function createRunContext({ input, send, signal, delayMs = 0, argsDelayMs = 0, tools }) {
  let counter = 0;
  return {
    input,
    signal,
    tools,
    emit(event) {
      if (!signal?.aborted) send(event);
    },
    newId(kind) {
      return `${kind}-${input.runId}-${++counter}`;
    },
    // Paces deltas so the page visibly streams; 0 in tests.
    pause: () => (delayMs > 0 && !signal?.aborted ? sleep(delayMs) : Promise.resolve()),
    argsPause: () => (argsDelayMs > 0 && !signal?.aborted ? sleep(argsDelayMs) : Promise.resolve()),
  };
}

// Splits text into deltas of a few words each, keeping the spaces, so "".join(deltas) === text.
export function splitIntoDeltas(text, wordsPerDelta = 3) {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const deltas = [];
  for (let i = 0; i < words.length; i += wordsPerDelta) deltas.push(words.slice(i, i + wordsPerDelta).join(''));
  return deltas.length ? deltas : [text];
}

export async function streamText(ctx, text, { messageId = ctx.newId('msg') } = {}) {
  ctx.emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
  for (const delta of splitIntoDeltas(text)) {
    await ctx.pause();
    ctx.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta });
  }
  ctx.emit({ type: EventType.TEXT_MESSAGE_END, messageId });
  return messageId;
}

// One reasoning span holding one reasoning message (a span may hold several; we need one).
export async function streamReasoning(ctx, text) {
  const spanId = ctx.newId('reasoning');
  const messageId = ctx.newId('thought');
  ctx.emit({ type: EventType.REASONING_START, messageId: spanId });
  ctx.emit({ type: EventType.REASONING_MESSAGE_START, messageId, role: 'reasoning' });
  for (const delta of splitIntoDeltas(text, 4)) {
    await ctx.pause();
    ctx.emit({ type: EventType.REASONING_MESSAGE_CONTENT, messageId, delta });
  }
  ctx.emit({ type: EventType.REASONING_MESSAGE_END, messageId });
  ctx.emit({ type: EventType.REASONING_END, messageId: spanId });
}

// The tools whose cards draw their arguments while they stream (a chart, a map): their arguments
// go out in small deltas, paced, as a model writes them.
export const LIVE_ARGS_TOOLS = new Set(['create_chart', 'create_map']);
// A long argument (a map of 150 points is ~37 KB, ~2,300 deltas) pauses at most this many times,
// so it fills in within a second or so rather than deltas × pause.
export const MAX_ARGS_PAUSES = 60;
const ARGS_DELTA_SIZES = [8, 13, 21, 11, 24, 16, 9, 19]; // varied, so pieces cut tokens everywhere

// Splits JSON text into deltas of 8 to 24 characters, never between the halves of a surrogate
// pair (each delta crosses the wire as its own JSON string). "".join(deltas) === json.
export function splitArgs(json) {
  const deltas = [];
  for (let i = 0, n = 0; i < json.length; n++) {
    let end = Math.min(json.length, i + ARGS_DELTA_SIZES[n % ARGS_DELTA_SIZES.length]);
    const code = json.charCodeAt(end - 1);
    if (end < json.length && code >= 0xd800 && code <= 0xdbff) end += 1; // keep the pair whole
    deltas.push(json.slice(i, end));
    i = end;
  }
  return deltas;
}

// START, the JSON arguments, END. `live`: in small paced deltas (see LIVE_ARGS_TOOLS); otherwise
// in a few pieces (as a model streams them, so the client's argument accumulation is exercised).
export async function streamToolCall(ctx, { toolCallId, toolCallName, args, parentMessageId, live = false }) {
  ctx.emit({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName, parentMessageId });
  const json = JSON.stringify(args ?? {});
  if (live) {
    const deltas = splitArgs(json);
    const pauseEvery = Math.ceil(deltas.length / MAX_ARGS_PAUSES);
    for (let i = 0; i < deltas.length; i++) {
      if (i % pauseEvery === 0) await ctx.argsPause();
      ctx.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: deltas[i] });
    }
  } else {
    const piece = Math.max(8, Math.ceil(json.length / 3));
    for (let i = 0; i < json.length; i += piece) {
      await ctx.pause();
      ctx.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: json.slice(i, i + piece) });
    }
  }
  ctx.emit({ type: EventType.TOOL_CALL_END, toolCallId });
}

// A server tool's answer: the result as a tool message, then the visual it produced, if any.
export function emitToolResult(ctx, toolCallId, result, activity) {
  ctx.emit({
    type: EventType.TOOL_CALL_RESULT,
    messageId: ctx.newId('result'),
    toolCallId,
    role: 'tool',
    content: typeof result === 'string' ? result : JSON.stringify(result),
  });
  if (activity) {
    ctx.emit({
      type: EventType.ACTIVITY_SNAPSHOT,
      messageId: ctx.newId('activity'),
      activityType: activity.activityType,
      content: activity.content,
    });
  }
}

// Streams a server tool call, runs it here, and emits its result. Returns the result value.
export async function runServerTool(ctx, toolCallName, args, parentMessageId) {
  const toolCallId = ctx.newId(toolCallName);
  const live = LIVE_ARGS_TOOLS.has(toolCallName);
  await streamToolCall(ctx, { toolCallId, toolCallName, args, parentMessageId, live });
  const { result, activity } = await ctx.tools.call(toolCallName, args);
  emitToolResult(ctx, toolCallId, result, activity);
  return result;
}
