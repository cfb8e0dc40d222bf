// Which tab is in charge of a thread kept in a store every tab of the origin shares
// (indexedDbStore): the one holding the thread's Web Lock. The others queue for the lock, so when
// the tab in charge closes or crashes (the browser then releases its lock) the next one takes
// over; meanwhile they follow it over the thread's BroadcastChannel. This file only does that
// I/O; what the roles do is the runtime's (runtime.js, docs/persistence.md#tabs). Where the
// browser refuses either (a sandboxed iframe's opaque origin refuses every lock request with a
// SecurityError), `refusal` says why, and the runtime works as the only tab.
import { describeSafely } from './errors.js';
import { randomId } from './options.js';

/** Why the tabs sharing a store (it has a `scope`) cannot be coordinated here, or '' when they can. */
export function uncoordinated() {
  let locks;
  try {
    locks = globalThis.navigator?.locks;
  } catch (e) {
    return `Web Locks refused: ${describeSafely(e)}`;
  }
  if (typeof locks?.request !== 'function') return 'this environment has no Web Locks API';
  if (typeof globalThis.BroadcastChannel !== 'function') return 'this environment has no BroadcastChannel';
  return '';
}

export class Leadership {
  #name;
  #locks = null;
  #channel = null;
  #release = null; // resolves the held lock's promise: releases it
  #cancel = new AbortController(); // cancels a queued request
  #closed = false;
  tabId = randomId(); // this runtime's name on the channel
  onLead = () => {}; // the lock was granted to a runtime that was waiting for it
  onLost = () => {}; // the lock was taken from the runtime holding it (another tab stole it)
  onMessage = () => {};
  onRefused = () => {}; // (reason) a lock request was refused: the runtime is alone
  refusal = ''; // why the browser refused the lock or the channel ('' while it has not)

  constructor(scope, threadId) {
    this.#name = `agui-client-tools:${scope}:${threadId}`;
    try {
      this.#locks = navigator.locks; // (kept: the tab's lock manager, whatever the global says later)
    } catch (e) {
      this.refusal = `Web Locks refused: ${describeSafely(e)}`;
      return;
    }
    try {
      this.#channel = new BroadcastChannel(this.#name);
      this.#channel.onmessage = (e) => this.#closed || this.onMessage(e.data);
    } catch (e) {
      this.refusal = `BroadcastChannel refused: ${describeSafely(e)}`;
    }
  }

  /** Takes the lock if it is free ('leader'), else queues for it ('follower'); 'alone': refused. */
  async start() {
    if (!this.refusal && (await this.#acquire({ ifAvailable: true }))) return 'leader';
    if (this.refusal) return 'alone';
    this.#queue();
    return 'follower';
  }

  get leading() {
    return this.#release !== null;
  }

  post(message) {
    if (!this.#closed && this.#channel) this.#channel.postMessage({ ...message, from: this.tabId });
  }

  /** Takes the lock from the tab holding it, which handed the thread over (see handover). */
  steal() {
    this.#cancel.abort(); // (this runtime's queued request)
    this.#cancel = new AbortController();
    this.#acquire({ steal: true }).then((got) => got && !this.#closed && this.onLead());
  }

  /** Gives the lock up and queues for it again (once a handover did not happen). */
  requeue() {
    this.#release?.();
    this.#release = null;
    this.#queue();
  }

  close() {
    this.#closed = true;
    this.#cancel.abort();
    this.#release?.();
    this.#release = null;
    this.#channel?.close();
  }

  #queue() {
    this.#acquire({ signal: this.#cancel.signal }).then((got) => got && !this.#closed && this.onLead());
  }

  // Resolves true once the lock is held (until #release is called), false when it was not free
  // (ifAvailable), the request was cancelled or refused. A held lock stolen by another tab calls
  // onLost; a refusal (anything but the AbortError of a cancelled request) sets `refusal` and
  // calls onRefused.
  #acquire(options) {
    return new Promise((granted) => {
      let held = false;
      const refused = (e) => {
        this.refusal = `Web Locks refused: ${describeSafely(e)}`;
        granted(false);
        if (!this.#closed) this.onRefused(this.refusal);
      };
      let request;
      try {
        request = this.#locks.request(this.#name, options, (lock) => {
          if (!lock || this.#closed) return granted(false);
          held = true;
          granted(true);
          return new Promise((release) => (this.#release = release));
        });
      } catch (e) {
        return refused(e);
      }
      Promise.resolve(request).catch((e) => {
        // AbortError: the queued request was cancelled, or the held lock was stolen.
        if (held) {
          this.#release = null;
          if (!this.#closed) this.onLost();
        } else if (e?.name === 'AbortError') granted(false);
        else refused(e);
      });
    });
  }
}
