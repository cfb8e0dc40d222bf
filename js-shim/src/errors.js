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
