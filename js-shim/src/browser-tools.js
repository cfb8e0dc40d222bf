// Ready tool definitions for what only the tab has: the user's location, the
// clipboard, the user's consent. Each is a plain definition a page registers
// (runtime.tools.register(getCurrentLocation)); failures come back as {error}
// results, so one denied permission never tears down the run.

function errorMessage(e) {
  return e && typeof e === 'object' && 'message' in e ? String(e.message) : String(e);
}

const GEOLOCATION_ERRORS = { 1: 'permission denied', 2: 'position unavailable', 3: 'timed out' };

/** @type {import('../index').ToolDefinition} */
export const getCurrentLocation = {
  name: 'get_current_location',
  description:
    "Read the user's current coordinates from the browser (Geolocation API). The browser asks the user for permission; if it is denied or unavailable the result is {error}.",
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  summary: 'Get current location',
  category: 'browser',
  timeoutMs: 20000,
  idempotent: true, // (reading it twice does no harm: it may run though the store fails)
  handler: (_args, ctx) =>
    new Promise((resolve) => {
      const geo = globalThis.navigator?.geolocation;
      if (!geo || typeof geo.getCurrentPosition !== 'function') {
        resolve({ error: 'the Geolocation API is not available in this browser' });
        return;
      }
      ctx.signal.addEventListener('abort', () => resolve({ error: 'cancelled' }), { once: true });
      geo.getCurrentPosition(
        (pos) =>
          resolve({
            latitude: pos.coords.latitude,
            longitude: pos.coords.longitude,
            accuracy: pos.coords.accuracy,
          }),
        (err) =>
          resolve({
            error: `location ${GEOLOCATION_ERRORS[err?.code] ?? 'failed'}${err?.message ? `: ${err.message}` : ''}`,
          }),
        { timeout: 15000, maximumAge: 60000 },
      );
    }),
};

/** @type {import('../index').ToolDefinition} */
export const copyToClipboard = {
  name: 'copy_to_clipboard',
  description: "Copy text to the user's clipboard.",
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text to copy.' } },
    required: ['text'],
    additionalProperties: false,
  },
  defaultEnabled: false,
  summary: 'Copy to clipboard',
  category: 'browser',
  idempotent: true,
  handler: async ({ text }) => {
    const clipboard = globalThis.navigator?.clipboard;
    if (!clipboard || typeof clipboard.writeText !== 'function') {
      return { error: 'the Clipboard API is not available (it needs a secure context)' };
    }
    try {
      await clipboard.writeText(text);
      return { copied: true, characters: [...text].length };
    } catch (e) {
      return { error: `could not write to the clipboard: ${errorMessage(e)}` };
    }
  },
};

/** @type {import('../index').ToolDefinition} */
export const readClipboard = {
  name: 'read_clipboard',
  description: "Read the text on the user's clipboard. The user approves each read.",
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  defaultEnabled: false,
  requiresApproval: true,
  confirm: 'Let the assistant read your clipboard?',
  summary: 'Read clipboard',
  idempotent: true,
  category: 'browser',
  handler: async () => {
    const clipboard = globalThis.navigator?.clipboard;
    if (!clipboard || typeof clipboard.readText !== 'function') {
      return { error: 'the Clipboard API is not available (it needs a secure context)' };
    }
    try {
      return { text: await clipboard.readText() };
    } catch (e) {
      return { error: `could not read the clipboard: ${errorMessage(e)}` };
    }
  },
};

/**
 * A human-in-the-loop gate: the run pauses on an approval card, and the tool
 * answers {decision: 'approved' | 'rejected'} once the user decides. It is an
 * ordinary approval of the core, so it is scoped to its thread and survives a
 * thread export.
 * @type {import('../index').ToolDefinition}
 */
export const requestUserApproval = {
  name: 'request_user_approval',
  description:
    'Ask the user to approve or reject an action before you take it. Returns {decision: "approved" | "rejected"}.',
  parameters: {
    type: 'object',
    properties: {
      action: { type: 'string', minLength: 1, description: 'What you want to do, in a few words.' },
      details: { type: 'string', description: 'Anything the user should know before deciding.' },
    },
    required: ['action'],
    additionalProperties: false,
  },
  defaultEnabled: false,
  requiresApproval: true,
  rejectedResult: { decision: 'rejected' },
  summary: 'Request approval',
  category: 'consent',
  handler: () => ({ decision: 'approved' }),
};

export const browserTools = Object.freeze({
  getCurrentLocation,
  copyToClipboard,
  readClipboard,
  requestUserApproval,
  all: Object.freeze([getCurrentLocation, copyToClipboard, readClipboard, requestUserApproval]),
});
