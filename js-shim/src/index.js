// agui-client-tools: client-side tools for AG-UI agents. The public API.
export { createRuntime, Runtime } from './runtime.js';
export { AguiError, ERROR_CODES } from './errors.js';
export {
  browserTools,
  getCurrentLocation,
  copyToClipboard,
  readClipboard,
  requestUserApproval,
} from './browser-tools.js';
export { loadCore as init } from './core.js';
export { createThreadView } from './thread-view.js';
export { contentParts } from './handlers.js';
export { memoryStore, indexedDbStore } from './storage.js';
export { applyChange } from './journal.js';

/** The default cap on follow-up runs per turn (MAX_FRONTEND_TOOL_ROUNDS; the core's kMaxFrontendToolRounds, kept equal by tests/node/mirror.test.mjs). */
export const MAX_FRONTEND_TOOL_ROUNDS = 5;
