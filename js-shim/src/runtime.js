// A runtime is one AG-UI thread in the tab. The core decides everything (what to
// send, which calls to run, when the turn ends); this file only carries its
// steps out: it posts runs, streams their bytes in, runs handlers, keeps
// timers, and tells subscribers what changed.
import { AguiError, describeSafely, jsonArgument, stringArgument, unwrap } from './errors.js';
import { feedBytes, heapText, loadCore, openDriver } from './core.js';
import { releaser, releaseWhenCollected, weakRef } from './heap.js';
import { driverConfig, randomId } from './options.js';
import { Journal, loadThread } from './journal.js';
import { PartialArgs } from './partial-args.js';
import { ToolSet } from './tool-set.js';
import { postRun } from './transport.js';
import { runHandler } from './handlers.js';
import { schedule } from './timers.js';

// The threads each store keeps for a runtime of this tab: a second runtime on one of them works in
// memory (two writers would undo each other's writes).
const keptThreads = new WeakMap(); // store -> Set of threadIds

// A stream that sends nothing (not even a comment) for this long is cut off.
const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

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
  #partials = new PartialArgs(); // each streaming call's arguments so far
  #journal = null; // the thread kept in options.persist, when there is one
  #unkeep = null; // lets another runtime of the page keep this thread, once this one is disposed
  #disposed = false;
  #unregisterFinalizer;
  #release;

  /** @internal use createRuntime(); `loadFailure`: why options.persist's record could not be read */
  constructor(core, tools, options, exported, loadFailure) {
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
        throw new AguiError(
          'invalid_argument',
          `createRuntime(): options.${key} must be a number of milliseconds >= 0 (0: none), got ${String(ms)}`,
        );
      }
    }
    const config = driverConfig(options, exported);
    const threadId = exported?.threadId ?? options.threadId ?? randomId();
    const driver = openDriver(core, tools.registry, stringArgument('createRuntime(): options.threadId', threadId));
    try {
      unwrap(driver.open(config, Date.now()));
    } catch (e) {
      driver.delete();
      throw e;
    }
    this.#driver = driver;
    const { lease, listeners } = tools;
    lease.refs += 1;
    this.threadId = JSON.parse(driver.status()).threadId;
    // The finalizer's held value (release) must not reach this runtime, or the
    // runtime is never collected: it holds only wasm handles and the listener
    // set, whose listener reaches the runtime through a WeakRef. Both are made
    // outside this constructor: a closure made here would share its scope, and
    // with it `this`, with the arrow functions below.
    const toolsListener = Runtime.#weakListener(weakRef(this));
    listeners.add(toolsListener);
    const release = releaser(driver, lease, listeners, toolsListener);
    this.#unregisterFinalizer = releaseWhenCollected(this, release);
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
      approve: (toolCallId) => {
        const id = stringArgument('approvals.approve(): toolCallId', toolCallId);
        this.#step(() => this.#driver.approve(this.threadId, id));
      },
      reject: (toolCallId, reason = '') => {
        const id = stringArgument('approvals.reject(): toolCallId', toolCallId);
        const why = stringArgument('approvals.reject(): reason', reason);
        this.#step(() => this.#driver.reject(this.threadId, id, why));
      },
    };
    this.interrupts = {
      pending: () => this.status.pendingInterrupts,
      resolve: (interruptId, payload = null) => {
        const id = stringArgument('interrupts.resolve(): interruptId', interruptId);
        const answer = jsonArgument('interrupts.resolve(): payload', payload ?? null);
        // (Past its expiresAt, the core cancels it instead.)
        this.#step(() => this.#driver.resolveInterrupt(id, answer, Date.now()));
      },
      cancel: (interruptId, reason = '') => {
        const id = stringArgument('interrupts.cancel(): interruptId', interruptId);
        const why = stringArgument('interrupts.cancel(): reason', reason);
        this.#step(() => this.#driver.cancelInterrupt(id, why));
      },
    };
    this.thread = {
      export: () => this.#live() && unwrap(this.#driver.exportThread()),
      delete: () => this.#deleteThread(),
    };
    if (options.persist) this.#keepIn(options.persist, loadFailure);
    if (exported) this.#resumeImported();
  }

  #keepIn(store, loadFailure) {
    this.#journal = new Journal({
      store,
      threadId: this.threadId,
      snapshot: () => JSON.parse(this.#driver.exportThread()),
      onFailure: (message) => this.#storageFailed(message),
    });
    if (!keptThreads.has(store)) keptThreads.set(store, new Set());
    const kept = keptThreads.get(store);
    const why = kept.has(this.threadId)
      ? `thread '${this.threadId}' is already kept in this store by another runtime of this page; this one works in memory`
      : loadFailure;
    if (why) {
      this.#journal.stop(); // what could not be read, or another runtime keeps, is never written over
      setTimeout(() => this.#storageFailed(why), 0); // after the caller's subscribe()
      return;
    }
    kept.add(this.threadId);
    this.#unkeep = () => kept.delete(this.threadId);
  }

  // Disposes the runtime and deletes its stored thread (after the write in flight, never before).
  async #deleteThread() {
    this.#live();
    const journal = this.#journal;
    if (!journal) throw new AguiError('invalid_state', 'thread.delete(): this runtime has no persist store');
    journal.stop(); // dispose() writes nothing now
    this.dispose();
    try {
      await journal.forget();
    } catch (e) {
      throw new AguiError('storage_failed', `thread.delete(): thread '${this.threadId}': ${describeSafely(e)}`);
    }
  }

  #storageFailed(message) {
    if (!this.#disposed) this.#emit({ kind: 'storage_failed', threadId: this.threadId, message });
  }

  static #weakListener(ref) {
    return (change) => ref.deref()?.#emit(change);
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
    if (textOrMessages === undefined || typeof textOrMessages === 'function' || typeof textOrMessages === 'symbol') {
      throw new AguiError('invalid_argument', 'send() takes a string or an array of messages');
    }
    const input = jsonArgument('send(): textOrMessages', textOrMessages);
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
    const why = stringArgument('abort(): reason', reason);
    this.#run?.controller.abort();
    this.#run = null;
    this.#cancelInflight(why || 'aborted');
    this.#carryOut(unwrap(this.#driver.abort(why)));
  }

  /** Opens another thread that shares this runtime's tools (and their toggles). */
  openThread(options = {}) {
    this.#live();
    if (!options || typeof options !== 'object')
      throw new AguiError('invalid_argument', 'openThread() takes an options object');
    const { thread, ...rest } = options;
    const persist = 'persist' in rest ? rest.persist : this.#options.persist;
    if (persist !== undefined && rest.threadId !== undefined && thread === undefined) {
      // It cannot load (it is synchronous), and a new thread under a stored id would be written over it.
      throw new AguiError(
        'invalid_argument',
        'openThread(): a threadId with persist: open a stored thread with createRuntime({ persist, threadId }), which loads it',
      );
    }
    try {
      return new Runtime(this.#core, this.#tools, { ...this.#options, threadId: undefined, ...rest }, thread);
    } catch (e) {
      // The constructor's errors name createRuntime(); here the caller called openThread().
      if (e instanceof AguiError) throw new AguiError(e.code, e.message.replace(/^createRuntime\(\)/, 'openThread()'));
      throw e;
    }
  }

  dispose() {
    if (this.#disposed) return;
    this.abort('the runtime was disposed');
    this.#journal?.close();
    this.#unkeep?.();
    for (const cancel of this.#timers.values()) cancel();
    this.#timers.clear();
    this.#disposed = true;
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

  // Each step carries the changes it made (the core attaches them). Streamed
  // arguments are replayed even when no one listens, for whoever comes next.
  #deliver(changes) {
    for (let change of changes) {
      if (change.kind === 'tool_call_partial') change = this.#partials.resolve(change);
      else if (change.kind === 'tool_call_ended') this.#partials.forget(change.toolCallId);
      else if (change.kind === 'run_started') this.#partials.forget();
      if (this.#subscribers.size !== 0) this.#emit(change);
    }
  }

  /** A user-facing call into the core: refusals throw, the step is carried out. */
  #step(call) {
    this.#live();
    const step = JSON.parse(call());
    if (step.error) throw new AguiError(step.error.code, step.error.message);
    this.#carryOut(step);
  }

  // `streamed`: a step of a run's bytes, kept within the journal's interval; any other step that
  // changed something is kept at once.
  #carryOut(step, streamed = false) {
    if (this.#disposed) return;
    if (step.changes) this.#deliver(step.changes);
    if (step.deadline !== undefined) this.#armDeadline(step.deadline);
    if (step.execute) this.#executeAll(step.execute);
    if (step.run) this.#post(step.run);
    if (step.done) this.#finish(step.done);
    if (step.changes && !step.execute) this.#journal?.changed(!streamed);
  }

  // Write-ahead: with a store, the handlers start once the thread that says they run is durable,
  // and only those the core still holds as running (an abort may have closed them meanwhile).
  #executeAll(calls) {
    if (!this.#journal || this.#journal.stopped) {
      for (const call of calls) this.#execute(call);
      return;
    }
    this.#journal.flush().then(() => {
      if (this.#disposed) return;
      const running = new Set(this.status.running);
      for (const call of calls) if (running.has(call.toolCallId)) this.#execute(call);
    });
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
        this.#carryOut(step, true);
        return !step.done && !step.stale; // false: stop reading
      },
      onEnd: () => {
        if (this.#run !== run || this.#disposed) return;
        this.#run = null;
        this.#carryOut(JSON.parse(this.#driver.endOfStream(run.runId, Date.now())));
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

  // Approvals and interrupts never hang unseen: the core decides their deadlines
  // (approvalTimeoutMs, an interrupt's expiresAt) and each step names the next
  // one due; the shim owns the clock and calls expire() then.
  #armDeadline(at) {
    if (at === null) return this.#clearTimer('deadline');
    this.#setTimer('deadline', Math.max(0, at - Date.now()), () => {
      const step = JSON.parse(this.#driver.expire(Date.now()));
      if (!step.error) this.#carryOut(step);
    });
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
    // An imported thread with pending approvals or interrupts is a turn in
    // progress: `resumed` resolves when it ends.
    if (this.status.phase === 'awaiting') {
      let resolve;
      const promise = new Promise((r) => (resolve = r));
      this.#turn = { promise, resolve };
      this.resumed = promise;
    }
    // Carried on in a macrotask, not a microtask: the caller's
    // `await createRuntime(...)` and its subscribe() run first, so no change of
    // the import (calls it closed, what came back pending) goes unseen.
    setTimeout(() => this.#disposed || this.#carryOut(unwrap(this.#driver.continueTurn(Date.now()))), 0);
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
  if (options.tools !== undefined && !Array.isArray(options.tools)) {
    throw new AguiError('invalid_argument', 'createRuntime(): options.tools must be an array of tool definitions');
  }
  const core = await loadCore({ wasm: options.wasm });
  const { thread, failure } = await savedThread(options);
  const tools = new ToolSet(core, options);
  let runtime = null;
  try {
    runtime = new Runtime(core, tools, options, thread, failure);
    for (const tool of options.tools ?? []) runtime.tools.register(tool);
    return runtime;
  } catch (e) {
    // A failed construction frees everything it took.
    if (runtime) runtime.dispose();
    else tools.release();
    throw e;
  }
}

// The thread to open: options.thread, else what options.persist holds for options.threadId.
async function savedThread(options) {
  const { persist: store, threadId, thread } = options;
  if (store === undefined) return { thread };
  if (!store || typeof store.load !== 'function' || typeof store.save !== 'function') {
    throw new AguiError(
      'invalid_argument',
      'createRuntime(): options.persist must be a thread store (an object with load() and save(); see memoryStore(), indexedDbStore())',
    );
  }
  if (thread !== undefined || threadId === undefined) return { thread };
  return loadThread(store, stringArgument('createRuntime(): options.threadId', threadId));
}
