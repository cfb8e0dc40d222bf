// A runtime is one AG-UI thread in the tab. The core decides everything (what to
// send, which calls to run, when the turn ends); this file only carries its
// steps out: it posts runs, streams their bytes in, runs handlers, keeps
// timers, and tells subscribers what changed.
import { AguiError, unwrap } from './errors.js';
import { feedBytes, heapText, loadCore } from './core.js';
import { postRun } from './transport.js';
import { runHandler } from './handlers.js';
import { schedule } from './timers.js';

const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((release) => release())
    : null;

let idCounter = 0;
function randomId() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  idCounter += 1;
  return `${Date.now().toString(36)}-${idCounter}-${Math.random().toString(36).slice(2, 10)}`;
}

// A stream that sends nothing (not even a comment) for this long is cut off.
const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

// Keys of createRuntime() options that configure the core's driver.
const DRIVER_OPTIONS = ['maxRounds', 'repeatLimit', 'defaultTimeoutMs', 'context', 'forwardedProps'];
const LIMIT_OPTIONS = ['maxEventBytes', 'maxArgumentBytes', 'maxResultBytes', 'maxMessageBytes', 'maxJsonDepth', 'maxCallsPerRound'];

/** Shared by every thread a page opens from one runtime: the tools and their handlers. */
class ToolSet {
  constructor(core, options) {
    this.registry = new core.Registry();
    if (options.stampSchemaExtensions || options.allowBacktrackingPatterns) {
      unwrap(this.registry.configure(JSON.stringify({
        stampSchemaExtensions: Boolean(options.stampSchemaExtensions),
        allowBacktrackingPatterns: Boolean(options.allowBacktrackingPatterns),
      })));
    }
    this.handlers = new Map();
    this.listeners = new Set(); // threads, told when the set changes
    this.refs = 0;
  }

  register(definition) {
    if (!definition || typeof definition !== 'object') {
      throw new AguiError('invalid_tool', 'tools.register() takes a tool definition object');
    }
    const { handler, ...rest } = definition;
    if (typeof handler !== 'function') {
      throw new AguiError(
        'invalid_tool',
        `tool '${String(definition.name)}': handler must be a function (args, ctx) => result`,
      );
    }
    let text;
    try {
      text = JSON.stringify(rest);
    } catch (e) {
      throw new AguiError('invalid_tool', `tool '${String(definition.name)}': definition is not JSON-serialisable: ${e.message}`);
    }
    unwrap(this.registry.add(text));
    this.handlers.set(rest.name, handler);
    this.changed();
  }

  unregister(name) {
    unwrap(this.registry.remove(String(name)));
    this.handlers.delete(name);
    this.changed();
  }

  setEnabled(name, enabled) {
    unwrap(this.registry.setEnabled(String(name), Boolean(enabled)));
    this.changed();
  }

  changed() {
    for (const listener of this.listeners) listener({ kind: 'tools_changed' });
  }

  release() {
    this.refs -= 1;
    if (this.refs <= 0 && this.registry) {
      this.registry.delete();
      this.registry = null;
    }
  }
}

export class Runtime {
  #core;
  #tools;
  #driver;
  #options;
  #fetch;
  #subscribers = new Set();
  #turn = null; // {promise, resolve}
  #run = null; // {runId, controller}
  #inflight = new Map(); // toolCallId -> {stop}: the running handler's job
  #timers = new Map(); // key -> cancel function (approval and interrupt deadlines)
  #lastInput = null; // the last 'request' change: its input is parsed on demand
  #disposed = false;
  #unregisterFinalizer;
  #release;
  #toolsListener = (change) => this.#emit(change);

