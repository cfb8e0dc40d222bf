// Runs one tool handler: (args, ctx) in, exactly one outcome out. Whatever the
// handler does (returns, throws, hangs, returns something JSON cannot encode),
// the outcome is a result the model can read.
import { AguiError } from './errors.js';
import { schedule } from './timers.js';
import { wellFormedJson } from './core.js';

const UNDESCRIBABLE = 'the handler threw a value that cannot be described';

/**
 * The text an error becomes: Error → its message; a string as is; anything else
 * as JSON, else String(). Never throws: a thrown value whose message, toJSON or
 * toString throws (or a Proxy whose traps do) gets a generic message.
 */
export function describeThrown(value) {
  try {
    return describe(value);
  } catch {
    return UNDESCRIBABLE;
  }
}

function describe(value) {
  if (typeof value === 'string') return value || 'the handler threw an empty string';
  if (value === undefined) return 'the handler threw undefined';
  if (value === null) return 'the handler threw null';
  if (value instanceof Error) return String(value.message || value.name || 'Error');
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  } catch {
    // fall through
  }
  return String(value);
}

// What contentParts() makes: only a value the package made is read as parts, since any plain
// shape ({content: [...]}, an array of {type, text}) may be a tool's real JSON result.
class ContentParts {
  constructor(parts) {
    this.parts = parts;
    Object.freeze(this);
  }
}

/**
 * A handler's result as AG-UI 1.0 content parts (ToolMessage.content: ContentPart[]): text, image,
 * audio, video, document. The core checks them; parts that are not ContentParts give the call an
 * error result.
 */
export const contentParts = (parts) => new ContentParts(parts);

/**
 * The tool message content: a string as is, undefined as "", contentParts() as the parts' JSON
 * text (`parts: true`), anything else as JSON. Never throws.
 */
export function serialiseResult(value) {
  if (value === undefined) return { content: '' };
  if (typeof value === 'string') return { content: value };
  const parts = value instanceof ContentParts;
  let text;
  try {
    text = JSON.stringify(parts ? value.parts : value);
  } catch (e) {
    return { error: `the handler's result cannot be encoded as JSON: ${describeThrown(e)}` };
  }
  if (text === undefined) {
    return { error: `the handler's result cannot be encoded as JSON (a ${typeof value})` };
  }
  // JSON text, so a lone surrogate is an escape here: U+FFFD, as for strings (core.js).
  return parts ? { content: wellFormedJson(text), parts } : { content: wellFormedJson(text) };
}

// The handler's ctx.signal, made when the handler first asks for it: node makes
// every AbortSignal transferable (~12 µs each), and most handlers never look.
function lazySignal() {
  let controller = null;
  let aborted = false;
  let reason;
  return {
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (aborted) controller.abort(reason);
      }
      return controller.signal;
    },
    abort(why) {
      if (aborted) return;
      aborted = true;
      reason = why;
      controller?.abort(why);
    },
  };
}

/**
 * Starts `handler(call.args, ctx)`; `onSettled` gets its one outcome (a call
 * past its timeoutMs settles as an error and its signal aborts). Returns
 * stop(reason): nothing waits for this call any more (the turn was aborted or
 * superseded): its timer is cancelled and ctx.signal aborts with `reason`.
 * @param {{handler: Function, call: {toolCallId: string, name: string, args: object,
 *          timeoutMs: number, threadId: string},
 *          onSettled: (outcome: {content: string, parts?: boolean} | {error: string}) => void}} job
 * @returns {(reason: Error) => void}
 */
export function runHandler({ handler, call, onSettled }) {
  const abort = lazySignal();
  let settled = false;
  const settle = (outcome) => {
    if (settled) return;
    settled = true;
    cancelTimer();
    onSettled(outcome);
  };
  const cancelTimer = schedule(call.timeoutMs, () => {
    settle({ error: `'${call.name}' timed out after ${call.timeoutMs} ms` });
    // tell the handler to stop; its late answer is ignored
    abort.abort(new AguiError('limit_exceeded', `timed out after ${call.timeoutMs} ms`));
  });
  const stop = (reason) => {
    settled = true;
    cancelTimer();
    abort.abort(reason);
  };

  if (typeof handler !== 'function') {
    settle({ error: `no handler is registered for '${call.name}' in this tab` });
    return stop;
  }
  const ctx = Object.freeze({
    threadId: call.threadId,
    toolCallId: call.toolCallId,
    get signal() {
      return abort.signal;
    },
  });
  // The handler starts in a microtask (after the step that asked for it is
  // carried out); a plain value settles the call there and then, a promise
  // (or any thenable) when it settles.
  const fail = (thrown) => settle({ error: describeThrown(thrown) });
  queueMicrotask(() => {
    let value;
    try {
      value = handler(call.args, ctx);
      if (
        value === null ||
        (typeof value !== 'object' && typeof value !== 'function') ||
        typeof value.then !== 'function'
      ) {
        settle(serialiseResult(value));
        return;
      }
    } catch (thrown) {
      fail(thrown);
      return;
    }
    Promise.resolve(value).then((result) => settle(serialiseResult(result)), fail);
  });
  return stop;
}
