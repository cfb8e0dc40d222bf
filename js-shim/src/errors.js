// The error the public API throws. `code` is one of the core's error codes
// (wasm/error.hpp is their one definition; ERROR_CODES mirrors it and a test
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
