// A runtime is one AG-UI thread in the tab. The core decides everything (what to
// send, which calls to run, when the turn ends); this file only carries its
// steps out: it posts runs, streams their bytes in, runs handlers, keeps
// timers, and tells subscribers what changed.
import { AguiError, describeSafely, jsonArgument, kindOf, stringArgument, threadIdArgument, unwrap } from './errors.js';
import { feedBytes, heapText, loadCore, openDriver } from './core.js';
import { releaser, releaseWhenCollected, weakRef } from './heap.js';
import { driverConfig, randomId } from './options.js';
import { Journal, loadThread, storeName } from './journal.js';
import { Leadership, uncoordinated } from './leadership.js';
import { fitsChannel, withShown } from './tab-messages.js';
import { PartialArgs } from './partial-args.js';
import { ToolSet } from './tool-set.js';
import { postRun } from './transport.js';
import { runHandler } from './handlers.js';
import { schedule } from './timers.js';

// The threads each store keeps for a runtime of this tab: a second runtime on one of them works in
// memory (two writers would undo each other's writes).
const keptThreads = new WeakMap(); // store -> Set of threadIds
const JOIN = Symbol('join'); // createRuntime() of a follower waits on it

// A stream that sends nothing (not even a comment) for this long is cut off.
const DEFAULT_IDLE_TIMEOUT_MS = 120_000;
// After this client left a run in flight, an empty answer to the next request is
// the server still running the old one (CopilotKit): it is sent again after each
// of these delays before the turn ends run_error.
const EMPTY_RETRY_DELAYS_MS = [300, 700, 1500];

// Tabs on one thread (docs/persistence.md#tabs). A follower waits this long for the tab in charge
// to send it the thread, then shows what the store holds; a tab that handed its thread over takes
// it back when the other tab has not taken it within HANDOVER_MS.
const FOLLOW_TIMEOUT_MS = 2000;
const HANDOVER_MS = 2000;
// While a run streams, followers get the message list at most this often (each change at once).
const MIRROR_INTERVAL_MS = 100;
// The changes that only grow a message already there: they carry no new message list to followers.
const GROWING = new Set(['text_appended', 'tool_call_args', 'tool_call_partial', 'metadata_merged', 'event']);
// What a follower may ask of the tab in charge: the same public methods, carried out there.
const COMMANDS = {
  send: (runtime, [input, options]) => runtime.send(input, options),
  approve: (runtime, [id]) => runtime.approvals.approve(id),
  reject: (runtime, [id, reason]) => runtime.approvals.reject(id, reason),
  resolveInterrupt: (runtime, [id, payload]) => runtime.interrupts.resolve(id, payload),
  cancelInterrupt: (runtime, [id, reason]) => runtime.interrupts.cancel(id, reason),
  abort: (runtime, [reason]) => runtime.abort(reason),
  request: (runtime, [options]) => runtime.request(options),
  delete: (runtime) => runtime.thread.delete(),
};

export class Runtime {
  #core;
  #tools;
  #driver;
  #options;
  #fetch;
  #subscribers = new Set();
  #turn = null; // {promise, resolve}
  #run = null; // {runId, controller}
  // This client left a run in flight (abort(), a superseding send()) and no
  // run has streamed since: the server may still be running it (EMPTY_RETRY_DELAYS_MS).
  #leftRun = false;
  #inflight = new Map(); // toolCallId -> {stop}: the running handler's job
  #requests = new Map(); // the side requests (request()) in flight: AbortController -> reject
  #timers = new Map(); // key -> cancel function (approval and interrupt deadlines)
  #lastInput = null; // the last 'request' change: its input is parsed on demand
  #partials = new PartialArgs(); // each streaming call's arguments so far
  #journal = null; // the thread kept in options.persist, when there is one
  #unkeep = null; // lets another runtime of the page keep this thread, once this one is disposed
  #handle = { driver: null }; // the driver the releaser frees (a tab taking charge replaces it)
  // Tabs on one thread: `#tabs` is the lock and channel (null: this runtime is alone with it).
  #tabs = null;
  #role = 'alone'; // 'leader' | 'follower' | 'alone'
  #mirror = null; // follower: {messages, status, state}, JSON texts as the tab in charge sent them
  #followers = new Set(); // leader: the tabIds following it
  #wanted = null; // leader: the follower that has the user's focus and asked to take charge
  #commands = new Map(); // follower: id -> {resolve, reject, messageId?}, asked of the tab in charge
  #unsure = []; // sends asked of a tab no longer in charge: settled once the thread shows whether they arrived
  #turnWaiters = []; // sends that arrived: resolved with the end of the turn they started
  #unwatchFocus = null;
  #wantIfFocused = null; // follower: asks for charge when the page has the user's focus
  #wantUnanswered = false; // follower: it asked for charge, and has not heard of a new tab in charge since
  #handing = false; // leader: a hand-over waits for a write to land
  #behind = false; // leader: its closing write for a hand-over failed, and no write landed since
  #warnedChannel = false; // a message that does not fit on the channel was reported (once)
  #joined = null; // follower: resolves createRuntime() once the tab in charge sent the thread
  #aloneBecause; // why tabs cannot be coordinated, though the store is shared (said once)
  #disposed = false;
  #unloading = false; // the page is going away (pagehide): this runtime stops as a crash would
  #unwatchUnload = null;
  #unregisterFinalizer;
  #release;

