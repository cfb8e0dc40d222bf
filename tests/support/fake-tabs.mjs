// Tabs of one origin inside one node process, for the node tests of tab coordination
// (js-shim/src/leadership.js, the runtime's "tabs on one thread"). Each FakeTab has its own Web
// Locks client, BroadcastChannel endpoints, window and document (whose focus the test moves), and
// a view of the origin's shared store that goes silent when the tab crashes. A runtime is made "in"
// a tab (tab.enter(() => createRuntime(...))): the globals `navigator`, `BroadcastChannel`,
// `window` and `document` are then that tab's, in everything that runtime later does (its timers,
// promises and channel messages carry the tab along, through AsyncLocalStorage), so several tabs'
// runtimes live side by side in one process. What the fakes do follows the specs:
// the Web Locks API (ifAvailable, steal, signal; a stolen holder's request rejects with
// AbortError) and BroadcastChannel (delivered as a task to every other open endpoint of the name).

import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage(); // the FakeTab whose code runs now
for (const name of ['navigator', 'BroadcastChannel', 'window', 'document']) {
  Object.defineProperty(globalThis, name, { configurable: true, get: () => current.getStore()?.[name] });
}

const abortError = () => new DOMException('The request was aborted.', 'AbortError');

/** One origin: its locks, its channels, the tab that has the user's focus. */
export class FakeOrigin {
  locks = new Map(); // name -> {holder, queue}
  endpoints = new Set(); // every open FakeChannel
  refuse = null; // set: every lock request rejects with it (an opaque origin's SecurityError)
  tabs = [];

  tab(name) {
    const tab = new FakeTab(this, name ?? `tab ${this.tabs.length}`);
    this.tabs.push(tab);
    return tab;
  }

  /** Posts `data` on channel `name` as a script of the origin that is no runtime would. */
  inject(name, data) {
    for (const endpoint of this.endpoints) if (endpoint.name === name) endpoint.deliver(data);
  }

  /** The names of the channels open now (one per runtime on a coordinated thread). */
  channelNames() {
    return [...new Set([...this.endpoints].map((e) => e.name))];
  }

  lock(name) {
    if (!this.locks.has(name)) this.locks.set(name, { holder: null, queue: [] });
    return this.locks.get(name);
  }

  grantNext(name) {
    const lock = this.lock(name);
    if (lock.holder || lock.queue.length === 0) return;
    this.grant(name, lock.queue.shift());
  }

  grant(name, entry) {
    const lock = this.lock(name);
    lock.holder = entry;
    entry.signal?.removeEventListener('abort', entry.onAbort);
    // (The callback runs as the requesting tab's code, whoever released the lock.)
    current.run(entry.tab, () =>
      queueMicrotask(async () => {
        let result;
        try {
          result = await entry.callback({ name, mode: 'exclusive' });
        } catch (e) {
          if (lock.holder === entry) entry.reject(e);
        }
        // (Released when the callback's promise settles, unless it was stolen or its tab crashed.)
        if (lock.holder !== entry) return;
        lock.holder = null;
        entry.resolve(result);
        this.grantNext(name);
      }),
    );
  }
}

export class FakeTab {
  dead = false;
  focused = false;
  #origin;

  constructor(origin, name) {
    this.#origin = origin;
    this.name = name;
    this.window = new EventTarget();
    const doc = new EventTarget();
    doc.visibilityState = 'visible';
    doc.hasFocus = () => this.focused;
    this.document = doc;
    const tab = this;
    this.navigator = { locks: { request: (...args) => tab.#request(...args) } };
    this.BroadcastChannel = class extends FakeChannel {
      constructor(name) {
        super(tab, origin, name);
      }
    };
  }

  /** Runs `open` (a createRuntime()) as this tab's code; resolves to what it resolves to. */
  enter(open) {
    return current.run(this, open);
  }

  /** The user focuses this tab (and leaves the one they were in). */
  focus() {
    for (const other of this.#origin.tabs) if (other !== this) other.focused = false;
    this.focused = true;
    current.run(this, () => this.window.dispatchEvent(new Event('focus')));
  }

  /**
   * The tab's process dies: its locks are released, its channels carry nothing more, and the
   * store's writes it had begun and any later ones never land.
   */
  crash() {
    this.dead = true;
    for (const [name, lock] of this.#origin.locks) {
      lock.queue = lock.queue.filter((e) => e.tab !== this);
      if (lock.holder?.tab === this) {
        lock.holder = null;
        this.#origin.grantNext(name);
      }
    }
    for (const endpoint of [...this.#origin.endpoints]) if (endpoint.tab === this) endpoint.close();
  }

  /** `store` as this tab sees it: once the tab crashed, nothing it asks of the store settles. */
  view(store) {
    const never = new Promise(() => {});
    const view = { scope: store.scope };
    for (const method of ['load', 'save', 'append', 'list', 'delete']) {
      if (typeof store[method] !== 'function') continue;
      view[method] = async (...args) => {
        if (this.dead) return never;
        const result = await store[method](...args);
        return this.dead ? never : result;
      };
    }
    return view;
  }

  #request(name, options, callback) {
    if (typeof options === 'function') [options, callback] = [{}, options];
    const origin = this.#origin;
    if (origin.refuse) return Promise.reject(origin.refuse);
    if (options.signal?.aborted) return Promise.reject(abortError());
    const lock = origin.lock(name);
    return new Promise((resolve, reject) => {
      const entry = { tab: this, callback, resolve, reject, signal: options.signal };
      if (options.steal) {
        const stolen = lock.holder;
        lock.holder = null;
        stolen?.reject(abortError());
        origin.grant(name, entry);
      } else if (lock.holder || lock.queue.length) {
        if (options.ifAvailable) {
          Promise.resolve()
            .then(() => callback(null))
            .then(resolve, reject);
          return;
        }
        lock.queue.push(entry);
        entry.onAbort = () => {
          lock.queue = lock.queue.filter((e) => e !== entry);
          reject(abortError());
        };
        options.signal?.addEventListener('abort', entry.onAbort, { once: true });
      } else origin.grant(name, entry);
    });
  }
}

class FakeChannel {
  onmessage = null;
  #closed = false;

  constructor(tab, origin, name) {
    this.tab = tab;
    this.origin = origin;
    this.name = String(name);
    origin.endpoints.add(this);
  }

  postMessage(data) {
    if (this.tab.dead) return; // (a crashed tab runs nothing: the runtime left in node says nothing more)
    if (this.#closed) throw new DOMException('BroadcastChannel is closed.', 'InvalidStateError');
    for (const endpoint of this.origin.endpoints)
      if (endpoint !== this && endpoint.name === this.name) endpoint.deliver(data);
  }

  deliver(data) {
    const copy = structuredClone(data);
    current.run(this.tab, () => setTimeout(() => this.#closed || this.tab.dead || this.onmessage?.({ data: copy }), 0));
  }

  close() {
    this.#closed = true;
    this.origin.endpoints.delete(this);
  }
}
