// The error the public API throws. `code` is one of the core's error codes
// (wasm/common/error.hpp is their one definition; ERROR_CODES mirrors it and a test
// keeps the two in step).
export const ERROR_CODES = Object.freeze([
  'invalid_tool',
  'duplicate_tool',
  'unknown_tool',
  'invalid_schema',
  'invalid_json',
  'invalid_argument',
  'invalid_state',
  'wrong_thread',
  'unknown_tool_call',
  'unknown_interrupt',
  'already_answered',
  'limit_exceeded',
  'protocol',
  'transport',
  'internal',
  'storage_failed',
]);

export class AguiError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'AguiError';
    this.code = code;
  }
}

/** Parses a JSON answer from the core; an {error} becomes a thrown AguiError. */
export function unwrap(text) {
  const value = JSON.parse(text);
  if (value && typeof value === 'object' && !Array.isArray(value) && value.error && value.error.code) {
    throw new AguiError(value.error.code, value.error.message);
  }
  return value;
}

/** A thrown value as text, never throwing itself (a getter or toString may). */
export function describeSafely(value) {
  try {
    return value instanceof Error ? String(value.message) : String(value);
  } catch {
    return 'a value that cannot be described';
  }
}

// Public methods turn their arguments into what the core takes through these
// two, so bad input (a BigInt, a cycle, a toString that throws) is an AguiError
// naming the method and the argument: `where` is e.g. 'approvals.approve(): toolCallId'.

/** String(value), or an invalid_argument AguiError naming `where`. */
export function stringArgument(where, value) {
  try {
    return String(value);
  } catch (e) {
    throw new AguiError('invalid_argument', `${where} cannot be read as a string: ${describeSafely(e)}`);
  }
}

/** JSON.stringify(value), or an invalid_argument AguiError naming `where` (also for what JSON drops: a function, undefined). */
export function jsonArgument(where, value) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw new AguiError('invalid_argument', `${where} cannot be encoded as JSON: ${describeSafely(e)}`);
  }
  if (text === undefined)
    throw new AguiError('invalid_argument', `${where} cannot be encoded as JSON (a ${typeof value})`);
  return text;
}

/** "null", "an array", "a string", "an object": what a value is, for a message. */
export function kindOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'missing';
  if (value === '') return 'an empty string';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The index of the first lone surrogate in `text` (one not in a high-low pair), or -1. */
function loneSurrogateAt(text) {
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return i;
    i += 1; // (a pair)
  }
  return -1;
}

/**
 * A thread id, the one check of every entry point that takes one (createRuntime(), openThread(),
 * openStoredThread(), the stores): a non-empty string of well-formed text, else an
 * invalid_argument AguiError naming `where` (e.g. 'openStoredThread(): threadId'). A lone
 * surrogate is refused, not replaced: the core and the request would carry its U+FFFD form while
 * a store keys the id as given, so a reload would not find the thread under either.
 */
export function threadIdArgument(where, value) {
  if (typeof value !== 'string' || value === '')
    throw new AguiError('invalid_argument', `${where} must be a non-empty string, not ${kindOf(value)}`);
  const at = loneSurrogateAt(value);
  if (at !== -1) {
    const unit = value.charCodeAt(at).toString(16).toUpperCase();
    throw new AguiError(
      'invalid_argument',
      `${where} must be well-formed text: ${JSON.stringify(value)} has a lone surrogate (U+${unit}) at index ${at}`,
    );
  }
  return value;
}
