// Runs one tool handler: (args, ctx) in, exactly one outcome out. Whatever the
// handler does (returns, throws, hangs, returns something JSON cannot encode),
// the outcome is a result the model can read.
import { schedule } from './timers.js';

/** The text an error becomes: Error → its message; a string as is; anything else as JSON. */
export function describeThrown(value) {
  if (value instanceof Error) return value.message || value.name || 'Error';
  if (typeof value === 'string') return value || 'the handler threw an empty string';
  if (value === undefined) return 'the handler threw undefined';
  if (value === null) return 'the handler threw null';
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  } catch {
    // fall through
  }
  return String(value);
}

/** The tool message content: a string as is, undefined as "", anything else as JSON. */
export function serialiseResult(value) {
  if (value === undefined) return { content: '' };
  if (typeof value === 'string') return { content: value };
  let text;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    return { error: `the handler's result cannot be encoded as JSON: ${e.message}` };
  }
  if (text === undefined) {
    return { error: `the handler's result cannot be encoded as JSON (a ${typeof value})` };
  }
  return { content: text };
}

/**
 * @param {{handler: Function, call: {toolCallId: string, name: string, args: object,
 *          timeoutMs: number, threadId: string}, signal: AbortSignal,
 *          onSettled: (outcome: {content: string} | {error: string}) => void,
 *          onTimeout: () => void}} job
 */
export function runHandler({ handler, call, signal, onSettled, onTimeout }) {
  let settled = false;
  const settle = (outcome) => {
    if (settled) return;
    settled = true;
    cancelTimer();
    onSettled(outcome);
  };
  const cancelTimer = schedule(call.timeoutMs, () => {
    settle({ error: `'${call.name}' timed out after ${call.timeoutMs} ms` });
    onTimeout(); // tell the handler to stop; its late answer is ignored
  });
  // Aborted (the turn was aborted or the runtime disposed): nothing waits for
  // this handler any more, so its timer must not keep the process alive.
  signal.addEventListener('abort', cancelTimer, { once: true });

  if (typeof handler !== 'function') {
    settle({ error: `no handler is registered for '${call.name}' in this tab` });
    return;
  }
  const ctx = Object.freeze({ threadId: call.threadId, toolCallId: call.toolCallId, signal });
  Promise.resolve()
    .then(() => handler(call.args, ctx))
    .then(
      (value) => settle(serialiseResult(value)),
      (thrown) => settle({ error: describeThrown(thrown) }),
    );
}