  /** @internal use createRuntime() */
  constructor(core, tools, options, exported) {
    this.#core = core;
    this.#tools = tools;
    this.#options = options;
    this.#fetch = options.fetch ?? globalThis.fetch?.bind(globalThis);
    if (typeof this.#fetch !== 'function') {
      throw new AguiError('invalid_argument', 'createRuntime(): no fetch available; pass options.fetch');
    }
    if (typeof options.url !== 'string' && !(options.url instanceof URL)) {
      throw new AguiError('invalid_argument', 'createRuntime(): options.url (the agent endpoint) is required');
    }
    for (const key of ['idleTimeoutMs', 'approvalTimeoutMs']) {
      const ms = options[key];
      if (ms !== undefined && !(typeof ms === 'number' && ms >= 0 && !Number.isNaN(ms))) {
        throw new AguiError('invalid_argument', `createRuntime(): options.${key} must be a number of milliseconds >= 0 (0: none), got ${String(ms)}`);
      }
    }
    const driverOptions = { idPrefix: randomId().slice(0, 8) };
    for (const key of DRIVER_OPTIONS) if (options[key] !== undefined) driverOptions[key] = options[key];
    for (const key of LIMIT_OPTIONS) if (options.limits?.[key] !== undefined) driverOptions[key] = options.limits[key];
    const threadId = exported?.threadId ?? options.threadId ?? randomId();
    const driver = new core.Driver(tools.registry, String(threadId));
    try {
      unwrap(driver.open(JSON.stringify(exported ? { options: driverOptions, export: exported } : { options: driverOptions })));
    } catch (e) {
      driver.delete();
      throw e;
    }
    this.#driver = driver;
    tools.refs += 1;
    this.threadId = JSON.parse(driver.status()).threadId;
    tools.listeners.add(this.#toolsListener);

    const release = () => {
      driver.delete();
      tools.release();
    };
    if (finalizer) {
      const token = {};
      finalizer.register(this, release, token);
      this.#unregisterFinalizer = () => finalizer.unregister(token);
    }
    this.#release = release;

    this.tools = {
      register: (definition) => this.#live() && tools.register(definition),
      unregister: (name) => this.#live() && tools.unregister(name),
      setEnabled: (name, enabled) => this.#live() && tools.setEnabled(name, enabled),
      list: () => this.#live() && unwrap(tools.registry.list()),
      catalog: () => this.#live() && unwrap(tools.registry.catalog()),
      advertise: () => this.#live() && unwrap(tools.registry.advertise()),
    };
    this.approvals = {
      pending: () => this.status.pendingApprovals,
      approve: (toolCallId) => this.#step(() => this.#driver.approve(this.threadId, String(toolCallId))),
      reject: (toolCallId, reason = '') =>
        this.#step(() => this.#driver.reject(this.threadId, String(toolCallId), String(reason))),
    };
    this.interrupts = {
      pending: () => this.status.pendingInterrupts,
      resolve: (id, payload = null) =>
        this.#step(() => this.#driver.resolveInterrupt(String(id), JSON.stringify(payload ?? null))),
      cancel: (id, reason = '') => this.#step(() => this.#driver.cancelInterrupt(String(id), String(reason))),
    };
    this.thread = {
      export: () => this.#live() && unwrap(this.#driver.exportThread()),
    };
    if (exported) this.#resumeImported();
  }

  #live() {
    if (this.#disposed) throw new AguiError('invalid_state', 'this runtime was disposed');
    return true;
  }

  /** The thread's messages (AG-UI Message[]), a fresh copy. */
  get messages() {
    this.#live();
    return unwrap(this.#driver.messages());
  }

  /** The agent state as the last STATE_SNAPSHOT / STATE_DELTA left it. */
  get state() {
    this.#live();
    return unwrap(this.#driver.state());
  }

  /** {phase, threadId, round, runId?, pendingApprovals, pendingInterrupts, running}. */
  get status() {
    this.#live();
    return unwrap(this.#driver.status());
  }

  /** The last RunAgentInput this runtime sent (for debugging UIs). */
  get lastInput() {
    return this.#lastInput?.input ?? null;
  }

  /** Calls `listener(change)` for every change; returns the unsubscribe function. */
  subscribe(listener) {
    if (typeof listener !== 'function') throw new AguiError('invalid_argument', 'subscribe() takes a function');
    this.#subscribers.add(listener);
    return () => this.#subscribers.delete(listener);
  }

  /**
   * Sends a user message (a string) or messages, then drives the round loop
   * until the turn ends. Resolves to {reason, message?, code?}.
   */
  send(textOrMessages) {
    this.#live();
    const input = JSON.stringify(textOrMessages);
    if (input === undefined) throw new AguiError('invalid_argument', 'send() takes a string or an array of messages');
    // The core refuses bad input before anything changes; a valid message
    // supersedes a turn in progress (the core closes its calls), so its request
    // is cancelled and its handlers are told to stop.
    const step = unwrap(this.#driver.send(input));
    const previous = this.#turn;
    this.#run?.controller.abort();
    this.#run = null;
    if (previous) {
      this.#cancelInflight('superseded by a new message');
      this.#turn = null;
      previous.resolve({ reason: 'aborted', message: 'superseded by a new message' });
    }
    let resolve;
    const promise = new Promise((r) => (resolve = r));
    this.#turn = { promise, resolve };
    this.#carryOut(step);
    return promise;
  }

  /** Stops the turn: cancels the request, signals running handlers, closes open calls. */
  abort(reason = '') {
    if (this.#disposed) return;
    this.#run?.controller.abort();
    this.#run = null;
    this.#cancelInflight(reason || 'aborted');
    this.#carryOut(unwrap(this.#driver.abort(String(reason))));
  }

  /** Opens another thread that shares this runtime's tools (and their toggles). */
  openThread(options = {}) {
    this.#live();
    const { thread, ...rest } = options;
    return new Runtime(this.#core, this.#tools, { ...this.#options, threadId: undefined, ...rest }, thread);
  }

  dispose() {
    if (this.#disposed) return;
    this.abort('the runtime was disposed');
    for (const cancel of this.#timers.values()) cancel();
    this.#timers.clear();
    this.#disposed = true;
    this.#tools.listeners.delete(this.#toolsListener);
    this.#unregisterFinalizer?.();
    this.#release();
    if (this.#turn) {
      this.#turn.resolve({ reason: 'aborted', message: 'the runtime was disposed' });
      this.#turn = null;
    }
  }

  [Symbol.dispose]() {
    this.dispose();
  }

  // ------------------------------------------------------------ carrying out

  #emit(change) {
    for (const listener of this.#subscribers) {
      try {
        listener(change);
      } catch (e) {
        // A subscriber's bug must not break the loop.
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }

  // Each step carries the changes it made (the core attaches them).
  #deliver(changes) {
    if (this.#subscribers.size === 0) return;
    for (const change of changes) this.#emit(change);
  }

  /** A user-facing call into the core: refusals throw, the step is carried out. */
  #step(call) {
    this.#live();
    const step = JSON.parse(call());
    if (step.error) throw new AguiError(step.error.code, step.error.message);
    this.#carryOut(step);
  }

  #carryOut(step) {
    if (this.#disposed) return;
    const changes = step.changes;
    if (changes) {
      this.#deliver(changes);
      this.#watchDeadlines(changes);
    }
    if (step.execute) for (const call of step.execute) this.#execute(call);
    if (step.run) this.#post(step.run);
    if (step.done) this.#finish(step.done);
  }

  #finish(done) {
    this.#run = null;
    const turn = this.#turn;
    this.#turn = null;
    turn?.resolve({ ...done });
  }

  #post({ runId }) {
    // The body goes out as the core wrote it; it is parsed only if someone
    // looks (lastInput, a 'request' change), once.
    const body = heapText(this.#driver.runInput());
    let input;
    const request = {
      kind: 'request',
      get input() {
        return (input ??= JSON.parse(body));
      },
    };
    this.#lastInput = request;
    const controller = new AbortController();
    const run = { runId, controller };
    this.#run = run;
    this.#emit(request);
    postRun({
      url: String(this.#options.url),
      headers: this.#options.headers,
      fetch: this.#fetch,
      body,
      controller,
      idleTimeoutMs: this.#options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      onBytes: (bytes) => {
        if (this.#run !== run || this.#disposed) return false;
        const step = feedBytes(this.#driver, run.runId, bytes);
        this.#carryOut(step);
        return !step.done && !step.stale; // false: stop reading
      },
      onEnd: () => {
        if (this.#run !== run || this.#disposed) return;
        this.#run = null;
        this.#carryOut(JSON.parse(this.#driver.endOfStream(run.runId)));
      },
      onFailure: (message) => {
        if (this.#run !== run || this.#disposed) return;
        this.#run = null;
        this.#carryOut(JSON.parse(this.#driver.transportFailed(run.runId, message)));
      },
    });
  }

  #execute(call) {
    const job = { stop: null };
    this.#inflight.set(call.toolCallId, job);
    job.stop = runHandler({
      handler: this.#tools.handlers.get(call.name),
      call,
      onSettled: (outcome) => {
        if (this.#inflight.get(call.toolCallId) !== job) return; // aborted or superseded
        this.#inflight.delete(call.toolCallId);
        if (this.#disposed) return;
        const text =
          'error' in outcome
            ? this.#driver.submitError(call.toolCallId, outcome.error)
            : this.#driver.submitResult(call.toolCallId, outcome.content);
        const step = JSON.parse(text);
        if (!step.error) this.#carryOut(step); // a refused late answer is dropped by design
      },
    });
  }

  #cancelInflight(reason) {
    const jobs = [...this.#inflight.values()];
    this.#inflight.clear();
    for (const job of jobs) job.stop?.(new AguiError('invalid_state', reason));
  }

  // Approvals and interrupts never hang unseen: interrupts honour expiresAt,
  // approvals an optional approvalTimeoutMs; an expired one is answered as
  // rejected / cancelled with the reason.
  #watchDeadlines(changes) {
    for (const change of changes) {
      if (change.kind === 'approval_requested' && this.#options.approvalTimeoutMs > 0) {
        const { toolCallId } = change.approval;
        const ms = this.#options.approvalTimeoutMs;
        this.#setTimer(`approval:${toolCallId}`, ms, () => {
          const step = JSON.parse(this.#driver.reject(this.threadId, toolCallId, `approval timed out after ${ms} ms`));
          if (!step.error) this.#carryOut(step);
        });
      } else if (change.kind === 'interrupts') {
        for (const interrupt of change.interrupts) {
          if (!interrupt.expiresAt) continue;
          const at = Date.parse(interrupt.expiresAt);
          if (Number.isNaN(at)) continue;
          this.#setTimer(`interrupt:${interrupt.id}`, Math.max(0, at - Date.now()), () => {
            const step = JSON.parse(this.#driver.cancelInterrupt(interrupt.id, `expired at ${interrupt.expiresAt}`));
            if (!step.error) this.#carryOut(step);
          });
        }
      } else if (change.kind === 'tool_call_status' && change.status !== 'pending_approval') {
        this.#clearTimer(`approval:${change.toolCallId}`);
      } else if (change.kind === 'interrupt_answered') {
        this.#clearTimer(`interrupt:${change.interruptId}`);
      }
    }
  }

  #setTimer(key, ms, fire) {
    this.#clearTimer(key);
    this.#timers.set(
      key,
      schedule(ms, () => {
        this.#timers.delete(key);
        if (!this.#disposed) fire();
      }),
    );
  }

  #clearTimer(key) {
    this.#timers.get(key)?.();
    this.#timers.delete(key);
  }

  #resumeImported() {
    const status = this.status;
    if (status.phase !== 'awaiting') return;
    // An imported thread with pending approvals or interrupts is a turn in
    // progress: `resumed` resolves when it ends.
    let resolve;
    const promise = new Promise((r) => (resolve = r));
    this.#turn = { promise, resolve };
    this.resumed = promise;
    // Carried on in a macrotask, not a microtask: the caller's
    // `await createRuntime(...)` and its subscribe() run first, so no change of
    // the resumed turn goes unseen.
    setTimeout(() => {
      if (this.#disposed) return;
      const now = this.status;
      const changes = [];
      for (const approval of now.pendingApprovals) changes.push({ kind: 'approval_requested', approval });
      if (now.pendingInterrupts.length) changes.push({ kind: 'interrupts', interrupts: now.pendingInterrupts });
      this.#watchDeadlines(changes); // re-arm the deadlines of what came back pending
      this.#carryOut(unwrap(this.#driver.continueTurn()));
    }, 0);
  }
}

/**
 * Creates a runtime for one thread. Loads the WebAssembly core the first time.
 * @param {import('../index').RuntimeOptions} options
 */
export async function createRuntime(options = {}) {
  if (!options || typeof options !== 'object') {
    throw new AguiError('invalid_argument', 'createRuntime() takes an options object');
  }
  const core = await loadCore({ wasm: options.wasm });
  const tools = new ToolSet(core, options);
  try {
    const runtime = new Runtime(core, tools, options, options.thread);
    for (const tool of options.tools ?? []) runtime.tools.register(tool);
    return runtime;
  } catch (e) {
    if (tools.refs === 0) tools.release();
    throw e;
  }
}