  /**
   * @internal use createRuntime(); `loadFailure`: why options.persist's record could not be read;
   * `tabs`: {leadership, role} when other tabs may hold the thread, {reason} when they cannot be told
   */
  constructor(core, tools, options, exported, loadFailure, tabs = null) {
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
    for (const key of ['idleTimeoutMs', 'approvalTimeoutMs', 'saveTimeoutMs']) {
      const ms = options[key];
      if (ms !== undefined && !(typeof ms === 'number' && ms >= 0 && !Number.isNaN(ms))) {
        throw new AguiError(
          'invalid_argument',
          `createRuntime(): options.${key} must be a number of milliseconds >= 0 (0: none), got ${String(ms)}`,
        );
      }
    }
    const config = driverConfig(options, exported);
    // (An export's threadId is checked by the core's import.)
    const threadId = exported?.threadId ?? newThreadId('createRuntime()', options.threadId);
    const driver = openDriver(
      core,
      tools.registry,
      stringArgument('createRuntime(): options.thread.threadId', threadId),
    );
    try {
      unwrap(driver.open(config, Date.now()));
    } catch (e) {
      driver.delete();
      throw e;
    }
    this.#driver = driver;
    this.#handle.driver = driver;
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
    const release = releaser(this.#handle, lease, listeners, toolsListener);
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
        return this.#act('approve', [id], () => this.#step(() => this.#driver.approve(this.threadId, id)));
      },
      reject: (toolCallId, reason = '') => {
        const id = stringArgument('approvals.reject(): toolCallId', toolCallId);
        const why = stringArgument('approvals.reject(): reason', reason);
        return this.#act('reject', [id, why], () => this.#step(() => this.#driver.reject(this.threadId, id, why)));
      },
    };
    this.interrupts = {
      pending: () => this.status.pendingInterrupts,
      resolve: (interruptId, payload = null) => {
        const id = stringArgument('interrupts.resolve(): interruptId', interruptId);
        const answer = jsonArgument('interrupts.resolve(): payload', payload ?? null);
        // (Past its expiresAt, the core cancels it instead.)
        return this.#act('resolveInterrupt', [id, JSON.parse(answer)], () =>
          this.#step(() => this.#driver.resolveInterrupt(id, answer, Date.now())),
        );
      },
      cancel: (interruptId, reason = '') => {
        const id = stringArgument('interrupts.cancel(): interruptId', interruptId);
        const why = stringArgument('interrupts.cancel(): reason', reason);
        return this.#act('cancelInterrupt', [id, why], () => this.#step(() => this.#driver.cancelInterrupt(id, why)));
      },
    };
    this.thread = {
      export: () => {
        this.#live();
        if (this.#role === 'follower')
          throw new AguiError(
            'invalid_state',
            `thread.export(): another tab is in charge of thread '${this.threadId}'`,
          );
        return unwrap(this.#driver.exportThread());
      },
      // (async: after dispose(), a rejection as from any promise of this method, not a throw)
      delete: async () => this.#act('delete', [], () => this.#deleteThread()),
    };
    if (tabs?.leadership) this.#joinTabs(tabs);
    this.#aloneBecause = tabs?.reason;
    if (options.persist && this.#role !== 'follower') this.#keepIn(options.persist, loadFailure, Boolean(exported));
    if (options.persist) this.#watchUnload();
    if (exported) this.#resumeImported();
  }

  // A page being unloaded stops as a crash would: what its handlers and its request give from now on
  // (a fetch the unload cancels: "Failed to fetch") is no result, no more request goes out and
  // nothing more is written. The store keeps the thread as it was; the reloaded page (or the next
  // tab) carries it on from there. Only with a store: without one the thread goes with the page.
  #watchUnload() {
    const win = globalThis.window;
    if (typeof win?.addEventListener !== 'function') return;
    const stop = () => {
      this.#unloading = true;
      this.#journal?.stop();
      this.#halt('the page is being unloaded');
      for (const cancel of this.#timers.values()) cancel();
      this.#timers.clear();
    };
    win.addEventListener('pagehide', stop);
    this.#unwatchUnload = () => win.removeEventListener('pagehide', stop);
  }

  // Disposed, or the page is going away: nothing more is carried out.
  get #halted() {
    return this.#disposed || this.#unloading;
  }

  // Stops this tab's work on the thread without closing anything in it: the request is cancelled,
  // handlers are told to stop (and what they answer is dropped).
  #halt(why) {
    this.#leaveRun();
    this.#cancelInflight(why);
  }

  #leaveRun() {
    if (!this.#run) return;
    this.#leftRun = true;
    this.#run.controller.abort();
    this.#run = null;
  }

  // `holds`: the store had the thread when this runtime opened it.
  #keepIn(store, loadFailure, holds) {
    this.#journal = new Journal({
      store,
      threadId: this.threadId,
      read: (whole) => this.#driver.exportJournal(whole),
      onFailure: (message) => this.#storageFailed(message),
      timeoutMs: this.#options.saveTimeoutMs,
      holds,
    });
    if (!keptThreads.has(store)) keptThreads.set(store, new Set());
    const kept = keptThreads.get(store);
    // (With tabs coordinated, the thread's lock already makes this runtime its one writer.)
    const why =
      !this.#tabs && kept.has(this.threadId)
        ? `thread '${this.threadId}' is already kept in this store by another runtime of this page; this one works in memory`
        : loadFailure;
    if (why) {
      this.#journal.stop(); // what could not be read, or another runtime keeps, is never written over
      setTimeout(() => this.#storageFailed(why), 0); // after the caller's subscribe()
      return;
    }
    if (this.#tabs) return;
    kept.add(this.threadId);
    this.#unkeep = () => kept.delete(this.threadId);
  }

  // Disposes the runtime and deletes its stored thread (after the write in flight, never before).
  async #deleteThread() {
    this.#live();
    const journal = this.#journal;
    if (!journal) throw new AguiError('invalid_state', 'thread.delete(): this runtime has no persist store');
    journal.stop(); // dispose() writes nothing now
    const tabs = this.#tabs;
    this.#tabs = null; // (kept until the thread is gone: no other tab takes charge of it before)
    tabs?.post({ type: 'deleted' });
    this.dispose();
    try {
      await journal.forget();
    } catch (e) {
      throw new AguiError('storage_failed', `thread.delete(): thread '${this.threadId}': ${describeSafely(e)}`);
    } finally {
      tabs?.close();
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
    return unwrap(this.#mirror?.messages ?? this.#driver.messages());
  }

  /** The agent state as the last STATE_SNAPSHOT / STATE_DELTA left it. */
  get state() {
    this.#live();
    return unwrap(this.#mirror?.state ?? this.#driver.state());
  }

  /** {phase, threadId, round, runId?, pendingApprovals, pendingInterrupts, running}. */
  get status() {
    this.#live();
    return unwrap(this.#mirror?.status ?? this.#driver.status());
  }

  /**
   * 'leader': this tab is in charge of the thread (it runs the turns and the handlers);
   * 'follower': another tab is, and this one shows its changes and forwards what the user does;
   * 'alone': no other tab can hold the thread (no shared store, or no Web Locks here).
   */
  get role() {
    return this.#role;
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
   * `options.forwardedProps`: this turn's own, over the runtime's (the core checks them).
   */
  send(textOrMessages, options = {}) {
    this.#live();
    if (textOrMessages === undefined || typeof textOrMessages === 'function' || typeof textOrMessages === 'symbol') {
      throw new AguiError('invalid_argument', 'send() takes a string or an array of messages');
    }
    const input = jsonArgument('send(): textOrMessages', textOrMessages);
    const runOptions = jsonArgument('send(): options', options ?? {});
    if (this.#role === 'follower') return this.#forwardSend(textOrMessages, JSON.parse(runOptions));
    // The core refuses bad input before anything changes; a valid message
    // supersedes a turn in progress (the core closes its calls), so its request
    // is cancelled and its handlers are told to stop.
    const step = unwrap(this.#driver.send(input, runOptions));
    const previous = this.#turn;
    this.#leaveRun();
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
    if (this.#role === 'follower') return this.#command('abort', [why]);
    this.#halt(why || 'aborted');
    this.#carryOut(unwrap(this.#driver.abort(why)));
  }

  /**
   * A side request: a run beside the turn that touches neither the thread nor the loop; resolves to
   * {result} (RUN_FINISHED.result), rejects on RUN_ERROR or a failed request (the core decides).
   * abort() leaves it; dispose() cancels it. A follower asks the tab in charge.
   */
  request(options = {}) {
    this.#live();
    const runOptions = jsonArgument('request(): options', options ?? {});
    if (this.#role === 'follower') return this.#command('request', [JSON.parse(runOptions)]);
    const { runId, body } = unwrap(this.#driver.request(runOptions));
    const controller = new AbortController();
    return new Promise((resolve, reject) => {
      this.#requests.set(controller, reject);
      const settle = (answer) => {
        if (answer.stale) return false;
        if (answer.error) reject(new AguiError(answer.error.code, answer.error.message));
        else if ('result' in answer) resolve({ result: answer.result });
        else return true; // more to read
        this.#requests.delete(controller);
        return false;
      };
      const feed = (bytes, end) => {
        if (this.#disposed) return false;
        const input = this.#driver.inputBuffer(bytes.length);
        if (input === null)
          return settle({
            error: { code: 'limit_exceeded', message: 'request(): a chunk does not fit in the wasm heap' },
          });
        input.set(bytes);
        return settle(JSON.parse(this.#driver.requestFeed(runId, end)));
      };
      postRun({
        ...this.#where(),
        body,
        controller,
        onBytes: (bytes) => feed(bytes, false),
        onEnd: () => feed(new Uint8Array(0), true),
        onFailure: (message) => {
          this.#requests.delete(controller);
          reject(new AguiError('transport', `request(): ${message}`));
          if (!this.#disposed) feed(new Uint8Array(0), true); // closes it in the core (already settled)
        },
      });
    });
  }

  /** Opens another thread that shares this runtime's tools (and their toggles). */
  openThread(options = {}) {
    this.#live();
    if (!options || typeof options !== 'object')
      throw new AguiError('invalid_argument', 'openThread() takes an options object');
    const { thread, ...rest } = options;
    const persist = 'persist' in rest ? checkStore('openThread()', rest.persist) : this.#options.persist;
    if (persist !== undefined && rest.threadId !== undefined && thread === undefined) {
      // It cannot load (it is synchronous), and a new thread under a stored id would be written over it.
      throw new AguiError(
        'invalid_argument',
        'openThread(): a threadId with persist: open a stored thread with openStoredThread(threadId), which loads it',
      );
    }
    if (persist !== undefined && thread !== undefined) {
      // Whether the store holds that thread (then it, not the export, is the thread), or another tab
      // does, is known only asynchronously.
      throw new AguiError(
        'invalid_argument',
        'openThread(): a thread to import with persist: use createRuntime({ persist, thread }), which first loads what the store holds for it',
      );
    }
    const shared = typeof persist?.scope === 'string' && !uncoordinated();
    // A new thread in a shared store: its lock is free (nobody knows its id yet), taken now.
    const threadId = shared ? randomId() : undefined;
    const tabs = shared ? { leadership: new Leadership(persist.scope, threadId), role: 'leader' } : null;
    tabs?.leadership.start();
    try {
      const runtime = new Runtime(
        this.#core,
        this.#tools,
        { ...this.#options, threadId, ...rest },
        thread,
        undefined,
        tabs,
      );
      if (tabs) runtime[JOIN](); // (a leader: it only announces its role)
      return runtime;
    } catch (e) {
      tabs?.leadership.close();
      // The constructor's errors name createRuntime(); here the caller called openThread().
      if (e instanceof AguiError) throw new AguiError(e.code, e.message.replace(/^createRuntime\(\)/, 'openThread()'));
      throw e;
    }
  }

  /**
   * Opens the thread `threadId` that options.persist holds (a new one when it holds none), sharing
   * this runtime's tools and toggles: the asynchronous twin of openThread(), which cannot load.
   */
  async openStoredThread(threadId) {
    this.#live();
    const id = threadIdArgument('openStoredThread(): threadId', threadId);
    if (this.#options.persist === undefined)
      throw new AguiError('invalid_state', 'openStoredThread(): this runtime has no persist store');
    return openRuntime(this.#core, this.#tools, { ...this.#options, threadId: id, thread: undefined });
  }

  dispose() {
    if (this.#disposed) return;
    // With a store, disposing leaves the thread as it is (a reload, openStoredThread() or the next
    // tab carries it on: approvals still pending, a started call closed as one that may have
    // completed); without one, the turn is aborted.
    if (this.#journal) this.#halt('the runtime was disposed');
    else if (this.#role !== 'follower') this.abort('the runtime was disposed');
    for (const [request, reject] of this.#requests) {
      request.abort();
      reject(new AguiError('invalid_state', 'request(): the runtime was disposed'));
    }
    this.#requests.clear();
    this.#unwatchUnload?.();
    // The lock goes once the last write has landed: the tab taking charge then loads all of it.
    const written = this.#journal?.close();
    this.#leaveTabs(written);
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

  // ------------------------------------------------------------ tabs on one thread
  // One tab is in charge (it holds the thread's lock); the others follow it: they show the changes
  // it broadcasts and forward what their user does, which it carries out once. See leadership.js
  // and docs/persistence.md#tabs.

  // A public method: carried out here, or asked of the tab in charge (a promise of its answer).
  #act(op, args, here) {
    this.#live();
    return this.#role === 'follower' ? this.#command(op, args) : here();
  }

  #command(op, args, messageId) {
    const id = randomId();
    return new Promise((resolve, reject) => {
      this.#commands.set(id, { resolve, reject, messageId });
      this.#tabs.post({ type: 'command', id, op, args });
    });
  }

  // A follower's send() goes with an id on its (last) message, made here when the caller gave
  // none: if charge moves before the answer comes, that id says whether the message arrived.
  #forwardSend(textOrMessages, options) {
    let input = textOrMessages;
    if (typeof input === 'string') input = [{ role: 'user', content: input, id: randomId() }]; // (as the core makes it)
    const last = Array.isArray(input) ? input.at(-1) : undefined;
    if (last && typeof last === 'object' && typeof last.id !== 'string')
      input = [...input.slice(0, -1), { ...last, id: randomId() }];
    return this.#command(
      'send',
      [input, options],
      typeof input.at?.(-1)?.id === 'string' ? input.at(-1).id : undefined,
    );
  }

  // The commands asked of a tab that is no longer in charge: a send whose message has an id waits
  // until this tab sees the thread again (#settleUnsure), the others are refused (`why`).
  #rejectCommands(why) {
    const pending = [...this.#commands.values()];
    this.#commands.clear();
    for (const command of pending) {
      if (command.messageId !== undefined && why === this.#changedHands) this.#unsure.push(command);
      else command.reject(new AguiError('invalid_state', why));
    }
  }

  // This tab sees the thread as the tab now in charge has it: each send asked of the previous one
  // is answered by whether its message is in the thread.
  #settleUnsure() {
    const unsure = this.#unsure;
    this.#unsure = [];
    if (unsure.length === 0) return;
    const ids = new Set(this.messages.map((m) => m.id));
    const idle = this.status.phase === 'idle';
    for (const { resolve, reject, messageId } of unsure) {
      if (!ids.has(messageId))
        reject(
          new AguiError(
            'invalid_state',
            `send(): the tab in charge of thread '${this.threadId}' changed before message '${messageId}' reached it: it was not sent (send it again)`,
          ),
        );
      else if (!idle)
        this.#turnWaiters.push(resolve); // (the turn goes on in the tab now in charge)
      else
        resolve({
          reason: 'aborted',
          message: `the tab in charge of thread '${this.threadId}' changed during the turn: message '${messageId}' reached the thread, and its turn was cut short`,
        });
    }
  }

  // A turn ended (here or in the tab in charge): the sends that started it before charge moved
  // get its outcome.
  #turnEnded({ reason, message }) {
    const waiters = this.#turnWaiters;
    this.#turnWaiters = [];
    for (const resolve of waiters) resolve(message === undefined ? { reason } : { reason, message });
  }

  #joinTabs({ leadership, role }) {
    this.#tabs = leadership;
    leadership.onMessage = (message) => this.#disposed || this.#heard(message);
    leadership.onLead = () => this.#takeCharge();
    leadership.onLost = () => this.#lostCharge();
    leadership.onRefused = (why) => this.#goAlone(why);
    if (role === 'follower') this.#follow();
    else this.#role = role;
    this.#watchFocus();
    if (leadership.refusal) this.#goAlone(leadership.refusal);
  }

  // The browser refused the thread's lock or channel (a sandboxed iframe's opaque origin refuses
  // every lock request): no other tab can be told anything, so this runtime is the only one on
  // its thread, and a follower takes charge from the store.
  #goAlone(why) {
    const tabs = this.#tabs;
    if (!tabs || this.#disposed) return;
    this.#aloneBecause = `thread '${this.threadId}' is not coordinated with other tabs: ${why}`;
    this.#unwatchFocus?.();
    this.#clearTimer('mirror');
    this.#clearTimer('handover');
    this.#tabs = null;
    tabs.close();
    if (this.#role === 'follower') {
      this.#rejectCommands(this.#changedHands);
      this.#takeCharge();
      return;
    }
    this.#role = 'alone';
    this.#announceRole(this.#aloneBecause);
  }

  // Tells subscribers the role this runtime has now (in a macrotask: after the caller's subscribe()).
  #announceRole(reason) {
    const change = { kind: 'role_changed', threadId: this.threadId, role: this.#role };
    if (reason) change.reason = reason;
    setTimeout(() => this.#disposed || this.#emit(change), 0);
  }

  // Follows the tab in charge: asks it for the thread (until it answers, this runtime shows what it
  // had: nothing, or the thread as it handed it over).
  #follow() {
    this.#role = 'follower';
    this.#mirror ??= { status: this.#driver.status(), messages: this.#driver.messages(), state: this.#driver.state() };
    this.#tabs.post({ type: 'hello' });
  }

  #heard(message) {
    if (!fitsChannel(message, COMMANDS)) return this.#ignored(message);
    const { type, from } = message;
    if (message.to !== undefined && message.to !== this.#tabs.tabId) return;
    if (this.#role === 'leader') {
      if (type === 'hello') {
        this.#followers.add(from);
        this.#tabs.post({ type: 'step', to: from, changes: [], view: this.#view(true) });
      } else if (type === 'bye') this.#followers.delete(from);
      else if (type === 'command') this.#obey(message);
      else if (type === 'want' && this.#followers.has(from)) {
        // (Only to a tab that said hello: one the thread can be handed to.)
        this.#wanted = from;
        this.#handOverIfIdle();
      }
      return;
    }
    if (type === 'step') {
      Object.assign(this.#mirror, message.view);
      if (message.to !== undefined) {
        this.#emit({ kind: 'messages_replaced', messages: this.messages });
        this.#joined?.();
        this.#settleUnsure();
      }
      this.#deliver(message.changes);
    } else if (type === 'reply') {
      const pending = this.#commands.get(message.id);
      this.#commands.delete(message.id);
      if (message.error) pending?.reject(new AguiError(message.error.code, message.error.message));
      else pending?.resolve(message.value);
    } else if (type === 'leader') {
      this.#rejectCommands(this.#changedHands);
      this.#tabs.post({ type: 'hello' });
      // A want sent while charge was moving reached no tab in charge: asked again, once (two tabs
      // that both report focus, as headless pages do, would otherwise hand the thread to and fro).
      if (this.#wantUnanswered) this.#wantIfFocused?.(true);
      this.#wantUnanswered = false;
    } else if (type === 'handover') this.#tabs.steal();
    else if (type === 'deleted') this.dispose();
  }

  #changedHands = 'the tab in charge of this thread changed before it answered: this may or may not have been done';

  // A message on the thread's channel that no tab sends (another script of the origin posts on it):
  // ignored; said once per runtime, on the console (a page's bug, not the user's).
  #ignored(message) {
    if (this.#warnedChannel) return;
    this.#warnedChannel = true;
    console.warn(
      `agui-client-tools: thread '${this.threadId}': ignored a message on its BroadcastChannel that is not one the tabs send (${describeSafely(message)}); later ones are ignored silently`,
    );
  }

  // The tab in charge carries out a follower's command and answers it (a turn: when it ends).
  #obey({ from, id, op, args }) {
    const reply = (answer) => this.#tabs?.post({ type: 'reply', to: from, id, ...answer });
    const refused = (e) => reply({ error: { code: e?.code ?? 'internal', message: describeSafely(e) } });
    try {
      Promise.resolve(COMMANDS[op](this, args)).then((value) => reply({ value }), refused);
    } catch (e) {
      refused(e);
    }
  }

  // What followers show: the status always, the message list and the state when asked (`full`) or
  // when these changes touched them; while a run streams the list goes at most every interval.
  #view(full, changes = []) {
    const view = { status: this.#driver.status() };
    if (full || changes.some((c) => c.kind === 'state_replaced' || c.kind === 'state_patched'))
      view.state = this.#driver.state();
    if (full || changes.some((c) => !GROWING.has(c.kind))) {
      this.#clearTimer('mirror');
      view.messages = this.#driver.messages();
    } else if (!this.#timers.has('mirror')) {
      // (The message list is due to followers: sent once the interval has passed.)
      this.#setTimer('mirror', MIRROR_INTERVAL_MS, () => {
        if (this.#role === 'leader') this.#tabs.post({ type: 'step', changes: [], view: this.#view(true) });
      });
    }
    return view;
  }

  // The lock came to this tab: the one in charge closed, crashed or handed the thread over (or
  // this one is alone now). The thread is what the store holds (write-ahead: a call that was
  // running is closed as one that may have completed, never run again), with what this tab showed
  // that the store lacks (the tab in charge writes a streaming run at most once a second).
  async #takeCharge() {
    const store = this.#options.persist;
    const loaded = await loadThread(store, this.threadId);
    if (this.#disposed) return;
    this.#clearTimer('handover');
    this.#rejectCommands(this.#changedHands);
    const { failure } = loaded;
    const { thread, lost } = failure ? loaded : withShown(loaded.thread, this.threadId, this.#mirror);
    const driver = openDriver(this.#core, this.#tools.registry, this.threadId);
    try {
      unwrap(driver.open(driverConfig(this.#options, thread ?? undefined), Date.now()));
    } catch (e) {
      driver.delete();
      this.#storageFailed(`taking charge of thread '${this.threadId}' failed: ${describeSafely(e)}`);
      return;
    }
    this.#handle.driver.delete();
    this.#driver = this.#handle.driver = driver;
    this.#partials.forget();
    this.#mirror = null;
    this.#followers.clear(); // (each says hello again on 'leader')
    this.#wantUnanswered = false;
    this.#role = this.#tabs ? 'leader' : 'alone';
    this.#keepIn(store, failure, Boolean(loaded.thread));
    this.#tabs?.post({ type: 'leader' });
    this.#announceRole(this.#tabs ? undefined : this.#aloneBecause);
    this.#emit({ kind: 'messages_replaced', messages: this.messages });
    if (lost?.length)
      this.#storageFailed(
        `taking charge of thread '${this.threadId}': the store lacked what this tab showed of message(s) ${lost.map((id) => `'${id}'`).join(', ')} (the tab in charge closed before writing it); the store's version is kept`,
      );
    this.#settleUnsure();
    if (thread) this.#resumeImported();
  }

  // A follower has the user's focus: once this tab is idle, it hands the thread over, so that the
  // turns (and handlers that want a focused page: the clipboard, a permission prompt) run there.
  // The next tab takes the thread from the store, so the store must hold it. A store that is
  // behind (a write failed) is never handed over from: this tab keeps charge and writes again
  // every HANDOVER_MS, and hands over once a write landed. (Nor is a store whose record this tab
  // could not read: it keeps charge for good.)
  #handOverIfIdle() {
    if (!this.#idleAndWanted() || this.#handing) return;
    const journal = this.#journal;
    if (!journal || journal.stopped) return;
    if (journal.durable && !this.#behind) return this.#handOver();
    this.#handing = true;
    journal.flush().then((landed) => {
      this.#handing = false;
      if (this.#disposed || this.#journal !== journal) return;
      this.#behind = !landed;
      if (landed) this.#idleAndWanted() && this.#handOver();
      else this.#setTimer('write-then-hand-over', HANDOVER_MS, () => this.#handOverIfIdle());
    });
  }

  #idleAndWanted() {
    if (!this.#wanted || this.#role !== 'leader' || this.#turn || this.#run || this.#inflight.size) return false;
    return this.status.phase === 'idle';
  }

  // The store holds the thread: this tab stops writing, follows, and tells the wanting tab to take
  // the lock once its last write landed. Should that write fail, the store is behind again: this tab
  // takes charge back with the thread it has (never the store's).
  #handOver() {
    const to = this.#wanted;
    this.#wanted = null;
    const view = this.#view(true);
    const written = this.#journal.close();
    this.#journal = null;
    this.#mirror = view;
    this.#role = 'follower';
    this.#announceRole();
    written.then((landed) => {
      if (this.#disposed || !this.#tabs) return;
      if (!landed) return this.#resumeCharge(to);
      this.#tabs.post({ type: 'handover', to });
      // Taken back when the other tab does not steal the lock in time (it closed meanwhile).
      this.#setTimer('handover', HANDOVER_MS, () => this.#tabs.leading && this.#takeCharge());
    });
  }

  #resumeCharge(wanted) {
    this.#mirror = null;
    this.#role = 'leader';
    this.#behind = true;
    this.#wanted ??= wanted;
    this.#keepIn(this.#options.persist, undefined, true); // (the store holds an earlier state of it)
    this.#tabs.post({ type: 'leader' }); // (the followers say hello again)
    this.#announceRole();
    this.#setTimer('write-then-hand-over', HANDOVER_MS, () => this.#handOverIfIdle());
  }

  // The lock was taken by the tab this one handed the thread to: follow it, and queue for the lock.
  #lostCharge() {
    this.#clearTimer('handover');
    if (this.#role === 'leader') {
      // (Not expected: only a handed-over thread is taken.) Stop writing and running at once.
      this.#journal?.stop();
      this.#run?.controller.abort();
      this.#run = null;
      this.#cancelInflight('another tab took charge of this thread');
      this.#mirror = this.#view(true);
      this.#follow();
      this.#announceRole();
    }
    this.#tabs.requeue(); // (the tab now in charge says 'leader': this one then says hello)
  }

  // In a browser, a follower asks to take charge when its page has the user's focus.
  #watchFocus() {
    const { window: win, document: doc } = globalThis;
    if (!win?.addEventListener || !doc?.addEventListener) return;
    const want = (again = false) => {
      if (doc.visibilityState !== 'visible' || !doc.hasFocus?.()) return;
      if (this.#role !== 'follower') {
        this.#wanted = null; // (the user is back in the tab in charge: charge stays)
        return;
      }
      this.#tabs?.post({ type: 'want' });
      this.#wantUnanswered ||= again !== true;
    };
    this.#wantIfFocused = want;
    win.addEventListener('focus', want);
    doc.addEventListener('visibilitychange', want);
    this.#unwatchFocus = () => {
      win.removeEventListener('focus', want);
      doc.removeEventListener('visibilitychange', want);
    };
    want();
  }

  // The runtime is disposed: a follower says so; the lock is released once `written` landed.
  /**
   * @internal the end of createRuntime(): a follower waits until the tab in charge sent the thread
   * (or shows the store's after a while); then the role is announced, once the caller can subscribe.
   */
  async [JOIN]() {
    if (this.#role === 'follower') await this.#awaitThread();
    if (this.#tabs || this.#aloneBecause) this.#announceRole(this.#aloneBecause);
  }

  async #awaitThread() {
    let timer;
    const answered = await Promise.race([
      new Promise((resolve) => (this.#joined = () => resolve(true))),
      new Promise((resolve) => (timer = setTimeout(resolve, FOLLOW_TIMEOUT_MS, false))),
    ]);
    clearTimeout(timer);
    this.#joined = null;
    if (answered) return;
    // The tab in charge is busy or frozen: show what the store holds until it answers.
    const { thread } = await loadThread(this.#options.persist, this.threadId);
    if (!thread || this.#disposed || this.#role !== 'follower') return;
    this.#mirror.messages = JSON.stringify(thread.messages ?? []);
    this.#mirror.state = JSON.stringify(thread.state ?? {});
  }

  #leaveTabs(written) {
    const tabs = this.#tabs;
    if (!tabs) return;
    this.#unwatchFocus?.();
    this.#clearTimer('mirror');
    if (this.#role === 'follower') tabs.post({ type: 'bye' });
    this.#rejectCommands('the runtime was disposed');
    for (const { reject } of this.#unsure.splice(0)) reject(new AguiError('invalid_state', 'the runtime was disposed'));
    this.#turnEnded({ reason: 'aborted', message: 'the runtime was disposed' });
    (written ?? Promise.resolve()).then(() => tabs.close());
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
    if (this.#role === 'leader' && this.#followers.size !== 0 && changes.length !== 0)
      this.#tabs.post({ type: 'step', changes, view: this.#view(false, changes) });
    const following = this.#role === 'follower';
    for (let change of changes) {
      if (change.kind === 'tool_call_partial') change = this.#partials.resolve(change, following);
      else if (change.kind === 'tool_call_added' && following) this.#partials.begin(change.toolCall.id);
      else if (change.kind === 'tool_call_ended') this.#partials.forget(change.toolCallId);
      else if (change.kind === 'run_started') this.#partials.forget();
      if (change && this.#subscribers.size !== 0) this.#emit(change);
      if (change?.kind === 'turn_ended' && this.#turnWaiters.length !== 0) this.#turnEnded(change);
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
  // (Handlers and requests write the thread themselves, write-ahead.)
  #carryOut(step, streamed = false) {
    if (this.#halted) return;
    if (step.changes) this.#deliver(step.changes);
    if (step.deadline !== undefined) this.#armDeadline(step.deadline);
    if (step.execute) this.#executeAll(step.execute);
    if (step.run) this.#post(step.run);
    if (step.done) this.#finish(step.done);
    if (step.changes && !step.execute && !step.run) this.#journal?.changed(!streamed);
  }

  // The journal, while it writes the thread (null: the thread lives in memory only).
  get #writing() {
    return this.#journal && !this.#journal.stopped ? this.#journal : null;
  }

  // Write-ahead: with a store, the handlers start once the thread that says they run is durable,
  // and only those the core still holds as running (an abort may have closed them meanwhile). When
  // no write lands, a call runs only when its tool is idempotent; any other is answered "not run":
  // the store holds it as not started, so a reload may still run it, once.
  #executeAll(calls) {
    const journal = this.#writing;
    if (!journal) {
      for (const call of calls) this.#execute(call);
      return;
    }
    journal.writeAhead().then((durable) => {
      if (this.#halted) return;
      const running = new Set(this.status.running);
      for (const call of calls) {
        if (!running.has(call.toolCallId)) continue;
        if (durable || call.idempotent) this.#execute(call);
        else this.#settle(call.toolCallId, { error: `not run: ${unsaved(journal)}` });
      }
    });
  }

  #finish(done) {
    this.#run = null;
    const turn = this.#turn;
    this.#turn = null;
    turn?.resolve({ ...done });
    if (this.#wanted) queueMicrotask(() => this.#disposed || this.#handOverIfIdle());
  }

  /** Where and how every run of this runtime is posted (a turn's runs and side requests alike). */
  #where() {
    return {
      url: String(this.#options.url),
      headers: this.#options.headers,
      fetch: this.#fetch,
      idleTimeoutMs: this.#options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    };
  }

  // Write-ahead: with a store, the request goes out once the thread it carries is durable; when no
  // write lands, it is not sent and the run fails (the turn ends run_error, the thread kept).
  #post({ runId }) {
    const body = heapText(this.#driver.runInput());
    const run = { runId, controller: new AbortController() };
    this.#run = run;
    const journal = this.#writing;
    if (!journal) return this.#send(run, body);
    journal.writeAhead().then((durable) => {
      if (this.#run !== run || this.#halted) return;
      if (durable) return this.#send(run, body);
      this.#run = null;
      const why = `not sent: ${unsaved(journal)}`;
      this.#carryOut(JSON.parse(this.#driver.transportFailed(runId, why)));
    });
  }

  #send(run, body) {
    // The body goes out as the core wrote it; it is parsed only if someone
    // looks (lastInput, a 'request' change), once.
    let input;
    const request = {
      kind: 'request',
      get input() {
        return (input ??= JSON.parse(body));
      },
    };
    this.#lastInput = request;
    const { controller } = run;
    this.#emit(request);
    postRun({
      ...this.#where(),
      body,
      controller,
      emptyRetryDelaysMs: this.#leftRun ? EMPTY_RETRY_DELAYS_MS : [],
      onBytes: (bytes) => {
        if (this.#run !== run || this.#disposed) return false;
        this.#leftRun = false;
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
        this.#settle(call.toolCallId, outcome);
      },
    });
  }

  // A call's outcome ({content} or {error}) to the core.
  #settle(toolCallId, outcome) {
    if (this.#halted) return;
    const text =
      'error' in outcome
        ? this.#driver.submitError(toolCallId, outcome.error)
        : outcome.parts
          ? this.#driver.submitParts(toolCallId, outcome.content)
          : this.#driver.submitResult(toolCallId, outcome.content);
    const step = JSON.parse(text);
    if (!step.error) this.#carryOut(step); // a refused late answer is dropped by design
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

// Why a call was not run or a request not sent (write-ahead): its write did not land.
const unsaved = (journal) => `the thread could not be saved (${journal.failure})`;

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
  checkStore('createRuntime()', options.persist);
  const tools = new ToolSet(core, options);
  let runtime = null;
  try {
    runtime = await openRuntime(core, tools, options);
    for (const tool of options.tools ?? []) runtime.tools.register(tool);
    return runtime;
  } catch (e) {
    // A failed construction frees everything it took.
    if (runtime) runtime.dispose();
    else tools.release();
    throw e;
  }
}

// A runtime for the thread `options` name, on a ToolSet (createRuntime()'s own, or shared by
// openStoredThread()): with a store, it first takes the thread's lock or follows the tab holding it,
// then loads what the store holds.
async function openRuntime(core, tools, options) {
  if (options.persist !== undefined) {
    const exportedId = options.thread?.threadId;
    const threadId =
      exportedId === undefined
        ? newThreadId('createRuntime()', options.threadId)
        : threadIdArgument('createRuntime(): options.thread.threadId', exportedId);
    options = { ...options, threadId }; // (its lock is taken before the runtime exists)
  }
  const tabs = await claimThread(options);
  let runtime;
  try {
    // A follower imports nothing: the tab in charge has the thread.
    const saved = tabs?.role === 'follower' ? {} : await savedThread(options);
    runtime = constructRuntime(core, tools, options, saved, tabs);
  } catch (e) {
    tabs?.leadership?.close();
    throw e;
  }
  await runtime[JOIN]();
  return runtime;
}

// A thread the store holds that the core refuses to import (a message without an id, another
// version's export) is reported as a record that cannot be read: the runtime opens in memory on a
// new thread under that id and never writes over the record. (Opened again without it: a refusal
// that comes from the options, not the thread, is thrown as it was.)
function constructRuntime(core, tools, options, { thread, failure, stored }, tabs) {
  try {
    return new Runtime(core, tools, options, thread, failure, tabs);
  } catch (e) {
    if (!stored) throw e;
    return new Runtime(core, tools, options, undefined, unimportable(options, e), tabs);
  }
}

const unimportable = ({ persist, threadId }, e) =>
  `loading thread '${threadId}' failed: ${storeName(persist)} holds a record for it that cannot be imported ` +
  `(${describeSafely(e)}); it is left as it is, and this runtime works in memory`;

/** A new thread's id: `threadId` when given (checked), else a fresh one. */
function newThreadId(where, threadId) {
  return threadId === undefined ? randomId() : threadIdArgument(`${where}: options.threadId`, threadId);
}

/** `store` (options.persist of `where`) when it is one, else an invalid_argument AguiError; undefined: none. */
function checkStore(where, store) {
  if (store === undefined) return store;
  if (!store || typeof store.load !== 'function' || typeof store.save !== 'function') {
    throw new AguiError(
      'invalid_argument',
      `${where}: options.persist must be a thread store (an object with load() and save(); see memoryStore(), indexedDbStore()), not ${kindOf(store)}`,
    );
  }
  return store;
}

// Whether another tab may hold the thread: then {leadership, role} once this runtime took the
// thread's lock ('leader') or queued for it ('follower'); {reason} when tabs cannot be coordinated.
async function claimThread({ persist: store, threadId }) {
  if (store === undefined || typeof store.scope !== 'string') return null;
  const reason = uncoordinated();
  if (reason) return { reason: `thread '${threadId}' is not coordinated with other tabs: ${reason}` };
  const leadership = new Leadership(store.scope, threadId);
  const role = await leadership.start();
  if (role !== 'alone') return { leadership, role };
  leadership.close(); // (the browser refused the lock or the channel: this tab is on its own)
  return { reason: `thread '${threadId}' is not coordinated with other tabs: ${leadership.refusal}` };
}

// The thread to open: options.thread, else what options.persist holds for options.threadId
// (`stored`: it came from the store). With both, the store is the truth for a stored thread: an
// export cannot know what happened after it was taken (an approved call may have run since), so
// one that differs from what the store holds is refused, and one the same as it simply opened.
async function savedThread(options) {
  const { persist: store, threadId, thread, saveTimeoutMs } = options;
  if (store === undefined) return { thread };
  const saved = await loadThread(store, threadId, saveTimeoutMs);
  if (thread === undefined) return { ...saved, stored: saved.thread !== null };
  // (A record that cannot be read is left as it is: the export is opened in memory.)
  if (saved.thread === null || sameJson(saved.thread, thread)) return { thread, failure: saved.failure };
  throw new AguiError(
    'invalid_argument',
    `createRuntime(): options.thread: ${storeName(store)} (options.persist) already holds thread '${threadId}', ` +
      'further along or apart from this export, and the store is the truth for a stored thread (importing an older export ' +
      `could run an approved call again): open the stored one with createRuntime({ persist, threadId: '${threadId}' }) ` +
      'and no thread, or delete it from the store first',
  );
}

/** Whether two JSON values are equal, key order aside (a store may keep an object's keys in its own order). */
function sameJson(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameJson(a[key], b[key]));
}
