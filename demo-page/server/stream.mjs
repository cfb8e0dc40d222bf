// Helpers that turn a brain's decisions into AG-UI events: streamed text, reasoning, tool calls.
import { EventType } from '@ag-ui/core';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The per-run handle a brain gets. Ids are derived from runId and a counter, so a replayed run
// produces the same ids (handy in tests) and ids from two runs never collide.
export function createRunContext({ input, send, signal, delayMs = 0, tools }) {
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

// START, the JSON arguments in a few pieces (as a model streams them, so the client's argument
// accumulation is exercised), END.
export async function streamToolCall(ctx, { toolCallId, toolCallName, args, parentMessageId }) {
  ctx.emit({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName, parentMessageId });
  const json = JSON.stringify(args ?? {});
  const piece = Math.max(8, Math.ceil(json.length / 3));
  for (let i = 0; i < json.length; i += piece) {
    await ctx.pause();
    ctx.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: json.slice(i, i + piece) });
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
  await streamToolCall(ctx, { toolCallId, toolCallName, args, parentMessageId });
  const { result, activity } = await ctx.tools.call(toolCallName, args);
  emitToolResult(ctx, toolCallId, result, activity);
  return result;
}
