// Loads the WebAssembly core once per page (or per node process) and hands out
// the raw embind classes. Internal: nothing here is part of the public API.
import createAguiCore from '../dist/agui_core.mjs';

let binaryLoader = null; // set by the node entry: node cannot fetch file URLs
let loading = null;

export function setBinaryLoader(loader) {
  binaryLoader = loader;
}

/**
 * Resolves to the instantiated module. `options.wasm` may be the module's bytes
 * (ArrayBuffer / Uint8Array) or its URL, for bundlers that do not follow
 * `new URL(..., import.meta.url)`.
 */
export function loadCore(options = {}) {
  if (loading && !options.wasm) return loading;
  const attempt = (async () => {
    const factoryOptions = {
      // Beside the module: this file is shipped built into dist/, beside the .wasm, so a page
      // that serves that folder under any name finds it, and bundlers that understand
      // new URL(literal, import.meta.url) (Vite, webpack 5, Parcel) ship it. (src/ itself runs
      // only in node, where node.js reads the file, or with options.wasm.)
      locateFile: (path) => (path.endsWith('.wasm') ? new URL('./agui_core.wasm', import.meta.url).href : path),
    };
    const wasm = options.wasm;
    if (wasm instanceof ArrayBuffer || ArrayBuffer.isView(wasm)) {
      factoryOptions.wasmBinary = wasm;
    } else if (typeof wasm === 'string' || wasm instanceof URL) {
      factoryOptions.locateFile = (path) => (path.endsWith('.wasm') ? String(wasm) : path);
    } else if (binaryLoader) {
      factoryOptions.wasmBinary = await binaryLoader();
    }
    return createAguiCore(factoryOptions);
  })();
  if (!options.wasm) {
    loading = attempt;
    // A failed load must not stick: the next call tries again.
    attempt.catch(() => {
      if (loading === attempt) loading = null;
    });
  }
  return attempt;
}

// Lone surrogates, one rule: in everything the shim hands the core, a lone
// surrogate becomes U+FFFD, as TextEncoder does. Plain strings need it because
// embind's UTF-8 encoder folds a lone surrogate with the next code unit into an
// invented code point (the character after it is lost); JSON text because
// JSON.stringify writes a lone surrogate as its \uXXXX escape, which the core's
// parser refuses.
// (No lookbehind in these patterns: Safari before 16.4 refuses the module at parse time.)
const SURROGATE = /[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]/g; // a pair, else a lone one

/** What String.prototype.toWellFormed does, for runtimes without it (node 18, Safari before 16.4). */
export const replaceLoneSurrogates = (text) =>
  text.replace(SURROGATE, (match) => (match.length === 2 ? match : '\ufffd'));

export const wellFormed =
  typeof String.prototype.toWellFormed === 'function' ? (text) => text.toWellFormed() : replaceLoneSurrogates;

// In JSON.stringify's output a valid pair is written as itself, so every
// surrogate escape is a lone one. Escaped backslashes are matched (and kept)
// as they come, so "\\ud800" (a backslash, then the text ud800) is never taken
// for an escape.
const SURROGATE_ESCAPE = /\\\\|\\u[dD][89a-fA-F][0-9a-fA-F]{2}/g;
const MAY_HOLD_ONE = /\\u[dD]/;

/** JSON text (from JSON.stringify) with U+FFFD itself for each lone-surrogate escape, as JSON.stringify writes it for a well-formed string. */
export const wellFormedJson = (json) =>
  MAY_HOLD_ONE.test(json) ? json.replace(SURROGATE_ESCAPE, (match) => (match.length === 2 ? match : '\ufffd')) : json;

const toCore = (value) => (typeof value === 'string' ? wellFormed(value) : value);
const jsonToCore = (value) => (typeof value === 'string' ? wellFormedJson(value) : value);

// The methods of the raw embind classes the shim calls (bindings/agui_bindings.cpp),
// each with the positions of its arguments that are JSON text.
const REGISTRY_METHODS = { configure: [0], add: [0], remove: [], setEnabled: [], advertise: [], catalog: [], list: [] };
const DRIVER_METHODS = {
  open: [0],
  send: [0, 1],
  inputBuffer: [],
  feed: [],
  endOfStream: [],
  transportFailed: [],
  submitResult: [],
  submitError: [],
  approve: [],
  reject: [],
  resolveInterrupt: [1],
  cancelInterrupt: [],
  abort: [],
  continueTurn: [],
  expire: [],
  runInput: [],
  request: [0],
  requestInput: [],
  requestFeed: [],
  requestCancel: [],
  takeChanges: [],
  status: [],
  messages: [],
  state: [],
  exportThread: [],
  exportJournal: [],
};

// The one place strings cross into the core: each method passes its string
// arguments through wellFormed(), its JSON text through wellFormedJson().
// `raw` is the embind object, `delete()` frees it.
function boundary(raw, methods) {
  const wrapped = { raw, delete: () => raw.delete() };
  for (const [name, jsonArgs] of Object.entries(methods)) {
    const method = raw[name];
    wrapped[name] = (...args) =>
      method.apply(
        raw,
        args.map((arg, i) => (jsonArgs.includes(i) ? jsonToCore(arg) : toCore(arg))),
      );
  }
  return wrapped;
}

/** A new tool registry in the core (the caller frees it with delete()). */
export const openRegistry = (core) => boundary(new core.Registry(), REGISTRY_METHODS);

/** A new driver for `threadId` over `registry` (from openRegistry; the caller frees it with delete()). */
export const openDriver = (core, registry, threadId) =>
  boundary(new core.Driver(registry.raw, wellFormed(threadId)), DRIVER_METHODS);

const utf8 = new TextDecoder();
const encoder = new TextEncoder();

/**
 * The text a raw Driver hands out as a view of the wasm heap (feed()'s step,
 * runInput()), decoded at once: the view is valid only until the next call.
 * Embind's own std::string path copies text out one byte at a time in JS, and
 * input in the same way (agui_bindings.cpp says more).
 */
export const heapText = (view) => utf8.decode(view);

/**
 * Feeds one chunk of a run's response body (bytes, or text for tests) to a raw
 * Driver and returns the step it answers: the chunk is written straight into
 * the core's input buffer, the step decoded straight from the heap.
 */
export function feedBytes(driver, runId, chunk) {
  const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
  // Nothing calls into wasm between taking the view and writing it, so the heap
  // cannot grow (and detach the view) in between.
  const input = driver.inputBuffer(bytes.length);
  // Thrown inside the transport's read loop, this ends the run with a run_error.
  if (input === null) throw new Error(`a chunk of ${bytes.length} bytes does not fit in the wasm heap`);
  input.set(bytes);
  return JSON.parse(heapText(driver.feed(runId)));
}
