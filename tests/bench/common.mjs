// Shared bench helpers: medians, formatting, a fake fetch that streams prepared SSE chunks, and SSE framing of
// small scripted runs (tool calls, text) for the round and memory benches.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeEvents, runFinished, runStarted } from './generate.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The core's sources as CMakeLists.txt lists them in agui_core (one list, so a file moved in wasm/ reaches the benches),
 * and the build's default regex engine: std::regex natively, the host's RegExp (bindings/) in wasm.
 */
export function coreSources({ wasm }) {
  const cmake = fs.readFileSync(path.join(ROOT, 'CMakeLists.txt'), 'utf8');
  // The list ends at the ')' alone on its line: the comments between the sources hold parentheses of their own.
  const block = /add_library\(agui_core STATIC\n([\s\S]*?)\n\)/.exec(cmake)[1];
  const listed = block
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean);
  // In wasm, the host's RegExp engine and the module's own libc number functions (bindings/CMakeLists.txt).
  const host = wasm
    ? ['bindings/regexp_engine.cpp', 'bindings/libc_numbers.cpp', 'bindings/libc_printf.cpp']
    : ['wasm/schema/std_regex_engine.cpp'];
  return [...listed, ...host].map((f) => path.join(ROOT, f));
}

// The raw Driver's calls that take the host's clock (open, endOfStream, resolveInterrupt, continueTurn: `now`,
// Date.now()) since the core keeps deadlines; a build from before took none, and embind refuses a wrong count.
// Probed once per module, so a before/after comparison calls each build as it expects: `...nowArgs(core)`.
const TAKES_NOW = new WeakMap();
export function nowArgs(core) {
  if (!TAKES_NOW.has(core)) {
    const registry = new core.Registry();
    const driver = new core.Driver(registry, 'probe');
    let takes = true;
    try {
      driver.open('{"options":{}}', 0);
    } catch {
      takes = false;
    }
    driver.delete();
    registry.delete();
    TAKES_NOW.set(core, takes);
  }
  return TAKES_NOW.get(core) ? [Date.now()] : [];
}

/** The NOOP tool's definition, and a raw registry of the core holding it (the benches' one tool). */
export const NOOP = {
  name: 'noop',
  description: 'does nothing',
  parameters: { type: 'object', properties: { i: { type: 'integer' } } },
};
export function noopRegistry(core) {
  const registry = new core.Registry();
  JSON.parse(registry.add(JSON.stringify(NOOP)));
  return registry;
}

/** Every header under wasm/, for the benches that rebuild when one changes. */
export const coreHeaders = () =>
  fs
    .readdirSync(path.join(ROOT, 'wasm'), { recursive: true })
    .filter((f) => f.endsWith('.hpp'))
    .map((f) => path.join(ROOT, 'wasm', f));

/** Builds a native bench target of tests/bench/CMakeLists.txt (O2 with symbols, incrementally) and returns its path. */
export function buildNativeBench(target, { stdio = 'inherit' } = {}) {
  const dir = path.join(ROOT, 'build-bench');
  if (!fs.existsSync(path.join(dir, 'CMakeCache.txt'))) {
    execFileSync(
      'cmake',
      ['-S', ROOT, '-B', dir, '-DCMAKE_BUILD_TYPE=RelWithDebInfo', '-DAGUI_BUILD_TESTS=OFF', '-DAGUI_BUILD_BENCHES=ON'],
      { stdio },
    );
  }
  execFileSync('cmake', ['--build', dir, '--target', target, '-j2'], { stdio });
  return path.join(dir, 'tests/bench', target);
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

/** Collects garbage when node runs with --expose-gc (run.mjs restarts itself with it). */
export const gc = () => globalThis.gc?.();

export const fmtInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
export const fmtNum = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
export const fmtKB = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
export const pad = (s, n) => String(s).padEnd(n);
export const lpad = (s, n) => String(s).padStart(n);

export const SSE_HEADERS = { 'content-type': 'text/event-stream' };

/**
 * A Response whose body yields `parts` one per read (highWaterMark 0: a part is produced only when the reader asks,
 * so onLast(now), run just before the last part is enqueued, marks the moment the reader gets it).
 */
export function streamResponse(parts, onLast) {
  let i = 0;
  return new Response(
    new ReadableStream(
      {
        pull(controller) {
          if (i >= parts.length) {
            controller.close();
            return;
          }
          if (i === parts.length - 1 && onLast) onLast(performance.now());
          controller.enqueue(parts[i]);
          i += 1;
          if (i === parts.length) controller.close();
        },
      },
      { highWaterMark: 0 },
    ),
    { headers: SSE_HEADERS },
  );
}

/** fetch(url, init) serving one generated stream (see generate.mjs makeStream) framed with the request's ids. */
export function streamFetch(stream) {
  return async (url, init) => {
    const input = JSON.parse(init.body);
    const [head, tail] = stream.frame(input.threadId, input.runId);
    return streamResponse([head, ...stream.chunks, tail]);
  };
}

/**
 * The SSE bytes of a small scripted run: a short assistant text, then `calls` tool calls to `tool(i)` with
 * arguments `args(i)` (under that assistant message), streamed in 2-3 ARGS deltas each; or just text when calls = 0.
 */
export function scriptedRun(
  threadId,
  runId,
  { calls = 0, tool = () => 'noop', args = (i) => ({ i }), tag = '', messagePerCall = false } = {},
) {
  const messageId = `m-${runId}${tag}`;
  const events = [runStarted(threadId, runId)];
  events.push({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' });
  events.push({
    type: 'TEXT_MESSAGE_CONTENT',
    messageId,
    delta: calls ? 'Let me check.' : 'Done: here is the answer.',
  });
  events.push({ type: 'TEXT_MESSAGE_END', messageId });
  for (let i = 0; i < calls; i += 1) {
    const toolCallId = `c-${runId}${tag}-${i}`;
    const text = JSON.stringify(args(i));
    const cut1 = Math.floor(text.length / 3);
    const cut2 = Math.floor((2 * text.length) / 3);
    // messagePerCall: each call on an assistant message of its own (as some servers send parallel calls).
    const parentMessageId = messagePerCall ? `${messageId}-${i}` : messageId;
    events.push({ type: 'TOOL_CALL_START', toolCallId, toolCallName: tool(i), parentMessageId });
    for (const delta of [text.slice(0, cut1), text.slice(cut1, cut2), text.slice(cut2)]) {
      if (delta) events.push({ type: 'TOOL_CALL_ARGS', toolCallId, delta });
    }
    events.push({ type: 'TOOL_CALL_END', toolCallId });
  }
  events.push(runFinished(threadId, runId));
  return encodeEvents(events);
}

/** Splits `bytes` into `n` roughly equal parts (so the last part carries RUN_FINISHED). */
export function parts(bytes, n = 2) {
  const out = [];
  const size = Math.ceil(bytes.length / n);
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

/** Splits SSE bytes before their last event, so the last part is exactly that event (RUN_FINISHED). */
export function splitBeforeLastEvent(bytes) {
  // The last "data:" that starts a line, scanning back past the final blank line.
  for (let i = bytes.length - 3; i > 0; i -= 1) {
    if (
      bytes[i - 1] === 0x0a &&
      bytes[i] === 0x64 /* d */ &&
      bytes[i + 1] === 0x61 &&
      bytes[i + 2] === 0x74 &&
      bytes[i + 3] === 0x61
    ) {
      return [bytes.subarray(0, i), bytes.subarray(i)];
    }
  }
  return [bytes];
}
